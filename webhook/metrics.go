package webhook

import (
	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kriguard/kriguard/rules"
)

// Decisions, the values of the decision label.
const (
	decisionAllowed = "allowed"
	decisionDenied  = "denied"
	decisionWarned  = "warned"
	decisionDryRun  = "dryrun"
	decisionMutated = "mutated"
	decisionError   = "error"
)

// Label values for requests that reach no guarded kind, so that hostile or misrouted requests
// cannot grow the label set.
const (
	unguardedKind        = "unguarded"
	noEnforcement        = "none"
	noOverride           = rules.NoOverride
	otherOperation       = "other"
	kindOfBrokenRequests = "unknown"
	// noRelease is the release label of requests that were judged against none.
	noRelease = "none"
)

// decisions counts every admission decision. It lives on controller-runtime's registry, next to
// the framework's own webhook metrics, and is served on the manager's metrics endpoint.
var decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "kriguard_admission_decisions_total",
	Help: "Admission decisions of the kriguard webhooks, by kind, operation, decision, enforcement, the requester override that set it and the Kuma release judged against.",
}, []string{"kind", "operation", "decision", "enforcement", "override", "kuma_release"})

func init() {
	metrics.Registry.MustRegister(decisions)
}

// count counts a decision of no guarded kind: no override took part, no release was judged
// against.
func count(kind string, op admissionv1.Operation, decision string, e rules.Enforcement) {
	countOverride(kind, op, decision, e, noOverride, noRelease)
}

// countDecision counts a decision of the rules: the rules say which override applied, the
// transport counts it.
func countDecision(d rules.Decision, op admissionv1.Operation, decision string) {
	countOverride(d.Object.Kind.Kind, op, decision, d.Enforcement, overrideLabel(d), d.Release.String())
}

// overrideLabel is the override label of d: the requester override that applied, or noOverride.
func overrideLabel(d rules.Decision) string {
	if d.Override == "" {
		return noOverride
	}
	return d.Override
}

// countOverride counts a decision; override names the requester override that applied, or is
// noOverride, and release the Kuma release judged against, or is noRelease. Override names come
// from the configuration and releases from naming, so the label set stays bounded.
func countOverride(kind string, op admissionv1.Operation, decision string, e rules.Enforcement, override, release string) {
	opLabel := string(op)
	switch op {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
	default:
		opLabel = otherOperation
	}
	enf := string(e)
	if enf == "" {
		enf = noEnforcement
	}
	decisions.WithLabelValues(kind, opLabel, decision, enf, override, release).Inc()
}
