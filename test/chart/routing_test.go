package chart

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// review is one admission request that reached the recorder.
type review struct {
	path, kind, namespace, name, operation string
	dryRun                                 bool
}

// recorder is an admission webhook that allows everything and remembers what it was asked. The routing
// test needs to know which requests the API server sends, not what kriguard decides about them (the
// webhook's own tests cover that), and a recorder is exact about the former.
type recorder struct {
	mu   sync.Mutex
	seen []review
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var ar admissionv1.AdmissionReview
	if err := json.NewDecoder(req.Body).Decode(&ar); err != nil || ar.Request == nil {
		http.Error(w, "malformed AdmissionReview", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.seen = append(r.seen, review{
		path: req.URL.Path, kind: ar.Request.Kind.Kind, namespace: ar.Request.Namespace, name: ar.Request.Name,
		operation: string(ar.Request.Operation), dryRun: ar.Request.DryRun != nil && *ar.Request.DryRun,
	})
	r.mu.Unlock()
	ar.Response = &admissionv1.AdmissionResponse{UID: ar.Request.UID, Allowed: true}
	ar.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&ar)
}

// take returns and forgets what the recorder saw of one object.
func (r *recorder) take(namespace, name string) []review {
	r.mu.Lock()
	defer r.mu.Unlock()
	var mine, rest []review
	for _, s := range r.seen {
		if s.namespace == namespace && s.name == name {
			mine = append(mine, s)
		} else {
			rest = append(rest, s)
		}
	}
	r.seen = rest
	return mine
}

// paths lists the webhook paths of the reviews of one operation, sorted.
func paths(reviews []review, operation string) []string {
	var out []string
	for _, r := range reviews {
		if r.operation == operation {
			out = append(out, r.path)
		}
	}
	slices.Sort(out)
	return out
}

// routingValues exclude one more namespace and disable one kind, to show that both routes follow the
// values.
const routingValues = `
admission:
  excludeNamespaces: [monitoring]
config:
  kinds:
    Dataplane: {enabled: false}
`

// TestRouting installs the chart's webhook configurations, pointed at a local recorder instead of the
// Service, and checks which requests the API server sends through them: with routingValues, where the
// KRI is not recorded (the default), so that a CREATE with a name reaches the validating webhook alone,
// and with webhook.recordKRI=admission added, the opt-in, where the mutating webhook is called for it
// too. One recorder serves both: the first configurations are deleted when their subtest ends, and the
// second waits until the API server calls exactly what its own configurations route.
func TestRouting(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewTLSServer(rec)
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ name, release, values string }{
		{"default recording (off)", "routing", routingValues},
		{"webhook.recordKRI=admission", "routing-rec", routingValues + "webhook: {recordKRI: admission}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) { testRouting(t, rec, srv, tc.release, tc.values) })
	}
}

func testRouting(t *testing.T, rec *recorder, srv *httptest.Server, release, routingValues string) {
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	const (
		ordinary  = "team-a"
		optedOut  = "opted-out"
		excluded  = "monitoring"
		namespace = "routing-system"
	)
	objs := render(t, release, namespace, routingValues)
	values := chartValues(t, routingValues)
	record := recordKRI(values)
	// The webhooks a CREATE or an UPDATE with a name reaches: with recording off, the chart's
	// matchCondition keeps every request with a name from the mutating webhook
	// (rules.MutateCondition: it patches only generateName objects), and UPDATE is not routed to it.
	named := []string{"/validate"}
	if record == rules.RecordKRIAdmission {
		named = []string{"/mutate", "/validate"}
	}
	var configs manifest
	for _, o := range objs {
		if o.GetKind() != "ValidatingWebhookConfiguration" && o.GetKind() != "MutatingWebhookConfiguration" {
			continue
		}
		o = o.DeepCopy()
		hooks := slice(t, o, "webhooks")
		for _, h := range hooks {
			cc := h["clientConfig"].(map[string]any)
			path := cc["service"].(map[string]any)["path"].(string)
			h["clientConfig"] = map[string]any{"url": srv.URL + path, "caBundle": base64.StdEncoding.EncodeToString(caBundle)}
		}
		if err := unstructured.SetNestedSlice(o.Object, toAnySlice(hooks), "webhooks"); err != nil {
			t.Fatal(err)
		}
		configs = append(configs, o)
	}
	if len(configs) != 2 {
		t.Fatalf("rendered %d webhook configurations, want 2", len(configs))
	}
	for _, ns := range []string{ordinary, namespace, excluded} {
		createNamespace(t, ns, nil)
	}
	createNamespace(t, optedOut, map[string]string{"kriguard.io/ignore": "true"})
	apply(t, configs)

	ctx := testContext(t)
	mt, ok := env.Kind("kuma.io", "MeshTimeout")
	if !ok {
		t.Fatal("the control plane has no MeshTimeout CRD")
	}
	// The API server picks up new webhook configurations asynchronously.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		probe := object(mt, ordinary, "probe")
		if err := env.Client.Create(ctx, probe, client.DryRunAll); err != nil {
			return false, err
		}
		got := rec.take(ordinary, "probe")
		return slices.Equal(paths(got, "CREATE"), named), nil
	})
	if err != nil {
		t.Fatalf("the webhook configurations never took effect: %v", err)
	}

	guarded := map[string]bool{}
	for _, k := range guardedKinds(values) {
		guarded[k.group+"/"+k.kind] = true
	}
	// The Kuma kinds a release removed that have no KRI reach the validating webhook alone.
	removed := removedRules(t)

	t.Run("every kind in an ordinary namespace", func(t *testing.T) {
		checked, routedRemoved := 0, 0
		for _, k := range env.Kinds {
			if k.Group != "kuma.io" && k.Group != "configuration.konghq.com" {
				continue
			}
			checked++
			ns := ""
			if k.Namespaced {
				ns = ordinary
			}
			name := "route-" + strings.ToLower(k.Kind)
			o := object(k, ns, name)
			err := env.Client.Create(ctx, o)
			// The upstream CRDs (KRIGUARD_EXTRA_CRDS) require spec fields this generic object lacks. Their
			// schema is checked after the mutating webhooks and before the validating ones, so such an
			// object still shows the mutating route.
			if err != nil && !apierrors.IsInvalid(err) {
				t.Errorf("%s: %v", k.Kind, err)
				continue
			}
			// The mutating webhook is sent only what it may patch (rules.MutatedOperations) and, with
			// recording off, nothing with a name (its matchCondition).
			var want []string
			if guarded[k.Group+"/"+k.Kind] && slices.Contains(rules.MutatedOperations(schema.GroupKind{Group: k.Group, Kind: k.Kind}, record), admissionv1.Create) &&
				record == rules.RecordKRIAdmission {
				want = append(want, "/mutate")
			}
			switch {
			case guarded[k.Group+"/"+k.Kind] && err == nil:
				want = append(want, "/validate")
			case guarded[k.Group+"/"+k.Kind]:
				// the CRD's schema refused it before the validating webhooks
			case removed.Has(k.Group+"/"+k.Version+"/"+k.Plural) && err == nil:
				want = []string{"/validate"}
				routedRemoved++
			}
			if got := paths(rec.take(ns, name), "CREATE"); !slices.Equal(got, want) {
				t.Errorf("creating a %s (guarded: %v) reached %v, want %v", k.Kind, guarded[k.Group+"/"+k.Kind], got, want)
			}
			if err == nil {
				deleteObject(t, o)
				if got := paths(rec.take(ns, name), "DELETE"); len(got) != 0 {
					t.Errorf("deleting a %s reached %v: deletes must never be blocked", k.Kind, got)
				}
			}
		}
		if checked < len(guarded) {
			t.Errorf("checked %d kinds, fewer than the %d guarded ones", checked, len(guarded))
		}
		if routedRemoved != removed.Len() {
			t.Errorf("created %d objects of the removed kinds, want one of each of %d", routedRemoved, removed.Len())
		}
	})

	t.Run("update", func(t *testing.T) {
		o := object(mt, ordinary, "updated")
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		rec.take(ordinary, "updated")
		o.SetLabels(map[string]string{"kuma.io/mesh": "default"})
		if err := env.Client.Update(ctx, o); err != nil {
			t.Fatal(err)
		}
		if got := paths(rec.take(ordinary, "updated"), "UPDATE"); !slices.Equal(got, named) {
			t.Errorf("an update reached %v, want %v", got, named)
		}
		deleteObject(t, o)
	})

	t.Run("dry-run requests are sent", func(t *testing.T) {
		if err := env.Client.Create(ctx, object(mt, ordinary, "dry"), client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		got := rec.take(ordinary, "dry")
		if len(got) != len(named) || slices.ContainsFunc(got, func(r review) bool { return !r.dryRun }) {
			t.Errorf("a dry-run create reached the webhooks as %+v, want %d dry-run reviews", got, len(named))
		}
	})

	for _, tc := range []struct {
		name, namespace string
	}{
		{"kube-system", "kube-system"},
		{"the release namespace", namespace},
		{"an opted-out namespace", optedOut},
		{"an excluded namespace", excluded},
	} {
		t.Run("guarded kind in "+tc.name, func(t *testing.T) {
			o := object(mt, tc.namespace, "skipped")
			if err := env.Client.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { deleteObject(t, o) })
			if got := rec.take(tc.namespace, "skipped"); len(got) != 0 {
				t.Errorf("a MeshTimeout in %s reached the webhooks: %+v", tc.namespace, got)
			}
		})
	}

	t.Run("core and coordination kinds", func(t *testing.T) {
		for _, o := range []client.Object{
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ordinary, Name: "plain"}},
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ordinary, Name: "plain"}},
			&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ordinary, Name: "plain"}},
		} {
			if err := env.Client.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o) })
		}
		if got := rec.take(ordinary, "plain"); len(got) != 0 {
			t.Errorf("core or coordination objects reached the webhooks: %+v", got)
		}
	})
}

// object builds a minimal object of a kind; ns is ignored for cluster-scoped kinds.
func object(k testenv.Kind, ns, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	o.SetGroupVersionKind(k.GroupVersionKind())
	o.SetName(name)
	if k.Namespaced {
		o.SetNamespace(ns)
	}
	if k.Kind == "KongPlugin" {
		o.Object["plugin"] = "rate-limiting" // required at the top level by the upstream CRD
	}
	return o
}

func toAnySlice(in []map[string]any) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = v
	}
	return out
}
