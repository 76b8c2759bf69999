package cli

import (
	"strings"
	"testing"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/rules"
)

// TestPolicy checks that kriguard policy prints what the generator makes of the same configuration and
// options, so the command and the chart's checked-in policies never drift apart.
func TestPolicy(t *testing.T) {
	dir := t.TempDir()
	config := writeFile(t, dir, "config.yaml", `apiVersion: kriguard.io/v1alpha1
kind: Configuration
defaultEnforcement: warn
`)
	cfg, err := rules.LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	o := admissionpolicy.Options{Prefix: "acme", ExcludeNamespaces: []string{"kriguard-system", "infra"}, OptOutLabel: "acme.io/unguarded"}
	objs, err := admissionpolicy.Generate(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := objs.YAML()
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, "", "policy", "--config", config, "--prefix", "acme",
		"--exclude-namespace", "kriguard-system", "--exclude-namespace", "infra", "--opt-out-label", "acme.io/unguarded")
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.stdout != string(want) {
		t.Errorf("kriguard policy printed something else than the generator:\n%s", r.stdout)
	}
	for _, s := range []string{"name: acme.meshtimeout.kuma.io", "validationActions:\n  - Warn", "kriguard-system", "acme.io/unguarded"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	if strings.Contains(r.stdout, "- Deny") {
		t.Error("a configuration that only warns produced a Deny action")
	}
}
