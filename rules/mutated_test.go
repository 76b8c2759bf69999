package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestMutatedOperations holds MutatedOperations and MutateCondition, which the chart's mutating
// webhook rules and matchConditions follow, to what the mutating decision does: for every default
// kind and both settings of RecordKRI, objects that a patch could be made for (generateName, the
// fields Kong names are made of, a mesh, no kriguard.io/kri annotation, a stale one, an empty name)
// are decided on CREATE and UPDATE, and an operation that patches must be one MutatedOperations
// lists, of an object the condition admits (test/chart holds its CEL to the API server's reading).
// Each operation it lists must patch at least one of them, so that the chart routes nothing the
// mutating webhook never changes.
func TestMutatedOperations(t *testing.T) {
	c := DefaultConfig()
	for _, record := range []RecordKRI{RecordKRIAdmission, RecordKRIOff} {
		for _, k := range c.GuardedKinds() {
			t.Run(string(record)+"/"+k.Kind, func(t *testing.T) {
				testMutatedOperations(t, c, k, record)
			})
		}
	}
}

func testMutatedOperations(t *testing.T, c *Config, k KindConfig, record RecordKRI) {
	gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
	want := MutatedOperations(gk, record)
	// admits mirrors MutateCondition's CEL (GeneratedNameCondition) in Go.
	admits := func(op admissionv1.Operation, meta map[string]any) bool {
		if MutateCondition(record) == "" {
			return true
		}
		name, _ := meta["name"].(string)
		generateName, _ := meta["generateName"].(string)
		return op == admissionv1.Create && generateName != "" && name == ""
	}
	patched := map[admissionv1.Operation]bool{}
	stale := map[string]any{"kriguard.io/kri": "kri_mt_default___stale_"}
	for _, meta := range []map[string]any{
		{"generateName": "backend-", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
		{"generateName": "backend-", "name": "", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
		{"generateName": "backend-", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}, "annotations": stale},
		{"generateName": "backend-", "name": "backend", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
		{"name": "backend", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
		{"name": "backend", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}, "annotations": stale},
		{"name": "backend", "labels": map[string]any{"kuma.io/mesh": "default"}},
		{"name": "backend", "namespace": "kuma-system"}, // the kinds of no mesh
		{"name": "backend"},
	} {
		for _, mesh := range []any{nil, "default"} { // the top-level mesh of Dataplane, MeshGateway, …
			obj, err := json.Marshal(map[string]any{
				"apiVersion": k.Group + "/" + k.Version, "kind": k.Kind, "metadata": meta, "mesh": mesh,
				"spec": map[string]any{
					"targets":   map[string]any{"routeRef": map[string]any{"name": "route"}},
					"pluginRef": map[string]any{"name": "plugin"},
					"host":      "http.default-svc-8080.1.cp1fbfa93f.8fc42fd1", // an upstream name Kong's operator generates (naming/kong/testdata)
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				r := Request{Phase: Mutate, Kind: gk, Operation: op, Object: obj, RecordKRI: record}
				if op == admissionv1.Update {
					r.OldObject = obj
				}
				d, err := c.Decide(context.Background(), r)
				if err != nil {
					continue // not a patch either way: the validating webhook reports it
				}
				if len(d.Patch) == 0 {
					continue
				}
				patched[op] = true
				if !slices.Contains(want, op) {
					t.Errorf("%s of %s patched (%v), but MutatedOperations = %v: the chart would not send it", op, meta, d.Patch, want)
				}
				if !admits(op, meta) {
					t.Errorf("%s of %s patched (%v), but MutateCondition %q is false: the chart would not send it", op, meta, d.Patch, MutateCondition(record))
				}
				if record == RecordKRIOff {
					for _, p := range d.Patch {
						if v, ok := p.Value.(map[string]string); p.Path == "/metadata/annotations/kriguard.io~1kri" || ok && v["kriguard.io/kri"] != "" {
							t.Errorf("%s of %s: with recording off the patch %v writes the KRI annotation", op, meta, d.Patch)
						}
					}
				}
			}
		}
	}
	for _, op := range want {
		if !patched[op] {
			t.Errorf("MutatedOperations lists %s, but no %s of a %s was patched", op, op, k.Kind)
		}
	}
}

// TestRecordKRIOff holds the mutating decision with RecordKRIOff to the one with RecordKRIAdmission,
// the opt-in: the same patch but for the KRI annotation, which it neither writes nor corrects nor
// removes. A request that leaves RecordKRI unset is decided as with RecordKRIOff, the default.
func TestRecordKRIOff(t *testing.T) {
	c := DefaultConfig()
	gk := schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}
	for _, tc := range []struct{ name, op, object string }{
		{"generateName", "CREATE", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"generateName":"backend-","namespace":"ns","labels":{"kuma.io/mesh":"default"}}}`},
		{"generateName, annotations", "CREATE", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"generateName":"backend-","namespace":"ns","labels":{"kuma.io/mesh":"default"},"annotations":{"a":"b"}}}`},
		{"named", "CREATE", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"backend","namespace":"ns","labels":{"kuma.io/mesh":"default"}}}`},
		{"stale annotation", "UPDATE", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"backend","namespace":"ns","labels":{"kuma.io/mesh":"other"},"annotations":{"kriguard.io/kri":"kri_mt_default__ns_backend_"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			decide := func(record RecordKRI) []string {
				r := Request{Phase: Mutate, Kind: gk, Operation: admissionv1.Operation(tc.op), Object: []byte(tc.object), RecordKRI: record}
				if tc.op == "UPDATE" {
					r.OldObject = r.Object
				}
				d, err := c.Decide(context.Background(), r)
				if err != nil {
					t.Fatal(err)
				}
				var ops []string
				for _, p := range d.Patch {
					// One "add /metadata/annotations" holds every annotation the map lacked: one each.
					if m, ok := p.Value.(map[string]string); ok {
						for _, k := range slices.Sorted(maps.Keys(m)) {
							ops = append(ops, p.Path+"/"+strings.ReplaceAll(k, "/", "~1")+"="+m[k])
						}
						continue
					}
					ops = append(ops, fmt.Sprintf("%s=%v", p.Path, p.Value))
				}
				return ops
			}
			kriOp := func(op string) bool { return strings.HasPrefix(op, "/metadata/annotations/kriguard.io~1kri=") }
			on, off := decide(RecordKRIAdmission), decide(RecordKRIOff)
			if want := slices.DeleteFunc(slices.Clone(on), kriOp); !slices.Equal(off, want) {
				t.Errorf("recording off patched %v, want %v (recording at admission: %v)", off, want, on)
			}
			if !slices.ContainsFunc(on, kriOp) {
				t.Errorf("recording at admission patched %v, without the KRI annotation", on)
			}
			if unset := decide(""); !slices.Equal(unset, off) {
				t.Errorf("RecordKRI unset patched %v, want what off, the default, patches: %v", unset, off)
			}
		})
	}
}

// TestAdmitRecordKRI holds the decision of Admit (the two webhooks in one, as kriguard check and
// audit run it) on a wrong kriguard.io/kri annotation to the webhooks': with RecordKRI unset, as with
// the default off, the annotation is judged as written and denied; with RecordKRIAdmission the
// mutator corrects it first and the object is admitted.
func TestAdmitRecordKRI(t *testing.T) {
	c := DefaultConfig()
	gk := schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}
	obj := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"backend","namespace":"ns","labels":{"kuma.io/mesh":"default"},"annotations":{"kriguard.io/kri":"kri_mt_other___backend_"}},"spec":{"targetRef":{"kind":"Mesh"}}}`)
	for _, tc := range []struct {
		record RecordKRI
		want   Outcome
	}{{"", Denied}, {RecordKRIOff, Denied}, {RecordKRIAdmission, Allowed}} {
		d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Operation: admissionv1.Create, Object: obj, RecordKRI: tc.record})
		if err != nil {
			t.Fatal(err)
		}
		if d.Outcome != tc.want {
			t.Errorf("RecordKRI %q: %s, want %s (findings %v)", tc.record, d.Outcome, tc.want, d.Findings())
		}
	}
}
