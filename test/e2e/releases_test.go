package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// releaseConfig is the configuration of the webhooks of TestKumaReleases: the built-in kinds, the
// release detected.
const releaseConfig = `apiVersion: kriguard.io/v1alpha1
kind: Configuration
kuma:
  version: auto
`

// kumaCluster is a control plane serving one Kuma release's CRDs, a Kuma control plane Deployment
// of a version, and a kriguard webhook with kuma.version auto beside them.
type kumaCluster struct {
	env *testenv.Env
	cp  *appsv1.Deployment
	// user is a client of an ordinary user, kuma one of Kuma's control plane; both record their
	// warnings.
	user, kuma         client.Client
	userWarn, kumaWarn *warnings
}

// startKumaCluster starts a kumaCluster whose control plane Deployment runs image, with env.
func startKumaCluster(t *testing.T, upstream, image string, env ...corev1.EnvVar) *kumaCluster {
	t.Helper()
	e := testenv.StartForTest(t, testenv.Options{Kuma: upstream})
	c := &kumaCluster{env: e}
	ctx := testContext(t)
	for _, ns := range []string{"kuma-system", "kuma-demo"} {
		if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	// The Deployment as Kuma's chart renders it (deployments/charts/kuma/templates/cp-deployment.yaml).
	sel := map[string]string{"app": "kuma-control-plane"}
	c.cp = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kuma-system", Name: "kuma-control-plane", Labels: sel}}
	c.cp.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
	c.cp.Spec.Template.Labels = sel
	c.cp.Spec.Template.Spec.Containers = []corev1.Container{{Name: "control-plane", Image: image, Env: env}}
	if err := e.Client.Create(ctx, c.cp); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	s, err := webhookenv.NewSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.ConfigFile = filepath.Join(dir, "config.yaml")
	s.RecordKRI = rules.RecordKRIAdmission // the MeshGateway on 2.14 gets its KRI recorded
	if err := os.WriteFile(s.ConfigFile, []byte(releaseConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Prepare(ctx, e.Client); err != nil {
		t.Fatal(err)
	}
	stop, err := webhookenv.StartManager(context.Background(), e.Config, append(s.Args(), "--kuma-recheck-interval=100ms"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("the webhook manager returned: %v", err)
		}
	})
	if err := s.Register(ctx, e.Client); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitReady(ctx, e.Client); err != nil {
		t.Fatal(err)
	}
	c.user, c.userWarn = clientOf(t, e, rest.ImpersonationConfig{UserName: "alice", Groups: []string{"system:masters"}})
	c.kuma, c.kumaWarn = clientOf(t, e, rest.ImpersonationConfig{UserName: rules.KumaControlPlaneUser,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kuma-system", "system:masters"}})
	return c
}

// clientOf returns a client of e acting as as, and the warnings it receives.
func clientOf(t *testing.T, e *testenv.Env, as rest.ImpersonationConfig) (client.Client, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = as
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = w
	c, err := client.New(cfg, client.Options{Scheme: e.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}

// kumaObject builds a Kuma object from its YAML-ish parts: meta and the rest as JSON-compatible maps.
func kumaObject(kind, namespace, name string, labels, annotations map[string]string, rest map[string]any) *unstructured.Unstructured {
	u := object(kumaAPIVersion, kind, namespace, name, labels, nil)
	if annotations != nil {
		u.SetAnnotations(annotations)
	}
	for k, v := range rest {
		u.Object[k] = v
	}
	return u
}

// controlPlaneWrites are objects as Kuma's control plane writes them on a zone: a KDS copy of a
// 63-character MeshService from the global control plane (hash-suffix name, the original in the
// display-name annotation, origin, zone and namespace labels), a policy it synced, a MeshService
// it generated from a Service (display name = metadata.name), and on 2.14 a ZoneIngress of a pod
// (pkg/plugins/runtime/k8s/controllers/pod_controller.go:435-441: mesh empty).
func controlPlaneWrites(rel naming.Release) []*unstructured.Unstructured {
	long := strings.Repeat("backend", 9)[:63]
	copyLabels := map[string]string{naming.LabelMesh: "default", naming.LabelOrigin: "global", naming.LabelZone: "east", naming.LabelNamespace: "kuma-demo"}
	objs := []*unstructured.Unstructured{
		kumaObject("MeshService", "kuma-system", hashsuffix.Name("default", long, "east", "kuma-demo"), copyLabels,
			map[string]string{naming.AnnotationDisplayName: long}, map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"port": int64(80), "name": "http"}}}}),
		kumaObject("MeshTimeout", "kuma-system", hashsuffix.Name("default", "timeouts"), map[string]string{naming.LabelMesh: "default", naming.LabelOrigin: "global"},
			map[string]string{naming.AnnotationDisplayName: "timeouts"}, map[string]any{"spec": map[string]any{}}),
		kumaObject("MeshService", "kuma-demo", "redis", map[string]string{naming.LabelMesh: "default", naming.LabelOrigin: "zone", naming.LabelNamespace: "kuma-demo"},
			map[string]string{naming.AnnotationDisplayName: "redis"}, map[string]any{"spec": map[string]any{}}),
	}
	if _, removed := rel.Removed("ZoneIngress"); !removed {
		objs = append(objs, kumaObject("ZoneIngress", "kuma-system", "zone-ingress-7d9c", nil, nil, map[string]any{"spec": map[string]any{}}))
	}
	return objs
}

// removedWithoutKRI are objects of kinds 3.0 removed that have no KRI in any release: a
// MeshGatewayInstance and a legacy policy, as 2.14 stores them.
func removedWithoutKRI(suffix string) []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		kumaObject("MeshGatewayInstance", "kuma-demo", "edge"+suffix, nil, nil, map[string]any{"spec": map[string]any{"replicas": int64(1)}}),
		kumaObject("TrafficRoute", "", "route-all"+suffix, nil, nil, map[string]any{"mesh": "default", "spec": map[string]any{
			"sources":      []any{map[string]any{"match": map[string]any{"kuma.io/service": "*"}}},
			"destinations": []any{map[string]any{"match": map[string]any{"kuma.io/service": "*"}}},
			"conf":         map[string]any{"destination": map[string]any{"kuma.io/service": "*"}},
		}}),
	}
}

