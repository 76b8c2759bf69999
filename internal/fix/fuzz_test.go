package fix

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// FuzzRewrite rewrites arbitrary input: it never panics, what it writes reads back as YAML with
// the same number of documents, rewriting that again changes nothing, and input without an edit
// comes out byte for byte.
func FuzzRewrite(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: a}\nspec:\n  targetRef: {kind: Dataplane, name: x}\n",
		"apiVersion: v1\nkind: Service\nmetadata:\n  annotations:\n    kuma.io/mesh: m\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    labels: ~\n    annotations: {kuma.io/mesh: m}\n",
		"apiVersion: kuma.io/v1alpha1\nkind: MeshHTTPRoute\nmetadata:\n  namespace: a\nspec:\n  to:\n  - rules:\n    - default:\n        backendRefs:\n        - &r {kind: MeshService, name: b}\n        - *r\n",
		"apiVersion: kuma.io/v1alpha1\r\nkind: MeshTimeout\r\nmetadata:\r\n  namespace: a\r\nspec:\r\n  targetRef:\r\n    kind: Dataplane\r\n    name: |\r\n      x\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := Rewrite(in, Options{Release: naming.Kuma3_0})
		if err != nil {
			return
		}
		if len(res.Changes) == 0 && !bytes.Equal(res.Output, in) {
			t.Fatalf("no change recorded, but the output differs:\n%s", UnifiedDiff("in", in, res.Output))
		}
		docs := 0
		for _, c := range splitDocuments(in) {
			if d, _ := parseDocument(c.text); d != nil {
				docs++
			}
		}
		outDocs := 0
		for _, c := range splitDocuments(res.Output) {
			d, err := parseDocument(c.text)
			if err != nil {
				t.Fatalf("the output does not read back: line %d: %v\n%s", c.line, err, res.Output)
			}
			if d != nil {
				outDocs++
			}
		}
		if docs != outDocs {
			t.Fatalf("%d documents in, %d out:\n%s", docs, outDocs, res.Output)
		}
		again, err := Rewrite(res.Output, Options{Release: naming.Kuma3_0})
		if err != nil {
			t.Fatalf("rewriting the output: %v\n%s", err, res.Output)
		}
		if len(again.Changes) > 0 || !bytes.Equal(again.Output, res.Output) {
			t.Fatalf("a second run changes %+v:\n%s", again.Changes, UnifiedDiff("once", res.Output, again.Output))
		}
	})
}
