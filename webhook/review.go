package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// maxReviewBytes is controller-runtime's own request limit (v0.25.2, 7 MiB); larger bodies are
// passed on for it to answer with 413.
const maxReviewBytes = 7 << 20

// NewHTTPHandler returns the http.Handler the server registers for h: controller-runtime's
// admission.Webhook behind a check of the review's apiVersion and kind. controller-runtime
// decodes any JSON object as a review, whatever it says it is; this answers a document that is
// not an admission.k8s.io/v1 or v1beta1 AdmissionReview with a clear 400 instead.
func NewHTTPHandler(h admission.Handler) http.Handler {
	return &reviewGuard{next: &admission.Webhook{Handler: h}}
}

// newTestHTTPHandler is NewHTTPHandler with the framework's panic recovery off, so that tests and
// fuzzing see a panic instead of a 500.
func newTestHTTPHandler(h admission.Handler) http.Handler {
	return &reviewGuard{next: (&admission.Webhook{Handler: h}).WithRecoverPanic(false)}
}

type reviewGuard struct {
	next http.Handler
}

func (g *reviewGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		g.next.ServeHTTP(w, r)
		return
	}
	b := bodies.Get().(*body)
	defer b.release()
	_, err := b.buf.ReadFrom(io.LimitReader(r.Body, maxReviewBytes+1))
	_ = r.Body.Close()
	if err != nil {
		writeReviewError(w, http.StatusBadRequest, fmt.Errorf("reading request body: %w", err))
		return
	}
	if b.buf.Len() <= maxReviewBytes {
		if err := checkReviewType(b.buf.Bytes()); err != nil {
			count(kindOfBrokenRequests, "", decisionError, "")
			writeReviewError(w, http.StatusBadRequest, err)
			return
		}
	}
	b.r.Reset(b.buf.Bytes())
	r.Body = b
	g.next.ServeHTTP(w, r)
}

// body is a request body read ahead, kept in a pool: reading every review into a fresh,
// repeatedly grown slice was a good part of the cost of a request. The framework reads it
// into its own slice, so nothing holds it once the request is answered.
type body struct {
	buf bytes.Buffer
	r   bytes.Reader
}

var bodies = sync.Pool{New: func() any { return new(body) }}

// maxPooledBody bounds the buffers kept: a rare large review should not pin its memory.
const maxPooledBody = 64 << 10

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *body) Close() error               { return nil }

func (b *body) release() {
	if b.buf.Cap() > maxPooledBody {
		return
	}
	b.buf.Reset()
	b.r.Reset(nil)
	bodies.Put(b)
}

// checkReviewType reads the top-level apiVersion and kind of a review. It stops as soon as it has
// both, which the API server writes first. A body that is not a JSON object is left for the
// framework's decoder to report.
func checkReviewType(body []byte) error {
	// The API server writes kind and apiVersion first, in this order and without spaces.
	for _, prefix := range reviewPrefixes {
		if bytes.HasPrefix(body, prefix) {
			return nil
		}
	}
	d := json.NewDecoder(bytes.NewReader(body))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var apiVersion, kind string
	var haveVersion, haveKind bool
	for d.More() && !(haveVersion && haveKind) {
		t, err := d.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		switch key {
		case "apiVersion":
			haveVersion = d.Decode(&apiVersion) == nil
		case "kind":
			haveKind = d.Decode(&kind) == nil
		default:
			var skip json.RawMessage
			if d.Decode(&skip) != nil {
				return nil
			}
		}
	}
	if !haveVersion || !haveKind {
		return errors.New(`request body is not an AdmissionReview: apiVersion and kind are required`)
	}
	if kind != "AdmissionReview" || (apiVersion != "admission.k8s.io/v1" && apiVersion != "admission.k8s.io/v1beta1") {
		return fmt.Errorf(`request body is a %s %s, want an AdmissionReview of admission.k8s.io/v1 or v1beta1`, apiVersion, kind)
	}
	return nil
}

var reviewPrefixes = [][]byte{
	[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`),
	[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1",`),
}

func writeReviewError(w http.ResponseWriter, code int32, err error) {
	resp := admission.Errored(code, err)
	review := admissionv1.AdmissionReview{Response: &resp.AdmissionResponse}
	review.APIVersion, review.Kind = "admission.k8s.io/v1", "AdmissionReview"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}
