package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kriguard/kriguard/rules"
)

// The kinds the rules across objects read at admission (docs/unique.md), and only those.
var (
	kongSNIs         = schema.GroupVersionResource{Group: rules.KongGroup, Version: "v1alpha1", Resource: "kongsnis"}
	kongCertificates = schema.GroupVersionResource{Group: rules.KongGroup, Version: "v1alpha1", Resource: "kongcertificates"}
)

// sniIndex indexes KongSNIs by spec.name.
const sniIndex = "spec.name"

// DefaultMaxPeers is the bound of a PeerCache given none: past it, the cache stops answering and
// requests are admitted with a note.
const DefaultMaxPeers = 50000

// The memory of the cache (docs/limits.md): each object is cut to fields of bounded size, so that
// one object holds at most peerObjectCost bytes whatever the object's size, and the cache at its
// bound at most PeerCacheMemory, which the budget of the reviews leaves to it.
const (
	// maxPeerName is the longest spec.name a KongSNI is cached with: the longest DNS name. A longer
	// one (Kong's CRD bounds none) is cached as its SHA-256 and given back on a lookup of it.
	maxPeerName = 253
	// maxPeerField is the most a kept field other than spec.name may hold, counted by peerFieldSize:
	// a reference of two 253-byte names fits; the CRDs bound them so. A larger one is not kept:
	// the object is compared as if it had none, which can only miss a clash, never make one.
	maxPeerField = 1024
	// peerObjectCost is the most heap one cached object holds, index included, its fields at their
	// bounds (TestPeerCacheMemory measures 3,681 bytes for a KongSNI, 3,433 for a KongCertificate,
	// Go 1.26, amd64), with a tenth to spare.
	peerObjectCost = 4 << 10
)

// PeerCacheMemory is the most memory a PeerCache of maxObjects objects holds at its bound.
func PeerCacheMemory(maxObjects int) int64 { return int64(max(maxObjects, 0)) * peerObjectCost }

// PeerCache is the bounded, indexed cache of the existing objects the rules across objects compare
// an admitted object with (rules.Peers): KongSNIs, indexed by spec.name, and KongCertificates, each
// cut to the fields the rules read. It never makes a request wait: until it has synced, when the
// API server cannot be reached, or once it holds more than its bound, it answers with an error
// wrapping rules.ErrPeersUnknown, and the request is admitted with a note that says why. Past its
// bound it lets go of what it holds, so that its memory stays within PeerCacheMemory, and lists
// again after PeerCacheRetry.
type PeerCache struct {
	newFactory func() dynamicinformer.DynamicSharedInformerFactory
	// count returns the number of peers the cluster holds, when it can tell cheaply (nil: never).
	count func(ctx context.Context) (n int64, known bool)
	max   int
	retry time.Duration
	// cur is what the cache holds now; nil while it holds nothing (not started, or past its bound).
	cur atomic.Pointer[peerInformers]
	// over is the number of objects last seen past the bound, 0 when the bound holds.
	over atomic.Int64
}

// peerInformers are the informers of one listing: from a start to the end of the run, or to the
// bound.
type peerInformers struct {
	factory     dynamicinformer.DynamicSharedInformerFactory
	snis, certs cache.SharedIndexInformer
	// size counts the objects held, by the informers' own events.
	size atomic.Int64
	// full is closed when size passes the bound.
	full     chan struct{}
	fullOnce sync.Once
}

// PeerCacheRetry is how long a PeerCache past its bound holds nothing before it lists again.
const PeerCacheRetry = 10 * time.Minute

var _ rules.Peers = (*PeerCache)(nil)

// NewPeerCache returns a PeerCache of the cluster of cfg holding at most max objects (0:
// DefaultMaxPeers). Start runs it.
func NewPeerCache(cfg *rest.Config, max int) (*PeerCache, error) {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the peer cache's client: %w", err)
	}
	p, err := newPeerCache(func() dynamicinformer.DynamicSharedInformerFactory {
		return dynamicinformer.NewDynamicSharedInformerFactory(dc, 10*time.Hour)
	}, max, PeerCacheRetry)
	if err != nil {
		return nil, err
	}
	p.count = func(ctx context.Context) (int64, bool) { return countPeers(ctx, dc) }
	return p, nil
}

