package continuous

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/openreports/reports-api/pkg/client/clientset/versioned"

	"github.com/kriguard/kriguard/internal/kumarelease"
	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// With kuma.version auto the auditor judges against the release the control plane runs, and
// follows an upgrade: a MeshService whose name is no RFC 1035 label gets a report only once the
// control plane's image moves from 2.14 to 3.0, well before the interval would judge it again.
func TestAuditorFollowsKumaRelease(t *testing.T) {
	ctx := context.Background()
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	cp, w := startControlPlane(ctx, t)
	if d := w.Detection(); !d.Known || d.Release.String() != "2.14" {
		t.Fatalf("detected %+v, want 2.14", d)
	}

	// A long interval: only the change of release can judge the object again within the test.
	const long = time.Hour
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	a, err := New(env.Config, Options{Rules: autoConfig(t), Interval: long, Metrics: m, Release: w.Release, Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(actx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return a.Synced(), nil
	}); err != nil {
		t.Fatalf("not synced: %v", err)
	}

	ns := env.NewNamespace(t)
	k, ok := env.Kind(rules.KumaGroup, "MeshService")
	if !ok {
		t.Fatal("the control plane serves no MeshService")
	}
	svc := testenv.NewObject(k, ns, "1st-backend") // an RFC 1123 label, not an RFC 1035 one
	if err := env.Client.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	within(t, 5*time.Second, "judged on 2.14", func() (bool, string) {
		n := testutil.ToFloat64(metric(t, reg, "kriguard_audit_judgements_total", "MeshService.kuma.io", "2.14"))
		return n >= 1, fmt.Sprint(n, " judgements on 2.14")
	})
	if _, err := reportOf(t, rc, svc); !apierrors.IsNotFound(err) {
		t.Fatalf("a report on 2.14: %v, want none", err)
	}

	// The upgrade: the control plane now runs 3.0.
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cp), cp); err != nil {
		t.Fatal(err)
	}
	cp.Spec.Template.Spec.Containers[0].Image = "docker.io/kumahq/kuma-cp:3.0.0"
	if err := env.Client.Update(ctx, cp); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, "the report on 3.0", func() (bool, string) {
		r, err := reportOf(t, rc, svc)
		if err != nil {
			return false, err.Error()
		}
		for _, res := range r.Results {
			if res.Rule == string(rules.RuleReleaseName) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("results %+v", r.Results)
	})
	if n := testutil.ToFloat64(metric(t, reg, "kriguard_audit_judgements_total", "MeshService.kuma.io", "3.0")); n < 1 {
		t.Errorf("%v judgements of MeshService counted with kuma_release 3.0, want at least 1", n)
	}
}

