package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// Validator is the handler of /validate: it rejects guarded objects whose names break a rule of
// the naming core, with HTTP 422 and one cause per problem at the offending field.
type Validator struct {
	cfg     *rules.Config
	peers   rules.Peers
	release ReleaseFunc
	mode    ModeFunc
}

var _ admission.Handler = (*Validator)(nil)

// NewValidator returns the handler of /validate for c.
func NewValidator(c *rules.Config) *Validator { return &Validator{cfg: c} }

// WithPeers returns v comparing each object with the existing objects of peers, for the rules
// across objects (docs/unique.md); a nil peers compares nothing.
func (v *Validator) WithPeers(peers rules.Peers) *Validator {
	cp := *v
	cp.peers = peers
	return &cp
}

// WithRelease returns v judging each request against the release f returns then.
func (v *Validator) WithRelease(f ReleaseFunc) *Validator {
	cp := *v
	cp.release = f
	return &cp
}

// WithMode returns v judging each request under the control plane's mode f returns then.
func (v *Validator) WithMode(f ModeFunc) *Validator {
	cp := *v
	cp.mode = f
	return &cp
}

// ModeFunc returns the Kuma control plane's mode a request is judged under now: the detected one
// when the configuration says kuma.mode auto (internal/kumarelease, docs/kds.md). Nil, or "",
// means the configuration's.
type ModeFunc func() rules.Mode

func (f ModeFunc) get() rules.Mode {
	if f == nil {
		return ""
	}
	return f()
}

// ReleaseFunc returns the Kuma release a request is judged against now: the detected one when
// the configuration says kuma.version auto (internal/kumarelease). Nil, or the zero Release,
// means the configuration's.
type ReleaseFunc func() naming.Release

func (f ReleaseFunc) get() naming.Release {
	if f == nil {
		return naming.Release{}
	}
	return f()
}

// Handle decides one admission request with rules.Config.Decide and writes the answer.
//
// The request is enforced as its kind is configured, unless a requester override matches its user
// (rules.Config.Requesters): then as the override says. On UPDATE only the problems the update
// introduces are denied; the pre-existing ones come back as warnings. DELETE, CONNECT and unknown
// operations are always allowed, and their objects are not decoded.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	return v.handleRead(ctx, &req, nil)
}

// objectReads and handleRead make v an objectHandler.
func (v *Validator) objectReads() (*rules.Config, rules.Phase) { return v.cfg, rules.Validate }

func (v *Validator) handleRead(ctx context.Context, req *admission.Request, reads *objectReads) admission.Response {
	var d rules.Decision
	if done := decide(ctx, &d, v.cfg, req, reads, rules.Validate, v.peers, v.release.get(), v.mode.get(), ""); done != nil {
		return *done
	}
	if d.Outcome == rules.Allowed && len(d.PreExisting()) == 0 && len(d.Notes()) == 0 {
		// Most reviews: an object without a finding, allowed without a warning. Their answer and
		// count are here, so that the code they run is a few lines of machine code rather than
		// spread through validated's, which every review's TLS and HTTP work evicts from the
		// instruction cache (docs/performance.md, "Change 22").
		countAllowed(&d, req.Operation)
		return allowed()
	}
	return validated(ctx, &d, req)
}

// validated is the answer to req, once d, its decision, has looked at its findings: apart from
// handleRead, whose frame every review's stack holds while the rules decide, for its own
// (docs/performance.md, "Change 19").
func validated(ctx context.Context, d *rules.Decision, req *admission.Request) admission.Response {
	name := rules.BoundValue(objectName(&d.Object, req))
	gk := d.Object.Kind
	var warnings boundedWarnings
	for _, fe := range d.PreExisting() {
		warnings.add(gk, name, fe, "pre-existing problem, allowed on update: ")
	}
	for _, fe := range d.Notes() {
		warnings.add(gk, name, fe, "")
	}
	errs := d.Errors()
	// The logger is looked up only for a line written: most reviews write none, and the lookup
	// costs a logger of its own when the context holds none (docs/performance.md).
	switch d.Outcome {
	case rules.Warned:
		prefix := ""
		if d.Override != "" {
			prefix = "allowed for requester override " + strconv.Quote(d.Override) + ": "
		}
		for _, fe := range errs {
			warnings.add(gk, name, fe, prefix)
		}
		countDecision(d, req.Operation, decisionWarned)
		logf.FromContext(ctx).Info("warned", "kind", gk.String(), "objectName", name, "causes", summary(errs),
			"override", overrideLabel(d), "user", req.UserInfo.Username, "dryRun", isDryRun(req), "kumaRelease", d.Release.String(), "kumaMode", string(d.Mode))
		return allowed(warnings.bounded()...)
	case rules.DryRun:
		countDecision(d, req.Operation, decisionDryRun)
		logf.FromContext(ctx).Info("would deny", "kind", gk.String(), "objectName", name, "causes", summary(errs),
			"override", overrideLabel(d), "user", req.UserInfo.Username, "dryRun", isDryRun(req), "kumaRelease", d.Release.String(), "kumaMode", string(d.Mode))
		return allowed()
	case rules.Denied:
		countDecision(d, req.Operation, decisionDenied)
		logf.FromContext(ctx).Info("denied", "kind", gk.String(), "objectName", name, "causes", summary(errs),
			"override", overrideLabel(d), "user", req.UserInfo.Username, "dryRun", isDryRun(req), "kumaRelease", d.Release.String(), "kumaMode", string(d.Mode))
		return invalid(gk, name, errs).WithWarnings(warnings.bounded()...)
	}
	countDecision(d, req.Operation, decisionAllowed)
	return allowed(warnings.bounded()...)
}

