package webhook

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/kriguard/kriguard/rules"
)

func peerObject(kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": rules.KongGroup + "/v1alpha1", "kind": kind, "spec": spec}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(map[string]string{"gateway-operator.konghq.com/managed-by": "Gateway"})
	u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", 400)})
	return u
}

func fakePeerCache(t testing.TB, max int, objs ...kruntime.Object) *PeerCache {
	t.Helper()
	s := kruntime.NewScheme()
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(s, map[schema.GroupVersionResource]string{
		kongSNIs: "KongSNIList", kongCertificates: "KongCertificateList"}, objs...)
	p, err := newPeerCache(dynamicinformer.NewDynamicSharedInformerFactory(dc, 0), max)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The cache answers from the synced informers, by spec.name, with objects cut to what the rules
// read; cold or over its bound, it answers ErrPeersUnknown.
func TestPeerCache(t *testing.T) {
	ctx := t.Context()
	cpA := map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": "cp-a"}}
	objs := []kruntime.Object{
		peerObject("KongSNI", "default", "a", map[string]any{"name": "*", "certificateRef": map[string]any{"name": "ca"}}),
		peerObject("KongSNI", "default", "b", map[string]any{"name": "api.example.com", "certificateRef": map[string]any{"name": "cb"}}),
		peerObject("KongCertificate", "default", "ca", map[string]any{"type": "secretRef", "controlPlaneRef": cpA, "secretRef": map[string]any{"name": "tls"}}),
	}
	p := fakePeerCache(t, 0, objs...)
	if _, err := p.KongSNIs(ctx, "*"); !errors.Is(err, rules.ErrPeersUnknown) {
		t.Errorf("cold cache: error %v, want ErrPeersUnknown", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = p.Start(runCtx) }()
	if !cache.WaitForCacheSync(ctx.Done(), p.snis.HasSynced, p.certs.HasSynced) {
		t.Fatal("the cache did not sync")
	}
	snis, err := p.KongSNIs(ctx, "*")
	if err != nil || len(snis) != 1 || !strings.Contains(string(snis[0]), `"name":"a"`) {
		t.Fatalf("KongSNIs(*) = %s, %v; want KongSNI a", snis, err)
	}
	if strings.Contains(string(snis[0]), "last-applied") || strings.Contains(string(snis[0]), "managed-by") {
		t.Errorf("the cached object keeps what the rules do not read: %s", snis[0])
	}
	c, err := p.KongCertificate(ctx, "default", "ca")
	if err != nil || !strings.Contains(string(c), `"cp-a"`) || strings.Contains(string(c), "secretRef\":{") {
		t.Errorf("KongCertificate(default/ca) = %s, %v; want its control plane and nothing else of spec", c, err)
	}
	if c, err := p.KongCertificate(ctx, "default", "none"); c != nil || err != nil {
		t.Errorf("a missing certificate: %s, %v; want nil, nil", c, err)
	}
	p.max = 2
	if _, err := p.KongSNIs(ctx, "*"); !errors.Is(err, rules.ErrPeersUnknown) || !strings.Contains(err.Error(), "bound of 2") {
		t.Errorf("over its bound: error %v, want ErrPeersUnknown naming the bound", err)
	}
}

// BenchmarkPeerCacheMemory measures the heap 10,000 cached KongSNIs hold, cut as the cache cuts
// them, against the same objects whole (each with a 400-byte last-applied annotation).
func BenchmarkPeerCacheMemory(b *testing.B) {
	const n = 10000
	objs := make([]*unstructured.Unstructured, n)
	for i := range objs {
		objs[i] = peerObject("KongSNI", "default", fmt.Sprintf("cert.gw%d.443.https", i), map[string]any{
			"name": fmt.Sprintf("host-%d.example.com", i), "certificateRef": map[string]any{"name": fmt.Sprintf("cert.gw%d.443.https", i)}})
	}
	held := func(trim bool) uint64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{sniIndex: func(obj any) ([]string, error) {
			name, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", "name")
			return []string{name}, nil
		}})
		for _, o := range objs {
			var v any = o.DeepCopy()
			if trim {
				v, _ = trimPeer(v)
			}
			_ = idx.Add(v)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(idx)
		return after.HeapAlloc - before.HeapAlloc
	}
	var cut, whole uint64
	for b.Loop() {
		cut, whole = held(true), held(false)
	}
	b.ReportMetric(float64(cut)/n, "B/object")
	b.ReportMetric(float64(whole)/n, "B/whole-object")
	b.ReportMetric(float64(cut)/float64(whole), "cut/whole")
}
