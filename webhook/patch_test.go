package webhook

import (
	"bytes"
	"encoding/json"
	"testing"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// TestAppendPatch: the patches the mutating webhook answers are encoded by hand, byte for byte as
// json.Marshal encodes them; others are left to it.
func TestAppendPatch(t *testing.T) {
	for _, tt := range []struct {
		name string
		ops  []jsonpatch.Operation
		ok   bool
	}{
		{"annotation map", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/annotations", map[string]string{"kriguard.io/kri": "kri_mtimeout_mesh-1__kuma-system_t_"})}, true},
		{"generateName", []jsonpatch.Operation{
			jsonpatch.NewOperation("add", "/metadata/name", "backend-zd4w8z7w8vzx2c5b"),
			jsonpatch.NewOperation("add", "/metadata/annotations", map[string]string{"kuma.io/display-name": "backend", "kriguard.io/kri": "kri_mtimeout_default___backend_"}),
		}, true},
		{"annotation member", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/annotations/kriguard.io~1kri", "kri_mesh____default_")}, true},
		{"empty map", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/labels", map[string]string{})}, true},
		{"escaped value", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/name", "a<b")}, false},
		{"escaped key", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/annotations", map[string]string{"a\"": "b"})}, false},
		{"nil value", []jsonpatch.Operation{jsonpatch.NewOperation("remove", "/metadata/name", nil)}, false},
		{"nil map", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/labels", map[string]string(nil))}, false},
		{"other value", []jsonpatch.Operation{jsonpatch.NewOperation("add", "/spec/replicas", 3)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appendPatch(nil, tt.ops)
			if ok != tt.ok {
				t.Fatalf("appendPatch ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			want, err := json.Marshal(tt.ops)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("appendPatch:\n %s\nwant\n %s", got, want)
			}
		})
	}
}

// TestCompleteEncodesPatch: complete answers the patch Response.Complete answers, encoded by hand
// or not.
func TestCompleteEncodesPatch(t *testing.T) {
	for _, ops := range [][]jsonpatch.Operation{
		{jsonpatch.NewOperation("add", "/metadata/annotations", map[string]string{"kriguard.io/kri": "kri_mesh____default_"})},
		{jsonpatch.NewOperation("add", "/metadata/name", "a&b")},
	} {
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "u"}}
		got, want := admission.Patched("", ops...), admission.Patched("", ops...)
		if err := complete(&got, &req); err != nil {
			t.Fatal(err)
		}
		if err := want.Complete(req); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Patch, want.Patch) || *got.PatchType != *want.PatchType || got.UID != want.UID || got.Result.Code != want.Result.Code {
			t.Errorf("complete: patch %s (%s), Complete: %s (%s)", got.Patch, *got.PatchType, want.Patch, *want.PatchType)
		}
	}
}

// FuzzAppendPatch holds appendPatch to json.Marshal for operations of any op, path and string or
// map value.
func FuzzAppendPatch(f *testing.F) {
	f.Add("add", "/metadata/annotations", true, "kriguard.io/kri", "kri_mesh____default_", "", "")
	f.Add("add", "/metadata/name", false, "", "backend-zd4w8z7w8vzx2c5b", "", "")
	f.Add("replace", "/a~1b", true, "b", "\u2028", "a", "<")
	f.Add("add", "/x", true, "", "", "é", "\xff")
	f.Fuzz(func(t *testing.T, op, path string, isMap bool, k1, v1, k2, v2 string) {
		var value any = v1
		if isMap {
			m := map[string]string{k1: v1}
			if k2 != "" {
				m[k2] = v2
			}
			value = m
		}
		ops := []jsonpatch.Operation{jsonpatch.NewOperation(op, path, value), jsonpatch.NewOperation("add", "/metadata/name", v2)}
		got, ok := appendPatch(nil, ops)
		if !ok {
			return
		}
		want, err := json.Marshal(ops)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("appendPatch:\n %s\nwant\n %s", got, want)
		}
	})
}