// countPeers returns the number of KongSNIs and KongCertificates from one list of one object of
// each (remainingItemCount), so that a cluster past the bound is known before anything is listed
// in full: an informer's first list holds every object whole at once. known is false when the API
// server does not say.
func countPeers(ctx context.Context, dc dynamic.Interface) (n int64, known bool) {
	for _, gvr := range []schema.GroupVersionResource{kongSNIs, kongCertificates} {
		l, err := dc.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return 0, false
		}
		n += int64(len(l.Items))
		if l.GetContinue() != "" {
			r := l.GetRemainingItemCount()
			if r == nil {
				return 0, false
			}
			n += *r
		}
	}
	return n, true
}

func newPeerCache(newFactory func() dynamicinformer.DynamicSharedInformerFactory, max int, retry time.Duration) (*PeerCache, error) {
	if max <= 0 {
		max = DefaultMaxPeers
	}
	p := &PeerCache{newFactory: newFactory, max: max, retry: retry}
	// What it would hold is set up once now, so that a wrong set-up is an error at start.
	if _, err := p.informers(); err != nil {
		return nil, err
	}
	return p, nil
}

// informers returns new informers of the peers, not started.
func (p *PeerCache) informers() (*peerInformers, error) {
	f := p.newFactory()
	g := &peerInformers{factory: f, snis: f.ForResource(kongSNIs).Informer(), certs: f.ForResource(kongCertificates).Informer(), full: make(chan struct{})}
	for _, inf := range []cache.SharedIndexInformer{g.snis, g.certs} {
		if err := inf.SetTransform(trimPeer); err != nil {
			return nil, fmt.Errorf("setting up the peer cache: %w", err)
		}
	}
	counter := cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) {
			if g.size.Add(1) > int64(p.max) {
				g.fullOnce.Do(func() { close(g.full) })
			}
		},
		DeleteFunc: func(any) { g.size.Add(-1) },
	}
	for _, inf := range []cache.SharedIndexInformer{g.snis, g.certs} {
		if _, err := inf.AddEventHandler(counter); err != nil {
			return nil, fmt.Errorf("setting up the peer cache: %w", err)
		}
	}
	if err := g.snis.AddIndexers(cache.Indexers{sniIndex: indexSNI}); err != nil {
		return nil, fmt.Errorf("setting up the peer cache: %w", err)
	}
	return g, nil
}

// peerFields are the fields the rules across objects read of a peer besides spec.name; the cache
// keeps no other.
var peerFields = [][]string{{"spec", "certificateRef"}, {"spec", "controlPlaneRef"}}

// sniDigestKey holds, at the top of a cached KongSNI, the SHA-256 of a spec.name longer than
// maxPeerName, which is not kept; no Kubernetes object has such a key.
const sniDigestKey = "kriguard.io/specNameSHA256"

// sniKey is the index key of spec.name sni: sni itself, or for a long one its digest after a NUL,
// so that a key never equals both a name and a digest of another.
func sniKey(sni string) string {
	if len(sni) <= maxPeerName {
		return sni
	}
	return "\x00" + sniDigest(sni)
}

func sniDigest(sni string) string {
	sum := sha256.Sum256([]byte(sni))
	return hex.EncodeToString(sum[:])
}

func indexSNI(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	if d, ok := u.Object[sniDigestKey].(string); ok {
		return []string{"\x00" + d}, nil
	}
	name, _, _ := unstructured.NestedString(u.Object, "spec", "name")
	return []string{name}, nil
}

// trimPeer cuts an object to its identity, spec.name and peerFields before the cache stores it,
// each of bounded size (maxPeerName, maxPeerField): the memory of the cache follows the number of
// objects, not their size.
func trimPeer(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // a deletion marker
	}
	out := &unstructured.Unstructured{Object: map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind()}}
	// Names and UIDs are bounded by the API server; a resourceVersion is a number.
	out.SetName(u.GetName())
	out.SetNamespace(u.GetNamespace())
	out.SetResourceVersion(u.GetResourceVersion())
	out.SetUID(u.GetUID())
	if name, ok, _ := unstructured.NestedString(u.Object, "spec", "name"); ok {
		if len(name) > maxPeerName {
			out.Object[sniDigestKey] = sniDigest(name)
		} else {
			_ = unstructured.SetNestedField(out.Object, name, "spec", "name")
		}
	}
	for _, f := range peerFields {
		if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, f...); ok && peerFieldSize(v, maxPeerField) <= maxPeerField {
			_ = unstructured.SetNestedField(out.Object, v, f...)
		}
	}
	return out, nil
}

