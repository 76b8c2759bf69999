package webhook

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	kjson "sigs.k8s.io/json"

	"github.com/kriguard/kriguard/internal/jsonscan"
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
// admission.k8s.io/v1 or v1beta1 AdmissionReview, has h decide it (handle: panic recovery, the
// response completed with its UID), and answers within MaxResponseBytes.
//
// The deadline is the API server's ?timeout= (and the request's context): the body must arrive
// by then, a request still waiting for budget then gets HTTP 429, and h's context ends then. A
// nil budget bounds nothing.
func NewBoundedHTTPHandler(h admission.Handler, b *Budget) http.Handler {
	oh, _ := h.(objectHandler)
	return &reviewHandler{h: h, objects: oh, budget: b, recoverPanic: true, log: logf.Log.WithName("admission")}
}

// objectHandler is a handler whose decision decodes the review's objects (the Validator, the
// Mutator): they are read in the review's pass, for the configuration and phase objectReads
// returns, and it decides with what was read (handleRead).
type objectHandler interface {
	admission.Handler
	objectReads() (*rules.Config, rules.Phase)
	// handleRead is Handle, with the objects of req as reads holds them (nil: none read). req is a
	// pointer: a copy would sit in the frames of the stack the decision runs on
	// (docs/performance.md, "Change 19").
	handleRead(ctx context.Context, req *admission.Request, reads *objectReads) admission.Response
}

// newTestHTTPHandler is NewHTTPHandler with the framework's panic recovery off, so that tests and
// fuzzing see a panic instead of a 500.
func newTestHTTPHandler(h admission.Handler) http.Handler {
	hh := NewHTTPHandler(h).(*reviewHandler)
	hh.recoverPanic = false
	return hh
}

