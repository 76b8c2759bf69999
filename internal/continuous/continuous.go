package continuous

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/openreports/reports-api/pkg/client/clientset/versioned"
	"github.com/openreports/reports-api/pkg/client/informers/externalversions"
	listers "github.com/openreports/reports-api/pkg/client/listers/openreports.io/v1alpha1"

	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/internal/served"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// Options configure an Auditor.
type Options struct {
	// Rules judge the objects; nil means rules.DefaultConfig().
	Rules *rules.Config
	// Release returns the Kuma release to judge against now (a kumarelease.Watcher's Release for
	// kuma.version auto); nil, or the zero Release, is the rules' configured release. When what it
	// returns changes, every object is judged again. With it, the kinds watched are those judged
	// under any known release: the kinds a release removed too, whose leftovers are refused as
	// soon as the control plane runs that release.
	Release func() naming.Release
	// Mode returns the control plane's mode now (a kumarelease.Watcher's Mode for kuma.mode auto);
	// nil, or "", is the configured mode. When what it returns changes, every object is judged
	// again.
	Mode func() rules.Mode
	// Kinds, when not empty, are the only kinds watched: the chart's enabled kinds and the Kuma
	// kinds a release removed, those its role lets the auditor list and watch.
	Kinds []schema.GroupKind
	// Interval is how often every object is judged again and the reports of objects gone are
	// pruned; 0 means 10 minutes.
	Interval time.Duration
	// Workers judge objects and write their reports at once; 0 means 4. It bounds the writes
	// under way.
	Workers int
	// Metrics count progress and outcome; nil counts into metrics nobody reads.
	Metrics *Metrics
	// Log gets what the auditor does; the zero Logger discards it.
	Log logr.Logger
}

func (o *Options) defaults() {
	if o.Rules == nil {
		o.Rules = rules.DefaultConfig()
	}
	if o.Interval <= 0 {
		o.Interval = 10 * time.Minute
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
}

// Auditor keeps the reports of a cluster's guarded objects current.
type Auditor struct {
	opts    Options
	rest    *rest.Config
	writer  *reports.Writer
	queue   workqueue.TypedRateLimitingInterface[item]
	reps    listers.ReportLister
	creps   listers.ClusterReportLister
	repInfs []cache.SharedIndexInformer
	synced  atomic.Bool

	// The kinds watched, and what starts an informer, set by Run. Discovery runs again on each
	// interval and when the release or mode changes: a kind served later (Kuma installed after
	// kriguard) is watched from then on, one no longer served is let go.
	kindsMu sync.RWMutex
	kinds   []*watchedKind // append-only: an item names its kind by index
	byKind  map[string]int // KindLabel value → index in kinds of the kind watched now
	dc      served.Discovery
	dyn     dynamic.Interface
	runCtx  context.Context
	wg      *sync.WaitGroup

	mu      sync.Mutex
	outcome map[types.UID]judged // the last outcome of each object, for the metrics
}

// judged is the last outcome of an object.
type judged struct{ kind, outcome string }

type watchedKind struct {
	served.Kind
	label    string // reports.KindLabel's value
	informer cache.SharedIndexInformer
	stop     context.CancelFunc
	gone     bool // no longer served: its informer is stopped and its objects no longer count
}

// judgedUnder is what objects are judged under: the release and the control plane's mode.
type judgedUnder struct {
	release naming.Release
	mode    rules.Mode
}

// item is an object to judge, or the report of an object gone to delete (kind -1: of a kind not
// watched).
type item struct {
	kind            int
	namespace, name string
	uid             types.UID
}

// stored is what the informers keep of an object: its metadata's names and its JSON.
type stored struct {
	metav1.ObjectMeta
	raw []byte
}

// New returns an Auditor for the cluster cfg reaches. Nothing is read before Run.
func New(cfg *rest.Config, opts Options) (*Auditor, error) {
	opts.defaults()
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	rc, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the reports client: %w", err)
	}
	wc, err := reports.NewClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the reports client: %w", err)
	}
	a := &Auditor{
		opts:    opts,
		rest:    cfg,
		writer:  reports.NewWriter(wc),
		byKind:  map[string]int{},
		outcome: map[types.UID]judged{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[item](),
			workqueue.TypedRateLimitingQueueConfig[item]{Name: "kriguard_audit"}),
	}
	f := externalversions.NewSharedInformerFactoryWithOptions(rc, 0,
		externalversions.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = reports.Selector }))
	a.reps = f.Openreports().V1alpha1().Reports().Lister()
	a.creps = f.Openreports().V1alpha1().ClusterReports().Lister()
	a.repInfs = []cache.SharedIndexInformer{f.Openreports().V1alpha1().Reports().Informer(), f.Openreports().V1alpha1().ClusterReports().Informer()}
	opts.Metrics.queue = a.queue.Len
	opts.Metrics.synced = a.synced.Load
	return a, nil
}

