package webhook

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// decisionsTotal is the sum of every series of decisions.
func decisionsTotal(t *testing.T) float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 1024)
	decisions.Collect(ch)
	close(ch)
	var total float64
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		total += pb.GetCounter().GetValue()
	}
	return total
}

// TestCountAllowed holds countAllowed to countDecision's series: each decision, counted twice (the
// first adds its series, the second finds it among the kind's allowed ones when it is one of
// them), adds two to the series labelled as countDecision labels it, and to no other.
func TestCountAllowed(t *testing.T) {
	decision := func(kind string, e rules.Enforcement, override string, rel naming.Release, mode rules.Mode) *rules.Decision {
		return &rules.Decision{Guarded: true, Outcome: rules.Allowed, Allowed: true, Release: rel, Mode: mode,
			Enforcement: e, Override: override, Object: rules.Object{Kind: schema.GroupKind{Group: "kuma.io", Kind: kind}}}
	}
	tests := []struct {
		name   string
		d      *rules.Decision
		op     admissionv1.Operation
		labels []string
	}{
		{"create", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma2_14, ""), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "deny", "none", "2.14", "unknown"}},
		{"update", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma2_14, ""), admissionv1.Update,
			[]string{"CountAllowedA", "UPDATE", "allowed", "deny", "none", "2.14", "unknown"}},
		{"another release", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma3_0, ""), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "deny", "none", "3.0", "unknown"}},
		{"the default release", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Release{}, ""), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "deny", "none", naming.DefaultRelease.String(), "unknown"}},
		{"another mode", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma2_14, rules.ModeZone), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "deny", "none", "2.14", "zone"}},
		{"mode auto", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma2_14, rules.ModeAuto), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "deny", "none", "2.14", "unknown"}},
		{"another enforcement", decision("CountAllowedA", rules.EnforcementWarn, "", naming.Kuma2_14, ""), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "warn", "none", "2.14", "unknown"}},
		{"no enforcement", decision("CountAllowedA", "", "", naming.Kuma2_14, ""), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "none", "none", "2.14", "unknown"}},
		{"another kind", decision("CountAllowedB", rules.EnforcementDeny, "", naming.Kuma2_14, ""), admissionv1.Create,
			[]string{"CountAllowedB", "CREATE", "allowed", "deny", "none", "2.14", "unknown"}},
		{"an override", decision("CountAllowedA", rules.EnforcementWarn, "kuma-control-plane", naming.Kuma2_14, ""), admissionv1.Create,
			[]string{"CountAllowedA", "CREATE", "allowed", "warn", "kuma-control-plane", "2.14", "unknown"}},
		{"delete", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma2_14, ""), admissionv1.Delete,
			[]string{"CountAllowedA", "DELETE", "allowed", "deny", "none", "2.14", "unknown"}},
		{"another operation", decision("CountAllowedA", rules.EnforcementDeny, "", naming.Kuma2_14, ""), "PATCH",
			[]string{"CountAllowedA", "other", "allowed", "deny", "none", "2.14", "unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := decisions.WithLabelValues(tt.labels...)
			before, totalBefore := testutil.ToFloat64(c), decisionsTotal(t)
			countAllowed(tt.d, tt.op)
			countAllowed(tt.d, tt.op)
			if got := testutil.ToFloat64(c) - before; got != 2 {
				t.Errorf("series %v counted %v, want 2", tt.labels, got)
			}
			if got := decisionsTotal(t) - totalBefore; got != 2 {
				t.Errorf("all series counted %v, want 2", got)
			}
		})
	}
}
