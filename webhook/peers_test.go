package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
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
	p, _ := fakePeerCacheClient(t, max, objs...)
	return p
}

// fakePeerCacheClient returns a PeerCache of a fake cluster holding objs, which lists again 50 ms
// after it passed its bound, and the fake cluster's client. It counts no objects before listing.
func fakePeerCacheClient(t testing.TB, max int, objs ...kruntime.Object) (*PeerCache, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	s := kruntime.NewScheme()
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(s, map[schema.GroupVersionResource]string{
		kongSNIs: "KongSNIList", kongCertificates: "KongCertificateList"}, objs...)
	p, err := newPeerCache(func() dynamicinformer.DynamicSharedInformerFactory {
		return dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	}, max, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	return p, dc
}

// startPeers runs p until the test ends and waits until it has synced.
func startPeers(t *testing.T, p *PeerCache) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { _ = p.Start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitPeers(t, "synced", func() bool { g := p.cur.Load(); return g != nil && g.synced() })
}

func waitPeers(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatalf("the peer cache: not %s: %v", what, err)
	}
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
	startPeers(t, p)
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
}

// Past its bound the cache holds nothing, answers ErrPeersUnknown naming the bound, and lists again
// after its retry interval: once the cluster is back within the bound, it answers again. A cluster
// it can count before listing is not listed at all.
func TestPeerCacheOverBound(t *testing.T) {
	ctx := t.Context()
	objs := []kruntime.Object{
		peerObject("KongSNI", "default", "a", map[string]any{"name": "*", "certificateRef": map[string]any{"name": "c"}}),
		peerObject("KongSNI", "default", "b", map[string]any{"name": "*", "certificateRef": map[string]any{"name": "c"}}),
		peerObject("KongCertificate", "default", "c", map[string]any{"type": "secretRef"}),
	}
	for _, counted := range []bool{false, true} {
		t.Run(fmt.Sprint("counted: ", counted), func(t *testing.T) {
			p, dc := fakePeerCacheClient(t, 2, objs...)
			var listings atomic.Int64 // informers started
			newFactory := p.newFactory
			p.newFactory = func() dynamicinformer.DynamicSharedInformerFactory { listings.Add(1); return newFactory() }
			if counted {
				p.count = func(ctx context.Context) (int64, bool) { return countPeers(ctx, dc) }
			}
			runCtx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { _ = p.Start(runCtx); close(done) }()
			defer func() { cancel(); <-done }()
			waitPeers(t, "past its bound", func() bool { return p.over.Load() > 2 })
			_, err := p.KongSNIs(ctx, "*")
			if !errors.Is(err, rules.ErrPeersUnknown) || !strings.Contains(err.Error(), "more than 2 KongSNIs and KongCertificates, the cache's bound (3 seen): it holds none") {
				t.Errorf("past its bound: error %v, want ErrPeersUnknown naming the bound", err)
			}
			if g := p.cur.Load(); g != nil && g.synced() && g.size.Load() > 2 {
				t.Errorf("past its bound, the cache still holds %d objects", g.size.Load())
			}
			if n := listings.Load(); counted && n > 0 {
				t.Errorf("a cluster counted past the bound: informers started %d times, want none", n)
			}
			if err := dc.Resource(kongSNIs).Namespace("default").Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			waitPeers(t, "answering again", func() bool { _, err := p.KongSNIs(ctx, "*"); return err == nil })
			if snis, err := p.KongSNIs(ctx, "*"); err != nil || len(snis) != 1 {
				t.Errorf("within its bound again: %d KongSNIs, %v; want a", len(snis), err)
			}
		})
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

// peerOf returns a KongSNI or KongCertificate whose every kept field is at its bound, under labels,
// annotations and a spec of extra bytes the cache must not keep.
func peerOf(kind string, i, extra int) *unstructured.Unstructured {
	long := func(c string, n int) string { return fmt.Sprintf("%s%d", strings.Repeat(c, n-8), 10000000+i) }
	ref := map[string]any{"name": long("n", 253), "namespace": long("s", 253)}
	spec := map[string]any{"tags": []any{strings.Repeat("t", extra/2)}}
	if kind == "KongSNI" {
		spec["name"], spec["certificateRef"] = long("h", 253), ref
	} else {
		spec["type"], spec["controlPlaneRef"] = "konnectNamespacedRef", map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": ref}
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": rules.KongGroup + "/v1alpha1", "kind": kind, "spec": spec}}
	u.SetNamespace(long("a", 63))
	u.SetName(long("b", 253))
	u.SetUID(types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)))
	u.SetResourceVersion(fmt.Sprint(1<<62 + i))
	labels := map[string]string{}
	for j := range extra / 256 {
		labels[fmt.Sprintf("%s/k%d", strings.Repeat("p", 100), j)] = strings.Repeat("v", 63)
	}
	u.SetLabels(labels)
	u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", extra/4)})
	return u
}

// held returns the heap n objects made by mk hold once cut and stored as the cache stores them,
// index included. Each object is made, cut and stored in turn: only what the cache keeps stays.
func held(t *testing.T, n int, mk func(i int) *unstructured.Unstructured) uint64 {
	t.Helper()
	g, err := fakePeerCache(t, 0).informers()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		o := mk(i)
		inf := g.certs
		if o.GetKind() == "KongSNI" {
			inf = g.snis
		}
		v, err := trimPeer(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.GetIndexer().Add(v); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(g)
	return after.HeapAlloc - before.HeapAlloc
}

// measurePeersEnv is set in the process TestPeerCacheMemory runs itself in.
const measurePeersEnv = "KRIGUARD_MEASURE_PEERS"

// The cache holds at most peerObjectCost bytes per object whatever the objects' size: the worst
// shape (every kept field at its bound, 64 KB of labels, annotations and spec besides, which are not
// kept) holds no more than that, and twice as many objects hold twice as much.
func TestPeerCacheMemory(t *testing.T) {
	if os.Getenv(measurePeersEnv) == "" {
		// Heap figures hold only in a process that runs nothing else: the test runs itself alone.
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeerCacheMemory$", "-test.v")
		cmd.Env = append(os.Environ(), measurePeersEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Fatalf("the measurement failed: %v", err)
		}
		return
	}
	const n = 2000
	for _, tc := range []struct {
		name  string
		extra int
	}{
		{"at the bounds", 0},
		{"at the bounds, 64 KB besides", 64 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, kind := range []string{"KongSNI", "KongCertificate"} {
				one := held(t, n, func(i int) *unstructured.Unstructured { return peerOf(kind, i, tc.extra) })
				two := held(t, 2*n, func(i int) *unstructured.Unstructured { return peerOf(kind, i, tc.extra) })
				per := float64(two) / (2 * n)
				t.Logf("%s: %d objects hold %d bytes, %d hold %d: %.0f bytes each, ratio %.2f", kind, n, one, 2*n, two, per, float64(two)/float64(one))
				if per > peerObjectCost {
					t.Errorf("%s: %.0f bytes per object, more than peerObjectCost %d", kind, per, peerObjectCost)
				}
				if r := float64(two) / float64(one); r < 1.8 || r > 2.2 {
					t.Errorf("%s: %d objects hold %.2f times what %d hold, want about 2", kind, 2*n, r, n)
				}
			}
		})
	}
	// A long spec.name (Kong's CRD bounds none) is held as its digest: the same as a short one.
	longName := held(t, n, func(i int) *unstructured.Unstructured {
		o := peerOf("KongSNI", i, 0)
		_ = unstructured.SetNestedField(o.Object, fmt.Sprint(i, strings.Repeat("h", 64<<10)), "spec", "name")
		return o
	})
	if per := longName / n; per > peerObjectCost {
		t.Errorf("KongSNIs with a 64 KiB spec.name: %d bytes each, more than peerObjectCost %d", per, peerObjectCost)
	}
}

// A spec.name longer than the longest DNS name is cached as its digest, found by it and given back
// whole; a reference larger than maxPeerField is not kept.
func TestPeerCacheLongFields(t *testing.T) {
	ctx := t.Context()
	long := strings.Repeat("h", 1000)
	other := strings.Repeat("h", 999) + "i"
	cp := map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": "cp"}}
	p := fakePeerCache(t, 0,
		peerObject("KongSNI", "default", "a", map[string]any{"name": long, "certificateRef": map[string]any{"name": "c"}}),
		peerObject("KongSNI", "default", "b", map[string]any{"name": long, "certificateRef": map[string]any{"name": "c"}}),
		peerObject("KongSNI", "default", "big", map[string]any{"name": "big.example.com", "certificateRef": map[string]any{"name": strings.Repeat("c", 2000)}}),
		peerObject("KongCertificate", "default", "c", map[string]any{"type": "secretRef", "controlPlaneRef": cp}),
	)
	startPeers(t, p)
	for _, o := range p.cur.Load().snis.GetStore().List() {
		if b, _ := json.Marshal(o); len(b) > 2*maxPeerField {
			t.Errorf("a cached KongSNI holds %d bytes: %.200s…", len(b), b)
		}
	}
	snis, err := p.KongSNIs(ctx, long)
	if err != nil || len(snis) != 2 {
		t.Fatalf("KongSNIs(long) = %d objects, %v; want a and b", len(snis), err)
	}
	for _, b := range snis {
		var o struct {
			Spec struct{ Name string } `json:"spec"`
		}
		if err := json.Unmarshal(b, &o); err != nil || o.Spec.Name != long || strings.Contains(string(b), sniDigestKey) {
			t.Errorf("KongSNIs(long) gave %.120s…: want its spec.name whole, no digest", b)
		}
	}
	if snis, err := p.KongSNIs(ctx, other); err != nil || len(snis) != 0 {
		t.Errorf("KongSNIs(another long name) = %d objects, %v; want none", len(snis), err)
	}
	big, err := p.KongSNIs(ctx, "big.example.com")
	if err != nil || len(big) != 1 || strings.Contains(string(big[0]), "certificateRef") {
		t.Errorf("KongSNIs(big.example.com) = %s, %v; want the KongSNI without its oversized certificateRef", big, err)
	}
}
