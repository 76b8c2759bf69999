package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

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
// wrapping rules.ErrPeersUnknown, and the request is admitted with a note that says why.
type PeerCache struct {
	snis, certs cache.SharedIndexInformer
	factory     dynamicinformer.DynamicSharedInformerFactory
	max         int
	// size counts the objects held, by the informers' own events.
	size atomic.Int64
}

var _ rules.Peers = (*PeerCache)(nil)

// NewPeerCache returns a PeerCache of the cluster of cfg holding at most max objects (0:
// DefaultMaxPeers). Start runs it.
func NewPeerCache(cfg *rest.Config, max int) (*PeerCache, error) {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the peer cache's client: %w", err)
	}
	return newPeerCache(dynamicinformer.NewDynamicSharedInformerFactory(dc, 10*time.Hour), max)
}

func newPeerCache(f dynamicinformer.DynamicSharedInformerFactory, max int) (*PeerCache, error) {
	if max <= 0 {
		max = DefaultMaxPeers
	}
	p := &PeerCache{factory: f, max: max, snis: f.ForResource(kongSNIs).Informer(), certs: f.ForResource(kongCertificates).Informer()}
	for _, inf := range []cache.SharedIndexInformer{p.snis, p.certs} {
		if err := inf.SetTransform(trimPeer); err != nil {
			return nil, fmt.Errorf("setting up the peer cache: %w", err)
		}
	}
	counter := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { p.size.Add(1) },
		DeleteFunc: func(any) { p.size.Add(-1) },
	}
	for _, inf := range []cache.SharedIndexInformer{p.snis, p.certs} {
		if _, err := inf.AddEventHandler(counter); err != nil {
			return nil, fmt.Errorf("setting up the peer cache: %w", err)
		}
	}
	if err := p.snis.AddIndexers(cache.Indexers{sniIndex: indexSNI}); err != nil {
		return nil, fmt.Errorf("setting up the peer cache: %w", err)
	}
	return p, nil
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

// Start runs the informers until ctx is done (manager.Runnable).
func (p *PeerCache) Start(ctx context.Context) error {
	p.factory.Start(ctx.Done())
	<-ctx.Done()
	p.factory.Shutdown()
	return nil
}

// NeedLeaderElection is false: every replica answers admissions.
func (p *PeerCache) NeedLeaderElection() bool { return false }

// ready says why the cache cannot answer, nil when it can.
func (p *PeerCache) ready() error {
	if !p.snis.HasSynced() || !p.certs.HasSynced() {
		return fmt.Errorf("%w: the cache of KongSNIs and KongCertificates has not synced (starting, the API server unreachable, or no list and watch on them)", rules.ErrPeersUnknown)
	}
	if n := p.size.Load(); n > int64(p.max) {
		return fmt.Errorf("%w: the cache holds %d KongSNIs and KongCertificates, more than its bound of %d", rules.ErrPeersUnknown, n, p.max)
	}
	return nil
}

// KongSNIs returns the cached KongSNIs of spec.name sni.
func (p *PeerCache) KongSNIs(_ context.Context, sni string) ([][]byte, error) {
	if err := p.ready(); err != nil {
		return nil, err
	}
	objs, err := p.snis.GetIndexer().ByIndex(sniIndex, sniKey(sni))
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
	if err := p.ready(); err != nil {
		return nil, err
	}
	o, ok, err := p.certs.GetIndexer().GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", rules.ErrPeersUnknown, err)
	}
	if !ok {
		return nil, nil
	}
	return json.Marshal(o)
}