type reviewHandler struct {
	h admission.Handler
	// objects is h when its decision decodes the review's objects, else nil.
	objects objectHandler
	budget  *Budget
	// recoverPanic answers a panic of h with a 500 rather than letting it through.
	recoverPanic bool
	// log is the logger h finds in its context, with the request's values (requestLog).
	log logr.Logger
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

// served is what the serve of one review keeps on the heap, in one allocation rather than one
// each (docs/performance.md, "Change 18"): its body and the review it is decoded into. A decode
// still running at the deadline holds it until it ends.
type served struct {
	body body
	req  admission.Request
	ar   unversionedReview
}

// servedObjects is served with the objects read for a handler that decides them (objectReads),
// whose reads are an allocation of their own (readObjects).
type servedObjects struct {
	served
	reads objectReads
}

// A review takes its served, or for a handler that decides the objects its servedObjects, from a
// pool and gives it back (giveBackServed) where it gives back the review's memory: in ServeHTTP's
// deferred call, or, for a review handed off to its decode (decodeAside), when that decode ends.
// Nothing of a review's serve outlives it but the strings it copied, which the give-back does not
// touch. Each pool holds its type zero, a servedObjects but for the pointer to its readObjects
// (docs/performance.md, "Change 22" for why they are two allocations, and "Change 24").
var (
	servedPool        = sync.Pool{New: func() any { return new(served) }}
	servedObjectsPool = sync.Pool{New: func() any { return &servedObjects{reads: objectReads{readObjects: &readObjects{}}} }}
)

// newServedObjects returns a zero servedObjects, with zero reads for cfg and phase.
func newServedObjects(cfg *rules.Config, phase rules.Phase) *servedObjects {
	so := servedObjectsPool.Get().(*servedObjects)
	so.reads.cfg, so.reads.phase = cfg, phase
	return so
}

// giveBackServed puts a review's served back in its pool, zero: so when the review had one, else
// st. Neither may still be in use: the body released, the decode ended, the review answered.
func giveBackServed(st *served, so *servedObjects) {
	switch {
	case so != nil:
		so.reset()
		servedObjectsPool.Put(so)
	case st != nil:
		*st = served{}
		servedPool.Put(st)
	}
}

// reset zeroes so and its reads but for the pointer to them, so that the next review sees
// nothing of the last, and the pool keeps nothing of it alive.
func (so *servedObjects) reset() {
	ro := so.reads.readObjects
	*ro = readObjects{}
	*so = servedObjects{}
	so.reads.readObjects = ro
}

// decode decodes raw into s.ar (decodeReview). Off the server's goroutine (a large review), the
// server's panic recovery does not apply: a panic is its error, in place as aside.
func (s *served) decode(ctx context.Context, raw []byte, reads *objectReads) (gvk *schema.GroupVersionKind, err error) {
	defer func() {
		if p := recover(); p != nil {
			gvk, err = nil, fmt.Errorf("decoding the review: %v", p)
		}
	}()
	return decodeReview(ctx, raw, &s.ar, reads)
}

// inlineDecodeBytes is the largest review ServeHTTP decodes in place rather than aside: the first
// buffer of a body (bodyChunk).
const inlineDecodeBytes = bodyChunk

// maxUIDBytes bounds request.uid, which every answer echoes: a UID is a UUID (36 bytes) in
// every API server; the bound leaves room for other spellings, not for megabytes.
const maxUIDBytes = 128

// The bounds of draining a body that was answered before it was read (drain).
const (
	maxDrainBytes = 2 * maxReviewBytes
	drainTime     = 2 * time.Second
)

func (r *reviewHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	timeout := requestTimeout(req)
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(req.Context(), deadline)
	// What the serve holds is given back in one deferred call rather than one each: with more, the
	// compiler keeps a record of each on the stack and runs them through the runtime
	// (docs/performance.md, "Change 19"). In this order: the decision's context (dcancel), the
	// decision's memory (taken), the body's (b) and the review's served (st, so), unless a decode
	// that outlived the deadline gives them back when it ends (handedOff), the body (closeBody),
	// the request's context.
	var (
		b                *body
		st               *served
		so               *servedObjects
		client           string
		cost             int64
		dcancel          context.CancelFunc
		taken, handedOff bool
		closeBody        bool
	)
	defer func() {
		if dcancel != nil {
			dcancel()
		}
		if !handedOff {
			if taken {
				r.budget.giveDecision(cost)
			}
			if b != nil {
				b.release(r.budget, client)
			}
			giveBackServed(st, so)
		}
		if closeBody {
			_ = req.Body.Close()
		}
		cancel()
	}()
	rc := http.NewResponseController(w)
	// A sender slower than the deadline is cut off; so is a reader of the answer. Recorders in
	// tests do not support deadlines, which is fine.
	_ = rc.SetReadDeadline(deadline)
	_ = rc.SetWriteDeadline(deadline.Add(time.Second))

	if req.Body == nil || req.Body == http.NoBody {
		writeError(w, http.StatusBadRequest, errors.New("request body is empty"), nil)
		return
	}
	closeBody = true
	n := req.ContentLength
	if n > maxReviewBytes {
		tooLarge(w, rc, req.Body, n)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		writeError(w, http.StatusBadRequest, fmt.Errorf("contentType=%s, expected application/json", boundString(ct, 64)), nil)
		return
	}
	client = clientAddress(req)
	// A handler that decides the objects has them read in the review's pass (objectReads).
	var reads *objectReads
	if r.objects != nil {
		so = newServedObjects(r.objects.objectReads())
		st, reads = &so.served, &so.reads
	} else {
		st = servedPool.Get().(*served)
	}
	b = &st.body
	raw, err := b.read(ctx, r.budget, client, rc, req.Body, n, deadline)
	if err != nil {
		var code int32 = http.StatusBadRequest
		switch {
		case errors.Is(err, errTooLarge):
			tooLarge(w, rc, req.Body, n)
			return
		case errors.Is(err, errNoBudget):
			r.busy(ctx, w, rc, req, n)
			return
		case errors.Is(err, errTooSlow):
			code = http.StatusRequestTimeout
		case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			code = http.StatusRequestTimeout
			err = fmt.Errorf("reading request body: not complete by the request's deadline: %w", err)
		}
		writeError(w, code, err, nil)
		return
	}
	// Only a complete body takes the memory of its decision, for the short time it is decided:
	// a slow sender holds no more than what it has sent. The cost follows the number of values
	// as much as the bytes (decisionCost).
	cost = decisionCost(int64(len(raw)), reviewNodes(raw))
	if err := r.budget.takeDecision(ctx, cost, deadline); err != nil {
		r.busy(ctx, w, rc, req, int64(len(raw)))
		return
	}
	taken = true

	if err := checkReviewType(raw); err != nil {
		count(kindOfBrokenRequests, "", decisionError, "")
		writeError(w, http.StatusBadRequest, err, nil)
		return
	}
	var dctx context.Context
	dctx, dcancel = decisionContext(ctx, deadline, timeout)
	areq := &st.req
	ar := &st.ar
	ar.Request = &areq.AdmissionRequest
	ar.TypeMeta = reviewTypeMeta
	// Decoding a large review cannot be interrupted: it runs aside, and a review still decoding
	// when the decision's time is up is answered 504 at once; the decode gives its memory back
	// when it ends. A review of at most inlineDecodeBytes decodes in well under a millisecond, less
	// than the goroutine and channel cost it (docs/performance.md): it is decoded in place.
	var gvk *schema.GroupVersionKind
	if len(raw) <= inlineDecodeBytes {
		gvk, err = st.decode(dctx, raw, reads)
	} else if gvk, err = r.decodeAside(ctx, dctx, w, st, so, raw, reads, client, cost); errors.Is(err, errHandedOff) {
		handedOff = true
		return
	}
	if errors.Is(err, errStopped) {
		// The decision's time was up while the review was read: answered as one still decoding.
		b.drop()
		writeDeadlinePassed(w, dctx.Err(), raw)
		return
	}
	b.drop() // the request holds copies of the objects; the body is no longer needed
	if err != nil {
		writeError(w, http.StatusBadRequest, err, nil)
		return
	}
	if len(areq.UID) > maxUIDBytes {
		// Every answer echoes the uid: refuse it without one.
		count(kindOfBrokenRequests, "", decisionError, "")
		writeError(w, http.StatusBadRequest,
			fmt.Errorf("request.uid is %d bytes, more than the %d a UID may have", len(areq.UID), maxUIDBytes), gvk)
		return
	}
	var resp admission.Response
	if dctx.Err() != nil { // nobody waits for the answer any more
		resp = deadlinePassed(dctx.Err())
		resp.UID = areq.UID
	} else {
		resp = r.handle(dctx, areq, reads)
	}
	if time.Now().After(deadline) {
		// The API server has given up; an answer written now could be cut by the write
		// deadline in the middle of a TLS record. Close the connection instead.
		logf.FromContext(ctx).Info("answer ready after the request's deadline: closing the connection", "uid", string(areq.UID))
		panic(http.ErrAbortHandler)
	}
	writeReview(w, resp, gvk)
}

// decisionContext is the context of the decision of a request of the given deadline and timeout:
// it ends a little before the deadline, so that its answer, a 504 when it could not finish, still
// arrives in time.
func decisionContext(ctx context.Context, deadline time.Time, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, deadline.Add(-min(time.Second, timeout/10)))
}

