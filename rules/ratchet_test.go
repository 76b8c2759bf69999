package rules

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValuesAt: paths that print alike (a key with a dot) never count as the same value.
func TestValuesAt(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"spec":{"a.b":{"x":1},"a":{"b":{"x":1}},"l":[{"x":2}]},"metadata":{"labels":{"k.io/m":"v"}}}`), &v); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		n    int
	}{
		{"spec.a.b.x", 2}, {"spec.l[0].x", 1}, {"spec.l[1].x", 0}, {"spec.l[x]", 0},
		{"metadata.labels[k.io/m]", 1}, {"metadata.labels[k.io/n]", 0}, {"spec", 1},
	} {
		if _, n := valuesAt(v, tt.path, true); n != tt.n {
			t.Errorf("valuesAt(%s) names %d places, want %d", tt.path, n, tt.n)
		}
	}
}

// FuzzValuesAt reads field paths, as the ratchet does, in arbitrary documents: it never panics,
// names at most "two" places, and an unambiguous path holds the same value as itself.
func FuzzValuesAt(f *testing.F) {
	f.Add([]byte(`{"spec":{"a.b":{"x":1},"a":{"b":{"x":1}},"l":[{"x":2}]}}`), "spec.a.b.x")
	f.Add([]byte(`{"metadata":{"labels":{"k.io/m":"v","k]":"w"}}}`), "metadata.labels[k]]")
	f.Add([]byte(`{"spec":{"l":[[1,[2]]]}}`), "spec.l[0][1][0]")
	f.Add([]byte(`{"":{"":[]}}`), ".[0]")
	f.Fuzz(func(t *testing.T, doc []byte, path string) {
		var v any
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		_, n := valuesAt(v, path, true)
		if n < 0 || n > 2 {
			t.Fatalf("valuesAt(%s) names %d places", path, n)
		}
		if n <= 1 && !sameValueAt(v, v, path) {
			t.Fatalf("the value at %s differs from itself", path)
		}
	})
}

// TestUnchangedKRIAnnotation: an UPDATE is not denied for a kriguard.io/kri annotation it leaves as
// it was, even when it changes the KRI, as Kuma's store does when it updates a synced object's
// labels; writing a wrong value, on CREATE or UPDATE, is still denied.
func TestUnchangedKRIAnnotation(t *testing.T) {
	obj := func(mesh, annotation string) string {
		a := ""
		if annotation != "" {
			a = `,"annotations":{"kriguard.io/kri":"` + annotation + `"}`
		}
		return `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"backend","namespace":"ns","labels":{"kuma.io/mesh":"` + mesh + `","k8s.kuma.io/namespace":"ns"}` + a + `}}`
	}
	const onDefault, onOther = "kri_mt_default__ns_backend_", "kri_mt_other__ns_backend_"
	c := DefaultConfig()
	for _, tc := range []struct {
		name        string
		op          admissionv1.Operation
		old, object string
		denied      bool
		kept        bool
	}{
		{"update changes the mesh, annotation untouched", admissionv1.Update, obj("default", onDefault), obj("other", onDefault), false, true},
		{"update keeps a stale annotation", admissionv1.Update, obj("other", onDefault), obj("other", onDefault), false, true},
		{"update writes a wrong annotation", admissionv1.Update, obj("other", ""), obj("other", onDefault), true, false},
		{"update replaces the annotation with a wrong one", admissionv1.Update, obj("other", onOther), obj("other", onDefault), true, false},
		{"update fixes the annotation", admissionv1.Update, obj("default", onDefault), obj("other", onOther), false, false},
		{"create with a wrong annotation", admissionv1.Create, "", obj("other", onDefault), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, record := range []RecordKRI{RecordKRIAdmission, RecordKRIOff} {
				r := Request{Phase: Validate, Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, Operation: tc.op,
					Object: []byte(tc.object), RecordKRI: record}
				if tc.old != "" {
					r.OldObject = []byte(tc.old)
				}
				d, err := c.Decide(context.Background(), r)
				if err != nil {
					t.Fatal(err)
				}
				if d.Allowed == tc.denied {
					t.Errorf("record %s: allowed %v, want %v (errors %v)", record, d.Allowed, !tc.denied, d.Errors())
				}
				kept := slices.ContainsFunc(d.PreExisting(), func(fe *field.Error) bool { return fe.Origin == string(RuleKRIAnnotation) })
				if kept != tc.kept {
					t.Errorf("record %s: annotation problem kept %v, want %v (kept %v)", record, kept, tc.kept, d.PreExisting())
				}
			}
		})
	}
}
