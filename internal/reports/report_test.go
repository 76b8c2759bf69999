package reports

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/openreports/reports-api/pkg/client/clientset/versioned/fake"
	client "github.com/openreports/reports-api/pkg/client/clientset/versioned/typed/openreports.io/v1alpha1"

	"github.com/kriguard/kriguard/rules"
)

func decide(t *testing.T, kind, object string) *rules.Decision {
	t.Helper()
	d, err := rules.DefaultConfig().Decide(context.Background(), rules.Request{
		Phase: rules.Admit, Kind: schema.GroupKind{Group: rules.KumaGroup, Kind: kind}, Object: []byte(object),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

var timeoutSubject = Subject{APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: "demo", Name: "t", UID: "uid-1"}

// badTimeout is a MeshTimeout with n bad sectionNames.
func badTimeout(n int) string {
	var to []string
	for i := range n {
		to = append(to, fmt.Sprintf(`{"targetRef": {"kind": "MeshService", "name": "s", "sectionName": "Bad_%d"}}`, i))
	}
	return `{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": {"name": "t", "namespace": "demo"},
		"spec": {"to": [` + strings.Join(to, ",") + `]}}`
}

func TestBuild(t *testing.T) {
	now := time.Unix(1767225600, 0)
	t.Run("no findings, no report", func(t *testing.T) {
		d := decide(t, "MeshTimeout", badTimeout(0))
		if r := Build(timeoutSubject, d, now); r != nil {
			t.Errorf("report %+v for an object without findings", r)
		}
	})
	t.Run("results are bounded, the summary counts every finding", func(t *testing.T) {
		d := decide(t, "MeshTimeout", badTimeout(MaxResults+5))
		r := Build(timeoutSubject, d, now)
		if len(r.Results) != MaxResults || r.Summary.Fail != MaxResults+5 {
			t.Errorf("%d results, summary %+v; want %d results and %d failures", len(r.Results), r.Summary, MaxResults, MaxResults+5)
		}
		if r.Configuration == nil || r.Configuration.Limits.MaxResults != MaxResults {
			t.Errorf("configuration %+v, want limits.maxResults %d", r.Configuration, MaxResults)
		}
		if got := r.Results[3].Properties["field"]; got != "spec.to[3].targetRef.sectionName" {
			t.Errorf("result 3 at %q", got)
		}
	})
	t.Run("a note is a warning of severity info", func(t *testing.T) {
		d := decide(t, "MeshProxyPatch", `{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshProxyPatch",
			"metadata": {"name": "p", "namespace": "demo"},
			"spec": {"default": {"appendModifications": [{"cluster": {"operation": "Remove", "match": {"name": "inbound:10.0.0.1:80"}}}]}}}`)
		r := Build(Subject{APIVersion: "kuma.io/v1alpha1", Kind: "MeshProxyPatch", Namespace: "demo", Name: "p", UID: "u"}, d, now)
		if r == nil || len(r.Results) != 1 {
			t.Fatalf("report %+v, want one result", r)
		}
		if res := r.Results[0]; res.Result != "warn" || res.Severity != "info" || res.Properties["level"] != "note" ||
			r.Summary.Warn != 1 || r.Summary.Fail != 0 || res.Policy != string(rules.RuleProxyPatchLegacyName) {
			t.Errorf("result %+v, summary %+v; want a warning of %s", res, r.Summary, rules.RuleProxyPatchLegacyName)
		}
	})
	t.Run("a cluster-scoped object has a cluster report", func(t *testing.T) {
		d := decide(t, "Mesh", `{"apiVersion": "kuma.io/v1alpha1", "kind": "Mesh", "metadata": {"name": "m", "labels": {"kuma.io/display-name": "M_1"}}}`)
		s := Subject{APIVersion: "kuma.io/v1alpha1", Kind: "Mesh", Name: "m", UID: "u"}
		r := Build(s, d, now)
		if r == nil || r.Namespace != "" || r.Labels[KindLabel] != "Mesh.kuma.io" {
			t.Fatalf("report %+v, want one without a namespace", r)
		}
		if cr, ok := Typed(r).(*v1alpha1.ClusterReport); !ok || cr.Kind != "ClusterReport" || cr.APIVersion != "openreports.io/v1alpha1" {
			t.Errorf("typed %T %+v, want a ClusterReport", Typed(r), Typed(r))
		}
	})
}

func TestSameAndUpdate(t *testing.T) {
	d := decide(t, "MeshTimeout", badTimeout(2))
	old := Build(timeoutSubject, d, time.Unix(100, 0))
	old.ResourceVersion = "7"
	old.Labels["team"] = "a" // someone else's label
	if !Same(Build(timeoutSubject, d, time.Unix(200, 0)), old) {
		t.Error("a report that differs only in its timestamps and others' labels is not the same")
	}
	d3 := decide(t, "MeshTimeout", badTimeout(3))
	desired := Build(timeoutSubject, d3, time.Unix(200, 0))
	if Same(desired, old) {
		t.Fatal("a report with one result more is the same")
	}
	u := update(desired, old)
	if u.ResourceVersion != "7" || u.Labels["team"] != "a" || u.Summary.Fail != 3 {
		t.Errorf("update %+v: want the resourceVersion, others' labels and the new summary", u.ObjectMeta)
	}
	for i, want := range []int64{100, 100, 200} {
		if got := u.Results[i].Timestamp.Seconds; got != want {
			t.Errorf("result %d stamped %d, want %d (a result keeps its time while it holds)", i, got, want)
		}
	}
	if !Same(desired, u) {
		t.Error("the update is not the same as what was desired")
	}
	other := Build(timeoutSubject, d, time.Unix(100, 0))
	other.OwnerReferences[0].UID = "uid-2"
	if Same(other, old) {
		t.Error("a report with another owner is the same")
	}
}

// typedAPI makes a Writer's calls with OpenReports' generated clientset, here its fake.
type typedAPI struct {
	c client.OpenreportsV1alpha1Interface
}

func (a typedAPI) get(ctx context.Context, key types.NamespacedName) (*v1alpha1.Report, error) {
	if key.Namespace != "" {
		return a.c.Reports(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	}
	cr, err := a.c.ClusterReports().Get(ctx, key.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return FromCluster(cr), nil
}

func (a typedAPI) create(ctx context.Context, r *v1alpha1.Report) error {
	var err error
	if r.Namespace != "" {
		_, err = a.c.Reports(r.Namespace).Create(ctx, r, metav1.CreateOptions{FieldManager: ManagedBy})
	} else {
		_, err = a.c.ClusterReports().Create(ctx, ToCluster(r), metav1.CreateOptions{FieldManager: ManagedBy})
	}
	return err
}

func (a typedAPI) update(ctx context.Context, r *v1alpha1.Report) error {
	var err error
	if r.Namespace != "" {
		_, err = a.c.Reports(r.Namespace).Update(ctx, r, metav1.UpdateOptions{FieldManager: ManagedBy})
	} else {
		_, err = a.c.ClusterReports().Update(ctx, ToCluster(r), metav1.UpdateOptions{FieldManager: ManagedBy})
	}
	return err
}

func (a typedAPI) delete(ctx context.Context, key types.NamespacedName) error {
	if key.Namespace != "" {
		return a.c.Reports(key.Namespace).Delete(ctx, key.Name, metav1.DeleteOptions{})
	}
	return a.c.ClusterReports().Delete(ctx, key.Name, metav1.DeleteOptions{})
}

// The writer writes only what differs, retries a conflicting update after reading the report
// again, and takes a report it could not find or create as it is.
func TestWriter(t *testing.T) {
	ctx := context.Background()
	c := fake.NewSimpleClientset()
	w := &Writer{client: typedAPI{c.OpenreportsV1alpha1()}}
	key := Key(timeoutSubject)
	desired := Build(timeoutSubject, decide(t, "MeshTimeout", badTimeout(1)), time.Unix(100, 0))

	if op, err := w.Write(ctx, key, desired, nil); err != nil || op != Created {
		t.Fatalf("create: %s, %v", op, err)
	}
	cur, err := c.OpenreportsV1alpha1().Reports("demo").Get(ctx, key.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if op, err := w.Write(ctx, key, desired, cur); err != nil || op != Unchanged {
		t.Fatalf("same report: %s, %v", op, err)
	}
	if op, err := w.Write(ctx, key, desired, nil); err != nil || op != Unchanged {
		t.Fatalf("create of a report already there and the same: %s, %v", op, err)
	}

	// The first update conflicts: the writer reads the report again and updates that.
	var updates atomic.Int64
	c.PrependReactor("update", "reports", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if updates.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "openreports.io", Resource: "reports"}, key.Name, errors.New("changed"))
		}
		return false, nil, nil
	})
	changed := Build(timeoutSubject, decide(t, "MeshTimeout", badTimeout(2)), time.Unix(200, 0))
	if op, err := w.Write(ctx, key, changed, cur); err != nil || op != Updated {
		t.Fatalf("update after a conflict: %s, %v", op, err)
	}
	if updates.Load() != 2 || w.Stats.Conflicts.Load() != 1 {
		t.Errorf("%d updates, %d conflicts; want 2 and 1", updates.Load(), w.Stats.Conflicts.Load())
	}
	got, _ := c.OpenreportsV1alpha1().Reports("demo").Get(ctx, key.Name, metav1.GetOptions{})
	if got.Summary.Fail != 2 || got.Results[0].Timestamp.Seconds != 100 {
		t.Errorf("stored %+v, want 2 failures, the first one since 100", got.Summary)
	}

	if op, err := w.Write(ctx, key, nil, got); err != nil || op != Deleted {
		t.Fatalf("delete: %s, %v", op, err)
	}
	if op, err := w.Write(ctx, key, nil, got); err != nil || op != Unchanged {
		t.Fatalf("delete of a report gone: %s, %v", op, err)
	}
	if n := w.Stats.Writes.Load(); n != 6 {
		// create, create (already there), update (conflict), update, delete, delete (not found)
		t.Errorf("%d writes, want 6", n)
	}
}

// slowCreates delays each Report create and records the most under way at once; the fake
// clientset's reactors run one at a time, so the count is taken around them.
type slowCreates struct {
	client.OpenreportsV1alpha1Interface
	inFlight, peak atomic.Int64
}

func (s *slowCreates) Reports(ns string) client.ReportInterface {
	return slowReports{s.OpenreportsV1alpha1Interface.Reports(ns), s}
}

type slowReports struct {
	client.ReportInterface
	s *slowCreates
}

func (r slowReports) Create(ctx context.Context, rep *v1alpha1.Report, opts metav1.CreateOptions) (*v1alpha1.Report, error) {
	n := r.s.inFlight.Add(1)
	for p := r.s.peak.Load(); n > p && !r.s.peak.CompareAndSwap(p, n); p = r.s.peak.Load() {
	}
	time.Sleep(2 * time.Millisecond)
	defer r.s.inFlight.Add(-1)
	return r.ReportInterface.Create(ctx, rep, opts)
}

// A batch has at most its concurrency of writes under way, and prunes what it was not given.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	c := fake.NewSimpleClientset()
	slow := &slowCreates{OpenreportsV1alpha1Interface: c.OpenreportsV1alpha1()}
	w := &Writer{client: typedAPI{slow}}
	stale := Build(timeoutSubject, decide(t, "MeshTimeout", badTimeout(1)), time.Unix(1, 0))
	partial := stale.DeepCopy()
	partial.Name, partial.Labels[KindLabel] = "kriguard-other", "KongPlugin.configuration.konghq.com"
	existing := map[types.NamespacedName]*v1alpha1.Report{Key(timeoutSubject): stale, {Namespace: "demo", Name: partial.Name}: partial}
	for _, r := range existing {
		if _, err := c.OpenreportsV1alpha1().Reports("demo").Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var failed []error
	b := NewBatch(w, existing, 3, func(err error) { failed = append(failed, err) })
	d := decide(t, "MeshTimeout", badTimeout(1))
	for i := range 40 {
		s := timeoutSubject
		s.Name, s.UID = fmt.Sprint("t", i), types.UID(fmt.Sprint("u", i))
		b.Put(ctx, s, Build(s, d, time.Now()))
	}
	b.Prune(ctx, func(kind string) bool { return kind == "KongPlugin.configuration.konghq.com" })
	b.Wait()
	if len(failed) > 0 {
		t.Fatal(failed)
	}
	if p := slow.peak.Load(); p > 3 || p < 2 {
		t.Errorf("%d writes at once, want at most 3 (and more than one)", p)
	}
	l, _ := c.OpenreportsV1alpha1().Reports("demo").List(ctx, metav1.ListOptions{})
	if len(l.Items) != 41 || w.Stats.Created.Load() != 40 || w.Stats.Deleted.Load() != 1 {
		t.Errorf("%d reports, stats created %d deleted %d; want 41 (the stale one pruned, the partial kind's kept)",
			len(l.Items), w.Stats.Created.Load(), w.Stats.Deleted.Load())
	}
}
