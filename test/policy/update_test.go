package policy

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// TestUpdateKeepsOldProblems: an object stored before kriguard judged it keeps its problems through
// an update that does not touch them, and an update that adds a problem is denied, by the policy as
// by the webhook.
func TestUpdateKeepsOldProblems(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "updates", nil)
	if err := registerWebhook(ctx, hook.ValidatingName, "", "", nil, judge(judgeWebhook), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = registerWebhook(context.Background(), hook.ValidatingName, "", "", nil, selectNothing(), selectNothing())
	})
	installPolicies(t, judge(judgePolicy), nil)
	waitActive(t, ns)

	k, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
	for _, tc := range []struct {
		name    string
		edit    func(u *unstructured.Unstructured)
		allowed bool
	}{
		{"unrelated change", func(u *unstructured.Unstructured) { setMap(u, "labels", "team", "payments") }, true},
		{"new bad zone", func(u *unstructured.Unstructured) { setMap(u, "labels", naming.LabelZone, "Zone_1") }, false},
		{"mesh made worse", func(u *unstructured.Unstructured) { setMap(u, "labels", naming.LabelMesh, "Mesh_2") }, false},
		{"new bad sectionName", func(u *unstructured.Unstructured) {
			setPath(u.Object, []string{"spec", "to[]", "targetRef", "sectionName"}, "HTTP_8080")
		}, false},
	} {
		for _, j := range []string{judgeWebhook, judgePolicy} {
			// Stored unjudged (no judge label), with a bad mesh label.
			u := testenv.NewObject(k, ns, "old-"+j)
			u.SetName("")
			u.SetGenerateName("old-")
			setMap(u, "labels", naming.LabelMesh, "Mesh_1")
			if o := create(ctx, u, false); o.verdict != allowed {
				t.Fatalf("storing the old object: %s", o.message)
			}
			next := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(u.Object)}
			tc.edit(next)
			next = labelled(next, j)
			err := env.Client.Update(ctx, next)
			if got := err == nil; got != tc.allowed {
				t.Errorf("%s, judged by the %s: allowed %t, want %t (%v)", tc.name, j, got, tc.allowed, err)
			}
			_ = env.Client.Delete(ctx, u)
		}
	}
}
