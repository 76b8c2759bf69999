package webhook

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

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
	// noRelease is the release label, and the mode label, of requests that were judged against
	// none.
	noRelease = "none"
	// unknownMode is the mode label of decisions made while kuma.mode auto has not found the
	// control plane's mode.
	unknownMode = "unknown"
)

// decisions counts every admission decision. It lives on controller-runtime's registry, next to
// the framework's own webhook metrics, and is served on the manager's metrics endpoint.
var decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "kriguard_admission_decisions_total",
	Help: "Admission decisions of the kriguard webhooks, by kind, operation, decision, enforcement, the requester override that set it, and the Kuma release and control plane mode judged against.",
}, []string{"kind", "operation", "decision", "enforcement", "override", "kuma_release", "kuma_mode"})

func init() {
	metrics.Registry.MustRegister(decisions)
}

// count counts a decision of no guarded kind: no override took part, no release or mode was
// judged against.
func count(kind string, op admissionv1.Operation, decision string, e rules.Enforcement) {
	countOverride(kind, op, decision, e, noOverride, noRelease, noRelease)
}

// countDecision counts a decision of the rules: the rules say which override applied, the
// transport counts it.
func countDecision(d *rules.Decision, op admissionv1.Operation, decision string) {
	// countOverride's work, without its call: every validating review counts here
	// (docs/performance.md, "Change 22").
	decisionCounter(&decisionLabels{d.Object.Kind.Kind, operationLabel(op), decision, enforcementLabel(d.Enforcement), overrideLabel(d), d.Release.String(), modeLabel(d.Mode)}).Inc()
}

// modeLabel is the mode label of a decision under mode m: unknownMode while kuma.mode auto has not
// found it.
func modeLabel(m rules.Mode) string {
	if m == "" || m == rules.ModeAuto {
		return unknownMode
	}
	return string(m)
}

// overrideLabel is the override label of d: the requester override that applied, or noOverride.
func overrideLabel(d *rules.Decision) string {
	if d.Override == "" {
		return noOverride
	}
	return d.Override
}

// countOverride counts a decision; override names the requester override that applied, or is
// noOverride, and release and mode the Kuma release and mode judged against, or are noRelease.
// Override names come from the configuration, releases from naming and modes from rules, so the
// label set stays bounded.
func countOverride(kind string, op admissionv1.Operation, decision string, e rules.Enforcement, override, release, mode string) {
	decisionCounter(&decisionLabels{kind, operationLabel(op), decision, enforcementLabel(e), override, release, mode}).Inc()
}

// operationLabel is the operation label of op: otherOperation for an operation admission/v1 does
// not define.
func operationLabel(op admissionv1.Operation) string {
	switch op {
	case admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect:
		return string(op)
	}
	return otherOperation
}

// enforcementLabel is the enforcement label of e: noEnforcement for none.
func enforcementLabel(e rules.Enforcement) string {
	if e == "" {
		return noEnforcement
	}
	return string(e)
}

// decisionLabels are the label values of one series of decisions.
type decisionLabels struct{ kind, operation, decision, enforcement, override, release, mode string }

// decisionSeries is one series of decisions and its labels.
type decisionSeries struct {
	labels  decisionLabels
	counter prometheus.Counter
}

// decisionCounters holds the series of decisions by kind: a review's look-up hashes the kind alone
// and compares the other labels with the few series of its kind, a small part of WithLabelValues,
// which validates and hashes all seven (docs/performance.md). A series added replaces the map with
// a copy that holds it, under decisionCountersMu, so that reviews read it without a lock. It grows
// as the label set does, which stays bounded (countOverride).
var (
	decisionCounters   atomic.Pointer[map[string][]decisionSeries]
	decisionCountersMu sync.Mutex
)

// decisionCounter returns the counter of the series labelled l.
func decisionCounter(l *decisionLabels) prometheus.Counter {
	if c := lookupDecisionCounter(decisionCounters.Load(), l); c != nil {
		return c
	}
	return addDecisionCounter(l)
}

// addDecisionCounter is decisionCounter for a series the map did not hold when it was looked at:
// apart, so that the look-up every review makes is a few lines of machine code.
//
//go:noinline
func addDecisionCounter(l *decisionLabels) prometheus.Counter {
	decisionCountersMu.Lock()
	defer decisionCountersMu.Unlock()
	m := decisionCounters.Load()
	if c := lookupDecisionCounter(m, l); c != nil {
		return c
	}
	next := map[string][]decisionSeries{}
	if m != nil {
		next = maps.Clone(*m)
	}
	c := decisions.WithLabelValues(l.kind, l.operation, l.decision, l.enforcement, l.override, l.release, l.mode)
	next[l.kind] = append(slices.Clip(next[l.kind]), decisionSeries{labels: *l, counter: c})
	decisionCounters.Store(&next)
	return c
}

// lookupDecisionCounter returns the counter of the series of m labelled l, nil when there is none.
func lookupDecisionCounter(m *map[string][]decisionSeries, l *decisionLabels) prometheus.Counter {
	if m == nil {
		return nil
	}
	series := (*m)[l.kind]
	for i := range series {
		if series[i].labels == *l {
			return series[i].counter
		}
	}
	return nil
}