// reviewTypeMeta is the apiVersion and kind of an admission.k8s.io/v1 AdmissionReview, what a
// review is taken to be until its decode says otherwise; SetGroupVersionKind would build the
// apiVersion for every review.
var reviewTypeMeta = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}

// writeError writes the answer admission.Errored(code, err), as writeReview. It and the other
// answers of ServeHTTP's rare ends are functions of their own, not inlined, so that ServeHTTP's
// frame, on the stack while every review is decided, does not hold theirs (docs/performance.md,
// "Change 19").
//
//go:noinline
func writeError(w http.ResponseWriter, code int32, err error, gvk *schema.GroupVersionKind) {
	writeReview(w, admission.Errored(code, err), gvk)
}

// writeDeadlinePassed answers the review raw, still decoding when err ended the decision's time,
// with a 504 (deadlinePassed) that echoes its uid.
//
//go:noinline
func writeDeadlinePassed(w http.ResponseWriter, err error, raw []byte) {
	resp := deadlinePassed(err)
	resp.UID = types.UID(reviewUID(raw))
	writeReview(w, resp, nil)
}

// errHandedOff says that decodeAside answered the review: its decode outlived the decision's
// deadline and gives the memory of the review back when it ends.
var errHandedOff = errors.New("review handed off to its decode")

