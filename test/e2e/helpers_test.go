package e2e

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kriguard/kriguard/naming"
)

const (
	kumaAPIVersion = "kuma.io/v1alpha1"
	kongAPIVersion = "configuration.konghq.com/v1alpha1"
	// Every denial comes through the API server with this prefix before the webhook's own message.
	deniedPrefix = `admission webhook "validate.kriguard.io" denied the request: `
)

// timeout bounds every call of a test to the API server.
const timeout = 30 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var nsCounter atomic.Int64

// newNamespace creates a namespace for one test, named after it, and deletes it when the test ends.
func newNamespace(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	name = fmt.Sprintf("%.40s-%d", strings.Trim(name, "-"), nsCounter.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := env.Client.Create(ctx, ns); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		// envtest runs no namespace controller: the namespace stays Terminating, which is harmless.
		_ = env.Client.Delete(ctx, ns)
	})
	return name
}

// object builds an unstructured object.
func object(apiVersion, kind, namespace, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	if labels != nil {
		u.SetLabels(labels)
	}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// meshServiceRef selects the MeshService called name, optionally one of its ports, the way the
// upstream schemas reference it (by labels, not by name).
func meshServiceRef(name, sectionName string) map[string]any {
	ref := map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": name}}
	if sectionName != "" {
		ref["sectionName"] = sectionName
	}
	return ref
}

// meshTimeout returns a MeshTimeout from every proxy of the mesh to the backend service's port
// sectionName, valid under the upstream schema.
func meshTimeout(namespace, name string, labels map[string]string, sectionName string) *unstructured.Unstructured {
	return object(kumaAPIVersion, "MeshTimeout", namespace, name, labels, map[string]any{
		"targetRef": map[string]any{"kind": "Mesh"},
		"to": []any{map[string]any{
			"targetRef": meshServiceRef("backend", sectionName),
			"default": map[string]any{
				"idleTimeout":       "20s",
				"connectionTimeout": "2s",
				"http":              map[string]any{"requestTimeout": "2s", "streamIdleTimeout": "1h"},
			},
		}},
	})
}

// meshService returns a MeshService with one named port.
func meshService(namespace, name string, labels map[string]string, portName string) *unstructured.Unstructured {
	return object(kumaAPIVersion, "MeshService", namespace, name, labels, map[string]any{
		"selector": map[string]any{"dataplaneLabels": map[string]any{
			"matchLabels": map[string]any{"app": name},
		}},
		"ports": []any{map[string]any{"name": portName, "port": int64(8080), "targetPort": int64(8080), "appProtocol": "http"}},
		// Set, so that the upstream schema's default does not change what the tests compare.
		"state": "Available",
	})
}

// meshRetry returns a MeshRetry for HTTP calls to the backend service's port sectionName.
func meshRetry(namespace, name string, labels map[string]string, sectionName string) *unstructured.Unstructured {
	return object(kumaAPIVersion, "MeshRetry", namespace, name, labels, map[string]any{
		"targetRef": map[string]any{"kind": "Mesh"},
		"to": []any{map[string]any{
			"targetRef": meshServiceRef("backend", sectionName),
			"default":   map[string]any{"http": map[string]any{"numRetries": int64(3), "perTryTimeout": "1s"}},
		}},
	})
}

// meshRateLimit returns a MeshRateLimit of 100 requests a second to the backend's port sectionName.
func meshRateLimit(namespace, name string, labels map[string]string, sectionName string) *unstructured.Unstructured {
	return object(kumaAPIVersion, "MeshRateLimit", namespace, name, labels, map[string]any{
		"targetRef": map[string]any{"kind": "Mesh"},
		"to": []any{map[string]any{
			"targetRef": meshServiceRef("backend", sectionName),
			"default": map[string]any{"local": map[string]any{"http": map[string]any{
				"requestRate": map[string]any{"num": int64(100), "interval": "1s"},
			}}},
		}},
	})
}

// statusError returns err's API status, failing the test when err is not one.
func statusError(t *testing.T, err error) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("got error %v (%T), want an API status error", err, err)
	}
	return se
}

