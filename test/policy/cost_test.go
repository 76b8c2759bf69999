package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kriguard/kriguard/naming"
)

// maxStoredBytes is about the largest object etcd stores with its default request limit (1.5 MiB):
// larger requests fail whatever the policy says.
const maxStoredBytes = 1300 << 10

// maximalMeshHTTPRoute builds a MeshHTTPRoute of about size bytes whose every list is as long as that
// allows (the upstream schema bounds none of to, rules and backendRefs) and whose every sectionName
// is a valid one of the longest length, plus maximal labels and a display-name annotation of the
// longest valid name: every check of the policy runs on every element.
func maximalMeshHTTPRoute(ns string, size int, section string) *unstructured.Unstructured {
	backendRef := func(i int) map[string]any {
		return map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": fmt.Sprintf("b%d", i)}, "sectionName": section}
	}
	one, _ := json.Marshal(backendRef(0))
	refsPerRule := 16
	rule := func(n int) map[string]any {
		refs := make([]any, refsPerRule)
		for i := range refs {
			refs[i] = backendRef(n*refsPerRule + i)
		}
		return map[string]any{
			"matches": []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": "/"}}},
			"default": map[string]any{"backendRefs": refs},
		}
	}
	rules := make([]any, size/(len(one)+8)/refsPerRule)
	for i := range rules {
		rules[i] = rule(i)
	}
	// Half the rules under one destination, the other half spread over many: both levels are long.
	var to []any
	half := len(rules) / 2
	to = append(to, map[string]any{"targetRef": map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": "a"}, "sectionName": section}, "rules": rules[:half]})
	for _, r := range rules[half:] {
		to = append(to, map[string]any{"targetRef": map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": "a"}, "sectionName": section}, "rules": []any{r}})
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshHTTPRoute",
		"metadata": map[string]any{
			"name": "maximal", "namespace": ns,
			"labels": map[string]any{
				naming.LabelMesh: strings.Repeat("m", 63), naming.LabelZone: strings.Repeat("z", 63),
				naming.LabelNamespace: strings.Repeat("n", 63), naming.LabelDisplayName: strings.Repeat("d", 63),
			},
			"annotations": map[string]any{naming.LabelDisplayName: strings.Repeat("d", 253)},
		},
		"spec": map[string]any{"targetRef": map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": "x"}, "sectionName": section}, "to": to},
	}}
	return u
}

// TestMaximalObject: the policy judges the largest MeshHTTPRoute the API server stores within the
// API server's CEL cost limits (a cost error would deny it: the policies fail closed), and still
// finds a bad sectionName in one.
func TestMaximalObject(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "maximal", nil)
	installPolicies(t, judge(judgePolicy), nil)
	waitActive(t, ns)

	good := maximalMeshHTTPRoute(ns, maxStoredBytes, strings.Repeat("s", 63))
	data, _ := json.Marshal(good.Object)
	t.Logf("maximal MeshHTTPRoute: %d bytes", len(data))
	if o := create(ctx, labelled(good, judgePolicy), false); o.verdict != allowed {
		t.Fatalf("the maximal valid MeshHTTPRoute was not admitted: %s", o.message)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), good) })

	bad := maximalMeshHTTPRoute(ns, maxStoredBytes, strings.Repeat("s", 63))
	bad.SetName("maximal-bad")
	rules := bad.Object["spec"].(map[string]any)["to"].([]any)
	last := rules[len(rules)-1].(map[string]any)["rules"].([]any)[0].(map[string]any)["default"].(map[string]any)["backendRefs"].([]any)
	last[len(last)-1].(map[string]any)["sectionName"] = "HTTP_8080"
	o := create(ctx, labelled(bad, judgePolicy), true)
	if o.verdict != denied || !strings.Contains(o.message, "spec.to[*].rules[*].default.backendRefs[*].sectionName") {
		t.Fatalf("a maximal MeshHTTPRoute with one bad sectionName: %s %s", o.verdict, o.message)
	}
	if strings.Contains(o.message, "cost") {
		t.Errorf("denied for its cost, not its content: %s", o.message)
	}

	// A huge invalid annotation: the messages cut what they echo and stay within budget.
	huge := maximalMeshHTTPRoute(ns, 1<<10, "http")
	huge.SetName("huge-annotation")
	huge.SetAnnotations(map[string]string{naming.LabelDisplayName: strings.Repeat("x", 150<<10) + "_", naming.AnnotationKRI: strings.Repeat("kri_", 25<<10)})
	o = create(ctx, labelled(huge, judgePolicy), true)
	if o.verdict != denied || strings.Contains(o.message, "cost") || len(o.message) > 4096 {
		t.Errorf("a 150 KiB invalid display name: %s, %d bytes: %.300s", o.verdict, len(o.message), o.message)
	}
}

// TestMaximalProxyPatch: the hand-typed-name check of a MeshProxyPatch with as many modifications as
// the API server stores, each naming a cluster by a valid KRI of the longest length, stays within
// the CEL cost limits.
func TestMaximalProxyPatch(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "maximal-patch", nil)
	installPolicies(t, judge(judgePolicy), nil)
	waitActive(t, ns)
	kri := "kri_msvc_" + strings.Repeat("m", 63) + "_" + strings.Repeat("z", 63) + "_" + strings.Repeat("n", 63) + "_" + strings.Repeat("b", 253) + "_" + strings.Repeat("s", 63)
	mod := map[string]any{"cluster": map[string]any{"operation": "Patch", "match": map[string]any{"name": kri}, "value": "name: x"}}
	one, _ := json.Marshal(mod)
	mods := make([]any, maxStoredBytes/(len(one)+1))
	for i := range mods {
		mods[i] = mod
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshProxyPatch",
		"metadata": map[string]any{"name": "maximal", "namespace": ns},
		"spec":     map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": map[string]any{"appendModifications": mods}},
	}}
	t.Logf("maximal MeshProxyPatch: %d modifications", len(mods))
	if o := create(ctx, labelled(u, judgePolicy), true); o.verdict != allowed {
		t.Fatalf("the maximal valid MeshProxyPatch was not admitted: %.500s", o.message)
	}
	// The same with a bad name last: found, in the last chunk, and not for its cost.
	mods[len(mods)-1] = map[string]any{"cluster": map[string]any{"operation": "Patch", "match": map[string]any{"name": "kri_msvc_Default___b_"}, "value": "name: x"}}
	if o := create(ctx, labelled(u, judgePolicy), true); o.verdict != denied || strings.Contains(o.message, "cost") {
		t.Fatalf("a maximal MeshProxyPatch with one bad name: %s %.300s", o.verdict, o.message)
	}
}
