package reports

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
)

// Op is what a Writer did with one report.
type Op string

// The operations; the continuous audit counts its writes under these names.
const (
	// Unchanged: the cluster already held the report, or held none and none was wanted.
	Unchanged Op = "unchanged"
	Created   Op = "created"
	Updated   Op = "updated"
	Deleted   Op = "deleted"
)

// Stats count what a Writer did. Writes is every request that changed something or tried to,
// conflicts and failures included.
type Stats struct {
	Created, Updated, Deleted, Unchanged, Failed, Conflicts atomic.Int64
	Writes                                                  atomic.Int64
}

// Writer writes reports, each only when it differs from the one the cluster holds, and retries
// each write on conflict (client-go's retry.RetryOnConflict, with a fresh read of the report).
// It is safe for concurrent use.
type Writer struct {
	client api
	Stats  Stats
}

// api is what a Writer calls; a *Client calls the API server.
type api interface {
	get(ctx context.Context, key types.NamespacedName) (*v1alpha1.Report, error)
	create(ctx context.Context, r *v1alpha1.Report) error
	update(ctx context.Context, r *v1alpha1.Report) error
	delete(ctx context.Context, key types.NamespacedName) error
}

// NewWriter returns a Writer that writes with c.
func NewWriter(c *Client) *Writer { return &Writer{client: c} }

// Write makes the cluster hold desired at key, where it holds existing (nil for none; it may be out
// of date: a conflict reads it again): it creates, updates or deletes the report, or does nothing
// when existing already says what desired says. desired nil means no report. It returns what it
// did.
func (w *Writer) Write(ctx context.Context, key types.NamespacedName, desired, existing *v1alpha1.Report) (Op, error) {
	op, err := w.write(ctx, key, desired, existing)
	if err != nil {
		w.Stats.Failed.Add(1)
		return op, fmt.Errorf("writing report %s: %w", reportRef(key), err)
	}
	switch op {
	case Created:
		w.Stats.Created.Add(1)
	case Updated:
		w.Stats.Updated.Add(1)
	case Deleted:
		w.Stats.Deleted.Add(1)
	default:
		w.Stats.Unchanged.Add(1)
	}
	return op, nil
}

func (w *Writer) write(ctx context.Context, key types.NamespacedName, desired, existing *v1alpha1.Report) (Op, error) {
	if desired == nil {
		if existing == nil {
			return Unchanged, nil
		}
		w.Stats.Writes.Add(1)
		err := w.delete(ctx, key)
		if apierrors.IsNotFound(err) {
			return Unchanged, nil
		}
		return Deleted, err
	}
	if existing == nil {
		w.Stats.Writes.Add(1)
		err := w.create(ctx, desired)
		if !apierrors.IsAlreadyExists(err) {
			return Created, err
		}
		// Written meanwhile (by another audit): update what is there.
	} else if Same(desired, existing) {
		return Unchanged, nil
	}
	op := Unchanged
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if existing == nil {
			cur, err := w.get(ctx, key)
			if apierrors.IsNotFound(err) {
				w.Stats.Writes.Add(1)
				op = Created
				return w.create(ctx, desired)
			}
			if err != nil {
				return err
			}
			existing = cur
		}
		if Same(desired, existing) {
			op = Unchanged
			return nil
		}
		w.Stats.Writes.Add(1)
		op = Updated
		err := w.update(ctx, update(desired, existing))
		if apierrors.IsConflict(err) {
			w.Stats.Conflicts.Add(1)
			existing = nil
		}
		return err
	})
	return op, err
}

func reportRef(key types.NamespacedName) string {
	if key.Namespace == "" {
		return "clusterreport " + key.Name
	}
	return "report " + key.Namespace + "/" + key.Name
}

// The calls: a report with a namespace is a Report, one without a ClusterReport.

func (w *Writer) get(ctx context.Context, key types.NamespacedName) (*v1alpha1.Report, error) {
	return w.client.get(ctx, key)
}

func (w *Writer) create(ctx context.Context, r *v1alpha1.Report) error {
	return w.client.create(ctx, r)
}

func (w *Writer) update(ctx context.Context, r *v1alpha1.Report) error {
	return w.client.update(ctx, r)
}

func (w *Writer) delete(ctx context.Context, key types.NamespacedName) error {
	return w.client.delete(ctx, key)
}

// ToCluster returns r, which has no namespace, as a ClusterReport.
func ToCluster(r *v1alpha1.Report) *v1alpha1.ClusterReport {
	return &v1alpha1.ClusterReport{
		TypeMeta:      metav1.TypeMeta{APIVersion: r.APIVersion, Kind: clusterKind(r.Kind)},
		ObjectMeta:    r.ObjectMeta,
		Source:        r.Source,
		Scope:         r.Scope,
		ScopeSelector: r.ScopeSelector,
		Configuration: r.Configuration,
		Summary:       r.Summary,
		Results:       r.Results,
	}
}