// decodeAside decodes raw, a large review, into st on a goroutine of its own (st.decode): a
// review still decoding when dctx, the decision's time, is done is answered 504 at once, and the
// decode gives its memory back (budget, client, cost, and st, or so, the servedObjects st is part
// of when not nil) when it ends; the error is then errHandedOff. ctx is the request's.
func (r *reviewHandler) decodeAside(ctx, dctx context.Context, w http.ResponseWriter, st *served, so *servedObjects, raw []byte, reads *objectReads, client string, cost int64) (*schema.GroupVersionKind, error) {
	type decoded struct {
		gvk *schema.GroupVersionKind
		err error
	}
	done := make(chan decoded, 1)
	go func() {
		gvk, err := st.decode(dctx, raw, reads)
		done <- decoded{gvk, err}
	}()
	select {
	case d := <-done:
		return d.gvk, d.err
	case <-dctx.Done():
		go func() {
			<-done
			st.body.release(r.budget, client)
			giveBackServed(st, so)
			r.budget.giveDecision(cost)
		}()
		logf.FromContext(ctx).Info("review still decoding at the request's deadline: answered 504", "bytes", len(raw))
		writeDeadlinePassed(w, dctx.Err(), raw)
		return nil, errHandedOff
	}
}

// reviewNodes is the number of JSON values of a review body that the decision's cost follows
// (decisionCost). A body that is not JSON but starts as an object is charged the values before its
// first error: the decoders check such a body before they decode it, and make none. Any other body
// that is not JSON is charged a value every two bytes, the most any text holds: the review decoder
// reads a body that does not look like JSON as YAML, whose values cost as JSON's do.
func reviewNodes(raw []byte) int64 {
	n, ok := jsonscan.Count(raw)
	if !ok && !bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{")) {
		return max(n, int64(len(raw))/2+1)
	}
	return n
}

// handle has h decide req and completes the answer, as controller-runtime's admission.Webhook.Handle
// does (v0.25.2), without its cost when nothing is logged: that builds a logger with six of the
// request's values for every review (docs/performance.md); requestLog adds them to the lines
// written. A panic of h is answered with a 500, unless recovery is off. req is a pointer: h is
// given a copy, and the request's log lines read it (an admission.Request is some 400 bytes).
func (r *reviewHandler) handle(ctx context.Context, req *admission.Request, reads *objectReads) (resp admission.Response) {
	defer func() {
		if p := recover(); p != nil {
			if !r.recoverPanic {
				panic(p)
			}
			for _, fn := range utilruntime.PanicHandlers {
				fn(ctx, p)
			}
			count(kindOfBrokenRequests, req.Operation, decisionError, "")
			resp = admission.Errored(http.StatusInternalServerError, fmt.Errorf("panic: %v [recovered]", p))
			resp.UID = req.UID
		}
	}()
	if sink := r.log.GetSink(); sink != nil {
		ctx = logf.IntoContext(ctx, logr.New(&requestLog{base: sink, req: req}))
	}
	if r.objects != nil {
		resp = r.objects.handleRead(ctx, req, reads)
	} else {
		resp = handleCopy(ctx, r.h, req)
	}
	if err := complete(&resp, req); err != nil {
		logf.FromContext(ctx).Error(err, "unable to encode response")
		resp = admission.Errored(http.StatusInternalServerError, errors.New("unable to encode response"))
		resp.UID = req.UID
	}
	return resp
}

// complete completes resp, the answer to req, as admission.Response.Complete does, encoding its
// patch by hand when it can (encodePatch). It is not inlined into handle, as handleCopy.
//
//go:noinline
func complete(resp *admission.Response, req *admission.Request) error {
	encodePatch(resp)
	return resp.Complete(*req)
}

