package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/naming/kong"
)

// TestDemo runs the demo program (`make demo` without KEEP) on a control plane of its own: every
// example must have the outcome it states, and the deterministic names must be the ones the naming
// packages compute.
func TestDemo(t *testing.T) {
	bin, err := goBuild("./hack/demo", "demo")
	if err != nil {
		t.Fatal(err)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(root, "examples")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-examples", examples, "-workdir", t.TempDir())
	cmd.Env = append(os.Environ(), "KEEP=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")

	files, err := filepath.Glob(filepath.Join(examples, "*.yaml"))
	if err != nil || len(files) < 8 {
		t.Fatalf("want at least 8 examples, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		if !hasLinePrefix(lines, "[ok] "+filepath.Base(f)+": ") {
			t.Errorf("no [ok] line for %s", filepath.Base(f))
		}
	}
	for _, step := range []string{"starting kube-apiserver and etcd", "starting kriguard webhook", "waiting for certificate"} {
		if !hasLinePrefix(lines, step) {
			t.Errorf("the demo did not announce %q", step)
		}
	}

	n := operatorNames()
	for file, created := range map[string]string{
		"08-kuma-meshtimeout-generatename.yaml":    "meshtimeout/" + hashsuffix.Name("default", "timeouts"),
		"09-kuma-meshretry-generatename-zone.yaml": "meshretry/" + hashsuffix.Name("default", "retries", "east", "kuma-demo"),
		"16-kong-pluginbinding-generatename.yaml":  "kongpluginbinding/" + kong.PluginBindingName("http.kong-demo-echo.cp72966f1a.479e33b4.m01", n.plugin),
		"17-kong-route-operator-name.yaml":         "kongroute/" + n.route,
		"19-kong-target-generated.yaml":            "kongtarget/" + n.target,
		"03-kuma-meshtimeout-bad-mesh.yaml":        "",
		"07-kuma-mesh-bad-mesh-field.yaml":         "",
		"10-kuma-meshservice-dotted-name-sni.yaml": "",
		"10-kuma-dataplane-custom-mesh.yaml":       "dataplane/backend-7d9f",
		"15-kong-pluginbinding-bad-name.yaml":      "",
		"01-kuma-meshservice.yaml":                 "meshservice/backend",
	} {
		want := "[ok] " + file + ": created " + created + " "
		if created == "" {
			want = "[ok] " + file + ": rejected: " + deniedPrefix
		}
		if !hasLinePrefix(lines, want) {
			t.Errorf("no line starting with %q", want)
		}
	}
	if t.Failed() {
		t.Logf("demo output:\n%s", out)
	}
}

func hasLinePrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
