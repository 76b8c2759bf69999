package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// Validator is the handler of /validate: it rejects guarded objects whose names break a rule of
// the naming core, with HTTP 422 and one cause per problem at the offending field.
type Validator struct {
	cfg *Config
}

var _ admission.Handler = (*Validator)(nil)

// NewValidator returns the handler of /validate for c.
func NewValidator(c *Config) *Validator { return &Validator{cfg: c} }

// Handle decides one admission request.
//
// The request is enforced as its kind is configured, unless a requester override matches its user
// (Config.Requesters): then as the override says. CREATE is checked in full. On UPDATE only the
// problems the update introduces count: a problem is pre-existing, and let through with a warning,
// when the old object had a problem of the same type at the same field and holds the same value
// there (ratchet), so that objects admitted before the webhook existed can still be changed.
// DELETE, CONNECT and unknown operations are always allowed, and their objects are not decoded.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	g, d, done := v.cfg.triage(ctx, req)
	if done != nil {
		return *done
	}
	log := logf.FromContext(ctx)

	obj, err := decodeObject(req.Object, "object", g.gk, g.wholeSpec)
	if err != nil {
		d.count(req.Operation, decisionError)
		log.Info("bad request", "error", err.Error())
		return admission.Errored(http.StatusBadRequest, err)
	}
	// Only the problems an answer can show are built (MaxCauses causes, maxWarnings warnings); the
	// others are counted. The walk of spec stops when the request's deadline passes.
	w := &refWalk{ctx: ctx, limit: MaxCauses, keepLimit: maxWarnings}
	var old *admitted
	if req.Operation == admissionv1.Update {
		if old, err = decodeObject(req.OldObject, "oldObject", g.gk, g.wholeSpec); err != nil {
			d.count(req.Operation, decisionError)
			log.Info("bad request", "error", err.Error())
			return admission.Errored(http.StatusBadRequest, err)
		}
		w.old = old.spec
	}
	_, _, before, after, notes := v.cfg.checkWith(g, obj, w)
	if w.err != nil {
		d.count(req.Operation, decisionError)
		log.Info("deadline passed during the decision", "kind", g.gk.String(), "error", w.err.Error())
		return deadlinePassed(w.err)
	}
	name := boundValue(objectName(obj, req))

	var warnings boundedWarnings
	errs := slices.Concat(before, w.errs, after)
	if old != nil {
		// The problems of spec's target references were compared with the old object's by the
		// walk; the others are compared here.
		_, _, oldBefore, oldAfter, _ := v.cfg.checkWith(g, old, nil)
		oldErrs := slices.Concat(oldBefore, oldAfter)
		addedBefore, keptBefore := ratchet(before, oldErrs, obj, old, req.Object.Raw, req.OldObject.Raw)
		addedAfter, keptAfter := ratchet(after, oldErrs, obj, old, req.Object.Raw, req.OldObject.Raw)
		errs = slices.Concat(addedBefore, w.errs, addedAfter)
		for _, fe := range boundValues(slices.Concat(keptBefore, w.kept, keptAfter)) {
			warnings.add(g.gk, name, fe, "pre-existing problem, allowed on update: ")
		}
	}
	for _, fe := range boundValues(notes) {
		warnings.add(g.gk, name, fe, "")
	}

	errs = boundValues(errs)
	if d.enforcement == EnforcementDryRun {
		warnings = boundedWarnings{} // dry-run kinds are only logged and counted
	}
	if len(errs) == 0 {
		d.count(req.Operation, decisionAllowed)
		return admission.Allowed("").WithWarnings(warnings.bounded()...)
	}
	switch d.enforcement {
	case EnforcementWarn:
		prefix := ""
		if d.override != "" {
			prefix = "allowed for requester override " + strconv.Quote(d.override) + ": "
		}
		for _, fe := range errs {
			warnings.add(g.gk, name, fe, prefix)
		}
		d.count(req.Operation, decisionWarned)
		log.Info("warned", "kind", g.gk.String(), "objectName", name, "causes", summary(errs),
			"override", d.overrideLabel(), "user", req.UserInfo.Username, "dryRun", isDryRun(req))
		return admission.Allowed("").WithWarnings(warnings.bounded()...)
	case EnforcementDryRun:
		d.count(req.Operation, decisionDryRun)
		log.Info("would deny", "kind", g.gk.String(), "objectName", name, "causes", summary(errs),
			"override", d.overrideLabel(), "user", req.UserInfo.Username, "dryRun", isDryRun(req))
		return admission.Allowed("")
	default:
		d.count(req.Operation, decisionDenied)
		log.Info("denied", "kind", g.gk.String(), "objectName", name, "causes", summary(errs),
			"override", d.overrideLabel(), "user", req.UserInfo.Username, "dryRun", isDryRun(req))
		return invalid(g.gk, name, errs).WithWarnings(warnings.bounded()...)
	}
}