// handleCopy has h decide a copy of req, as admission.Handler takes it: the copy is in its frame,
// not in handle's, which is on the stack while the Validator and the Mutator decide
// (docs/performance.md, "Change 19").
//
//go:noinline
func handleCopy(ctx context.Context, h admission.Handler, req *admission.Request) admission.Response {
	return h.Handle(ctx, *req)
}

// requestLog is a logr.LogSink that writes base's lines with the values of a request, as
// controller-runtime's admission.DefaultLogConstructor adds them, but builds them only for a line
// written: most reviews write none.
type requestLog struct {
	base logr.LogSink
	req  *admission.Request
}

var _ logr.LogSink = (*requestLog)(nil)

// Init does nothing: base is a logger's sink, initialized with it.
func (l *requestLog) Init(logr.RuntimeInfo)  {}
func (l *requestLog) Enabled(level int) bool { return l.base.Enabled(level) }
func (l *requestLog) Info(level int, msg string, kv ...any) {
	l.with().Info(level, msg, kv...)
}
func (l *requestLog) Error(err error, msg string, kv ...any) {
	l.with().Error(err, msg, kv...)
}

// WithValues builds the request's values once values are added; logf.FromContext adds none.
func (l *requestLog) WithValues(kv ...any) logr.LogSink {
	if len(kv) == 0 {
		return l
	}
	return l.with().WithValues(kv...)
}
func (l *requestLog) WithName(name string) logr.LogSink {
	return &requestLog{base: l.base.WithName(name), req: l.req}
}

// with is base with the request's values, reporting the caller of requestLog's methods.
func (l *requestLog) with() logr.LogSink {
	req := l.req
	s := l.base.WithValues("object", klog.KRef(req.Namespace, req.Name),
		"namespace", req.Namespace, "name", req.Name,
		"resource", req.Resource, "user", req.UserInfo.Username,
		"requestID", req.UID)
	if cd, ok := s.(logr.CallDepthLogSink); ok {
		s = cd.WithCallDepth(1)
	}
	return s
}

// clientAddress is the address a request came from, without its port.
func clientAddress(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return host
}

// tooLarge answers a body of n bytes (-1: unknown), larger than maxReviewBytes, with a 413 and
// closes the connection once the client has sent it (drain).
func tooLarge(w http.ResponseWriter, rc *http.ResponseController, body io.Reader, n int64) {
	_ = rc.EnableFullDuplex()
	w.Header().Set("Connection", "close")
	writeReview(w, admission.Errored(http.StatusRequestEntityTooLarge,
		fmt.Errorf("request entity is too large; limit is %d bytes", maxReviewBytes)), nil)
	drain(rc, body)
}

// busy answers a request the budget had no room for before its deadline.
func (r *reviewHandler) busy(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, req *http.Request, n int64) {
	logf.FromContext(ctx).Info("no memory budget before the deadline", "bytes", n, "budget", r.budget.Size())
	_ = rc.EnableFullDuplex()
	w.Header().Set("Connection", "close")
	writeStatus(w, http.StatusTooManyRequests, fmt.Sprintf(
		"the kriguard webhook has no memory left for a %d-byte review before the request's deadline: too many large reviews at once (docs/limits.md)", n))
	drain(rc, req.Body)
}

// drain reads and drops what is left of a body that was answered before it was read (the
// request in full-duplex mode, the answer saying Connection: close), so that the client, still
// sending it, gets to read the answer: a connection closed with unread data is reset, and the
// answer lost with it. It reads at most maxDrainBytes for at most drainTime, through a small
// buffer; a client that sends more, or slower, is reset.
func drain(rc *http.ResponseController, body io.Reader) {
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrainBytes))
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

var (
	errTooLarge = fmt.Errorf("request entity is too large; limit is %d bytes", maxReviewBytes)
	errTooSlow  = fmt.Errorf("reading request body: slower than %d bytes per second", minBodyRate)
	errNoBudget = errors.New("no memory budget for the body before the deadline")
)