// Synced reports whether the first listing of every watched kind and of the reports is done.
func (a *Auditor) Synced() bool { return a.synced.Load() }

// Run watches and judges until ctx is done. It returns an error when the guarded kinds cannot be
// discovered or the caches cannot be filled, and nil when ctx ends it.
func (a *Auditor) Run(ctx context.Context) error {
	dc, err := discovery.NewDiscoveryClientForConfig(a.rest)
	if err != nil {
		return fmt.Errorf("building the discovery client: %w", err)
	}
	if _, err := dc.ServerResourcesForGroupVersionWithContext(ctx, reports.GroupVersion.String()); err != nil {
		return fmt.Errorf("the cluster does not serve %s (install the OpenReports CRDs, e.g. with the chart's openreports.installCRDs): %w", reports.GroupVersion, err)
	}
	dyn, err := dynamic.NewForConfig(a.rest)
	if err != nil {
		return fmt.Errorf("building the client: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	// Deferred calls run last first: the workers stop waiting for items before wg.Wait.
	defer a.queue.ShutDown()
	a.kindsMu.Lock()
	a.dc, a.dyn, a.runCtx, a.wg = dc, dyn, ctx, &wg
	a.kindsMu.Unlock()
	if err := a.discover(ctx); err != nil {
		return err
	}
	var synced []cache.InformerSynced
	for _, k := range a.watched() {
		synced = append(synced, k.informer.HasSynced)
	}
	for _, inf := range a.repInfs {
		synced = append(synced, inf.HasSynced)
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("filling the caches failed")
	}
	a.synced.Store(true)
	a.opts.Log.Info("synced")
	for range a.opts.Workers {
		wg.Go(func() {
			for a.next(ctx) {
			}
		})
	}
	// The informers queued every object as they listed it; the first pass only prunes.
	a.prune()
	if a.opts.Release != nil || a.opts.Mode != nil {
		wg.Go(func() { a.followRelease(ctx) })
	}
	first := true
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		if !first {
			a.rediscover(ctx)
		}
		first = false
		a.pass()
	}, a.opts.Interval)
	return nil
}

// releaseCheck is how often the auditor compares the release and mode in force with those it
// judged under; reading them is an atomic load.
const releaseCheck = time.Second

// followRelease judges every object again whenever the Kuma release or the control plane's mode
// changes (an upgrade of the control plane, a zone joining a global one), without waiting for the
// interval; the kinds served are discovered again first.
func (a *Auditor) followRelease(ctx context.Context) {
	last := a.under()
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		cur := a.under()
		if cur == last {
			return
		}
		a.opts.Log.Info("the Kuma release or mode changed: judging every object again",
			"kumaRelease", cur.release.String(), "previous", last.release.String(),
			"kumaMode", string(cur.mode), "previousMode", string(last.mode))
		last = cur
		a.rediscover(ctx)
		a.pass()
	}, releaseCheck)
}

// under returns the release and mode to judge under now.
func (a *Auditor) under() judgedUnder {
	u := judgedUnder{release: a.release()}
	if a.opts.Mode != nil {
		u.mode = a.opts.Mode()
	}
	return u
}

// releases returns the releases objects may be judged under: every known one when the release is
// followed, else the configured one.
func (a *Auditor) releases() []naming.Release {
	if a.opts.Release != nil {
		return naming.Releases()
	}
	return []naming.Release{{}}
}

// rediscover is discover after the start: an error is logged, and what is watched stays.
func (a *Auditor) rediscover(ctx context.Context) {
	if err := a.discover(ctx); err != nil && ctx.Err() == nil {
		a.opts.Log.Error(err, "discovering the kinds served: watching the same kinds")
	}
}

