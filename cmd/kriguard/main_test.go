package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The binary as a user runs it: version set at build time, exit statuses from the process.
func TestBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kriguard")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.9.9-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bad := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  labels:\n    kuma.io/mesh: Mesh_1\n"
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "version", args: []string{"--version"}, stdout: "kriguard v9.9.9-test ("},
		{name: "denied", args: []string{"check", "-"}, stdin: bad, code: 1, stdout: `-:1: MeshTimeout t: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1"`},
		{name: "usage", args: []string{"check"}, code: 2, stderr: "kriguard check: no PATH given"},
		{name: "input error", args: []string{"check", "-"}, stdin: "kind: [", code: 2, stderr: "-:1: error: invalid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.HasPrefix(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout starting %q, stderr with %q",
					code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}