// cause is the part of a metav1.StatusCause a test compares.
type cause struct {
	Field, Type, Message string
}

func causesOf(se *apierrors.StatusError) []cause {
	if se.ErrStatus.Details == nil {
		return nil
	}
	var out []cause
	for _, c := range se.ErrStatus.Details.Causes {
		out = append(out, cause{Field: c.Field, Type: string(c.Type), Message: c.Message})
	}
	return out
}

// warnings records the warnings the API server returns, for clients built by warningClient.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// take returns the warnings recorded so far and forgets them.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// warningClient returns a client whose warnings are recorded in the returned list.
func warningClient(t *testing.T) (client.Client, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = w
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatalf("creating a client: %v", err)
	}
	return c, w
}

// decisions returns the in-process webhook's decision counter for the given labels, for requests no
// requester override applied to.
func decisions(t *testing.T, kind, operation, decision, enforcement string) float64 {
	t.Helper()
	return overrideDecisions(t, kind, operation, decision, enforcement, "none")
}

// overrideDecisions returns the in-process webhook's decision counter for the given labels, and
// the release of the package's webhook: 2.14, the default, as env runs no Kuma control plane.
func overrideDecisions(t *testing.T, kind, operation, decision, enforcement, override string) float64 {
	t.Helper()
	return releaseDecisions(t, kind, operation, decision, enforcement, override, naming.Kuma2_14.String())
}

// releaseDecisions returns the in-process webhooks' decision counter for the given labels.
func releaseDecisions(t *testing.T, kind, operation, decision, enforcement, override, release string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gathering metrics: %v", err)
	}
	want := map[string]string{"kind": kind, "operation": operation, "decision": decision, "enforcement": enforcement, "override": override, "kuma_release": release}
	for _, f := range families {
		if f.GetName() != "kriguard_admission_decisions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelsMatch(m, want) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func labelsMatch(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// kongControlPlaneRef is the Konnect control plane every Kong object of the tests belongs to.
func kongControlPlaneRef() map[string]any {
	return map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": "kong-cp"}}
}

// kongPluginBinding binds plugin to route.
func kongPluginBinding(namespace, name, route, plugin string) *unstructured.Unstructured {
	return object(kongAPIVersion, "KongPluginBinding", namespace, name, nil, map[string]any{
		"controlPlaneRef": kongControlPlaneRef(),
		"pluginRef":       map[string]any{"kind": "KongPlugin", "name": plugin},
		"targets": map[string]any{"routeRef": map[string]any{
			"group": "configuration.konghq.com", "kind": "KongRoute", "name": route,
		}},
	})
}

// kongService returns a KongService in front of host.
func kongService(namespace, name, host string) *unstructured.Unstructured {
	return object(kongAPIVersion, "KongService", namespace, name, nil, map[string]any{
		"controlPlaneRef": kongControlPlaneRef(),
		"host":            host,
		"port":            int64(80),
		"protocol":        "http",
	})
}

// kongTarget returns a KongTarget of upstream.
func kongTarget(namespace, name, upstream string) *unstructured.Unstructured {
	return object(kongAPIVersion, "KongTarget", namespace, name, nil, map[string]any{
		"upstreamRef": map[string]any{"name": upstream},
		"target":      "10.0.0.12:8080",
		"weight":      int64(100),
	})
}

// kongPlugin returns a KongPlugin (configuration.konghq.com/v1: plugin and config at the top level).
func kongPlugin(namespace, name, plugin string, config map[string]any) *unstructured.Unstructured {
	u := object("configuration.konghq.com/v1", "KongPlugin", namespace, name, nil, nil)
	u.Object["plugin"] = plugin
	if config != nil {
		u.Object["config"] = config
	}
	return u
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