// discover watches the kinds to watch that the cluster serves and no informer watches yet, and
// lets go of those it no longer serves.
func (a *Auditor) discover(ctx context.Context) error {
	kinds, err := served.KindsForReleases(ctx, a.dc, a.opts.Rules, a.releases(), false, "list", "watch")
	if err != nil {
		return err
	}
	if len(a.opts.Kinds) > 0 {
		kinds = slices.DeleteFunc(kinds, func(k served.Kind) bool { return !slices.Contains(a.opts.Kinds, k.GroupKind()) })
	}
	a.kindsMu.Lock()
	defer a.kindsMu.Unlock()
	keep := map[int]bool{}
	for _, k := range kinds {
		label := reports.Subject{APIVersion: k.APIVersion(), Kind: k.Kind}.GroupKind()
		if i, ok := a.byKind[label]; ok && a.kinds[i].Kind == k {
			keep[i] = true
			continue
		}
		i := len(a.kinds)
		inf := dynamicinformer.NewFilteredDynamicInformer(a.dyn, k.GVR, "", 0, cache.Indexers{}, nil).Informer()
		if err := inf.SetTransform(slim); err != nil {
			return fmt.Errorf("watching %s: %w", k.GVR.GroupResource(), err)
		}
		if _, err := inf.AddEventHandler(a.handler(i)); err != nil {
			return fmt.Errorf("watching %s: %w", k.GVR.GroupResource(), err)
		}
		kctx, stop := context.WithCancel(a.runCtx)
		a.kinds = append(a.kinds, &watchedKind{Kind: k, label: label, informer: inf, stop: stop})
		a.wg.Go(func() { inf.RunWithContext(kctx) })
		a.opts.Log.Info("watching", "kind", label, "resource", k.GVR.String())
		keep[i] = true
		if old, ok := a.byKind[label]; ok {
			a.letGo(old) // served at another version now
		}
		a.byKind[label] = i
	}
	for label, i := range a.byKind {
		if !keep[i] {
			a.letGo(i)
			delete(a.byKind, label)
		}
	}
	a.opts.Log.V(1).Info("kinds discovered", "watched", len(a.byKind), "interval", a.opts.Interval)
	return nil
}

// letGo stops the informer of kinds[i], a kind no longer watched; its objects' reports are pruned.
// kindsMu is held.
func (a *Auditor) letGo(i int) {
	k := a.kinds[i]
	if k.gone {
		return
	}
	k.gone = true
	k.stop()
	a.opts.Log.Info("no longer watching: not served", "kind", k.label, "resource", k.GVR.String())
}

// watched returns the kinds watched now.
func (a *Auditor) watched() []*watchedKind {
	a.kindsMu.RLock()
	defer a.kindsMu.RUnlock()
	out := make([]*watchedKind, 0, len(a.byKind))
	for _, k := range a.kinds {
		if !k.gone {
			out = append(out, k)
		}
	}
	return out
}

// kind returns kinds[i] and whether it is watched now.
func (a *Auditor) kind(i int) (*watchedKind, bool) {
	a.kindsMu.RLock()
	defer a.kindsMu.RUnlock()
	return a.kinds[i], !a.kinds[i].gone
}

// release returns the release to judge against now: Options.Release's, or the rules'.
func (a *Auditor) release() naming.Release {
	if a.opts.Release != nil {
		if r := a.opts.Release(); r != (naming.Release{}) {
			return r
		}
	}
	return a.opts.Rules.Release()
}

// slim keeps what the auditor needs of an object: its names and its JSON without managedFields,
// a fraction of the decoded object's memory.
func slim(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // a tombstone (cache.DeletedFinalStateUnknown) holds a stored object already
	}
	unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	s := &stored{raw: raw}
	s.Name, s.Namespace, s.UID, s.ResourceVersion = u.GetName(), u.GetNamespace(), u.GetUID(), u.GetResourceVersion()
	return s, nil
}

func (a *Auditor) handler(kind int) cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if s, ok := obj.(*stored); ok {
			a.queue.Add(item{kind: kind, namespace: s.Namespace, name: s.Name, uid: s.UID})
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*stored)
			c, ok2 := cur.(*stored)
			if ok1 && ok2 && o.ResourceVersion == c.ResourceVersion {
				return
			}
			enqueue(cur)
		},
		DeleteFunc: enqueue,
	}
}

// pass queues every object to be judged again, then prunes.
func (a *Auditor) pass() {
	if !a.synced.Load() {
		return
	}
	n := 0
	a.kindsMu.RLock()
	for i, k := range a.kinds {
		if k.gone {
			continue
		}
		for _, obj := range k.informer.GetStore().List() {
			s := obj.(*stored)
			a.queue.Add(item{kind: i, namespace: s.Namespace, name: s.Name, uid: s.UID})
			n++
		}
	}
	a.kindsMu.RUnlock()
	a.opts.Metrics.passes.Inc()
	a.opts.Metrics.lastPass.SetToCurrentTime()
	a.opts.Log.V(1).Info("judging every object again", "objects", n)
	a.prune()
}

