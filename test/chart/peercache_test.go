package chart

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kriguard/kriguard/webhook"
)

// TestPeerCacheRBAC runs the webhook's peer cache as the chart's ServiceAccount with only the chart's
// RBAC. With webhook.peerCache.maxObjects it may list and watch KongSNIs and KongCertificates, and the
// cache syncs and sees a KongSNI created afterwards; without it, the same identity may do neither.
func TestPeerCacheRBAC(t *testing.T) {
	kong := func(resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1alpha1", Resource: resource}
	}
	for _, tc := range []struct {
		release, values string
		on              bool
	}{
		{release: "peers-off"},
		{release: "peers-on", values: "webhook: {peerCache: {maxObjects: 100}}", on: true},
	} {
		t.Run(tc.release, func(t *testing.T) {
			ns := tc.release + "-system"
			n := namesFor(tc.release + "-kriguard")
			createNamespace(t, ns, nil)
			var install manifest
			for _, o := range render(t, tc.release, ns, tc.values) {
				switch o.GetKind() {
				case "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
					install = append(install, o)
				}
			}
			apply(t, install)
			ctx := testContext(t)
			cfg := asServiceAccount(ns, n.serviceAccount)

			dc, err := dynamic.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range []string{"kongsnis", "kongcertificates"} {
				_, err := dc.Resource(kong(res)).List(ctx, metav1.ListOptions{Limit: 1})
				switch {
				case tc.on && err != nil:
					t.Errorf("listing %s with the peer cache on: %v", res, err)
				case !tc.on && !apierrors.IsForbidden(err):
					t.Errorf("listing %s with the peer cache off: %v, want Forbidden", res, err)
				}
				// A reflector denied the watch falls back to listing again, so the cache below would
				// not tell: ask for the watch itself.
				w, err := dc.Resource(kong(res)).Watch(ctx, metav1.ListOptions{})
				if err == nil {
					w.Stop()
				}
				switch {
				case tc.on && err != nil:
					t.Errorf("watching %s with the peer cache on: %v", res, err)
				case !tc.on && !apierrors.IsForbidden(err):
					t.Errorf("watching %s with the peer cache off: %v, want Forbidden", res, err)
				}
			}
			if !tc.on {
				return
			}

			peers, err := webhook.NewPeerCache(cfg, 100)
			if err != nil {
				t.Fatal(err)
			}
			cacheCtx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- peers.Start(cacheCtx) }()
			t.Cleanup(func() {
				cancel()
				<-done
			})
			const sni = "peers.example.com"
			var last error
			// Synced: the list was allowed.
			if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
				_, last = peers.KongSNIs(ctx, sni)
				return last == nil, nil
			}); err != nil {
				t.Fatalf("the peer cache did not sync as the chart's ServiceAccount: %v", last)
			}
			o := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
				"name": sni, "certificateRef": map[string]any{"name": "cert.gw.443.https"},
			}}}
			o.SetAPIVersion("configuration.konghq.com/v1alpha1")
			o.SetKind("KongSNI")
			o.SetNamespace(ns)
			o.SetName("cert.gw.443.https")
			apply(t, manifest{o})
			// Seen after the sync.
			var got [][]byte
			if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
				got, last = peers.KongSNIs(ctx, sni)
				return len(got) == 1, nil
			}); err != nil {
				t.Fatalf("the peer cache did not see a KongSNI created after it synced (%d found, %v)", len(got), last)
			}
		})
	}
}
