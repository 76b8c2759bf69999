package webhook

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kriguard/kriguard/naming"
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
	l := decisionLabelsOf(d, op, decision)
	decisionCounter(&l).Inc()
}

// decisionLabelsOf is the labels of the series counting d, a decision of the rules, as decision.
func decisionLabelsOf(d *rules.Decision, op admissionv1.Operation, decision string) decisionLabels {
	return decisionLabels{d.Object.Kind.Kind, operationLabel(op), decision, enforcementLabel(d.Enforcement), overrideLabel(d), d.Release.String(), modeLabel(d.Mode)}
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

// kindSeries are the series of decisions of one kind.
type kindSeries struct {
	all []decisionSeries
	// allowed are series of all that count an allowed CREATE or UPDATE without a requester
	// override, most reviews' decisions, by the values of the decision their labels are made of:
	// countAllowed compares four values rather than build and compare seven labels
	// (docs/performance.md, "Change 22").
	allowed []allowedSeries
}

// allowedSeries is one of kindSeries.allowed: the series of an allowed decision without override
// of the operation op, whose enforcement, release and mode were these.
type allowedSeries struct {
	op          admissionv1.Operation
	enforcement rules.Enforcement
	release     naming.Release
	mode        rules.Mode
	counter     prometheus.Counter
}

// decisionCounters holds the series of decisions by kind: a review's look-up hashes the kind alone
// and compares the other labels with the few series of its kind, a small part of WithLabelValues,
// which validates and hashes all seven (docs/performance.md). A series added replaces the map with
// a copy that holds it, under decisionCountersMu, so that reviews read it without a lock. It grows
// as the label set does, which stays bounded (countOverride).
var (
	decisionCounters   atomic.Pointer[map[string]*kindSeries]
	decisionCountersMu sync.Mutex
)

// countAllowed is countDecision(d, op, decisionAllowed) for d, a decision of the allowed outcome:
// every valid object's review counts here, so an allowed CREATE or UPDATE without a requester
// override finds its series among its kind's allowed ones by the decision's values, in a few lines
// of machine code (docs/performance.md, "Change 22"); any other decision, and the first of its
// values, as countDecision does (countAllowedFirst).
func countAllowed(d *rules.Decision, op admissionv1.Operation) {
	if m := decisionCounters.Load(); m != nil && d.Override == "" {
		if ks := (*m)[d.Object.Kind.Kind]; ks != nil {
			for i := range ks.allowed {
				s := &ks.allowed[i]
				if s.op == op && s.enforcement == d.Enforcement && s.release == d.Release && s.mode == d.Mode {
					s.counter.Inc()
					return
				}
			}
		}
	}
	countAllowedFirst(d, op)
}

// countAllowedFirst is countAllowed for a decision whose values are not among its kind's allowed
// series: it counts it as countDecision does, and adds its values to them when it is a CREATE or
// an UPDATE without override. Each value comes from the configuration, naming or rules, so they
// stay bounded.
//
//go:noinline
func countAllowedFirst(d *rules.Decision, op admissionv1.Operation) {
	l := decisionLabelsOf(d, op, decisionAllowed)
	c := decisionCounter(&l)
	c.Inc()
	if d.Override != "" || op != admissionv1.Create && op != admissionv1.Update {
		return
	}
	decisionCountersMu.Lock()
	defer decisionCountersMu.Unlock()
	m := decisionCounters.Load() // decisionCounter has added the kind's series
	s := allowedSeries{op, d.Enforcement, d.Release, d.Mode, c}
	for _, a := range (*m)[l.kind].allowed {
		if a.op == s.op && a.enforcement == s.enforcement && a.release == s.release && a.mode == s.mode {
			return
		}
	}
	next := maps.Clone(*m)
	ks := *next[l.kind]
	ks.allowed = append(slices.Clip(ks.allowed), s)
	next[l.kind] = &ks
	decisionCounters.Store(&next)
}

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
	next := map[string]*kindSeries{}
	if m != nil {
		next = maps.Clone(*m)
	}
	c := decisions.WithLabelValues(l.kind, l.operation, l.decision, l.enforcement, l.override, l.release, l.mode)
	ks := &kindSeries{}
	if old := next[l.kind]; old != nil {
		*ks = *old
	}
	ks.all = append(slices.Clip(ks.all), decisionSeries{labels: *l, counter: c})
	next[l.kind] = ks
	decisionCounters.Store(&next)
	return c
}

// lookupDecisionCounter returns the counter of the series of m labelled l, nil when there is none.
func lookupDecisionCounter(m *map[string]*kindSeries, l *decisionLabels) prometheus.Counter {
	if m == nil {
		return nil
	}
	ks := (*m)[l.kind]
	if ks == nil {
		return nil
	}
	for i := range ks.all {
		if ks.all[i].labels == *l {
			return ks.all[i].counter
		}
	}
	return nil
}
