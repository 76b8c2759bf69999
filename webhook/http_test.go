package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// serve posts body to h through the http.Handler the server registers (controller-runtime's
// admission.Webhook behind the review check), with panic recovery off so that a panic fails
// the test.
func serve(t testing.TB, h admission.Handler, body []byte) (*httptest.ResponseRecorder, admissionv1.AdmissionReview) {
	t.Helper()
	wh := newTestHTTPHandler(h)
	req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	wh.ServeHTTP(rec, req)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
		t.Fatalf("response is not an AdmissionReview: %v: %q", err, rec.Body.String())
	}
	return rec, review
}

func reviewBody(t testing.TB, req admission.Request) []byte {
	t.Helper()
	b, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metaTypeReview,
		Request:  &req.AdmissionRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var metaTypeReview = func() (tm admissionv1.AdmissionReview) {
	tm.APIVersion, tm.Kind = "admission.k8s.io/v1", "AdmissionReview"
	return tm
}().TypeMeta

func TestServeHTTP(t *testing.T) {
	bad := kuma("MeshTimeout", "kuma-system", "t1", map[string]string{naming.LabelMesh: "Mesh_1"}, nil)
	valid := reviewBody(t, request("CREATE", bad, nil))
	inner, err := json.Marshal(request("CREATE", bad, nil).AdmissionRequest)
	if err != nil {
		t.Fatal(err)
	}
	typeLast := []byte(`{"request": ` + string(inner) + `, "kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1"}`)
	tests := []struct {
		name string
		body []byte
		code int32
		msg  string // substring of Result.Message
	}{
		{"denied", valid, 422, `MeshTimeout.kuma.io "t1" is invalid: metadata.labels[kuma.io/mesh]`},
		{"v1beta1 review", bytes.Replace(valid, []byte(`"admission.k8s.io/v1"`), []byte(`"admission.k8s.io/v1beta1"`), 1), 422, "is invalid"},
		{"malformed JSON", []byte(`{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {`), 400, "unexpected end of JSON input"},
		{"not JSON", []byte("\xff\xfe\x00garbage"), 400, ""},
		{"wrong API version", bytes.Replace(valid, []byte(`"admission.k8s.io/v1"`), []byte(`"admission.k8s.io/v2"`), 1), 400, "request body is a admission.k8s.io/v2 AdmissionReview, want an AdmissionReview of admission.k8s.io/v1 or v1beta1"},
		{"wrong kind", bytes.Replace(valid, []byte(`"AdmissionReview"`), []byte(`"Pod"`), 1), 400, "request body is a admission.k8s.io/v1 Pod"},
		{"no request", []byte(`{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}`), 400, "admission review has no request"},
		{"no apiVersion", []byte(`{"kind": "AdmissionReview", "request": {}}`), 400, "apiVersion and kind are required"},
		{"type after the request", typeLast, 422, "is invalid"},
		{"missing object", reviewBody(t, request("CREATE", nil, bad)), 400, "admission request has no object"},
		{"raw non-UTF-8 bytes in a label", bytes.Replace(valid, []byte("Mesh_1"), []byte("m\xff\xfe"), -1), 422,
			"metadata.labels[kuma.io/mesh]: Invalid value: \"m\ufffd\ufffd\": must end with"},
		{"oversized body", append(valid[:len(valid)-1], []byte(`,"pad":"`+strings.Repeat("x", 7<<20)+`"}`)...), 413,
			"request entity is too large; limit is 7340032 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, h := range []admission.Handler{NewValidator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig())} {
				rec, review := serve(t, h, tt.body)
				if rec.Code != http.StatusOK {
					t.Errorf("HTTP status %d", rec.Code)
				}
				r := review.Response
				if r == nil || r.Result == nil {
					t.Fatalf("no response result: %s", rec.Body.String())
				}
				if _, isMutator := h.(*Mutator); isMutator && tt.code == 422 {
					continue // the mutator leaves invalid objects to the validator
				}
				if r.Allowed || r.Result.Code != tt.code || !strings.Contains(r.Result.Message, tt.msg) {
					t.Errorf("%T: allowed %v, code %d, message %q; want code %d and %q", h, r.Allowed, r.Result.Code, r.Result.Message, tt.code, tt.msg)
				}
			}
		})
	}
}