// peerFieldSize is the size of the JSON value v counted as its strings' bytes and 16 per value,
// stopping once it passes limit.
func peerFieldSize(v any, limit int) int {
	n := 16
	switch v := v.(type) {
	case string:
		n += len(v)
	case map[string]any:
		for k, e := range v {
			if n += len(k) + peerFieldSize(e, limit-n); n > limit {
				return n
			}
		}
	case []any:
		for _, e := range v {
			if n += peerFieldSize(e, limit-n); n > limit {
				return n
			}
		}
	}
	return n
}

// Start runs the informers until ctx is done (manager.Runnable). When they hold more than the
// bound, it stops them and lets go of what they hold, and lists again after the retry interval.
func (p *PeerCache) Start(ctx context.Context) error {
	for {
		if p.count != nil {
			if n, known := p.count(ctx); known && n > int64(p.max) {
				p.over.Store(n)
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(p.retry):
				}
				continue
			}
		}
		g, err := p.informers()
		if err != nil {
			return err
		}
		gctx, stop := context.WithCancel(ctx)
		g.factory.Start(gctx.Done())
		p.cur.Store(g)
		select {
		case <-ctx.Done():
		case <-g.full:
		}
		p.cur.Store(nil)
		stop()
		g.factory.Shutdown()
		if ctx.Err() != nil {
			return nil
		}
		p.over.Store(g.size.Load())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(p.retry):
		}
	}
}

// NeedLeaderElection is false: every replica answers admissions.
func (p *PeerCache) NeedLeaderElection() bool { return false }

// ready returns what the cache holds, or why it cannot answer.
func (p *PeerCache) ready() (*peerInformers, error) {
	g := p.cur.Load()
	if n := p.over.Load(); n > 0 && (g == nil || !g.synced()) {
		return nil, fmt.Errorf("%w: the cluster holds more than %d KongSNIs and KongCertificates, the cache's bound (%d seen): it holds none, and lists them again every %s", rules.ErrPeersUnknown, p.max, n, p.retry)
	}
	if g == nil || !g.synced() {
		return nil, fmt.Errorf("%w: the cache of KongSNIs and KongCertificates has not synced (starting, the API server unreachable, or no list and watch on them)", rules.ErrPeersUnknown)
	}
	if n := g.size.Load(); n > int64(p.max) {
		return nil, fmt.Errorf("%w: the cache holds %d KongSNIs and KongCertificates, more than its bound of %d", rules.ErrPeersUnknown, n, p.max)
	}
	p.over.Store(0)
	return g, nil
}

func (g *peerInformers) synced() bool { return g.snis.HasSynced() && g.certs.HasSynced() }

// KongSNIs returns the cached KongSNIs of spec.name sni.
func (p *PeerCache) KongSNIs(_ context.Context, sni string) ([][]byte, error) {
	g, err := p.ready()
	if err != nil {
		return nil, err
	}
	objs, err := g.snis.GetIndexer().ByIndex(sniIndex, sniKey(sni))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", rules.ErrPeersUnknown, err)
	}
	out := make([][]byte, 0, len(objs))
	for _, o := range objs {
		if u, ok := o.(*unstructured.Unstructured); ok && u.Object[sniDigestKey] != nil {
			// A long spec.name, kept as its digest: the one looked up, given back.
			if u.Object[sniDigestKey] != sniDigest(sni) {
				continue
			}
			u = u.DeepCopy()
			delete(u.Object, sniDigestKey)
			_ = unstructured.SetNestedField(u.Object, sni, "spec", "name")
			o = u
		}
		b, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", rules.ErrPeersUnknown, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// KongCertificate returns the cached KongCertificate namespace/name, nil when there is none.
func (p *PeerCache) KongCertificate(_ context.Context, namespace, name string) ([]byte, error) {
	g, err := p.ready()
	if err != nil {
		return nil, err
	}
	o, ok, err := g.certs.GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", rules.ErrPeersUnknown, err)
	}
	if !ok {
		return nil, nil
	}
	return json.Marshal(o)
}
