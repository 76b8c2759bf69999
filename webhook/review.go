package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/rules"
)

// maxReviewBytes is the largest review body, controller-runtime's own limit (v0.25.2, 7 MiB):
// object and oldObject at the API server's 3 MiB request limit, and the rest.
const maxReviewBytes = 7 << 20

// The deadline of a request (docs/limits.md): the API server appends ?timeout=<N>s to every
// call, its webhook's timeoutSeconds (at most 30s); without it, maxTimeout.
const (
	maxTimeout = 30 * time.Second
	minTimeout = time.Second
)

// NewHTTPHandler returns the http.Handler the server registers for h, with a budget of its own
// for a process of DefaultMemoryLimit. The webhooks of one process share one budget: see
// NewBoundedHTTPHandler.
func NewHTTPHandler(h admission.Handler) http.Handler {
	b, err := NewBudget(DefaultMemoryLimit)
	if err != nil {
		panic(err) // the defaults are wrong: every test run catches it
	}
	return NewBoundedHTTPHandler(h, b)
}

// NewBoundedHTTPHandler returns the http.Handler the server registers for h: it reads the
// review once, within the request's deadline and budget, checks that it is an
// admission.k8s.io/v1 or v1beta1 AdmissionReview, has h decide it with controller-runtime's
// admission.Webhook (panic recovery, response UID), and answers within MaxResponseBytes.
//
// The deadline is the API server's ?timeout= (and the request's context): the body must arrive
// by then, a request still waiting for budget then gets HTTP 429, and h's context ends then. A
// nil budget bounds nothing.
func NewBoundedHTTPHandler(h admission.Handler, b *Budget) http.Handler {
	return &reviewHandler{wh: &admission.Webhook{Handler: h}, budget: b}
}

// newTestHTTPHandler is NewHTTPHandler with the framework's panic recovery off, so that tests and
// fuzzing see a panic instead of a 500.
func newTestHTTPHandler(h admission.Handler) http.Handler {
	hh := NewHTTPHandler(h).(*reviewHandler)
	hh.wh = hh.wh.WithRecoverPanic(false)
	return hh
}

type reviewHandler struct {
	wh     *admission.Webhook
	budget *Budget
}

var (
	reviewScheme = runtime.NewScheme()
	// reviewDecoder is the decoder controller-runtime's admission.Webhook uses.
	reviewDecoder = serializer.NewCodecFactory(reviewScheme).UniversalDeserializer()
)

func init() {
	utilruntime.Must(admissionv1.AddToScheme(reviewScheme))
	utilruntime.Must(admissionv1beta1.AddToScheme(reviewScheme))
}

// unversionedReview decodes a v1 or v1beta1 review into the v1 type, as admission.Webhook does.
type unversionedReview struct {
	admissionv1.AdmissionReview
}

var _ runtime.Object = &unversionedReview{}

