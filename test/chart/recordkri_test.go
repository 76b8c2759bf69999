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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/rules"
)

// caseLabel names the case an object of TestRecordKRIOffRouting belongs to: a generateName object has no
// name in its admission request.
const caseLabel = "kriguard.io/test-case"

// call is one admission request a mutating webhook of TestRecordKRIOffRouting was sent.
type call struct {
	path, testCase     string
	operation          admissionv1.Operation
	kind               schema.GroupKind
	object, oldObject  []byte
	generateName, name string
}

// callRecorder allows everything and keeps every request whole.
type callRecorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *callRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var ar admissionv1.AdmissionReview
	if err := json.NewDecoder(req.Body).Decode(&ar); err != nil || ar.Request == nil {
		http.Error(w, "malformed AdmissionReview", http.StatusBadRequest)
		return
	}
	var meta struct {
		Metadata struct {
			Name, GenerateName string
			Labels             map[string]string
		}
	}
	_ = json.Unmarshal(ar.Request.Object.Raw, &meta)
	r.mu.Lock()
	r.calls = append(r.calls, call{
		path:     req.URL.Path,
		testCase: meta.Metadata.Labels[caseLabel], operation: ar.Request.Operation,
		kind:   schema.GroupKind{Group: ar.Request.Kind.Group, Kind: ar.Request.Kind.Kind},
		object: ar.Request.Object.Raw, oldObject: ar.Request.OldObject.Raw,
		generateName: meta.Metadata.GenerateName, name: meta.Metadata.Name,
	})
	r.mu.Unlock()
	ar.Response = &admissionv1.AdmissionResponse{UID: ar.Request.UID, Allowed: true}
	ar.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&ar)
}

// take returns and forgets the calls of one case.
func (r *callRecorder) take(testCase string) []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var mine, rest []call
	for _, c := range r.calls {
		if c.testCase == testCase {
			mine = append(mine, c)
		} else {
			rest = append(rest, c)
		}
	}
	r.calls = rest
	return mine
}