// allowedStatus is the status of an allowed answer, admission.Allowed("")'s: one for all answers,
// which only read it (shrink copies a status before it cuts it). admission.Allowed makes one for
// every answer (docs/performance.md).
var allowedStatus = &metav1.Status{Code: http.StatusOK}

// allowed is admission.Allowed("").WithWarnings(warnings...), with the shared allowedStatus.
func allowed(warnings ...string) admission.Response {
	if len(warnings) == 0 {
		warnings = nil
	}
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true, Result: allowedStatus, Warnings: warnings}}
}

// decide asks the rules for the decision on req, into d, and answers what needs no look at the
// decision's findings: requests without a body, unguarded kinds, objects that cannot be decoded,
// requests whose deadline passed and operations other than CREATE and UPDATE. It returns the final
// response, or nil when the decision's findings make it. req and d are pointers: both are a few
// hundred bytes (docs/performance.md). reads, when set, holds req's objects as read in the review's
// pass.
func decide(ctx context.Context, d *rules.Decision, c *rules.Config, req *admission.Request, reads *objectReads, phase rules.Phase, peers rules.Peers, rel naming.Release, mode rules.Mode, record rules.RecordKRI) *admission.Response {
	if req.UID == "" && req.Operation == "" {
		return noRequest(req)
	}
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	var read, oldRead *rules.Read
	if reads != nil {
		read, oldRead = &reads.object, &reads.oldObject
	}
	// Only the problems an answer can show are built (MaxCauses causes, maxWarnings warnings); the
	// others are counted. The walk of spec stops when the request's deadline passes.
	err := c.DecideInto(ctx, &rules.Request{
		Phase:         phase,
		Kind:          gk,
		Operation:     req.Operation,
		SubResource:   req.SubResource,
		Object:        req.Object.Raw,
		OldObject:     req.OldObject.Raw,
		ObjectRead:    read,
		OldObjectRead: oldRead,
		User:          req.UserInfo.Username,
		Groups:        req.UserInfo.Groups,
		Peers:         peers,
		MaxErrors:     MaxCauses,
		MaxWarnings:   maxWarnings,
		Release:       rel,
		Mode:          mode,
		RecordKRI:     record,
	}, d)
	if d.Guarded && err == nil && (req.Operation == admissionv1.Create || req.Operation == admissionv1.Update) {
		return nil
	}
	return undecided(ctx, d, req, gk, err)
}

// noRequest is decide's answer to a review without a request. It and undecided are apart from
// decide, whose frame every review's stack holds, for theirs (docs/performance.md, "Change 19").
func noRequest(req *admission.Request) *admission.Response {
	count(kindOfBrokenRequests, req.Operation, decisionError, "")
	r := admission.Errored(http.StatusBadRequest, errors.New("admission review has no request"))
	return &r
}

// undecided is decide's answer to a request whose decision's findings do not make it: an unguarded
// kind, an object that could not be decoded (err), a deadline passed, an operation other than
// CREATE and UPDATE.
func undecided(ctx context.Context, d *rules.Decision, req *admission.Request, gk schema.GroupKind, err error) *admission.Response {
	switch {
	case !d.Guarded:
		// The webhook configuration sends a kind this configuration does not guard: let it
		// through rather than break an unrelated kind, but say so.
		count(unguardedKind, req.Operation, decisionAllowed, "")
		logf.FromContext(ctx).Info("unguarded kind", "group", req.Kind.Group, "version", req.Kind.Version, "kind", req.Kind.Kind)
		r := admission.Allowed("").WithWarnings(fmt.Sprintf(
			"kriguard does not guard %s: the webhook configuration's rules and the kriguard configuration disagree",
			gk.String()))
		return &r
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)):
		countDecision(d, req.Operation, decisionError)
		logf.FromContext(ctx).Info("deadline passed during the decision", "kind", gk.String(), "error", err.Error())
		r := deadlinePassed(err)
		return &r
	case err != nil:
		countDecision(d, req.Operation, decisionError)
		logf.FromContext(ctx).Info("bad request", "error", err.Error())
		r := admission.Errored(http.StatusBadRequest, err)
		return &r
	}
	countDecision(d, req.Operation, decisionAllowed)
	r := allowed()
	return &r
}

func warning(gk schema.GroupKind, name string, fe *field.Error, prefix string) string {
	return fmt.Sprintf("%s %q: %s%s", gk.String(), name, prefix, fe.Error())
}

// boundedWarnings are the warnings of an answer: the first ones, built, and a count of the others,
// which no answer shows (boundWarnings).
type boundedWarnings struct {
	built   []string
	unbuilt int
}

func (b *boundedWarnings) add(gk schema.GroupKind, name string, fe *field.Error, prefix string) {
	if len(b.built) > maxWarnings {
		b.unbuilt++
		return
	}
	b.built = append(b.built, warning(gk, name, fe, prefix))
}

func (b *boundedWarnings) bounded() []string { return boundWarnings(b.built, b.unbuilt) }

// deadlinePassed is the answer to a request whose deadline passed before it was decided.
func deadlinePassed(err error) admission.Response {
	return admission.Errored(http.StatusGatewayTimeout, fmt.Errorf("deadline passed before the review was decided: %w", err))
}

// objectName is the name to report: the object's, else the request's, else its generateName.
func objectName(o *rules.Object, req *admission.Request) string {
	if o.Name != "" {
		return o.Name
	}
	if req.Name != "" {
		return req.Name
	}
	return o.GenerateName
}

func isDryRun(req *admission.Request) bool { return req.DryRun != nil && *req.DryRun }