// body is the buffer a request body is read into, once, and the budget it holds. The first
// buffer, of bodyChunk bytes, comes from a pool: reading every review into a fresh, repeatedly
// grown slice was a good part of the cost of a request.
type body struct {
	buf  []byte
	held int64
}

var chunks = sync.Pool{New: func() any { b := make([]byte, 0, bodyChunk); return &b }}

// read reads a body of n bytes (-1: unknown) into b, refusing more than maxReviewBytes. It takes
// the budget for its buffer as the body arrives, before the buffer grows (growBody), and cuts a
// sender that falls below minBodyRate after bodyGrace, or is not done by deadline.
func (b *body) read(ctx context.Context, budget *Budget, client string, rc *http.ResponseController, r io.Reader, n int64, deadline time.Time) ([]byte, error) {
	start := time.Now()
	limit := int64(maxReviewBytes + 1) // the byte past the limit tells a body too large
	if n >= 0 {
		limit = n + 1 // and the read that finds the end
	}
	for {
		if len(b.buf) == cap(b.buf) {
			if err := b.grow(ctx, budget, client, limit, deadline); err != nil {
				return nil, err
			}
		}
		// The body must keep arriving at minBodyRate: each byte buys time.
		floor := start.Add(bodyGrace + time.Duration(int64(len(b.buf))*int64(time.Second)/minBodyRate))
		if floor.Before(deadline) {
			_ = rc.SetReadDeadline(floor)
		} else {
			_ = rc.SetReadDeadline(deadline)
		}
		m, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
		b.buf = b.buf[:len(b.buf)+m]
		if len(b.buf) > maxReviewBytes {
			return nil, errTooLarge
		}
		switch {
		case err == io.EOF:
			_ = rc.SetReadDeadline(deadline)
			return b.buf, nil
		case err != nil && isTimeout(err) && floor.Before(deadline) && time.Now().Before(deadline):
			return nil, errTooSlow
		case err != nil:
			return nil, fmt.Errorf("reading request body: %w", err)
		}
	}
}

// grow makes room for more of the body: bodyChunk from the pool first, then twice the buffer, at
// most limit. The budget for the new buffer is taken before it is made; the old one's is given
// back once it is copied.
func (b *body) grow(ctx context.Context, budget *Budget, client string, limit int64, deadline time.Time) error {
	size := int64(bodyChunk)
	if b.buf != nil {
		size = min(2*int64(cap(b.buf)), max(limit, int64(cap(b.buf))+1))
	}
	if err := budget.takeBody(ctx, size, client, deadline); err != nil {
		return fmt.Errorf("%w: %w", errNoBudget, err)
	}
	b.held += size
	if b.buf == nil {
		b.buf = (*chunks.Get().(*[]byte))[:0]
		return nil
	}
	old := int64(cap(b.buf))
	buf := append(make([]byte, 0, size), b.buf...)
	b.drop()
	b.buf = buf
	budget.giveBody(old, client)
	b.held -= old
	return nil
}

// drop drops the buffer, which goes back to the pool when it is the first one. The budget is
// still held: what is decoded from the body stands in for it.
func (b *body) drop() {
	if cap(b.buf) == bodyChunk {
		buf := b.buf[:0]
		chunks.Put(&buf)
	}
	b.buf = nil
}

// release drops the buffer and gives back the budget it held.
func (b *body) release(budget *Budget, client string) {
	b.drop()
	budget.giveBody(b.held, client)
	b.held = 0
}