// decider is how one request is enforced: its kind's enforcement, or that of the requester override
// that matched the request.
type decider struct {
	kind        string
	enforcement Enforcement
	// override is the name of the requester override that applied, "" for none.
	override string
}

func (d decider) overrideLabel() string {
	if d.override == "" {
		return noOverride
	}
	return d.override
}

func (d decider) count(op admissionv1.Operation, decision string) {
	countOverride(d.kind, op, decision, d.enforcement, d.overrideLabel())
}

// triage answers the requests that need no look at the object: requests without a body,
// unguarded kinds and operations other than CREATE and UPDATE. It returns the guard of a request
// that needs a decision and how it is enforced, or the final response.
func (c *Config) triage(ctx context.Context, req admission.Request) (*guard, decider, *admission.Response) {
	if req.UID == "" && req.Operation == "" {
		count(kindOfBrokenRequests, req.Operation, decisionError, "")
		r := admission.Errored(http.StatusBadRequest, errors.New("admission review has no request"))
		return nil, decider{}, &r
	}
	gk := schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	g, ok := c.guards[gk]
	if !ok {
		// The webhook configuration sends a kind this configuration does not guard: let it
		// through rather than break an unrelated kind, but say so.
		count(unguardedKind, req.Operation, decisionAllowed, "")
		logf.FromContext(ctx).Info("unguarded kind", "group", req.Kind.Group, "version", req.Kind.Version, "kind", req.Kind.Kind)
		r := admission.Allowed("").WithWarnings(fmt.Sprintf(
			"kriguard does not guard %s: the webhook configuration's rules and the kriguard configuration disagree",
			schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}.String()))
		return nil, decider{}, &r
	}
	d := decider{kind: g.gk.Kind}
	d.enforcement, d.override = c.enforcementFor(g, req.UserInfo.Username, req.UserInfo.Groups)
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
		return g, d, nil
	}
	d.count(req.Operation, decisionAllowed)
	r := admission.Allowed("")
	return nil, d, &r
}

// maxValueBytes bounds the value a cause echoes. The API server lets long values through in
// annotations and loosely typed specs; a response should not carry them back several times.
const maxValueBytes = 256

// boundValues returns errs with string values longer than maxValueBytes cut, saying how much was
// cut. errs itself is not modified.
func boundValues(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for i, fe := range errs {
		v, ok := fe.BadValue.(string)
		if !ok || len(v) <= maxValueBytes {
			if out != nil {
				out = append(out, fe)
			}
			continue
		}
		if out == nil {
			out = append(make(field.ErrorList, 0, len(errs)), errs[:i]...)
		}
		c := *fe
		c.BadValue = boundValue(v)
		out = append(out, &c)
	}
	if out == nil {
		return errs
	}
	return out
}

func boundValue(v string) string {
	if len(v) <= maxValueBytes {
		return v
	}
	return fmt.Sprintf("%s... (%d bytes in all)", strings.ToValidUTF8(v[:maxValueBytes], ""), len(v))
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
func objectName(obj *admitted, req admission.Request) string {
	if n := obj.name; n != "" {
		return n
	}
	if req.Name != "" {
		return req.Name
	}
	return obj.generateName
}

func isDryRun(req admission.Request) bool { return req.DryRun != nil && *req.DryRun }