func clusterKind(kind string) string {
	if kind == "" {
		return ""
	}
	return "ClusterReport"
}

// FromCluster returns cr as a Report without a namespace, the form this package handles both in.
func FromCluster(cr *v1alpha1.ClusterReport) *v1alpha1.Report {
	r := &v1alpha1.Report{
		ObjectMeta:    cr.ObjectMeta,
		Source:        cr.Source,
		Scope:         cr.Scope,
		ScopeSelector: cr.ScopeSelector,
		Configuration: cr.Configuration,
		Summary:       cr.Summary,
		Results:       cr.Results,
	}
	r.Namespace = ""
	return r
}

// errNotServed says what to do when the cluster does not serve the reports' API.
func errNotServed(err error) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("the cluster does not serve %s (install the OpenReports CRDs, e.g. with the chart's openreports.installCRDs): %w", GroupVersion, err)
	}
	return err
}

// List returns the reports kriguard wrote (Selector): the Reports of namespace ("" for every
// namespace) and, when clusterReports is set, the ClusterReports, by key, listed in pages of chunk.
func List(ctx context.Context, c *Client, namespace string, clusterReports bool, chunk int64) (map[types.NamespacedName]*v1alpha1.Report, error) {
	out := map[types.NamespacedName]*v1alpha1.Report{}
	opts := metav1.ListOptions{LabelSelector: Selector, Limit: chunk}
	for {
		l := &v1alpha1.ReportList{}
		if err := c.list(ctx, false, namespace, opts, l); err != nil {
			return nil, fmt.Errorf("listing reports: %w", errNotServed(err))
		}
		for i := range l.Items {
			r := &l.Items[i]
			out[types.NamespacedName{Namespace: r.Namespace, Name: r.Name}] = r
		}
		if opts.Continue = l.Continue; opts.Continue == "" {
			break
		}
	}
	if !clusterReports {
		return out, nil
	}
	opts.Continue = ""
	for {
		l := &v1alpha1.ClusterReportList{}
		if err := c.list(ctx, true, "", opts, l); err != nil {
			return nil, fmt.Errorf("listing cluster reports: %w", errNotServed(err))
		}
		for i := range l.Items {
			out[types.NamespacedName{Name: l.Items[i].Name}] = FromCluster(&l.Items[i])
		}
		if opts.Continue = l.Continue; opts.Continue == "" {
			break
		}
	}
	return out, nil
}

// Batch writes the reports of one audit: each judged object's through Put, then Prune for the
// reports of objects that were not judged. At most Concurrency writes are under way at once; Put
// waits for a place. It is for one goroutine.
type Batch struct {
	w        *Writer
	existing map[types.NamespacedName]*v1alpha1.Report
	seen     map[types.NamespacedName]bool
	places   chan struct{}
	wg       sync.WaitGroup
	fail     func(error)
	mu       sync.Mutex // serialises fail
}

// NewBatch starts a batch over the reports the cluster holds (List), with at most concurrency
// writes at once; fail gets each write's error (from any goroutine, one at a time).
func NewBatch(w *Writer, existing map[types.NamespacedName]*v1alpha1.Report, concurrency int, fail func(error)) *Batch {
	if concurrency < 1 {
		concurrency = 1
	}
	return &Batch{w: w, existing: existing, seen: map[types.NamespacedName]bool{}, places: make(chan struct{}, concurrency), fail: fail}
}

// Put makes the report on s desired (nil when s has no findings).
func (b *Batch) Put(ctx context.Context, s Subject, desired *v1alpha1.Report) {
	key := Key(s)
	b.seen[key] = true
	existing := b.existing[key]
	if desired == nil && existing == nil {
		b.w.Stats.Unchanged.Add(1)
		return
	}
	if desired != nil && existing != nil && Same(desired, existing) {
		b.w.Stats.Unchanged.Add(1)
		return
	}
	b.start(ctx, key, desired, existing)
}

// Prune deletes the reports not Put in this batch, except those whose kind (KindLabel) keep
// says to keep: the kinds whose objects could not all be listed.
func (b *Batch) Prune(ctx context.Context, keep func(kind string) bool) {
	for key, r := range b.existing {
		if b.seen[key] || keep(r.Labels[KindLabel]) {
			continue
		}
		b.seen[key] = true
		b.start(ctx, key, nil, r)
	}
}

// Wait waits for the writes under way.
func (b *Batch) Wait() { b.wg.Wait() }

func (b *Batch) start(ctx context.Context, key types.NamespacedName, desired, existing *v1alpha1.Report) {
	select {
	case b.places <- struct{}{}:
	case <-ctx.Done():
		return
	}
	b.wg.Add(1)
	go func() {
		defer func() { <-b.places; b.wg.Done() }()
		if _, err := b.w.Write(ctx, key, desired, existing); err != nil {
			b.mu.Lock()
			b.fail(err)
			b.mu.Unlock()
		}
	}()
}
