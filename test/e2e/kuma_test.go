package e2e

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/rules"
)

// TestKumaInterop creates, through the real API server with the upstream CRDs, the objects Kuma's
// own control plane writes, and checks that each gets the KRI Kuma computes for it (docs/kri.md).
func TestKumaInterop(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	// KDS stores the copies it syncs in the control plane's namespace.
	system := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kuma-system"}}
	if err := env.Client.Create(ctx, system); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating kuma-system: %v", err)
	}
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		kri  string
	}{
		{
			name: "Dataplane in mesh custom-mesh (top-level mesh field)",
			obj: withMeshField(object(kumaAPIVersion, "Dataplane", ns, "backend-7d9f", nil, map[string]any{
				"networking": map[string]any{"address": "10.0.0.1", "inbound": []any{map[string]any{
					"port": int64(8080), "tags": map[string]any{"kuma.io/service": "backend_kuma-demo_svc_8080"}}}},
			}), "custom-mesh"),
			kri: "kri_dp_custom-mesh___backend-7d9f_",
		},
		{
			name: "MeshTimeout with the display-name annotation",
			obj:  withAnnotations(meshTimeout(ns, "timeout-1", nil, "http"), map[string]string{"kuma.io/display-name": "pretty-name"}),
			kri:  "kri_mt_default___pretty-name_",
		},
		{
			name: "MeshTimeout with an empty display-name annotation",
			obj:  withAnnotations(meshTimeout(ns, "timeout-2", nil, "http"), map[string]string{"kuma.io/display-name": ""}),
			kri:  "kri_mt_default___timeout-2." + ns + "_",
		},
		{
			// As Kuma's KDS stores a zone's MeshTimeout on Global: the name carries the hash, the KRI
			// does not.
			name: "KDS-style copy",
			obj: withAnnotations(meshTimeout("kuma-system", "timeout-1-zv8cd84664fc74w4", map[string]string{
				"kuma.io/mesh": "default", "kuma.io/zone": "zone-1", "k8s.kuma.io/namespace": "kuma-demo",
				"kuma.io/origin": "zone", "kuma.io/env": "kubernetes", "kuma.io/policy-role": "consumer",
			}, "http"), map[string]string{"kuma.io/display-name": "timeout-1"}),
			kri: "kri_mt_default_zone-1_kuma-demo_timeout-1_",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj.DeepCopy()
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatalf("create: %v", err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
			if got := obj.GetAnnotations()["kriguard.io/kri"]; got != tc.kri {
				t.Errorf("annotation kriguard.io/kri = %q, want Kuma's %q", got, tc.kri)
			}
		})
	}

	// The KDS-style copy's name is the one KDS computes from the KRI's parts.
	if got := hashsuffix.Name("default", "timeout-1", "zone-1", "kuma-demo"); got != "timeout-1-zv8cd84664fc74w4" {
		t.Errorf("hashsuffix.Name = %s, want KDS's timeout-1-zv8cd84664fc74w4", got)
	}
}

// TestKumaControlPlaneIsWarned impersonates Kuma's control plane writing an object Kuma itself admits
// with a deprecation warning (zone "east.1"): admitted with a warning and counted under the
// kuma-control-plane override, while the same object from an ordinary user is denied.
func TestKumaControlPlaneIsWarned(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	const alice = "alice"
	grantKumaWrites(t, ctx, rules.KumaControlPlaneUser, alice)

	newObj := func(name string) *unstructured.Unstructured {
		return meshTimeout(ns, name, map[string]string{
			"kuma.io/mesh": "default", "kuma.io/zone": "east.1", "k8s.kuma.io/namespace": ns, "kuma.io/origin": "zone",
		}, "http")
	}

	kuma, warnings := impersonatingClient(t, rules.KumaControlPlaneUser)
	before := overrideDecisions(t, "MeshTimeout", "CREATE", "warned", "warn", "kuma-control-plane")
	obj := newObj("from-kuma")
	if err := kuma.Create(ctx, obj); err != nil {
		t.Fatalf("Kuma's control plane was refused: %v", err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })
	got := warnings.take()
	want := `MeshTimeout.kuma.io "from-kuma": allowed for requester override "kuma-control-plane": metadata.labels[kuma.io/zone]: Invalid value: "east.1"`
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("warnings %q, want one starting with %q", got, want)
	}
	if after := overrideDecisions(t, "MeshTimeout", "CREATE", "warned", "warn", "kuma-control-plane"); after < before+1 {
		t.Errorf("decisions{warned, override=kuma-control-plane} went from %v to %v, want at least one more", before, after)
	}

	user, _ := impersonatingClient(t, alice)
	err := user.Create(ctx, newObj("from-alice"))
	if !apierrors.IsInvalid(err) {
		t.Fatalf("an ordinary user's create: %v, want Invalid", err)
	}
	if causes := causesOf(statusError(t, err)); len(causes) != 1 || causes[0].Field != "metadata.labels[kuma.io/zone]" {
		t.Errorf("causes %+v, want one at metadata.labels[kuma.io/zone]", causes)
	}
}

// impersonatingClient returns a client acting as user (with the groups the API server gives every
// authenticated user), and the warnings it receives.
func impersonatingClient(t *testing.T, user string) (client.Client, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = w
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatalf("creating a client for %s: %v", user, err)
	}
	return c, w
}

// grantKumaWrites lets users create and delete Kuma objects, for the length of the test.
func grantKumaWrites(t *testing.T, ctx context.Context, users ...string) {
	t.Helper()
	name := "e2e-kuma-writer-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"kuma.io"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
	}
	for _, u := range users {
		binding.Subjects = append(binding.Subjects, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: u})
	}
	for _, o := range []client.Object{role, binding} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("granting Kuma writes: %v", err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o) })
	}
}
