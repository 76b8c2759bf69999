package continuous

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/openreports/reports-api/pkg/client/clientset/versioned"

	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{OpenReports: testenv.OpenReports}, &env))
}

// interval is the continuous audit's in these tests: a report must appear, or go, within it.
const interval = 3 * time.Second

// start runs an Auditor until the test ends and waits for it to be synced.
func start(t *testing.T) (*Auditor, *prometheus.Registry) {
	t.Helper()
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	a, err := New(env.Config, Options{Interval: interval, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		return a.Synced(), nil
	}); err != nil {
		t.Fatalf("not synced: %v", err)
	}
	return a, reg
}

// within waits up to d for cond, failing the test with what says otherwise.
func within(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	start := time.Now()
	last := ""
	for time.Since(start) < d {
		ok, why := cond()
		if ok {
			t.Logf("%s after %s", what, time.Since(start).Round(10*time.Millisecond))
			return
		}
		last = why
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s: %s", what, d, last)
}

func reportOf(t *testing.T, rc versioned.Interface, o *unstructured.Unstructured) (*v1alpha1.Report, error) {
	t.Helper()
	return rc.OpenreportsV1alpha1().Reports(o.GetNamespace()).Get(context.Background(), reports.Name(o.GetUID()), metav1.GetOptions{})
}

// A bad object's report appears within the interval; fixed, the report clears; a report deleted
// by hand comes back on the next pass; an object deleted takes its report with it.
func TestAuditor(t *testing.T) {
	ctx := context.Background()
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ns := env.NewNamespace(t)
	k, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
	good := testenv.NewObject(k, ns, "good")
	if err := env.Client.Create(ctx, good); err != nil {
		t.Fatal(err)
	}
	_, reg := start(t)

	bad := testenv.NewObject(k, ns, "bad")
	bad.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
	if err := env.Client.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	within(t, interval, "the bad object's report", func() (bool, string) {
		r, err := reportOf(t, rc, bad)
		if err != nil {
			return false, err.Error()
		}
		if r.Summary.Fail != 1 || r.Results[0].Properties["field"] != "metadata.labels[kuma.io/mesh]" {
			return false, fmt.Sprintf("report %+v", r)
		}
		return true, ""
	})
	if _, err := reportOf(t, rc, good); !apierrors.IsNotFound(err) {
		t.Errorf("the good object's report: %v, want none", err)
	}
	within(t, time.Second, "the outcome metric", func() (bool, string) {
		got := testutil.ToFloat64(metric(t, reg, "kriguard_audit_objects", "MeshTimeout.kuma.io", "denied"))
		return got >= 1, fmt.Sprint(got, " denied")
	})

	r, _ := reportOf(t, rc, bad)
	rv := r.ResourceVersion
	time.Sleep(interval + time.Second) // a pass with nothing changed
	if r, err := reportOf(t, rc, bad); err != nil || r.ResourceVersion != rv {
		t.Errorf("after a pass with nothing changed: %v, resourceVersion %s, want %s", err, r.ResourceVersion, rv)
	}

	t.Run("a report deleted by hand comes back", func(t *testing.T) {
		if err := rc.OpenreportsV1alpha1().Reports(ns).Delete(ctx, reports.Name(bad.GetUID()), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		within(t, interval+2*time.Second, "the report again", func() (bool, string) {
			_, err := reportOf(t, rc, bad)
			return err == nil, fmt.Sprint(err)
		})
	})

	t.Run("fixed, the report clears", func(t *testing.T) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(bad), bad); err != nil {
			t.Fatal(err)
		}
		bad.SetLabels(map[string]string{"kuma.io/mesh": "mesh-1"})
		if err := env.Client.Update(ctx, bad); err != nil {
			t.Fatal(err)
		}
		within(t, interval, "the report gone", func() (bool, string) {
			_, err := reportOf(t, rc, bad)
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	})

	t.Run("deleted, the report goes with it", func(t *testing.T) {
		gone := testenv.NewObject(k, ns, "gone")
		gone.SetLabels(map[string]string{"kuma.io/mesh": "Gone_1"})
		if err := env.Client.Create(ctx, gone); err != nil {
			t.Fatal(err)
		}
		within(t, interval, "its report", func() (bool, string) {
			_, err := reportOf(t, rc, gone)
			return err == nil, fmt.Sprint(err)
		})
		if err := env.Client.Delete(ctx, gone); err != nil {
			t.Fatal(err)
		}
		// envtest runs no garbage collector: the auditor deletes the report itself.
		within(t, interval, "its report gone", func() (bool, string) {
			_, err := reportOf(t, rc, gone)
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	})

	if n := testutil.ToFloat64(metric(t, reg, "kriguard_audit_report_writes_total", "created")); n < 3 {
		t.Errorf("%v reports created, want at least 3", n)
	}
	if n := testutil.ToFloat64(metric(t, reg, "kriguard_audit_passes_total")); n < 1 {
		t.Errorf("%v passes, want at least 1", n)
	}
}

// A report whose object was deleted while no auditor ran is pruned when one starts.
func TestAuditorPrunesOrphans(t *testing.T) {
	ctx := context.Background()
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ns := env.NewNamespace(t)
	orphan := &v1alpha1.Report{
		ObjectMeta: metav1.ObjectMeta{Name: reports.Name("0000-gone"), Namespace: ns, Labels: map[string]string{
			reports.ManagedByLabel: reports.ManagedBy, reports.UIDLabel: "0000-gone", reports.KindLabel: "MeshTimeout.kuma.io",
		}},
		Source: reports.Source,
		Scope:  &corev1.ObjectReference{APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: ns, Name: "gone", UID: "0000-gone"},
	}
	foreign := orphan.DeepCopy()
	foreign.Name, foreign.Labels = "kyverno-report", nil // not kriguard's: left alone
	for _, r := range []*v1alpha1.Report{orphan, foreign} {
		if _, err := rc.OpenreportsV1alpha1().Reports(ns).Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	start(t)
	within(t, interval, "the orphan pruned", func() (bool, string) {
		_, err := rc.OpenreportsV1alpha1().Reports(ns).Get(ctx, orphan.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	if _, err := rc.OpenreportsV1alpha1().Reports(ns).Get(ctx, foreign.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("another tool's report: %v", err)
	}
}

// metric returns the collector of name with labels from reg, as a one-metric collector.
func metric(t *testing.T, reg *prometheus.Registry, name string, labels ...string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			var values []string
			for _, lp := range m.GetLabel() {
				values = append(values, lp.GetValue())
			}
			if strings.Join(values, ",") != strings.Join(labels, ",") {
				continue next
			}
			v := 0.0
			switch {
			case m.GetGauge() != nil:
				v = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				v = m.GetCounter().GetValue()
			}
			g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name})
			g.Set(v)
			return g
		}
	}
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name}) // 0: not counted yet
}

// Without the OpenReports CRDs the auditor stops at once and says what to install, rather than
// never becoming ready.
func TestAuditorWithoutOpenReports(t *testing.T) {
	bare := testenv.StartForTest(t, testenv.Options{})
	a, err := New(bare.Config, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = a.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "install the OpenReports CRDs") {
		t.Errorf("Run: %v, want an error saying to install the OpenReports CRDs", err)
	}
}

// A kind the cluster starts serving after the auditor started (Kuma installed after kriguard) is
// watched from the next interval on; one it no longer serves is let go, and its reports pruned.
func TestAuditorDiscoversKinds(t *testing.T) {
	ctx := context.Background()
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := rules.ParseConfig([]byte(`apiVersion: kriguard.io/v1alpha1
kind: Configuration
types: [{kind: MeshWidget, shortName: mw, scope: Mesh}]
kinds: [{group: kuma.io, version: v1alpha1, kind: MeshWidget}]
`))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	a, err := New(env.Config, Options{Rules: conf, Interval: time.Second, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	within(t, time.Minute, "synced", func() (bool, string) { return a.Synced(), "not synced" })

	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "meshwidgets.kuma.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "kuma.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "meshwidgets", Singular: "meshwidget", Kind: "MeshWidget", ListKind: "MeshWidgetList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
	if err := env.Client.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, crd) })
	ns := env.NewNamespace(t)
	widget := &unstructured.Unstructured{}
	widget.SetAPIVersion("kuma.io/v1alpha1")
	widget.SetKind("MeshWidget")
	widget.SetNamespace(ns)
	widget.SetName("bad")
	widget.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return env.Client.Create(ctx, widget) == nil, nil // until the CRD is established
	}); err != nil {
		t.Fatalf("creating a MeshWidget: %v", err)
	}
	within(t, 20*time.Second, "the new kind's report", func() (bool, string) {
		_, err := reportOf(t, rc, widget)
		return err == nil, fmt.Sprint(err)
	})

	if err := env.Client.Delete(ctx, crd); err != nil {
		t.Fatal(err)
	}
	within(t, 30*time.Second, "the kind let go", func() (bool, string) {
		_, err := reportOf(t, rc, widget)
		for _, k := range a.watched() {
			if k.Kind.Kind == "MeshWidget" {
				return false, "still watched"
			}
		}
		return apierrors.IsNotFound(err), fmt.Sprint("report: ", err)
	})
}
