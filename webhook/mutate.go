package webhook

import (
	"context"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/rules"
)

// Mutator is the handler of /mutate. On CREATE it replaces the random suffix of generateName
// with the deterministic name of the naming schemes, keeping the original name in the
// kuma.io/display-name annotation (where Kuma keeps it), and, with rules.RecordKRIAdmission
// (WithRecordKRI, the opt-in --record-kri=admission), on CREATE and UPDATE it records every Kuma
// object's KRI, as Kuma computes it (docs/kri.md), in the kriguard.io/kri annotation. Its JSON
// patches touch nothing else.
//
// The deterministic names:
//   - Kuma kinds: the hash-suffix name Kuma's KDS gives a synced copy, with KDS's inputs: the
//     object's mesh and name as its KRI has them, then the values of its kuma.io/zone and
//     k8s.kuma.io/namespace labels, each only when present. The name hashed is the
//     kuma.io/display-name annotation when the object has one, else generateName with its trailing
//     "-" trimmed (which then becomes the annotation), so that a "backend-" generateName yields
//     backend-<16 characters>;
//   - KongPluginBinding: <route or service>.<plugin> of its spec.targets and spec.pluginRef, as
//     Kong's operator names it;
//   - KongService: its spec.host, when that is a generated upstream name.
//
// Other Kong kinds keep their random names: their names hash Gateway API values the objects do
// not hold (docs/kong-names.md).
//
// By default (rules.RecordKRIOff) it never writes the kriguard.io/kri annotation, nor corrects or
// removes one the object carries: it only names generateName objects.
//
// An object whose KRI or name cannot be built is left alone: /validate rejects it with the
// reasons. Kinds enforced in dryrun mode are not patched; the patch is only logged and counted.
type Mutator struct {
	cfg     *rules.Config
	release ReleaseFunc
	record  rules.RecordKRI
}

var _ admission.Handler = (*Mutator)(nil)

// NewMutator returns the handler of /mutate for c.
func NewMutator(c *rules.Config) *Mutator { return &Mutator{cfg: c} }

// WithRelease returns m judging each request against the release f returns then.
func (m *Mutator) WithRelease(f ReleaseFunc) *Mutator {
	cp := *m
	cp.release = f
	return &cp
}

// WithRecordKRI returns m recording each Kuma object's KRI as record says (--record-kri).
func (m *Mutator) WithRecordKRI(record rules.RecordKRI) *Mutator {
	cp := *m
	cp.record = record
	return &cp
}

// Handle answers one admission request with the patch it needs, if any.
func (m *Mutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	return m.handleRead(ctx, &req, nil)
}

// objectReads and handleRead make m an objectHandler.
func (m *Mutator) objectReads() (*rules.Config, rules.Phase) { return m.cfg, rules.Mutate }

func (m *Mutator) handleRead(ctx context.Context, req *admission.Request, reads *objectReads) admission.Response {
	var d rules.Decision
	if done := decide(ctx, &d, m.cfg, req, reads, rules.Mutate, nil, m.release.get(), "", m.record); done != nil {
		return *done
	}
	return mutated(ctx, &d, req)
}

// mutated is the answer to req once d, its decision, has its patch: apart from handleRead, as
// validated is (docs/performance.md, "Change 19").
func mutated(ctx context.Context, d *rules.Decision, req *admission.Request) admission.Response {
	switch d.Outcome { // the logger looked up only for a line written, as Validator.Handle does
	case rules.DryRun:
		countDecision(d, req.Operation, decisionDryRun)
		logf.FromContext(ctx).Info("would patch", "kind", d.Object.Kind.String(), "objectName", objectName(&d.Object, req), "patch", d.Patch,
			"override", overrideLabel(d))
		return allowed()
	case rules.Mutated:
		countDecision(d, req.Operation, decisionMutated)
		if log := logf.FromContext(ctx).V(1); log.Enabled() { // its values are built only for a line written
			log.Info("patched", "kind", d.Object.Kind.String(), "objectName", objectName(&d.Object, req), "operations", len(d.Patch),
				"override", overrideLabel(d))
		}
		resp := allowed() // admission.Patched("", d.Patch...), with the shared status
		resp.Patches = d.Patch
		return resp
	}
	countDecision(d, req.Operation, decisionAllowed)
	return allowed()
}