// TestRecordKRIOffRouting holds the chart's mutating webhook under webhook.recordKRI off, the chart's
// default (rendered with no values) — CREATE only, behind its CEL matchCondition
// (rules.MutateCondition) — to the decisions of the mutating webhook under --record-kri=off, through a real API server: beside it, an observing mutating webhook
// with no condition is sent every CREATE and UPDATE of the guarded groups, and for each request it
// saw, as a mutating webhook sees it, the one the chart routes must have been sent too when the
// decision patches (no needed patch is skipped), and exactly when the object's name is generated
// (generateName, no name or an empty one; a CREATE with a name, and every UPDATE, make no call).
func TestRecordKRIOffRouting(t *testing.T) {
	rec := &callRecorder{}
	srv := httptest.NewTLSServer(rec)
	t.Cleanup(srv.Close)
	caBundle := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))

	const (
		release   = "record-off"
		namespace = "record-off-system"
		ordinary  = "record-off-team"
	)
	const values = "" // the defaults: webhook.recordKRI off
	if got := recordKRI(chartValues(t, values)); got != rules.RecordKRIOff {
		t.Fatalf("the chart's default webhook.recordKRI is %q, want %q", got, rules.RecordKRIOff)
	}
	mutating := render(t, release, namespace, values).get(t, "MutatingWebhookConfiguration", release+"-kriguard-mutating").DeepCopy()
	hooks := slice(t, mutating, "webhooks")
	hooks[0]["clientConfig"] = map[string]any{"url": srv.URL + "/mutate", "caBundle": caBundle}
	if err := unstructured.SetNestedSlice(mutating.Object, toAnySlice(hooks), "webhooks"); err != nil {
		t.Fatal(err)
	}
	// The observer: every CREATE and UPDATE of the guarded groups, no condition. It runs first (the API
	// server orders the configurations by name); neither patches, so both see the same object.
	observer := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "a-record-off-observer"},
		"webhooks": []any{map[string]any{
			"name": "observe.kriguard.io", "admissionReviewVersions": []any{"v1"}, "sideEffects": "None",
			"failurePolicy": "Fail", "matchPolicy": "Equivalent",
			"clientConfig": map[string]any{"url": srv.URL + "/observe", "caBundle": caBundle},
			"rules": []any{map[string]any{
				"apiGroups": []any{rules.KumaGroup, rules.KongGroup}, "apiVersions": []any{"*"}, "resources": []any{"*"},
				"operations": []any{"CREATE", "UPDATE"}, "scope": "*",
			}},
			"namespaceSelector": map[string]any{"matchExpressions": []any{map[string]any{
				"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system", namespace},
			}}},
		}},
	}}
	createNamespace(t, ordinary, nil)
	apply(t, manifest{observer, mutating})

	ctx := testContext(t)
	mt, ok := env.Kind(rules.KumaGroup, "MeshTimeout")
	if !ok {
		t.Fatal("the control plane has no MeshTimeout CRD")
	}
	// The API server picks up new webhook configurations asynchronously.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		probe := object(mt, ordinary, "")
		probe.SetGenerateName("probe-")
		probe.SetLabels(map[string]string{caseLabel: "probe"})
		if err := env.Client.Create(ctx, probe, client.DryRunAll); err != nil {
			return false, err
		}
		paths := map[string]bool{}
		for _, c := range rec.take("probe") {
			paths[c.path] = true
		}
		return paths["/mutate"] && paths["/observe"], nil
	})
	if err != nil {
		t.Fatalf("the webhook configurations never took effect: %v", err)
	}

	conf := rules.DefaultConfig()
	guarded := map[schema.GroupKind]bool{}
	for _, k := range conf.GuardedKinds() {
		guarded[schema.GroupKind{Group: k.Group, Kind: k.Kind}] = true
	}
	checkedKinds := 0
	for _, k := range env.Kinds {
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		if !guarded[gk] {
			continue
		}
		checkedKinds++
		ns := ""
		if k.Namespaced {
			ns = ordinary
		}
		// Each case: the metadata of the object created, then updated (a label added) when created.
		lower := strings.ToLower(k.Kind)
		patched := false
		for _, tc := range []struct {
			name     string
			metadata map[string]any
			mesh     bool // the top-level mesh of Dataplane and MeshGateway
		}{
			{"named", map[string]any{"name": "named-" + lower}, false},
			{"named, annotated", map[string]any{"name": "annotated-" + lower, "annotations": map[string]any{"kriguard.io/kri": "kri_mt_other___stale_"}}, false},
			{"generated", map[string]any{"generateName": "gen-"}, false},
			{"generated, top-level mesh", map[string]any{"generateName": "mesh-"}, true},
			// The API server drops an empty name before admission; the condition would read it as none.
			{"generated, empty name", map[string]any{"generateName": "empty-", "name": ""}, false},
			{"named and generated", map[string]any{"generateName": "both-", "name": "both-" + lower}, false},
		} {
			id := lower + "-" + strings.NewReplacer(" ", "-", ",", "").Replace(tc.name)
			o := object(k, ns, "")
			meta := tc.metadata
			meta["labels"] = map[string]any{caseLabel: id, "kuma.io/mesh": "default"}
			if k.Namespaced {
				meta["namespace"] = ns
			}
			o.Object["metadata"] = meta
			if tc.mesh {
				o.Object["mesh"] = "default"
			}
			// The fields of the Kong names (kongName), kept where the kind's schema has them.
			o.Object["spec"] = map[string]any{
				"targets":   map[string]any{"routeRef": map[string]any{"name": "route"}},
				"pluginRef": map[string]any{"name": "plugin"},
				"host":      "http.default-svc-8080.1.cp1fbfa93f.8fc42fd1",
			}
			// A schema may refuse the object after the mutating webhooks ran (required fields of the
			// upstream CRDs); their calls are what is checked.
			switch err := env.Client.Create(ctx, o); {
			case err == nil:
				t.Cleanup(func() { deleteObject(t, o) })
				o.SetLabels(map[string]string{caseLabel: id, "kuma.io/mesh": "default", "kuma.io/zone": "east"})
				if err := env.Client.Update(ctx, o); err != nil && !apierrors.IsInvalid(err) {
					t.Errorf("%s: updating: %v", id, err)
				}
			case !apierrors.IsInvalid(err):
				t.Errorf("%s: creating: %v", id, err)
				continue
			}
			calls := rec.take(id)
			// Each webhook call has a UID of its own: a case's calls are told apart by their operation,
			// one CREATE and at most one UPDATE, none reinvoked (nothing patches).
			mutated := map[admissionv1.Operation]int{}
			for _, c := range calls {
				if c.path == "/mutate" {
					mutated[c.operation]++
				}
			}
			observed := 0
			for _, c := range calls {
				if c.path != "/observe" {
					continue
				}
				observed++
				d, err := conf.Decide(ctx, rules.Request{
					Phase: rules.Mutate, Kind: c.kind, Operation: c.operation, Object: c.object, OldObject: c.oldObject,
					RecordKRI: rules.RecordKRIOff,
				})
				if err != nil {
					t.Errorf("%s: %s: deciding: %v", id, c.operation, err)
					continue
				}
				called := mutated[c.operation] == 1
				if len(d.Patch) > 0 {
					patched = true
					if !called {
						t.Errorf("%s: %s of %s needs the patch %v, but the chart's matchConditions skipped the call", id, c.operation, c.object, d.Patch)
					}
				}
				if n := mutated[c.operation]; n > 1 {
					t.Errorf("%s: %s reached the mutating webhook %d times", id, c.operation, n)
				}
				routed := slices.Contains(rules.MutatedOperations(gk, rules.RecordKRIOff), c.operation)
				if want := routed && c.operation == admissionv1.Create && c.generateName != "" && c.name == ""; called != want {
					t.Errorf("%s: %s of generateName %q, name %q: the mutating webhook called %v, want %v", id, c.operation, c.generateName, c.name, called, want)
				}
			}
			if observed == 0 {
				t.Errorf("%s: the observer saw no request", id)
			}
		}
		if len(rules.MutatedOperations(gk, rules.RecordKRIOff)) > 0 && !patched {
			t.Errorf("%s: no request needed a patch: the test shows nothing for this kind", k.Kind)
		}
	}
	if checkedKinds < len(guarded) {
		t.Errorf("checked %d kinds, fewer than the %d guarded ones", checkedKinds, len(guarded))
	}
}