// FuzzServeHTTP sends arbitrary bodies through the real http.Handler of both webhooks: every
// body gets a well-formed AdmissionReview answer and none panics.
func FuzzServeHTTP(f *testing.F) {
	mt := kuma("MeshTimeout", "kuma-system", "t1", map[string]string{naming.LabelMesh: "mesh-1"}, spec(obj{
		"targetRef": targetRef("Dataplane", "http"),
		"to":        []any{map[string]any{"targetRef": targetRef("MeshService", "Bad_Port")}},
	}))
	seeds := [][]byte{
		reviewBody(f, request("CREATE", mt, nil)),
		reviewBody(f, request("UPDATE", mt.with("labels", map[string]any{"kuma.io/mesh": "M"}), mt)),
		reviewBody(f, request("CREATE", mt.with("generateName", "t-").with("name", ""), nil)),
		reviewBody(f, request("DELETE", nil, mt)),
		reviewBody(f, request("CREATE", kongObj("KongPluginBinding", "a.cp1.2.pl3", spec(obj{"pluginRef": map[string]any{"name": 1}})), nil)),
		reviewBody(f, request("CREATE", kongObj("KongPlugin", "", obj{"plugin": "x", "config": []any{1, "a"}}).with("generateName", "p-"), nil)),
		reviewBody(f, request("CREATE", object("v1", "ConfigMap", "ns", "c", nil, nil), nil)),
		reviewBody(f, request("CREATE", kuma("MeshService", "ns", "a.b", map[string]string{naming.LabelZone: "z"}, spec(obj{
			"ports": []any{map[string]any{"name": "", "port": 1}, map[string]any{"port": 8080.5}, "x", map[string]any{"name": 5}}})), nil)),
		reviewBody(f, request("CREATE", kuma("MeshExternalService", "ns", "e", nil, spec(obj{"match": map[string]any{"port": "443"}})), nil)),
		reviewBody(f, request("CREATE", kuma("MeshProxyPatch", "ns", "p", nil, spec(obj{"default": map[string]any{"appendModifications": []any{
			map[string]any{"listener": map[string]any{"match": map[string]any{"name": "kri_x", "tags": map[string]any{rules.UnifiedNameTag: "a:b"}}}},
			map[string]any{"cluster": "x"}, 7}}})), nil)),
		reviewBody(f, request("CREATE", kuma("Dataplane", "ns", "dp", nil, obj{"mesh": 5}), nil)),
		reviewBody(f, as(request("CREATE", kuma("Dataplane", "ns", "dp", nil, obj{"mesh": "M"}), nil), rules.KumaControlPlaneUser)),
		[]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTimeout"},"operation":"CREATE","object":{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":7}}}}`),
		[]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTimeout"},"operation":"CREATE","object":{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeoutList","items":[]}}}`),
		[]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTrust"},"operation":"CREATE","object":{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTrust","metadata":{"name":"t","annotations":{"kriguard.io/kri":"kri_______"}},"status":{"origin":{"kri":[]}}}}}`),
		[]byte("{}"),
		[]byte("null"),
		[]byte(""),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	handlers := []admission.Handler{NewValidator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig())}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, h := range handlers {
			rec, review := serve(t, h, body)
			if rec.Code != http.StatusOK || review.Response == nil || review.Response.Result == nil {
				t.Fatalf("bad answer %d %q", rec.Code, rec.Body.String())
			}
			if r := review.Response; !r.Allowed && r.Result.Code < 400 {
				t.Fatalf("denied without an error code: %+v", r.Result)
			}
		}
	})
}

func benchmarkServe(b *testing.B, h admission.Handler, o obj) {
	body := reviewBody(b, request("CREATE", o, nil))
	wh := NewHTTPHandler(h)
	serve := func() {
		req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
	// The stack ServeHTTP needs for one review beyond its caller's (stackNeeded), which does not
	// depend on the machine. The request is made once, outside of what is measured.
	req := httptest.NewRequest(http.MethodPost, "/validate", nil)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	rd := bytes.NewReader(body)
	stack := stackNeeded(b, func() {
		rd.Reset(body)
		req.Body = io.NopCloser(rd)
		rec := httptest.NewRecorder()
		wh.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	})
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		serve()
	}
	b.ReportMetric(float64(stack), "stack-B")
}

var benchTimeout = kuma("MeshTimeout", "kuma-system", "timeout-backend", map[string]string{naming.LabelMesh: "mesh-1"}, spec(obj{
	"targetRef": targetRef("Mesh", ""),
	"to": []any{map[string]any{
		"targetRef": targetRef("MeshService", "http"),
		"default":   map[string]any{"connectionTimeout": "5s", "idleTimeout": "1h", "http": map[string]any{"requestTimeout": "15s"}},
	}},
}))

// BenchmarkValidateValid is one request for a valid MeshTimeout: decode, decide, encode.
func BenchmarkValidateValid(b *testing.B) {
	benchmarkServe(b, NewValidator(rules.DefaultConfig()), benchTimeout)
}

// BenchmarkValidateInvalid is one request for a MeshTimeout with two problems, denied with 422.
func BenchmarkValidateInvalid(b *testing.B) {
	bad := benchTimeout.with("labels", map[string]any{naming.LabelMesh: "Mesh_1"})
	bad["spec"].(map[string]any)["to"].([]any)[0].(map[string]any)["targetRef"] = targetRef("MeshService", "Http_Port")
	benchmarkServe(b, NewValidator(rules.DefaultConfig()), bad)
}

// BenchmarkMutateGenerateName is one generateName request answered with a three-operation patch.
func BenchmarkMutateGenerateName(b *testing.B) {
	benchmarkServe(b, NewMutator(rules.DefaultConfig()), benchTimeout.with("name", "").with("generateName", "timeout-"))
}

// BenchmarkAllowAll is the floor: the same request through a handler that allows everything.
func BenchmarkAllowAll(b *testing.B) {
	benchmarkServe(b, admission.HandlerFunc(func(_ context.Context, _ admission.Request) admission.Response {
		return admission.Allowed("")
	}), benchTimeout)
}

// FuzzDecodeReview checks decodeReview against reviewDecoder, which it skips for bodies that start
// as the API server writes a review. What the decoder decodes, decodeReview decodes the same, and
// what it refuses, the decoder refuses. They differ on purpose in one thing: the decoder finds the
// version with a case-insensitive pass of its own ("KIND" counts as "kind"), decodeReview takes the
// apiVersion and kind the review decodes to, as the answer's version.
func FuzzDecodeReview(f *testing.F) {
	f.Add(reviewBody(f, request("CREATE", benchTimeout, nil)))
	f.Add(reviewBody(f, request("UPDATE", benchTimeout.with("generateName", "t-"), benchTimeout)))
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"1","object":{"a":1e3}},"apiVersion":"admission.k8s.io/v1beta1"}`))
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","request":{"uid":5}}`))
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","Request":{"UID":"x"}}`))
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","KIND":"Other","request":{"uid":"1"}}`))
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","KIND":5}`))
	for _, s := range reviewSeeds(f) {
		f.Add(s)
	}
	handlers := []objectHandler{NewValidator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig()).WithRecordKRI(rules.RecordKRIAdmission)}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var slow admission.Request
		sr := unversionedReview{}
		sr.Request = &slow.AdmissionRequest
		_, sgvk, serr := reviewDecoder.Decode(raw, nil, &sr)
		// Read plainly, then with the objects read in the review's pass for each handler, which
		// decides the same as from the objects' bytes (FuzzReadObject holds the objects read to
		// the rules' decode of the bytes).
		for i := -1; i < len(handlers); i++ {
			var fast admission.Request
			fr := unversionedReview{}
			fr.Request = &fast.AdmissionRequest
			var reads *objectReads
			if i >= 0 {
				cfg, phase := handlers[i].objectReads()
				reads = newObjectReads(cfg, phase)
			}
			fgvk, ferr := decodeReview(context.Background(), raw, &fr, reads)
			switch {
			case ferr != nil && serr == nil:
				t.Fatalf("decodeReview: %v; the decoder decodes it", ferr)
			case ferr != nil || serr != nil:
				if ferr != nil && reads != nil && (reads.object != (rules.Read{}) || reads.oldObject != (rules.Read{})) {
					t.Fatalf("decodeReview: %v, and objects read", ferr)
				}
				return
			}
			if *sgvk == sr.GroupVersionKind() && *fgvk != *sgvk {
				t.Errorf("version %v, the decoder's %v", *fgvk, *sgvk)
			}
			if !reflect.DeepEqual(fr, sr) {
				t.Errorf("decodeReview:\n%+v\nthe decoder:\n%+v", fr, sr)
			}
			if reads == nil {
				continue
			}
			ctx := context.Background()
			got, want := handlers[i].handleRead(ctx, &fast, reads), handlers[i].handleRead(ctx, &slow, nil)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%T with the objects read:\n%+v\nfrom their bytes:\n%+v", handlers[i], got, want)
			}
		}
	})
}
