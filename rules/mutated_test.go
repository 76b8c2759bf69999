package rules

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestMutatedOperations holds MutatedOperations, which the chart's mutating webhook rules follow,
// to what the mutating decision does: for every default kind, objects that a patch could be made
// for (generateName, the fields Kong names are made of, a mesh, no kriguard.io/kri annotation) are decided
// on CREATE and UPDATE, and an operation that patches must be one MutatedOperations lists. Each
// operation it lists must patch at least one of them, so that the chart routes nothing the
// mutating webhook never changes.
func TestMutatedOperations(t *testing.T) {
	c := DefaultConfig()
	ctx := context.Background()
	for _, k := range c.GuardedKinds() {
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		t.Run(k.Kind, func(t *testing.T) {
			want := MutatedOperations(gk)
			patched := map[admissionv1.Operation]bool{}
			for _, meta := range []map[string]any{
				{"generateName": "backend-", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
				{"name": "backend", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
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
						r := Request{Phase: Mutate, Kind: gk, Operation: op, Object: obj}
						if op == admissionv1.Update {
							r.OldObject = obj
						}
						d, err := c.Decide(ctx, r)
						if err != nil {
							continue // not a patch either way: the validating webhook reports it
						}
						if len(d.Patch) > 0 {
							patched[op] = true
							if !slices.Contains(want, op) {
								t.Errorf("%s of %s patched (%v), but MutatedOperations = %v: the chart would not send it", op, meta, d.Patch, want)
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
		})
	}
}