func (r *reviewHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	deadline := time.Now().Add(requestTimeout(req))
	ctx, cancel := context.WithDeadline(req.Context(), deadline)
	defer cancel()
	rc := http.NewResponseController(w)
	// A sender slower than the deadline is cut off; so is a reader of the answer. Recorders in
	// tests do not support deadlines, which is fine.
	_ = rc.SetReadDeadline(deadline)
	_ = rc.SetWriteDeadline(deadline.Add(time.Second))

	if req.Body == nil || req.Body == http.NoBody {
		writeReview(w, admission.Errored(http.StatusBadRequest, errors.New("request body is empty")), nil)
		return
	}
	defer req.Body.Close()
	n := req.ContentLength
	if n > maxReviewBytes {
		_ = rc.EnableFullDuplex()
		writeReview(w, admission.Errored(http.StatusRequestEntityTooLarge,
			fmt.Errorf("request entity is too large; limit is %d bytes", maxReviewBytes)), nil)
		drain(rc, req.Body, deadline)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		writeReview(w, admission.Errored(http.StatusBadRequest,
			fmt.Errorf("contentType=%s, expected application/json", boundString(ct, 64))), nil)
		return
	}
	held := int64(maxReviewBytes) // a body of unknown length may be as large as allowed
	if n >= 0 {
		held = n
	}
	if err := r.budget.acquireBody(ctx, held, deadline); err != nil {
		r.busy(ctx, w, rc, req, n, deadline)
		return
	}
	defer func() { r.budget.releaseBody(held) }()

	b := bodies.Get().(*body)
	defer func() { b.release() }()
	raw, err := b.read(req.Body, n)
	if err != nil {
		code := int32(http.StatusBadRequest)
		switch {
		case errors.Is(err, errTooLarge):
			code = http.StatusRequestEntityTooLarge
		case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			code = http.StatusRequestTimeout
			err = fmt.Errorf("reading request body: not complete by the request's deadline: %w", err)
		}
		writeReview(w, admission.Errored(code, err), nil)
		return
	}
	if size := int64(len(raw)); size < held { // now the size is known: give back the rest
		r.budget.releaseBody(held - size)
		held = size
	}
	// Only a complete body takes the memory of its decision, for the short time it is decided:
	// a slow sender holds no more than the size of its body.
	cost := decisionCost(int64(len(raw)))
	if err := r.budget.acquireDecision(ctx, cost, deadline); err != nil {
		r.busy(ctx, w, rc, req, int64(len(raw)), deadline)
		return
	}
	defer r.budget.releaseDecision(cost)

	if err := checkReviewType(raw); err != nil {
		count(kindOfBrokenRequests, "", decisionError, "")
		writeReview(w, admission.Errored(http.StatusBadRequest, err), nil)
		return
	}
	var areq admission.Request
	ar := unversionedReview{}
	ar.Request = &areq.AdmissionRequest
	ar.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
	_, gvk, err := reviewDecoder.Decode(raw, nil, &ar)
	b.release() // the request holds copies of the objects; the body is no longer needed
	b = nil
	if err != nil {
		writeReview(w, admission.Errored(http.StatusBadRequest, err), nil)
		return
	}
	if ctx.Err() != nil { // nobody waits for the answer any more
		resp := admission.Errored(http.StatusGatewayTimeout, fmt.Errorf("deadline passed before the review was decided: %w", ctx.Err()))
		resp.UID = areq.UID
		writeReview(w, resp, gvk)
		return
	}
	resp := r.wh.Handle(ctx, areq)
	writeReview(w, resp, gvk)
}

// busy answers a request the budget had no room for before its deadline.
func (r *reviewHandler) busy(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, req *http.Request, n int64, deadline time.Time) {
	logf.FromContext(ctx).Info("no memory budget before the deadline", "bytes", n, "budget", r.budget.Size())
	_ = rc.EnableFullDuplex()
	writeStatus(w, http.StatusTooManyRequests, fmt.Sprintf(
		"the kriguard webhook has no memory left for a %d-byte review before the request's deadline: too many large reviews at once (docs/limits.md)", n))
	drain(rc, req.Body, deadline)
}

// drain reads and drops what is left of a body that was answered before it was read (the
// request in full-duplex mode), until deadline, so that the client, still sending it, gets to
// read the answer: a connection closed with unread data is reset, and the answer lost with it.
// It holds no more than a small buffer.
func drain(rc *http.ResponseController, body io.Reader, deadline time.Time) {
	_ = rc.Flush()
	_ = rc.SetReadDeadline(deadline.Add(500 * time.Millisecond))
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxReviewBytes))
}

