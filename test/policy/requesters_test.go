package policy

import (
	"context"
	"strings"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// warnings collects the admission warnings a client receives.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// TestRequesters: the built-in requester overrides warn Kuma's control plane instead of denying it,
// with the policy as with the webhook; everyone else is denied by both.
func TestRequesters(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t, "requesters", nil)
	if err := registerWebhook(ctx, hook.ValidatingName, "", "", nil, judge(judgeWebhook), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = registerWebhook(context.Background(), hook.ValidatingName, "", "", nil, selectNothing(), selectNothing())
	})
	installPolicies(t, judge(judgePolicy), nil)
	waitActive(t, ns)

	// Let the control plane's service account write Kuma objects, as Kuma's chart does.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "policy-test-kuma-writer"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{rules.KumaGroup}, Resources: []string{"*"}, Verbs: []string{"create"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "policy-test-kuma-writer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: rules.KumaControlPlaneUser}},
	}
	for _, o := range []client.Object{role, binding} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o) })
	}
	as := func(user string) (client.Client, *warnings) {
		cfg := rest.CopyConfig(env.Config)
		if user != "" {
			cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
		}
		w := &warnings{}
		cfg.WarningHandler = w
		c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		return c, w
	}
	k, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
	for _, tc := range []struct {
		user    string
		allowed bool
	}{
		{"", false},
		{rules.KumaControlPlaneUser, true},
	} {
		c, w := as(tc.user)
		for _, j := range []string{judgeWebhook, judgePolicy} {
			u := testenv.NewObject(k, ns, "bad-mesh-"+j)
			setMap(u, "labels", naming.LabelMesh, "Mesh_1")
			err := c.Create(ctx, labelled(u, j), client.DryRunAll)
			got := w.take()
			switch {
			case tc.allowed && err != nil:
				t.Errorf("%s as %q: denied: %v", j, tc.user, err)
			case tc.allowed && !anyContains(got, "Mesh_1"):
				t.Errorf("%s as %q: allowed without a warning naming the value: %q", j, tc.user, got)
			case !tc.allowed && (err == nil || !strings.Contains(err.Error(), "Mesh_1")):
				t.Errorf("%s as %q: want a denial naming the value, got %v", j, tc.user, err)
			}
		}
	}
}

func anyContains(l []string, s string) bool {
	for _, v := range l {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}