// subsetTimeout is a MeshTimeout whose top-level targetRef is of kind MeshSubset, which 2.14 accepts
// and 3.0 removed.
func subsetTimeout(name string) *unstructured.Unstructured {
	mt := meshTimeout("kuma-demo", name, map[string]string{naming.LabelMesh: "default"}, "")
	mt.Object["spec"].(map[string]any)["targetRef"] = map[string]any{"kind": "MeshSubset", "tags": map[string]any{"version": "v2"}}
	return mt
}

// byNameTimeout is a MeshTimeout to the MeshService backend by name, which 2.14 selects by and
// 3.0 replaces with labels.
func byNameTimeout(name string) *unstructured.Unstructured {
	mt := meshTimeout("kuma-demo", name, map[string]string{naming.LabelMesh: "default"}, "")
	mt.Object["spec"].(map[string]any)["to"].([]any)[0].(map[string]any)["targetRef"] = map[string]any{"kind": "MeshService", "name": "backend"}
	return mt
}

// TestKumaReleases runs each release's CRDs in a real API server with the webhook in kuma.version
// auto beside a control plane of that release: the release is detected, names RFC 1035 refuses
// are denied on 3.0 only, the control plane's own writes are never denied nor warned about, and a
// MeshGateway is judged on 2.14, then refused once the control plane is upgraded to 3.0 during the
// run (its CRD stays, as Helm leaves it), as are a MeshGatewayInstance and a TrafficRoute, kinds
// without a KRI that 2.14 admits untouched; their objects stored before the upgrade stay removable.
func TestKumaReleases(t *testing.T) {
	for _, tc := range []struct {
		upstream, image string
		rel             naming.Release
	}{
		{testenv.Kuma214, "docker.io/kumahq/kuma-cp:2.14.3", naming.Kuma2_14},
		{testenv.Kuma30, "docker.io/kumahq/kuma-cp:3.0.0", naming.Kuma3_0},
	} {
		t.Run(tc.rel.String(), func(t *testing.T) {
			c := startKumaCluster(t, tc.upstream, tc.image)
			ctx := testContext(t)

			// An RFC 1035 name: a MeshService starting with a digit.
			before := releaseDecisions(t, "MeshService", "CREATE", "denied", "deny", "none", tc.rel.String())
			svc := kumaObject("MeshService", "kuma-demo", "1st-backend", map[string]string{naming.LabelMesh: "default"}, nil, map[string]any{"spec": map[string]any{}})
			err := c.user.Create(ctx, svc)
			if tc.rel == naming.Kuma3_0 {
				if err == nil || !strings.Contains(err.Error(), `metadata.name: Invalid value: "1st-backend": Kuma 3.0 names a MeshService with an RFC 1035 label`) {
					t.Errorf("an RFC 1035 name on 3.0: %v", err)
				}
				if after := releaseDecisions(t, "MeshService", "CREATE", "denied", "deny", "none", "3.0"); after != before+1 {
					t.Errorf("denials counted with kuma_release 3.0: %v, then %v", before, after)
				}
			} else if err != nil {
				t.Errorf("an RFC 1035 name on 2.14: %v", err)
			}

			for _, obj := range controlPlaneWrites(tc.rel) {
				if err := c.kuma.Create(ctx, obj); err != nil {
					t.Errorf("the control plane's %s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
				}
				if w := c.kumaWarn.take(); len(w) > 0 {
					t.Errorf("the control plane's %s %s/%s warned: %q", obj.GetKind(), obj.GetNamespace(), obj.GetName(), w)
				}
			}

			gw := func(name string) *unstructured.Unstructured {
				return kumaObject("MeshGateway", "", name, nil, nil, map[string]any{"mesh": "default",
					"spec": map[string]any{"selectors": []any{map[string]any{"match": map[string]any{"kuma.io/service": "edge"}}}}})
			}
			if tc.rel == naming.Kuma3_0 {
				// 3.0 serves no MeshGateway: the API server refuses it before any webhook.
				if err := c.user.Create(ctx, gw("edge")); !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err) {
					t.Errorf("a MeshGateway on 3.0's CRDs: %v, want no such kind", err)
				}
				return
			}
			edge := gw("edge")
			if err := c.user.Create(ctx, edge); err != nil {
				t.Fatalf("a MeshGateway on 2.14: %v", err)
			}
			if got := edge.GetAnnotations()["kriguard.io/kri"]; got != "kri_mgw_default___edge_" {
				t.Errorf("a MeshGateway on 2.14: KRI annotation %q", got)
			}

			// Kinds 3.0 removed that have no KRI: the webhook sees them (judged only as removed) and
			// 2.14 admits them untouched, with no warning and no annotation.
			if err := c.user.Create(ctx, subsetTimeout("subset")); err != nil {
				t.Errorf("a MeshTimeout selecting a MeshSubset on 2.14: %v", err)
			}
			byName := byNameTimeout("by-name")
			if err := c.user.Create(ctx, byName); err != nil {
				t.Errorf("a MeshTimeout to a MeshService by name on 2.14: %v", err)
			}
			c.userWarn.take()
			leftovers := removedWithoutKRI("")
			for _, obj := range leftovers {
				if err := c.user.Create(ctx, obj); err != nil {
					t.Errorf("a %s on 2.14: %v", obj.GetKind(), err)
				}
				if w := c.userWarn.take(); len(w) > 0 {
					t.Errorf("a %s on 2.14 warned: %q", obj.GetKind(), w)
				}
				if a := obj.GetAnnotations(); len(a) > 0 {
					t.Errorf("a %s on 2.14 was patched: annotations %v", obj.GetKind(), a)
				}
			}

			// The upgrade: the control plane now runs 3.0; 2.14's CRDs stay.
			c.cp.Spec.Template.Spec.Containers[0].Image = "docker.io/kumahq/kuma-cp:3.0.0"
			if err := c.env.Client.Update(ctx, c.cp); err != nil {
				t.Fatal(err)
			}
			var last error
			for i := 0; ; i++ {
				last = c.user.Create(ctx, gw(fmt.Sprintf("edge-%d", i)))
				if last != nil || i == 200 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if last == nil || !strings.Contains(last.Error(), `kind: Invalid value: "MeshGateway": removed in Kuma 3.0: the built-in gateway is gone`) {
				t.Fatalf("a MeshGateway after the upgrade to 3.0: %v", last)
			}
			if n := releaseDecisions(t, "MeshGateway", "CREATE", "denied", "deny", "none", "3.0"); n < 1 {
				t.Errorf("the refused MeshGateway is not counted with kuma_release 3.0")
			}
			// The kinds without a KRI are refused too, naming the release; the objects stored before
			// the upgrade can still be updated (a problem they had is only warned about) and deleted.
			for _, obj := range removedWithoutKRI("-2") {
				err := c.user.Create(ctx, obj)
				if want := fmt.Sprintf(`kind: Invalid value: "%s": removed in Kuma 3.0: `, obj.GetKind()); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("a %s after the upgrade to 3.0: %v, want refused with %q", obj.GetKind(), err, want)
				}
			}
			// 2.14's MeshTimeout CRD still takes a MeshSubset targetRef: the webhook refuses it on 3.0, as check does.
			err = c.user.Create(ctx, subsetTimeout("subset-2"))
			if want := `spec.targetRef.kind: Invalid value: "MeshSubset": Kuma 3.0 removed the targetRef kind MeshSubset`; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("a MeshTimeout selecting a MeshSubset after the upgrade to 3.0: %v, want refused with %q", err, want)
			}
			// 2.14's CRDs keep a targetRef's name, which 3.0 would ignore: the webhook refuses it on
			// 3.0 with the labels that replace it, as check does, and lets an update keep it.
			err = c.user.Create(ctx, byNameTimeout("by-name-2"))
			if want := `spec.to[0].targetRef: Invalid value: "backend": Kuma 3.0 selects by labels only: replace name and namespace with labels {kuma.io/display-name: "backend", k8s.kuma.io/namespace: "kuma-demo"}`; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("a MeshTimeout to a MeshService by name after the upgrade to 3.0: %v, want refused with %q", err, want)
			}
			c.userWarn.take()
			byName.SetLabels(map[string]string{naming.LabelMesh: "default", "team": "edge"})
			if err := c.user.Update(ctx, byName); err != nil {
				t.Errorf("updating the MeshTimeout by name after the upgrade: %v", err)
			}
			if w := c.userWarn.take(); len(w) != 1 || !strings.Contains(w[0], "pre-existing problem, allowed on update: spec.to[0].targetRef: ") {
				t.Errorf("updating the MeshTimeout by name after the upgrade warned %q, want its reference as pre-existing", w)
			}
			if n := releaseDecisions(t, "TrafficRoute", "CREATE", "denied", "deny", "none", "3.0"); n != 1 {
				t.Errorf("refused TrafficRoutes counted with kuma_release 3.0: %v, want 1", n)
			}
			c.userWarn.take()
			for _, obj := range leftovers {
				obj.SetLabels(map[string]string{"team": "edge"})
				if err := c.user.Update(ctx, obj); err != nil {
					t.Errorf("updating the leftover %s after the upgrade: %v", obj.GetKind(), err)
				}
				if w := c.userWarn.take(); len(w) != 1 || !strings.Contains(w[0], "pre-existing problem, allowed on update: kind: ") {
					t.Errorf("updating the leftover %s after the upgrade warned %q, want the removed kind as pre-existing", obj.GetKind(), w)
				}
				if err := c.user.Delete(ctx, obj); err != nil {
					t.Errorf("deleting the leftover %s after the upgrade: %v", obj.GetKind(), err)
				}
			}
			// The same RFC 1035 name is denied now, and the control plane's writes still pass.
			if err := c.user.Create(ctx, kumaObject("MeshService", "kuma-demo", "2nd-backend", map[string]string{naming.LabelMesh: "default"}, nil, map[string]any{"spec": map[string]any{}})); err == nil {
				t.Errorf("an RFC 1035 name after the upgrade was admitted")
			}
			for _, obj := range controlPlaneWrites(naming.Kuma3_0) {
				obj.SetName(obj.GetName() + "-2")
				if obj.GetAnnotations()[naming.AnnotationDisplayName] != "" && obj.GetLabels()[naming.LabelOrigin] == "zone" {
					obj.SetAnnotations(map[string]string{naming.AnnotationDisplayName: obj.GetName()})
				}
				if err := c.kuma.Create(ctx, obj); err != nil {
					t.Errorf("after the upgrade, the control plane's %s %s: %v", obj.GetKind(), obj.GetName(), err)
				}
				if w := c.kumaWarn.take(); len(w) > 0 {
					t.Errorf("after the upgrade, the control plane's %s %s warned: %q", obj.GetKind(), obj.GetName(), w)
				}
			}
		})
	}
}

