package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// pooledReviews are reviews that leave different things in a servedObjects: objects read and not,
// old objects, labels past labelSet's buffer, annotations, denials, patches, a body the reader
// gives up on.
func pooledReviews(tb testing.TB) [][]byte {
	mt := kuma("MeshTimeout", "kuma-system", "t1", map[string]string{naming.LabelMesh: "mesh-1"}, spec(obj{
		"targetRef": targetRef("Mesh", ""),
		"to":        []any{map[string]any{"targetRef": targetRef("MeshService", "http")}},
	}))
	many := map[string]string{naming.LabelMesh: "m", naming.LabelZone: "z", "a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}
	return [][]byte{
		reviewBody(tb, request("CREATE", mt, nil)),
		reviewBody(tb, request("CREATE", mt.with("labels", map[string]any{naming.LabelMesh: "Bad_Mesh"}), nil)),
		reviewBody(tb, request("UPDATE", mt.with("labels", map[string]any{naming.LabelMesh: "mesh-2"}), mt)),
		reviewBody(tb, request("CREATE", mt.with("generateName", "t-").with("name", ""), nil)),
		reviewBody(tb, request("DELETE", nil, mt)),
		reviewBody(tb, request("CREATE", kuma("MeshService", "ns", "svc", many, spec(obj{"ports": []any{map[string]any{"name": "Http_Port", "port": 80}}})), nil)),
		reviewBody(tb, request("CREATE", kuma("MeshTrust", "ns", "t", nil, nil).with("annotations", map[string]any{naming.AnnotationKRI: "kri_______", "x": "y"}), nil)),
		reviewBody(tb, request("CREATE", kongObj("KongPluginBinding", "a.cp1.2.pl3", spec(obj{"pluginRef": map[string]any{"name": 1}})), nil)),
		reviewBody(tb, request("CREATE", object("v1", "ConfigMap", "ns", "c", nil, nil), nil)),
		[]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"9","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTimeout"},"operation":"CREATE","object":{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"a\u0062","labels":{"kuma.io/mesh":"x"}}}}}`),
	}
}

// serveOn is what ServeHTTP does with a review's servedObjects: decode raw into it and decide.
func serveOn(so *servedObjects, rh *reviewHandler, raw []byte) (admission.Response, error) {
	so.ar.Request = &so.req.AdmissionRequest
	so.ar.TypeMeta = reviewTypeMeta
	if _, err := so.decode(context.Background(), raw, &so.reads); err != nil {
		return admission.Response{}, err
	}
	return rh.handle(context.Background(), &so.req, &so.reads), nil
}

// newUnpooled is a servedObjects as servedObjectsPool makes one.
func newUnpooled(rh *reviewHandler) *servedObjects {
	so := servedObjectsPool.New().(*servedObjects)
	so.reads.cfg, so.reads.phase = rh.objects.objectReads()
	return so
}

// TestServedObjectsGivenBackZero: what a review left in a servedObjects, its reads included, is
// gone once it is given back (reset), but for the pointer to its readObjects.
func TestServedObjectsGivenBackZero(t *testing.T) {
	for _, h := range []admission.Handler{NewValidator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig())} {
		rh := newTestHTTPHandler(h).(*reviewHandler)
		for i, raw := range pooledReviews(t) {
			so := newUnpooled(rh)
			ro := so.reads.readObjects
			if _, err := serveOn(so, rh, raw); err != nil {
				t.Fatalf("%T, review %d: %v", h, i, err)
			}
			so.body.buf, so.body.held = []byte("left"), 4
			so.reset()
			if so.reads.readObjects != ro {
				t.Fatalf("%T, review %d: the reads' allocation was replaced", h, i)
			}
			so.reads.readObjects = nil
			if !reflect.ValueOf(*so).IsZero() || !reflect.ValueOf(*ro).IsZero() {
				t.Errorf("%T, review %d: not zero once given back:\n%+v\n%+v", h, i, *so, *ro)
			}
		}
	}
}

// TestServedObjectsReused: a review decided on a servedObjects another review was decided on and
// gave back gets the answer it gets on a new one, whatever came before it.
func TestServedObjectsReused(t *testing.T) {
	reviews := pooledReviews(t)
	for _, h := range []admission.Handler{NewValidator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig())} {
		rh := newTestHTTPHandler(h).(*reviewHandler)
		want := make([]admission.Response, len(reviews))
		for i, raw := range reviews {
			var err error
			if want[i], err = serveOn(newUnpooled(rh), rh, raw); err != nil {
				t.Fatal(err)
			}
		}
		for i, first := range reviews {
			for j, second := range reviews {
				so := newUnpooled(rh)
				if _, err := serveOn(so, rh, first); err != nil {
					t.Fatal(err)
				}
				so.reset()
				so.reads.cfg, so.reads.phase = rh.objects.objectReads()
				got, err := serveOn(so, rh, second)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want[j]) {
					t.Errorf("%T: review %d after review %d answered\n%+v\nwant\n%+v", h, j, i, got, want[j])
				}
			}
		}
	}
}

// TestServeConcurrentPooled serves different reviews on many goroutines at once through the same
// handlers, taking their served or servedObjects from the pools and giving them back: each answer is the one the
// review gets alone (run with -race).
func TestServeConcurrentPooled(t *testing.T) {
	reviews := pooledReviews(t)
	// echo decides no objects (it is served a served, not a servedObjects) and answers with what
	// it was sent, so that a review would show what an earlier one left behind.
	echo := admission.HandlerFunc(func(_ context.Context, req admission.Request) admission.Response {
		return admission.Denied(fmt.Sprintf("%s %s/%s %s %q %q", req.Operation, req.Namespace, req.Name, req.Kind.Kind, req.Object.Raw, req.OldObject.Raw))
	})
	for _, h := range []admission.Handler{NewValidator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig()), echo} {
		wh := newTestHTTPHandler(h)
		post := func(raw []byte) []byte {
			req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			wh.ServeHTTP(rec, req)
			return rec.Body.Bytes()
		}
		want := make([][]byte, len(reviews))
		for i, raw := range reviews {
			want[i] = post(raw)
		}
		var wg sync.WaitGroup
		errs := make(chan error, len(reviews))
		for i, raw := range reviews {
			wg.Go(func() {
				for range 50 {
					if got := post(raw); !bytes.Equal(got, want[i]) {
						errs <- fmt.Errorf("%T, review %d: answered %s, want %s", h, i, got, want[i])
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}

// TestDecodeAsideGivesBackAfterDecode: a large review still decoding at the decision's deadline
// is answered 504 at once, and its servedObjects goes back to the pool only when the decode ends,
// after its body and before its decision's budget (run with -race: a give-back before the decode
// ends races with the decode's writes).
func TestDecodeAsideGivesBackAfterDecode(t *testing.T) {
	to := make([]any, 60000)
	for i := range to {
		to[i] = map[string]any{"targetRef": targetRef("MeshService", fmt.Sprintf("s%d", i))}
	}
	raw := reviewBody(t, request("CREATE", kuma("MeshTimeout", "ns", "big", nil, spec(obj{"targetRef": targetRef("Mesh", ""), "to": to})), nil))
	budget, err := NewBudget(DefaultMemoryLimit)
	if err != nil {
		t.Fatal(err)
	}
	rh := NewBoundedHTTPHandler(NewValidator(rules.DefaultConfig()), budget).(*reviewHandler)
	cost := decisionCost(int64(len(raw)), reviewNodes(raw))
	for handedOff, tries := 0, 0; handedOff < 3; tries++ {
		if tries == 100 {
			t.Skip("the review decoded within a millisecond every time")
		}
		if err := budget.takeDecision(context.Background(), cost, time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		so := newServedObjects(rh.objects.objectReads())
		so.ar.Request = &so.req.AdmissionRequest
		so.ar.TypeMeta = reviewTypeMeta
		dctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		rec := httptest.NewRecorder()
		_, err := rh.decodeAside(context.Background(), dctx, rec, &so.served, so, raw, &so.reads, "client", cost)
		cancel()
		if !errors.Is(err, errHandedOff) {
			// Decoded in time (a fast machine): the serve gives it back.
			budget.giveDecision(cost)
			giveBackServed(&so.served, so)
			continue
		}
		handedOff++
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"code":504`)) {
			t.Fatalf("handed off review answered %d %s, want a 504", rec.Code, rec.Body.Bytes())
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			budget.decisions.mu.Lock()
			back := budget.decisions.free == budget.decisions.size
			budget.decisions.mu.Unlock()
			if back {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the decode's memory was not given back")
			}
		}
	}
}
