package admissionpolicy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFor(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: kriguard.io/v1alpha1\nkind: Configuration\nrequesters: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "policies.yaml")
	if err := WriteFor(cfg, Options{Prefix: "guard", ExcludeNamespaces: []string{"guard-system"}}, out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\nkind: ValidatingAdmissionPolicy\n")); n != 39 {
		t.Errorf("%d policies, want one per built-in kind (39)", n)
	}
	if !bytes.Contains(data, []byte("name: guard.meshtimeout.kuma.io\n")) || !bytes.Contains(data, []byte("- guard-system\n")) {
		t.Error("the prefix or the excluded namespace is missing")
	}

	if err := os.WriteFile(cfg, []byte("apiVersion: kriguard.io/v1alpha1\nkind: Configuration\ndefaultEnforcement: block\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = WriteFor(cfg, Options{}, out)
	if err == nil || !strings.Contains(err.Error(), "defaultEnforcement") {
		t.Errorf("a bad configuration: %v", err)
	}
}
