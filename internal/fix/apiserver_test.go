package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/internal/testenv"
)

// TestKuma30Schemas applies the test policies, before and after Rewrite, to a kube-apiserver
// serving Kuma 3.0's own CRDs, with server-side dry run and strict field validation: the 2.14
// references by name are fields 3.0's schemas do not have (it would drop them without a word), and
// every rewritten document is accepted as it is. Only the documents fix names for a human are
// not: a kind 3.0 removed. (A name 3.0 refuses is Kuma's webhook's to refuse, not its schema's.)
func TestKuma30Schemas(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{Kuma: testenv.Kuma30})
	ns := env.NewNamespace(t)
	src, err := os.ReadFile(filepath.Join("testdata", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := rewrite(t, string(src))

	apply := func(doc []byte) (kind string, err error) {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		if obj.Object == nil {
			return "", nil
		}
		if obj.GetNamespace() != "" {
			obj.SetNamespace(ns)
		}
		return obj.GetKind(), env.Client.Create(context.Background(), obj, client.DryRunAll, client.FieldValidation("Strict"))
	}

	unknownBefore := 0
	for _, c := range splitDocuments(src) {
		kind, err := apply(c.text)
		if err != nil && strings.Contains(err.Error(), `unknown field "spec.`) {
			unknownBefore++
			for _, f := range []string{"name", "namespace"} {
				if !strings.Contains(err.Error(), "."+f+`"`) {
					t.Errorf("%s at line %d: the error does not name the %s field: %v", kind, c.line, f, err)
				}
			}
		}
	}
	if unknownBefore != 2 {
		t.Errorf("%d documents of the 2.14 file have fields 3.0's schemas lack, want 2 (the MeshTimeout and the MeshHTTPRoute)", unknownBefore)
	}

	for _, c := range splitDocuments(res.Output) {
		kind, err := apply(c.text)
		switch {
		case kind == "MeshGateway":
			if err == nil {
				t.Errorf("a MeshGateway was accepted by Kuma 3.0's CRDs")
			}
		case err != nil:
			t.Errorf("%s at line %d of the rewritten file: %v", kind, c.line, err)
		}
	}
}
