package rules

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Judge applies the mutator's patch to the decoded metadata instead of the bytes when it can:
// both ways give the same object.
func TestPatchMetadataMatchesJSONPatch(t *testing.T) {
	gk := schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}
	objects := []string{
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"t","namespace":"ns"}}`,
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"generateName":"t-","namespace":"ns"}}`,
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"generateName":"t-","namespace":"ns","labels":{"kuma.io/zone":"east","a/b~c":"x"},"annotations":{}}}`,
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"t","labels":{"k8s.kuma.io/namespace":"kuma-demo"},"annotations":{"kriguard.io/kri":"kri_mt_default__x_t_"}}}`,
		`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"generateName":"T_-","labels":{"kuma.io/display-name":"shown"}}}`,
	}
	c := DefaultConfig()
	g, _ := c.guarded(gk)
	for i, raw := range objects {
		obj, err := decodeObject(runtime.RawExtension{Raw: []byte(raw)}, "object", gk, false)
		if err != nil {
			t.Fatal(err)
		}
		ops := c.patch(g, obj, true, true)
		fast, ok := patchMetadata(obj, ops)
		if !ok {
			t.Errorf("object %d: the mutator's patch %v was not applied to the metadata", i, ops)
			continue
		}
		slow, err := applyPatch([]byte(raw), ops, gk, false)
		if err != nil {
			t.Fatal(err)
		}
		if f, s := fmt.Sprintf("%+v", *fast), fmt.Sprintf("%+v", *slow); f != s {
			t.Errorf("object %d, patch %v:\nmetadata patch %s\nJSON patch     %s", i, ops, f, s)
		}
	}
}