// writeReview writes resp as an AdmissionReview of version gvk (v1 when nil), within
// MaxResponseBytes.
func writeReview(w http.ResponseWriter, resp admission.Response, gvk *schema.GroupVersionKind) {
	if gvk == nil || *gvk == (schema.GroupVersionKind{}) {
		v1 := admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")
		gvk = &v1
	}
	buf := answers.Get().(*[]byte)
	out, ok := appendReview((*buf)[:0], &resp.AdmissionResponse, gvk)
	if ok && len(out) <= MaxResponseBytes {
		writeAnswer(w, out)
		*buf = out[:0]
	}
	answers.Put(buf)
	if ok && len(out) <= MaxResponseBytes {
		return
	}
	review := admissionv1.AdmissionReview{Response: &resp.AdmissionResponse}
	review.SetGroupVersionKind(*gvk)
	out, err := json.Marshal(review)
	if err == nil && len(out) > MaxResponseBytes {
		shrink(&resp.AdmissionResponse)
		out, err = json.Marshal(review)
	}
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	writeAnswer(w, append(out, '\n'))
}

// writeAnswer writes out, an encoded AdmissionReview, complete with its length: nothing is left to
// write once the handler returns, when a write timing out could cut a TLS record in two.
func writeAnswer(w http.ResponseWriter, out []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["Content-Length"] = []string{strconv.Itoa(len(out))}
	_, _ = w.Write(out)
}

// contentTypeJSON is the Content-Type of every answer, shared: net/http only reads it.
var contentTypeJSON = []string{"application/json"}

// answers are the buffers appendReview writes into.
var answers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendReview appends to b the AdmissionReview of version gvk answering with r, as json.Marshal
// encodes it followed by a newline, and reports true, when r is what nearly every review gets: a
// status of a code only, maybe a JSON patch, no warnings and no audit annotations, a UID and
// version that need no escaping. Else it reports false, and the answer is left to json.Marshal
// (TestAppendReview and FuzzAppendReview hold the two to the same bytes). It costs a tenth of
// json.Marshal's reflection (docs/performance.md).
func appendReview(b []byte, r *admissionv1.AdmissionResponse, gvk *schema.GroupVersionKind) ([]byte, bool) {
	st := r.Result
	if st != nil && (*st != metav1.Status{Code: st.Code}) || len(r.Warnings) > 0 || len(r.AuditAnnotations) > 0 ||
		!plainJSON(string(r.UID)) || gvk.Kind == "" || !plainJSON(gvk.Kind) || !plainJSON(gvk.Group) || !plainJSON(gvk.Version) ||
		r.PatchType != nil && !plainJSON(string(*r.PatchType)) {
		return b, false
	}
	b = append(b, `{"kind":"`...)
	b = append(b, gvk.Kind...)
	if gv := gvk.GroupVersion(); !gv.Empty() {
		b = append(b, `","apiVersion":"`...)
		if gv.Group != "" {
			b = append(b, gv.Group...)
			b = append(b, '/')
		}
		b = append(b, gv.Version...)
	}
	b = append(b, `","response":{"uid":"`...)
	b = append(b, r.UID...)
	b = append(b, `","allowed":`...)
	b = strconv.AppendBool(b, r.Allowed)
	if st != nil {
		b = append(b, `,"status":{"metadata":{}`...)
		if st.Code != 0 {
			b = append(b, `,"code":`...)
			b = strconv.AppendInt(b, int64(st.Code), 10)
		}
		b = append(b, '}')
	}
	if len(r.Patch) > 0 {
		b = append(b, `,"patch":"`...)
		b = base64.StdEncoding.AppendEncode(b, r.Patch)
		b = append(b, '"')
	}
	if r.PatchType != nil {
		b = append(b, `,"patchType":"`...)
		b = append(b, *r.PatchType...)
		b = append(b, '"')
	}
	return append(b, "}}\n"...), true
}

// plainJSON reports whether s is written in JSON as it is: printable ASCII that encoding/json
// does not escape.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}