// requestTimeout is the time the API server gives the request: its ?timeout= parameter, bounded
// to [minTimeout, maxTimeout].
func requestTimeout(req *http.Request) time.Duration {
	var v string
	for q := req.URL.RawQuery; q != "" && v == ""; { // the API server sends only this parameter
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		if val, ok := strings.CutPrefix(kv, "timeout="); ok {
			v = val
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil || d > maxTimeout {
		return maxTimeout
	}
	return max(d, minTimeout)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

var errTooLarge = fmt.Errorf("request entity is too large; limit is %d bytes", maxReviewBytes)

// body is the buffer a request body is read into, once. Small ones are kept in a pool: reading
// every review into a fresh, repeatedly grown slice was a good part of the cost of a request.
type body struct {
	buf bytes.Buffer
}

var bodies = sync.Pool{New: func() any { return new(body) }}

// maxPooledBody bounds the buffers kept: a rare large review should not pin its memory.
const maxPooledBody = 64 << 10

// read reads the body of a request of n bytes (-1: unknown) into b, refusing more than
// maxReviewBytes. A known length is read into a buffer of exactly that size.
func (b *body) read(r io.Reader, n int64) ([]byte, error) {
	if n > 0 {
		// Room for the body and the end-of-file read, so that reading never grows the buffer.
		b.buf.Grow(int(n) + bytes.MinRead)
	}
	_, err := b.buf.ReadFrom(io.LimitReader(r, maxReviewBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading request body: %w", err)
	}
	if b.buf.Len() > maxReviewBytes {
		return nil, errTooLarge
	}
	return b.buf.Bytes(), nil
}

func (b *body) release() {
	if b == nil || b.buf.Cap() > maxPooledBody {
		return
	}
	b.buf.Reset()
	bodies.Put(b)
}

// writeReview writes resp as an AdmissionReview of version gvk (v1 when nil), within
// MaxResponseBytes.
func writeReview(w http.ResponseWriter, resp admission.Response, gvk *schema.GroupVersionKind) {
	review := admissionv1.AdmissionReview{Response: &resp.AdmissionResponse}
	if gvk == nil || *gvk == (schema.GroupVersionKind{}) {
		review.SetGroupVersionKind(admissionv1.SchemeGroupVersion.WithKind("AdmissionReview"))
	} else {
		review.SetGroupVersionKind(*gvk)
	}
	out, err := json.Marshal(review)
	if err == nil && len(out) > MaxResponseBytes {
		shrink(&resp.AdmissionResponse)
		out, err = json.Marshal(review)
	}
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	out = append(out, '\n')
	w.Header().Set("Content-Type", "application/json")
	// Complete with its length: nothing is left to write once the handler returns, when a write
	// timing out could cut a TLS record in two.
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

// shrink cuts a response whose causes and warnings, escaped in JSON, came out larger than
// MaxResponseBytes: the message to 4 KiB, one cause counting the others, three warnings. Every
// string left is then bounded, so the answer is.
func shrink(r *admissionv1.AdmissionResponse) {
	if s := r.Result; s != nil {
		s.Message = boundString(s.Message, 4<<10)
		if d := s.Details; d != nil {
			d.Name = boundString(d.Name, rules.MaxValueBytes)
			if len(d.Causes) > 0 {
				d.Causes = []metav1.StatusCause{{Type: causeTypeMore,
					Message: fmt.Sprintf("%d causes left out to keep the answer under %d bytes: see the message", len(d.Causes), MaxResponseBytes)}}
			}
		}
	}
	if len(r.Warnings) > 3 {
		r.Warnings = append(r.Warnings[:2:2], fmt.Sprintf("… and %s more warnings", formatCount(len(r.Warnings)-2)))
	}
	for i, w := range r.Warnings {
		r.Warnings[i] = boundString(w, maxDetailBytes)
	}
	for k, v := range r.AuditAnnotations {
		r.AuditAnnotations[k] = boundString(v, maxDetailBytes)
	}
}

// writeStatus answers with an HTTP error status and a Status body: for requests that cannot
// get an AdmissionReview answer (their uid is unknown), which the API server reports with the
// message and settles by the webhook's failurePolicy.
func writeStatus(w http.ResponseWriter, code int, msg string) {
	st := apierrors.NewBadRequest(msg).Status()
	st.Code = int32(code)
	st.Reason = metav1.StatusReason(strings.ReplaceAll(http.StatusText(code), " ", ""))
	st.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("Status"))
	out, _ := json.Marshal(st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(code)
	_, _ = w.Write(out)
}

// checkReviewType reads the top-level apiVersion and kind of a review. It stops as soon as it has
// both, which the API server writes first. A body that is not a JSON object is left for the
// decoder to report.
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
		return fmt.Errorf(`request body is a %s %s, want an AdmissionReview of admission.k8s.io/v1 or v1beta1`,
			boundString(apiVersion, 64), boundString(kind, 64))
	}
	return nil
}

var reviewPrefixes = [][]byte{
	[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`),
	[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1",`),
}
