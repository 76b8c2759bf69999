package main

import (
	"os/exec"
	"strings"
	"testing"
)

func TestVetTool(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"-strict", "-prefixes=self_", "/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"./..."}, false},
		{[]string{"-json", "./cmd/..."}, false},
		{[]string{"-V=full"}, false},
		{nil, false},
	} {
		if got := vetTool(tt.args); got != tt.want {
			t.Errorf("vetTool(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// heavy are packages krilint must not link: go vet starts it once per package, and these cost
// every start. net and os/user have cgo, which links the C library dynamically (the loader and
// libc's start-up in every process); klog and apimachinery's validation (which imports both, and
// compiles regular expressions at init) came with them through naming (docs/krilint.md,
// "Start-up").
var heavy = []string{"net", "os/user", "runtime/cgo", "k8s.io/klog/v2", "k8s.io/apimachinery/pkg/util/validation"}

func TestStartupDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, dep := range deps {
		for _, h := range heavy {
			if dep == h {
				t.Errorf("krilint depends on %s (go list -deps ./cmd/krilint): it costs every vet process's start-up", dep)
			}
		}
	}
}
