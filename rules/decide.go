package rules

import (
	"context"
	"slices"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// Phase says which decision a Request asks for.
type Phase int

const (
	// Validate asks for the validating webhook's decision: the object's findings and whether it is
	// admitted.
	Validate Phase = iota
	// Mutate asks for the mutating webhook's decision: the patch the object needs.
	Mutate
	// Admit asks for what the API server makes of a CREATE: the mutating webhook's patch applied
	// (a generateName object is judged under the name it gets), then the validating webhook's
	// decision. The command and the audit ask for it.
	Admit
)

// Request is one object to decide, with what the rules read of the request that carries it.
type Request struct {
	Phase Phase
	// Kind is the object's group and kind, as the request names it.
	Kind schema.GroupKind
	// Operation is CREATE, UPDATE, DELETE or CONNECT; only CREATE and UPDATE are looked at. Admit
	// decides a CREATE whatever it says.
	Operation admissionv1.Operation
	// SubResource is the subresource the request is for ("status"), "" for the object itself.
	SubResource string
	// Object and OldObject are the object and, for an UPDATE, the object before it, as JSON.
	Object, OldObject []byte
	// ObjectRead and OldObjectRead, when set, are Object and OldObject as Config.ReadObject read
	// them: the decision takes what they read rather than decoding the bytes again. Each must be
	// the read of those very bytes.
	ObjectRead, OldObjectRead *Read
	// User and Groups are the requester's, for the requester overrides (Config.Requesters).
	User   string
	Groups []string
	// Release is the Kuma release the object is judged against; the zero Release is the
	// configuration's (Config.Release).
	Release naming.Release
	// Mode is the control plane's mode detected for kuma.mode auto (docs/kds.md); "" or ModeAuto
	// is the configuration's. A configured mode other than auto wins over it.
	Mode Mode
	// Universal says that Object is a Kuma Universal resource (type, mesh, name, labels, spec: what
	// kumactl writes and the REST API lists), of the kind Kind names, rather than a Kubernetes
	// object. Only Admit decides one: as the release's REST API decides its creation
	// (docs/universal.md).
	Universal bool
	// Zone is, for a Universal resource, the zone control plane it is created on: its KRI is then
	// the one that control plane stores, with the zone (naming.StoredUniversal). "" is a global
	// control plane, or none known.
	Zone string
	// Peers, when set, are the existing objects the rules across objects compare the object with
	// (docs/unique.md); nil compares nothing.
	Peers Peers
	// RecordKRI says whether the mutating decision (Mutate, Admit) records the object's KRI in its
	// kriguard.io/kri annotation; "" is RecordKRIOff, the webhook's default.
	RecordKRI RecordKRI
	// MaxErrors and MaxWarnings cap the problems of spec's target references built in full, and
	// those an UPDATE keeps from the old object; the ones past them are only counted, each as a
	// finding without a value. 0 builds them all. An answer that shows a bounded number of causes
	// and warnings need not build more.
	MaxErrors, MaxWarnings int
}

// Outcome is what a Decision does with the request.
type Outcome string

// The outcomes. The webhook counts them, under these names, in its decision metric.
const (
	// Allowed: nothing to deny or patch.
	Allowed Outcome = "allowed"
	// Denied: the object has problems and its enforcement is deny.
	Denied Outcome = "denied"
	// Warned: the object has problems, admitted with warnings (enforcement warn).
	Warned Outcome = "warned"
	// DryRun: the object would be denied or patched, and is only admitted (enforcement dryrun).
	DryRun Outcome = "dryrun"
	// Mutated: the object gets Decision.Patch.
	Mutated Outcome = "mutated"
)

// Decision is the rules' answer to one Request.
type Decision struct {
	// Guarded is false for a kind the configuration does not guard and no release removed:
	// nothing else is set then. A Kuma kind a release removed is guarded under every release: the
	// one that removed it refuses it (RuleRemovedKind), the others admit it untouched.
	Guarded bool
	// Release is the Kuma release the object was judged against.
	Release naming.Release
	// Mode is the control plane's mode the object was judged under: the configured one, or the
	// detected one (Request.Mode); ModeAuto while unknown.
	Mode Mode
	// Enforcement is how the request is enforced: its kind's, or that of the requester override
	// named by Override ("" for none).
	Enforcement Enforcement
	Override    string
	Outcome     Outcome
	// Allowed is false when the object is denied.
	Allowed bool
	// Object is the object decided. With Admit, its name is the one it gets once admitted: its own,
	// the deterministic name of the patch, or "" when the API server would pick a random one.
	Object Object
	// KRIValid says whether the object's KRI (Decision.KRI) is valid.
	KRIValid bool
	kri      naming.KRI
	hasKRI   bool
	// Patch is the mutating webhook's operations (Mutate, Admit), also when the kind's dryrun
	// enforcement only counts them.
	Patch []jsonpatch.Operation

	// errs, kept and notes are the findings of each level, as the API server words a cause. A kind
	// in dryrun has only errs: it gives no warnings.
	errs, kept, notes field.ErrorList

	// decoded is the object as Admit decoded it, before any patch, and universal the Universal
	// resource as decoded: Unique.AddDecided and AddUniversalDecided read them rather than decode
	// the object a second time.
	decoded   *admitted
	universal *universalResource
}

// KRI returns the object's KRI as Kuma computes it, valid or not (KRIValid says); "" for kinds
// without one, among them a kind the release removed (RuleRemovedKind says so). It is built when asked for: the webhook never needs it.
func (d *Decision) KRI() string {
	if !d.hasKRI {
		return ""
	}
	return d.kri.String()
}

// Errors returns the object's problems (LevelError): the causes of a denial.
func (d *Decision) Errors() field.ErrorList { return d.errs }

// PreExisting returns the problems an UPDATE keeps from the old object (LevelWarning).
func (d *Decision) PreExisting() field.ErrorList { return d.kept }

// Notes returns the values admitted with a note (LevelNote), and the problems of the rules that
// only warn (LevelWarning in Findings), which are admitted alike.
func (d *Decision) Notes() field.ErrorList { return d.notes }

// Findings returns every finding: the problems, the pre-existing ones, then the notes.
func (d *Decision) Findings() []Finding {
	n := len(d.errs) + len(d.kept) + len(d.notes)
	if n == 0 {
		return nil
	}
	out := make([]Finding, 0, n)
	out = d.Object.findings(out, LevelError, d.errs)
	out = d.Object.findings(out, LevelWarning, d.kept)
	return d.Object.findings(out, LevelNote, d.notes)
}

// Decide decides one request: the one call every front end makes (docs/architecture.md). It
// counts, logs and answers nothing. The error is that of an object that cannot be decoded, or ctx's
// own error when ctx is done before the decision is; the Decision then still says how the request
// was enforced.
func (c *Config) Decide(ctx context.Context, r Request) (Decision, error) {
	var d Decision
	err := c.DecideInto(ctx, &r, &d)
	return d, err
}

// DecideInto is Decide for a caller that decides a request at a time, as the webhook does: it
// writes the decision into d, which it resets first, and reads r without changing it. A Request and
// a Decision are a few hundred bytes each, which Decide copies in and out (docs/performance.md).
func (c *Config) DecideInto(ctx context.Context, r *Request, d *Decision) error {
	*d = Decision{}
	err := c.decide(ctx, r, d)
	if len(c.disabled) > 0 {
		// Only rules that never deny can be turned off: their findings are notes.
		d.notes = slices.DeleteFunc(d.notes, func(fe *field.Error) bool { return c.disabled[Rule(fe.Origin)] })
	}
	return err
}

// decide decides r into d, a zero Decision, which it fills in place, as the functions it hands r
// to do: a Request and a Decision are a few hundred bytes each, too many to copy at every call of a
// review's decision (docs/performance.md).
func (c *Config) decide(ctx context.Context, r *Request, d *Decision) error {
	c = c.forRelease(r.Release)
	g, ok := r.guard(c)
	c = c.forMode(r.Mode) // the same guards
	if !ok {
		c.removedElsewhere(r, d)
		return nil
	}
	c.start(g, r, d)
	switch {
	case r.Universal:
		return c.decideUniversal(ctx, g, r, d)
	case r.Phase == Admit:
		return c.admit(ctx, g, r, d)
	case r.Operation != admissionv1.Create && r.Operation != admissionv1.Update:
		return nil
	case r.Phase == Mutate:
		return c.mutate(g, r, d)
	}
	return c.validate(ctx, g, r, d)
}

// start sets in d what every decision on a kind guarded by g says, before its rules run.
func (c *Config) start(g *guard, r *Request, d *Decision) {
	d.Guarded, d.Release, d.Mode, d.Outcome, d.Allowed, d.Object.Kind = true, c.release, c.Mode(), Allowed, true, r.Kind
	d.Enforcement, d.Override = c.enforcementFor(g, r.User, r.Groups)
}

// removedElsewhere decides r, of a kind c does not guard: a Kuma kind routed to be judged only as
// removed, under a release that ships it, is guarded and admitted untouched (no findings, no patch,
// no KRI); any other kind is not guarded. It is apart from decide, which every review runs, so
// that the code decide's common case runs is contiguous (docs/performance.md, "Change 21").
//
//go:noinline
func (c *Config) removedElsewhere(r *Request, d *Decision) {
	if removedByARelease(r.Kind) {
		c.start(&guard{gk: r.Kind, enforcement: c.DefaultEnforcement}, r, d)
	}
}

// guard returns c.guardFor(r.Kind): the guard an object of r was read with, when c read it
// (Config.ReadObject), rather than a second look-up (docs/performance.md, "Change 18").
func (r *Request) guard(c *Config) (*guard, bool) {
	read := r.ObjectRead
	if read == nil || read.g == nil {
		read = r.OldObjectRead
	}
	if read != nil && read.g != nil && read.cfg == c && read.g.gk == r.Kind {
		return read.g, true
	}
	return c.guardFor(r.Kind)
}

// validate decides r as the validating webhook does. CREATE is checked in full. On UPDATE only the
// problems the update introduces count: a problem is pre-existing, and let through with a warning,
// when the old object had a problem of the same type at the same field and holds the same value
// there (ratchet), so that objects admitted before the webhook existed can still be changed.
func (c *Config) validate(ctx context.Context, g *guard, r *Request, d *Decision) error {
	obj := r.ObjectRead.readBy(g, specInDecode)
	if obj == nil {
		var err error
		if obj, err = decodeObjectOf(g, r); err != nil {
			return err
		}
	}
	// objectOf's fields one by one: a review's decision is on the heap, and a struct assigned
	// whole is built on the stack and moved with its write barriers (runtime.wbMove).
	d.Object.Kind, d.Object.Namespace, d.Object.Name, d.Object.GenerateName = g.gk, obj.namespace, obj.name, obj.generateName
	w := &refWalk{ctx: ctx, limit: -1, keepLimit: -1}
	if r.MaxErrors > 0 {
		w.limit = r.MaxErrors
	}
	if r.MaxWarnings > 0 {
		w.keepLimit = r.MaxWarnings
	}
	var old *admitted
	if r.Operation == admissionv1.Update {
		var err error
		if old, err = oldObject(g, r, w); err != nil {
			return err
		}
	}
	var ck checked
	c.checkFor(g, obj, w, r, &ck)
	if w.err != nil {
		return w.err
	}
	if skipUnfound && old == nil && r.Peers == nil && ck.none() && len(w.errs) == 0 && !c.refsMayFind(obj) {
		// A CREATE without findings, nearly every review: nothing for validated to assemble, and
		// its code is not run (docs/performance.md, "Change 21").
		d.setKRI(g, &ck.kri, ck.valid)
		return nil
	}
	c.validated(ctx, g, r, d, obj, old, w, &ck)
	return nil
}

// decodeObjectOf decodes r.Object for validate, where the read did not read it with g. It is apart
// from validate, which every review runs, nearly all on an object the read has read, so that its
// code is contiguous (docs/performance.md, "The code a review touches").
//
//go:noinline
func decodeObjectOf(g *guard, r *Request) (*admitted, error) {
	return decodeRead(r.ObjectRead, runtime.RawExtension{Raw: r.Object}, "object", g.gk, g.wholeSpec, specInDecode)
}

// oldObject returns the object before r, an UPDATE, and has w compare the problems of spec's target
// references with its. It is apart from validate, which every review runs, so that a CREATE's code
// is contiguous (docs/performance.md, "Change 21").
func oldObject(g *guard, r *Request, w *refWalk) (*admitted, error) {
	old, err := decodeRead(r.OldObjectRead, runtime.RawExtension{Raw: r.OldObject}, "oldObject", g.gk, g.wholeSpec, specInDecode)
	if err != nil {
		return nil, err
	}
	sections, _ := old.refSpecs()
	w.setOld(sections)
	return old, nil
}

// skipUnfound has the decision skip what only assembles or looks for findings where it can tell
// there is none (validated, kriValueErrors): their code would be fetched into the instruction cache
// for every review for nothing (docs/performance.md, "Change 21"). The differential tests turn it
// off to decide the same requests through them (TestDecideSameAsBefore).
var skipUnfound = true

// validated sets in d the decision on obj, and old for an UPDATE: ck and w are what checkFor and
// the walk of spec's target references found of obj. It is apart from validate, whose frame is on
// the stack while the rules run, for its own (docs/performance.md, "Change 19").
func (c *Config) validated(ctx context.Context, g *guard, r *Request, d *Decision, obj, old *admitted, w *refWalk, ck *checked) {
	// References by name or of a removed kind reach the webhook only where the API server still
	// serves CRDs of an earlier release (docs/releases.md, "targetRef and backendRef forms").
	refErrs, refNotes := c.refsFor(g, obj)
	notes := append(ck.notes, refNotes...)
	errs := concat(ck.before, w.errs, refErrs, ck.after)
	var kept field.ErrorList
	if old != nil {
		errs, kept = c.ratchetUpdate(g, r, obj, old, w, ck, refErrs)
	}
	if r.Peers != nil {
		errs, kept, notes = c.clashes(ctx, g, r, obj, old, errs, kept, notes)
	}
	d.set(g, &ck.kri, ck.valid, errs, kept, notes)
}

// ratchetUpdate returns the problems of an UPDATE's object, obj, that the update adds (errs) and
// those it keeps from old (kept): ck is what checkFor found of obj around the walk w of spec's
// target references, which compared its problems with old's as it went, and refErrs what refsFor
// found. It is validate's, apart: its frame holds a second check and a copy of r, which a CREATE
// does not need on its stack (docs/performance.md, "Change 19").
func (c *Config) ratchetUpdate(g *guard, r *Request, obj, old *admitted, w *refWalk, ck *checked, refErrs field.ErrorList) (errs, kept field.ErrorList) {
	// The problems of spec's target references were compared with the old object's by the walk;
	// the others are compared here.
	oldReq := *r
	oldReq.Object = r.OldObject
	var oldCk checked
	c.checkFor(g, old, nil, &oldReq, &oldCk)
	oldErrs := slices.Concat(oldCk.before, oldCk.after)
	addedBefore, keptBefore := ratchet(ck.before, oldErrs, obj, old)
	addedAfter, keptAfter := ratchet(ck.after, oldErrs, obj, old)
	addedBefore, keptBefore = keepUnchangedKRIAnnotation(addedBefore, keptBefore, obj, old)
	addedAfter, keptAfter = keepUnchangedKRIAnnotation(addedAfter, keptAfter, obj, old)
	oldRefErrs, _ := c.refsFor(g, old)
	addedRefs, keptRefs := ratchetRefs(refErrs, oldRefErrs)
	return concat(addedBefore, w.errs, addedRefs, addedAfter), concat(keptBefore, w.kept, keptRefs, keptAfter)
}

// clashes adds to errs, kept and notes what the rules across objects find of obj against r.Peers:
// a clash an update keeps from old is kept. Apart from validate for its frame, as ratchetUpdate.
func (c *Config) clashes(ctx context.Context, g *guard, r *Request, obj, old *admitted, errs, kept, notes field.ErrorList) (field.ErrorList, field.ErrorList, field.ErrorList) {
	var clashes field.ErrorList
	clashes, notes = c.acrossAdmitted(ctx, g.gk, r, obj, nil, notes)
	// An update that keeps what clashes keeps the clash.
	if old != nil && sameSNI(obj, old) {
		kept = append(kept, clashes...)
	} else {
		errs = append(errs, clashes...)
	}
	return errs, kept, notes
}

// mutate decides r as the mutating webhook does. Requests for subresources are not patched: the
// API server keeps only the subresource's part of the object (status, scale), so a metadata patch
// would be dropped.
func (c *Config) mutate(g *guard, r *Request, d *Decision) error {
	if r.SubResource != "" {
		return nil
	}
	obj, err := decodeRead(r.ObjectRead, runtime.RawExtension{Raw: r.Object}, "object", g.gk, g.wholeSpec, false)
	if err != nil {
		return err
	}
	d.Object = objectOf(g.gk, obj)
	if d.Patch = c.patch(g, obj, r.Operation == admissionv1.Create, r.RecordKRI == RecordKRIAdmission); len(d.Patch) > 0 {
		d.Outcome = Mutated
		if d.Enforcement == EnforcementDryRun {
			d.Outcome = DryRun
		}
	}
	return nil
}

// admit decides r.Object as the two webhooks decide its CREATE: first the mutator's patch (so that
// a generateName object is judged under the name it gets), then the validator's checks.
func (c *Config) admit(ctx context.Context, g *guard, r *Request, d *Decision) error {
	obj, err := decodeObject(runtime.RawExtension{Raw: r.Object}, "object", g.gk, g.wholeSpec)
	if err != nil {
		return err
	}
	d.decoded = obj
	// The mutator patches nothing for a kind in dryrun: it only counts what it would do.
	if d.Patch = c.patch(g, obj, true, r.RecordKRI == RecordKRIAdmission); len(d.Patch) > 0 && d.Enforcement != EnforcementDryRun {
		if patched, ok := patchMetadata(obj, d.Patch); ok {
			obj = patched
		} else if obj, err = applyPatch(r.Object, d.Patch, g.gk, g.wholeSpec); err != nil {
			return err
		}
	}
	d.Object = objectOf(g.gk, obj)
	subject := obj
	if obj.name == "" && obj.generateName != "" {
		// The API server names the object before validating webhooks see it: generateName cut to
		// 58 bytes and five random characters of its alphabet, here a fixed five.
		n := obj.generateName
		if len(n) > 58 {
			n = n[:58]
		}
		cp := *obj
		cp.name = n + "xxxxx"
		subject = &cp
	}
	w := &refWalk{ctx: ctx, limit: -1}
	var ck checked
	c.checkFor(g, subject, w, r, &ck)
	if w.err != nil {
		return w.err
	}
	refErrs, refNotes := c.refsFor(g, subject)
	d.set(g, &ck.kri, ck.valid, concat(ck.before, w.errs, refErrs, ck.after), nil, concat(ck.notes, refNotes))
	return nil
}

// setKRI sets in d the object's KRI kri, which valid says is valid, for a kind guarded by g.
func (d *Decision) setKRI(g *guard, kri *naming.KRI, valid bool) {
	// A kind the release removed has no KRI there: its check leaves the KRI empty.
	if g.kri && kri.Type != "" {
		d.kri, d.hasKRI, d.KRIValid = *kri, true, valid
	}
}

// concat is slices.Concat of lists without a copy when at most one holds anything, which is what
// nearly every object's findings are: that one is returned, clipped, so that appending to the
// result does not write into it (docs/performance.md).
func concat(lists ...field.ErrorList) field.ErrorList {
	var one field.ErrorList
	for _, l := range lists {
		switch {
		case len(l) == 0:
		case one == nil:
			one = l
		default:
			return slices.Concat(lists...)
		}
	}
	return slices.Clip(one)
}

// set sets the findings of a check in d, bounded, and the outcome they lead to.
func (d *Decision) set(g *guard, kri *naming.KRI, valid bool, errs, kept, notes field.ErrorList) {
	d.setKRI(g, kri, valid)
	d.errs = boundValues(errs)
	if d.Enforcement != EnforcementDryRun { // dry-run kinds are only logged and counted
		d.kept, d.notes = boundValues(kept), boundValues(notes)
	}
	if len(errs) == 0 {
		return
	}
	switch d.Enforcement {
	case EnforcementWarn:
		d.Outcome = Warned
	case EnforcementDryRun:
		d.Outcome = DryRun
	default:
		d.Outcome, d.Allowed = Denied, false
	}
}