// autoConfig returns the built-in rules with kuma.version auto.
func autoConfig(t *testing.T) *rules.Config {
	t.Helper()
	c, err := rules.ParseConfig([]byte("apiVersion: kriguard.io/v1alpha1\nkind: Configuration\nkuma:\n  version: auto\n"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// With kuma.version and kuma.mode auto the auditor follows the control plane's mode and release as
// the webhook does, and watches the kinds a release removed from the start: on a 2.14 standalone
// zone nothing is reported; when the zone joins a global control plane, a MeshTimeout whose KDS
// copy a Kubernetes receiver cannot store is reported (kuma/kds-copy); when the control plane
// moves to 3.0, the leftover objects of removed kinds (a namespaced MeshGatewayInstance, a
// cluster-scoped TrafficRoute) are reported as removed (kuma/removed-kind), each counted as denied.
func TestAuditorFollowsModeAndRemovedKinds(t *testing.T) {
	ctx := context.Background()
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	cp, w := startControlPlane(ctx, t, corev1.EnvVar{Name: "KUMA_MODE", Value: "zone"}) // no global address: standalone
	if d := w.Detection(); d.Release.String() != "2.14" || d.Mode != kumarelease.ModeStandalone {
		t.Fatalf("detected %+v, want 2.14 standalone", d)
	}

	ns := env.NewNamespace(t)
	kind := func(name string) testenv.Kind {
		k, ok := env.Kind(rules.KumaGroup, name)
		if !ok {
			t.Fatalf("the control plane serves no %s", name)
		}
		return k
	}
	// Its copy is the name cut to 236 bytes, which ends in '.', then "-" and a hash: no DNS-1123 name.
	timeout := testenv.NewObject(kind("MeshTimeout"), ns, strings.Repeat("a", 235)+".b")
	gwi := testenv.NewObject(kind("MeshGatewayInstance"), ns, "edge")
	route := testenv.NewObject(kind("TrafficRoute"), "", "leftover-"+ns)
	for _, o := range []*unstructured.Unstructured{timeout, gwi, route} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("%s: %v", o.GetKind(), err)
		}
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, route) })

	m := NewMetrics()
	reg := prometheus.NewRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	a, err := New(env.Config, Options{Rules: autoConfig(t), Interval: time.Hour, Metrics: m, Release: w.Release,
		Mode: func() rules.Mode { return rules.Mode(w.Mode()) }, Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(actx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	within(t, time.Minute, "synced and judged on 2.14", func() (bool, string) {
		n := testutil.ToFloat64(metric(t, reg, "kriguard_audit_judgements_total", "TrafficRoute.kuma.io", "2.14"))
		return a.Synced() && n >= 1, fmt.Sprint(n, " TrafficRoutes judged on 2.14")
	})
	results := func(o *unstructured.Unstructured) ([]string, error) {
		var r *v1alpha1.Report
		var err error
		if o.GetNamespace() == "" {
			var cr *v1alpha1.ClusterReport
			if cr, err = rc.OpenreportsV1alpha1().ClusterReports().Get(ctx, reports.Name(o.GetUID()), metav1.GetOptions{}); err == nil {
				r = reports.FromCluster(cr)
			}
		} else {
			r, err = reportOf(t, rc, o)
		}
		if err != nil {
			return nil, err
		}
		var rs []string
		for _, res := range r.Results {
			rs = append(rs, res.Rule)
		}
		return rs, nil
	}
	reported := func(o *unstructured.Unstructured, rule rules.Rule) func() (bool, string) {
		return func() (bool, string) {
			rs, err := results(o)
			if err != nil {
				return false, err.Error()
			}
			return slices.Contains(rs, string(rule)), fmt.Sprintf("rules %v", rs)
		}
	}
	for _, o := range []*unstructured.Unstructured{timeout, gwi, route} {
		if _, err := results(o); !apierrors.IsNotFound(err) {
			t.Errorf("%s on a 2.14 standalone zone: a report (%v), want none", o.GetKind(), err)
		}
	}

	update := func(change func(*corev1.Container)) {
		t.Helper()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cp), cp); err != nil {
			t.Fatal(err)
		}
		change(&cp.Spec.Template.Spec.Containers[0])
		if err := env.Client.Update(ctx, cp); err != nil {
			t.Fatal(err)
		}
	}
	// The zone joins a global control plane: only the mode changes.
	update(func(c *corev1.Container) {
		c.Env = append(c.Env, corev1.EnvVar{Name: "KUMA_MULTIZONE_ZONE_GLOBAL_ADDRESS", Value: "grpcs://global:5685"},
			corev1.EnvVar{Name: "KUMA_MULTIZONE_ZONE_NAME", Value: "east"})
	})
	within(t, 10*time.Second, "the MeshTimeout's report in a federated zone", reported(timeout, rules.RuleKDSCopy))
	for _, o := range []*unstructured.Unstructured{gwi, route} {
		if _, err := results(o); !apierrors.IsNotFound(err) {
			t.Errorf("%s on 2.14: a report (%v), want none", o.GetKind(), err)
		}
	}

	// The upgrade to 3.0: the leftovers of the kinds it removed are reported.
	update(func(c *corev1.Container) { c.Image = "docker.io/kumahq/kuma-cp:3.0.0" })
	for _, o := range []*unstructured.Unstructured{gwi, route} {
		within(t, 10*time.Second, o.GetKind()+"'s report on 3.0", reported(o, rules.RuleRemovedKind))
	}
	for _, k := range []string{"MeshGatewayInstance.kuma.io", "TrafficRoute.kuma.io"} {
		if n := testutil.ToFloat64(metric(t, reg, "kriguard_audit_objects", k, "denied")); n < 1 {
			t.Errorf("kriguard_audit_objects{kind=%q,outcome=denied} = %v, want at least 1", k, n)
		}
	}
}

// startControlPlane creates, in a namespace of its own, the Kuma 2.14.3 control plane's Deployment as
// Kuma's chart renders it (deployments/charts/kuma/templates/cp-deployment.yaml), with envs in its
// container, and a release watcher on it that has looked at it once.
func startControlPlane(ctx context.Context, t *testing.T, envs ...corev1.EnvVar) (*appsv1.Deployment, *kumarelease.Watcher) {
	t.Helper()
	ns := env.NewNamespace(t)
	sel := map[string]string{"app": "kuma-control-plane"}
	cp := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kuma-control-plane", Labels: sel}}
	cp.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
	cp.Spec.Template.Labels = sel
	cp.Spec.Template.Spec.Containers = []corev1.Container{{Name: "control-plane", Image: "docker.io/kumahq/kuma-cp:2.14.3", Env: envs}}
	if err := env.Client.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	get, err := kumarelease.FromConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	w := kumarelease.NewWatcher(get, nil, kumarelease.Options{Namespace: ns, Deployment: cp.Name}, 100*time.Millisecond, testr.New(t))
	wctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go func() { _ = w.Start(wctx) }()
	<-w.Checked()
	return cp, w
}
