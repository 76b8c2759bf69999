package kumarelease

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
)

// controlPlane creates the control plane's namespace and Deployment in env, its container running
// image, labelled as Kuma's chart labels it.
func controlPlane(t *testing.T, env *testenv.Env, image string) *appsv1.Deployment {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: DefaultNamespace}}
	if err := env.Client.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	sel := map[string]string{"app": "kuma-control-plane"}
	d := deployment(image, "")
	d.Labels = map[string]string{"app": "kuma-control-plane", versionLabel: ImageTag(image)}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
	d.Spec.Template.Labels = sel
	if err := env.Client.Create(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

// watch starts a Watcher on env that reads again every 50ms and returns it with its log lines.
func watch(t *testing.T, env *testenv.Env) (*Watcher, func() string) {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	logs := make(chan string, 64)
	log := funcr.New(func(prefix, args string) { logs <- args }, funcr.Options{})
	get, err := FromConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(get, dc, Options{}, 50*time.Millisecond, log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	<-w.Checked()
	return w, func() string {
		for {
			select {
			case l := <-logs:
				lines.WriteString(l + "\n")
			default:
				return lines.String()
			}
		}
	}
}

// waitFor waits until the watcher's release is want.
func waitFor(t *testing.T, w *Watcher, want naming.Release) Detection {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for w.Release() != want || !w.Detection().Known {
		if time.Now().After(deadline) {
			t.Fatalf("release %s after 20s (%+v), want %s", w.Release(), w.Detection(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return w.Detection()
}

// TestWatchKuma214: on a control plane of 2.14's CRDs, the Deployment's image says 2.14 and the
// served kinds agree; upgraded to 3.0 during the run (the image changes, 2.14's CRDs stay, as
// Helm leaves them), the watcher follows at once, logs the change and says which removed kinds
// are still served; a Deployment gone leaves the most permissive release with a warning.
func TestWatchKuma214(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{Kuma: testenv.Kuma214})
	w, logs := watch(t, env)
	if d := w.Detection(); d.Known || d.Release != naming.DefaultRelease || !strings.Contains(d.Problem, "no Deployment kuma-system/kuma-control-plane") || d.Served != naming.Kuma2_14 {
		t.Errorf("no control plane: %+v", d)
	}
	if l := logs(); !strings.Contains(l, "the Kuma release is unknown") || !strings.Contains(l, `"servedKindsOf"="2.14"`) {
		t.Errorf("no control plane: log\n%s", l)
	}

	cp := controlPlane(t, env, "docker.io/kumahq/kuma-cp:2.14.3")
	if d := waitFor(t, w, naming.Kuma2_14); d.Version != "2.14.3" || d.Source != SourceImage || d.CrossCheck != "" {
		t.Errorf("2.14: %+v", d)
	}
	if l := logs(); !strings.Contains(l, `"msg"="kuma release detected" "kumaRelease"="2.14" "version"="2.14.3"`) {
		t.Errorf("2.14: log\n%s", l)
	}

	cp.Spec.Template.Spec.Containers[1].Image = "docker.io/kumahq/kuma-cp:3.0.0"
	if err := env.Client.Update(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	d := waitFor(t, w, naming.Kuma3_0)
	if !strings.Contains(d.CrossCheck, ", MeshGateway, MeshGatewayConfig, ") || !strings.Contains(d.CrossCheck, ", ZoneIngress, ZoneIngressInsight that Kuma 3.0 removed are still served") {
		t.Errorf("3.0 on 2.14's CRDs: cross-check %q", d.CrossCheck)
	}
	if l := logs(); !strings.Contains(l, `"kumaRelease"="3.0" "version"="3.0.0" "source"="image" "previous"="2.14"`) ||
		!strings.Contains(l, "the served Kuma kinds disagree") {
		t.Errorf("the upgrade: log\n%s", l)
	}

	// The mode alone changes (a standalone zone made global): the release line is logged again,
	// with the mode it had.
	cp.Spec.Template.Spec.Containers[1].Env = []corev1.EnvVar{{Name: envMode, Value: ModeGlobal}}
	if err := env.Client.Update(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); w.Detection().Mode != ModeGlobal; {
		if time.Now().After(deadline) {
			t.Fatalf("KUMA_MODE global: after 20s %+v", w.Detection())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if l := logs(); !strings.Contains(l, `"msg"="kuma release detected" "kumaRelease"="3.0" "version"="3.0.0" "source"="image" "previous"="3.0" "kumaMode"="global" "previousMode"="unknown"`) ||
		!strings.Contains(l, `"msg"="kuma mode detected" "kumaMode"="global" "previous"=""`) {
		t.Errorf("the mode changed: log\n%s", l)
	}

	if err := env.Client.Delete(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for w.Detection().Known {
		if time.Now().After(deadline) {
			t.Fatalf("the Deployment is gone, the release still %+v", w.Detection())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w.Release() != naming.DefaultRelease {
		t.Errorf("the Deployment gone: %s, want the default", w.Release())
	}
}

// TestWatchKuma30: a 3.0 control plane on 3.0's CRDs; a preview build of the development line,
// whose tag names no release, gives the default release, with the served kinds' release as a hint.
func TestWatchKuma30(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{Kuma: testenv.Kuma30})
	cp := controlPlane(t, env, "docker.io/kumahq/kuma-cp:3.0.0")
	w, _ := watch(t, env)
	if d := waitFor(t, w, naming.Kuma3_0); d.CrossCheck != "" || d.Served != naming.Kuma3_0 {
		t.Errorf("3.0: %+v", d)
	}
	cp.Spec.Template.Spec.Containers[1].Image = "docker.io/kumahq/kuma-cp:0.0.0-preview.v348b6528b"
	if err := env.Client.Update(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for w.Detection().Known {
		if time.Now().After(deadline) {
			t.Fatalf("a preview build: %+v", w.Detection())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := w.Detection(); d.Release != naming.DefaultRelease || d.Served != naming.Kuma3_0 || !strings.Contains(d.Problem, `runs Kuma "0.0.0-preview.v348b6528b" (image): unknown Kuma release`) {
		t.Errorf("a preview build: %+v", d)
	}
}
