package chart

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
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

// The chart refuses a webhook.peerCache.maxObjects that resources.limits.memory cannot hold beside
// the reviews, at the bound the webhook itself computes (webhook.MinMemoryLimitFor), naming both
// values; a limit the chart cannot read (0.5Gi) is left to the webhook, which refuses it at start
// naming --peer-cache-max-objects.
func TestPeerCacheMemoryLimit(t *testing.T) {
	for _, limit := range []string{"256Mi", "512Mi", "1Gi", "600M"} {
		q := resource.MustParse(limit)
		bytes := q.Value()
		// The most objects the limit holds.
		n := sort.Search(1<<24, func(n int) bool { return webhook.MinMemoryLimitFor(n) > bytes }) - 1
		if n <= 0 {
			t.Fatalf("%s holds no peer cache", limit)
		}
		for _, tc := range []struct {
			objects int
			ok      bool
		}{{n, true}, {n + 1, false}} {
			values := fmt.Sprintf("webhook: {peerCache: {maxObjects: %d}}\nresources: {limits: {memory: %s}}\n", tc.objects, limit)
			_, err := helm(t, "", templateArgs(t, "x", releaseNamespace, values)...)
			switch {
			case tc.ok && err != nil:
				t.Errorf("%s, %d objects: %v", limit, tc.objects, err)
			case !tc.ok && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("webhook.peerCache.maxObjects: %d objects", tc.objects)) || !strings.Contains(err.Error(), "not "+limit)):
				t.Errorf("%s, %d objects: %v, want an error naming webhook.peerCache.maxObjects and the limit", limit, tc.objects, err)
			}
			o := webhook.NewOptions()
			o.CertManagement, o.MemoryLimit, o.PeerCacheMaxObjects = webhook.CertManagementExternal, bytes, tc.objects
			if err := o.Validate(); tc.ok != (err == nil) {
				t.Errorf("%s, %d objects: the webhook's Validate = %v, the chart's ok = %t", limit, tc.objects, err, tc.ok)
			}
		}
	}
	if _, err := helm(t, "", templateArgs(t, "x", releaseNamespace, "webhook: {peerCache: {maxObjects: 50000}}\nresources: {limits: {memory: 0.25Gi}}\n")...); err != nil {
		t.Errorf("a limit of 0.25Gi, left to the webhook: %v", err)
	}
}