// TestKumaModeDetected: with kuma.mode auto the webhook reads the control plane's mode from its
// Deployment's environment, as Kuma's chart sets it (docs/kds.md), and follows a change without a
// restart: a KDS copy that cannot be stored is denied on a global control plane, let through on a
// standalone zone.
func TestKumaModeDetected(t *testing.T) {
	c := startKumaCluster(t, testenv.Kuma214, "docker.io/kumahq/kuma-cp:2.14.3", corev1.EnvVar{Name: "KUMA_MODE", Value: "global"})
	ctx := testContext(t)
	// A valid 253-character name whose copy, cut at 236, ends in ".-": no DNS-1123 subdomain.
	dot236 := func(last string) *unstructured.Unstructured {
		return meshTimeout("kuma-system", strings.Repeat("a", 235)+"."+strings.Repeat("b", 16)+last, map[string]string{naming.LabelMesh: "default"}, "")
	}
	err := c.user.Create(ctx, dot236("1"))
	if err == nil || !strings.Contains(err.Error(), "cannot be stored by a Kubernetes control plane") {
		t.Fatalf("a MeshTimeout with a '.' at 236 on a global control plane: %v, want denied", err)
	}

	// The control plane becomes a zone with no global address: a standalone zone syncs nothing.
	c.cp.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "KUMA_MODE", Value: "zone"}, {Name: "KUMA_MULTIZONE_ZONE_GLOBAL_ADDRESS"}}
	if err := c.env.Client.Update(ctx, c.cp); err != nil {
		t.Fatal(err)
	}
	var last error
	for i := 0; i < 200; i++ {
		if last = c.user.Create(ctx, dot236("2")); last == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if last != nil {
		t.Fatalf("a MeshTimeout with a '.' at 236 on a standalone zone: %v, want admitted", last)
	}
	if w := c.userWarn.take(); len(w) > 0 {
		t.Errorf("a MeshTimeout with a '.' at 236 on a standalone zone warned: %q", w)
	}
}