// prune queues the reports whose object no informer holds: deleted while nobody watched, or of a
// kind no longer watched. It waits for a kind watched since the start to be listed: until then,
// its objects' reports would look orphaned.
func (a *Auditor) prune() {
	live := map[types.UID]bool{}
	byKind := map[string]int{}
	a.kindsMu.RLock()
	for _, k := range a.kinds {
		if k.gone {
			continue
		}
		if !k.informer.HasSynced() {
			a.kindsMu.RUnlock()
			return
		}
		for _, obj := range k.informer.GetStore().List() {
			live[obj.(*stored).UID] = true
		}
	}
	maps.Copy(byKind, a.byKind)
	a.kindsMu.RUnlock()
	var all []*v1alpha1.Report
	if rs, err := a.reps.List(labels.Everything()); err == nil {
		all = append(all, rs...)
	}
	if crs, err := a.creps.List(labels.Everything()); err == nil {
		for _, cr := range crs {
			all = append(all, reports.FromCluster(cr))
		}
	}
	for _, r := range all {
		if r.Scope == nil || live[r.Scope.UID] {
			continue
		}
		kind, ok := byKind[r.Labels[reports.KindLabel]]
		if !ok {
			kind = -1
		}
		a.queue.Add(item{kind: kind, namespace: r.Scope.Namespace, name: r.Scope.Name, uid: r.Scope.UID})
	}
}

// next processes one item; false when the queue is shut down.
func (a *Auditor) next(ctx context.Context) bool {
	it, quit := a.queue.Get()
	if quit {
		return false
	}
	defer a.queue.Done(it)
	if err := a.sync(ctx, it); err != nil {
		if ctx.Err() == nil {
			a.opts.Log.Error(err, "writing a report", "namespace", it.namespace, "name", it.name)
		}
		a.queue.AddRateLimited(it)
		return true
	}
	a.queue.Forget(it)
	return true
}

// sync judges the object of it, if it still exists, and makes its report what the judgement says.
func (a *Auditor) sync(ctx context.Context, it item) error {
	var desired *v1alpha1.Report
	s := reports.Subject{Namespace: it.namespace, Name: it.name, UID: it.uid}
	if it.kind >= 0 {
		k, watched := a.kind(it.kind)
		s.APIVersion, s.Kind = k.APIVersion(), k.Kind.Kind
		key := it.name
		if it.namespace != "" {
			key = it.namespace + "/" + it.name
		}
		obj, exists, err := k.informer.GetStore().GetByKey(key)
		if err != nil {
			return err
		}
		if cur, ok := obj.(*stored); exists && ok && cur.UID == it.uid && watched {
			u := a.under()
			rel := u.release
			d, err := a.opts.Rules.Decide(ctx, rules.Request{Phase: rules.Admit, Kind: k.GroupKind(), Object: cur.raw, Release: rel, Mode: u.mode})
			if err != nil {
				a.opts.Metrics.errors.WithLabelValues(k.label).Inc()
				a.opts.Log.Error(err, "judging", "kind", k.label, "namespace", it.namespace, "name", it.name)
				return nil // the object cannot be decoded: judging it again will not help
			}
			a.opts.Metrics.judged.WithLabelValues(k.label, rel.String()).Inc()
			a.record(it.uid, judged{kind: k.label, outcome: string(d.Outcome)})
			desired = reports.Build(s, &d, time.Now())
		} else {
			a.record(it.uid, judged{})
		}
	}
	key := reports.Key(s)
	op, err := a.writer.Write(ctx, key, desired, a.existing(key))
	if err != nil {
		a.opts.Metrics.writeErrors.Inc()
		return err
	}
	if op != reports.Unchanged {
		a.opts.Metrics.writes.WithLabelValues(string(op)).Inc()
		a.opts.Log.V(1).Info("report written", "operation", op, "namespace", key.Namespace, "name", key.Name)
	}
	return nil
}

// existing returns the report the cache holds at key, nil for none.
func (a *Auditor) existing(key types.NamespacedName) *v1alpha1.Report {
	if key.Namespace == "" {
		cr, err := a.creps.Get(key.Name)
		if err != nil {
			return nil
		}
		return reports.FromCluster(cr)
	}
	r, err := a.reps.Reports(key.Namespace).Get(key.Name)
	if err != nil {
		return nil
	}
	return r
}

// record sets the outcome of the object uid (the zero judged: gone) and the outcome gauge.
func (a *Auditor) record(uid types.UID, j judged) {
	a.mu.Lock()
	defer a.mu.Unlock()
	old, had := a.outcome[uid]
	if had && old == j {
		return
	}
	if had {
		a.opts.Metrics.objects.WithLabelValues(old.kind, old.outcome).Dec()
	}
	if j == (judged{}) {
		delete(a.outcome, uid)
		return
	}
	a.outcome[uid] = j
	a.opts.Metrics.objects.WithLabelValues(j.kind, j.outcome).Inc()
}
