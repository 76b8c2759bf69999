package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/rules"
)

// BenchmarkStages splits one review of a valid, named MeshTimeout CREATE, as the API server sends
// it, into the stages of ServeHTTP, each on its own, for the validating and the mutating webhook
// (which patches in the kriguard.io/kri annotation):
//
//   - transport: a TLS POST on a kept-alive connection and its answer, the same bytes each way,
//     to a handler that does nothing else (both ends: the client's half is the API server's cost);
//   - read: the body into the pooled buffer;
//   - decode: the review type check and the decode into an admission.Request;
//   - judge: the handler (the rules' decision, the patch operations, the answer);
//   - patch: the answer made complete (the JSON patch encoded: nothing for the validating one);
//   - encode: the AdmissionReview answer encoded and written;
//   - serve: the whole handler in process, without transport: the stages and the glue between them;
//   - allow-all/serve: serve with a handler that allows every review, test/serverbench's baseline.
//
// hack/bench-stages.sh counts the instructions of each with callgrind, which the load of the
// machine does not change, and prints each stage's share of transport + serve (docs/performance.md).
func BenchmarkStages(b *testing.B) {
	for _, c := range []struct {
		name string
		h    admission.Handler
	}{
		{"validate", NewValidator(rules.DefaultConfig())},
		{"mutate", NewMutator(rules.DefaultConfig()).WithRecordKRI(rules.RecordKRIAdmission)},
	} {
		review := reviewBody(b, request("CREATE", benchTimeout, nil))
		oh := c.h.(objectHandler)
		areq, gvk, reads := decodeStage(b, review, oh)
		resp := oh.handleRead(context.Background(), &areq, reads)
		if !resp.Allowed {
			b.Fatalf("%s: not allowed: %+v", c.name, resp.Result)
		}
		if c.name == "mutate" && len(resp.Patches) == 0 {
			b.Fatalf("%s: no patch", c.name)
		}
		var answer bytes.Buffer
		done := resp
		if err := complete(&done, &areq); err != nil {
			b.Fatal(err)
		}
		writeReview(&discard{body: &answer}, done, gvk)

		b.Run(c.name+"/transport", func(b *testing.B) {
			benchmarkTransport(b, review, answer.Bytes())
		})
		b.Run(c.name+"/read", func(b *testing.B) {
			rc := http.NewResponseController(httptest.NewRecorder())
			deadline := time.Now().Add(time.Hour)
			b.ReportAllocs()
			for b.Loop() {
				var bb body
				raw, err := bb.read(context.Background(), nil, "", rc, bytes.NewReader(review), int64(len(review)), deadline)
				if err != nil || len(raw) != len(review) {
					b.Fatal(len(raw), err)
				}
				bb.release(nil, "")
			}
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				decodeStage(b, review, oh)
			}
		})
		b.Run(c.name+"/judge", func(b *testing.B) {
			// The context handle gives the handler in serve: a logger, with the request's values.
			ctx := logf.IntoContext(context.Background(), logr.New(&requestLog{base: logf.Log.WithName("admission").GetSink(), req: &areq}))
			b.ReportAllocs()
			for b.Loop() {
				if r := oh.handleRead(ctx, &areq, reads); !r.Allowed {
					b.Fatal(r.Result)
				}
			}
		})
		b.Run(c.name+"/patch", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := resp
				if err := complete(&r, &areq); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encode", func(b *testing.B) {
			w := &discard{body: io.Discard}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				writeReview(w, done, gvk)
			}
		})
		b.Run(c.name+"/serve", func(b *testing.B) {
			benchmarkServe(b, c.h, benchTimeout)
		})
	}
	// The baseline of test/serverbench's BenchmarkThroughput: the same server with a handler that
	// allows every review. What validate/serve costs beyond it is what the throughput ratio follows.
	b.Run("allow-all/serve", func(b *testing.B) {
		benchmarkServe(b, admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
			return admission.Allowed("")
		}), benchTimeout)
	})
}

// decodeStage is the decoding half of ServeHTTP: the type check and the decode, with the objects
// read for oh (objectReads) when it is set.
func decodeStage(tb testing.TB, raw []byte, oh objectHandler) (admission.Request, *schema.GroupVersionKind, *objectReads) {
	if err := checkReviewType(raw); err != nil {
		tb.Fatal(err)
	}
	var areq admission.Request
	ar := unversionedReview{}
	ar.Request = &areq.AdmissionRequest
	ar.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
	var reads *objectReads
	if oh != nil {
		cfg, phase := oh.objectReads()
		reads = newObjectReads(cfg, phase)
	}
	gvk, err := decodeReview(context.Background(), raw, &ar, reads)
	if err != nil {
		tb.Fatal(err)
	}
	if oh != nil && reads.object == (rules.Read{}) {
		tb.Fatal("the object was not read in the review's pass")
	}
	return areq, gvk, reads
}

// benchmarkTransport posts body over TLS on one kept-alive connection to a handler that reads it
// and writes answer.
func benchmarkTransport(b *testing.B, body, answer []byte) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		_, _ = w.Write(answer)
	}))
	srv.EnableHTTP2 = false // the API server's webhook client speaks HTTP/1.1 (docs/performance.md)
	srv.StartTLS()
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).TLSClientConfig.MinVersion = tls.VersionTLS12
	url := srv.URL + "/validate?timeout=10s"
	post := func() {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n != int64(len(answer)) {
			b.Fatal(resp.StatusCode, n, err)
		}
	}
	post() // the handshake is not part of a review: the connection is kept alive
	b.ReportAllocs()
	b.SetBytes(int64(len(body) + len(answer)))
	for b.Loop() {
		post()
	}
}

// discard is a ResponseWriter that writes the body to body.
type discard struct {
	h    http.Header
	body io.Writer
}

func (d *discard) Header() http.Header {
	if d.h == nil {
		d.h = http.Header{}
	}
	return d.h
}
func (d *discard) Write(p []byte) (int, error) { return d.body.Write(p) }
func (d *discard) WriteHeader(int)             {}