// plainByte says which bytes plainJSON takes: a look-up a byte, not seven comparisons.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// shrink cuts a response whose causes and warnings, escaped in JSON, came out larger than
// MaxResponseBytes: the message to 4 KiB, one cause counting the others, three warnings. Every
// string left is then bounded, so the answer is.
func shrink(r *admissionv1.AdmissionResponse) {
	if r.Result != nil {
		s := r.Result.DeepCopy() // the status may be shared (allowedStatus)
		r.Result = s
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

// decodeReview decodes raw into ar, whose request is a zero AdmissionRequest, and returns the
// version of the review. A body that starts as the API server writes a review (reviewPrefixes) is
// read by hand (reviewReader) or, when that is unsure, decoded as reviewDecoder decodes it
// (case-sensitive, integers kept), without the decoder's first pass over the whole body to find
// apiVersion and kind (docs/performance.md). Other bodies go through reviewDecoder. Once ctx has
// ended, the reading by hand stops before the next object of the request, and nothing else reads
// the body: a review answered 504 gives its CPU back. reads, when set, has the objects read by the
// rules in the review's pass (objectReads); they stay nil when the review is not read by hand.
func decodeReview(ctx context.Context, raw []byte, ar *unversionedReview, reads *objectReads) (*schema.GroupVersionKind, error) {
	for _, prefix := range reviewPrefixes {
		if bytes.HasPrefix(raw, prefix) {
			r := reviewReader{ctx: ctx, reads: reads}
			if r.readReview(raw, ar) {
				return reviewGVK(ar), nil
			}
			if r.stopped {
				return nil, fmt.Errorf("%w: %w", errStopped, context.Cause(ctx))
			}
			return decodeReviewJSON(raw, ar)
		}
	}
	return decodeReviewAny(raw, ar)
}

// reviewGVK returns the apiVersion and kind ar was decoded with: the last ones, as the decoder
// takes them. It and decodeReviewJSON and decodeReviewAny, the decodes of a review the reader did
// not read, are apart from decodeReview, whose frame is on the stack while the review is read, for
// their frames (docs/performance.md, "Change 19").
//
//go:noinline
func reviewGVK(ar *unversionedReview) *schema.GroupVersionKind {
	gvk := ar.GroupVersionKind()
	return &gvk
}

// decodeReviewJSON decodes raw, a JSON review the reader did not read, into ar.
func decodeReviewJSON(raw []byte, ar *unversionedReview) (*schema.GroupVersionKind, error) {
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, ar); err != nil {
		return nil, err
	}
	return reviewGVK(ar), nil
}

// decodeReviewAny decodes raw, a review that does not start as the API server writes one, into ar
// as controller-runtime's decoder does.
func decodeReviewAny(raw []byte, ar *unversionedReview) (*schema.GroupVersionKind, error) {
	_, gvk, err := reviewDecoder.Decode(raw, nil, ar)
	return gvk, err
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

// errStopped is decodeReview's error when it stopped at the end of its context.
var errStopped = errors.New("decoding the review: stopped at the decision's deadline")

var reviewPrefixes = [][]byte{
	[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`),
	[]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1",`),
}

// reviewUID returns the request.uid of the review body, read without decoding the rest, or ""
// when it has none of at most maxUIDBytes. It answers a review that could not be decoded in time.
func reviewUID(body []byte) string {
	depth, inRequest := 0, false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 2 {
				inRequest = false
			}
		case '"':
			end := i + 1
			for end < len(body) && body[end] != '"' {
				if body[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(body) {
				return ""
			}
			str := body[i : end+1]
			j := end + 1
			for j < len(body) && (body[j] == ' ' || body[j] == '\t' || body[j] == '\r' || body[j] == '\n') {
				j++
			}
			isKey := j < len(body) && body[j] == ':'
			switch {
			case isKey && depth == 1 && string(str) == `"request"`:
				inRequest = true
			case isKey && depth == 2 && inRequest && string(str) == `"uid"`:
				j++
				for j < len(body) && (body[j] == ' ' || body[j] == '\t' || body[j] == '\r' || body[j] == '\n') {
					j++
				}
				var uid string
				v := body[j:min(len(body), j+2*maxUIDBytes+2)]
				if k := skipString(v); k > 0 && json.Unmarshal(v[:k], &uid) == nil && len(uid) <= maxUIDBytes {
					return uid
				}
				return ""
			}
			i = end
		}
	}
	return ""
}

// skipString returns the length of the JSON string at the start of b, 0 when b does not hold one.
func skipString(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return 0
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return 0
}
