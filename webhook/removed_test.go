package webhook

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// TestRemovedKindsAtAdmission: a Kuma kind 3.0 removed that has no KRI (MeshGatewayInstance, a
// legacy policy), as the chart routes it to the validating webhook only: on 2.14 admitted with no
// warning (not the one of a kind the configuration does not guard), on 3.0 refused with one cause
// at kind naming the release, its DELETE allowed. Were it routed to the mutating webhook, it would
// get no patch under either release.
func TestRemovedKindsAtAdmission(t *testing.T) {
	def := rules.DefaultConfig()
	for _, o := range []obj{
		kuma("MeshGatewayInstance", "kuma-demo", "edge", nil, obj{"spec": obj{"replicas": 1}}),
		kuma("TrafficRoute", "", "route-all", nil, obj{"mesh": "default", "spec": obj{}}),
		kuma("TrafficPermission", "", "", nil, obj{"mesh": "default", "spec": obj{}}).with("generateName", "allow-"),
	} {
		kind := o["kind"].(string)
		for _, rel := range naming.Releases() {
			release := func() naming.Release { return rel }
			v := NewValidator(def).WithRelease(release)
			m := NewMutator(def).WithRelease(release)
			_, removed := rel.Removed(kind)
			id := "Kuma " + rel.String() + ": " + kind

			counted := decisions.WithLabelValues(kind, "CREATE", map[bool]string{true: "denied", false: "allowed"}[removed], "deny", "none", rel.String(), "unknown")
			before := testutil.ToFloat64(counted)
			resp := v.Handle(context.Background(), request(admissionv1.Create, o, nil))
			if after := testutil.ToFloat64(counted); after != before+1 {
				t.Errorf("%s: CREATE counted %v → %v", id, before, after)
			}
			if len(resp.Warnings) > 0 {
				t.Errorf("%s: CREATE warned %q", id, resp.Warnings)
			}
			if !removed {
				if !resp.Allowed {
					t.Errorf("%s: CREATE refused: %+v", id, resp.Result)
				}
			} else {
				causes := resp.Result.Details.Causes
				if resp.Allowed || resp.Result.Code != 422 || len(causes) != 1 || causes[0].Field != "kind" ||
					causes[0].Type != metav1.CauseTypeFieldValueInvalid || !strings.Contains(causes[0].Message, "removed in Kuma 3.0: ") {
					t.Errorf("%s: CREATE allowed %t, result %+v; want 422, one cause at kind naming Kuma 3.0", id, resp.Allowed, resp.Result)
				}
			}

			if resp := v.Handle(context.Background(), request(admissionv1.Delete, nil, o)); !resp.Allowed || len(resp.Warnings) > 0 {
				t.Errorf("%s: DELETE allowed %t, warnings %q", id, resp.Allowed, resp.Warnings)
			}
			// An update of an object stored before the upgrade (removing its finalizers, say) keeps
			// the problem it had: allowed, with the problem as pre-existing.
			resp = v.Handle(context.Background(), request(admissionv1.Update, o.with("finalizers", []any{}), o))
			if !resp.Allowed || removed != (len(resp.Warnings) == 1 && strings.Contains(resp.Warnings[0], "pre-existing problem, allowed on update: kind:")) {
				t.Errorf("%s: UPDATE allowed %t, warnings %q", id, resp.Allowed, resp.Warnings)
			}

			for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
				old := o
				if op == admissionv1.Create {
					old = nil
				}
				if resp := m.Handle(context.Background(), request(op, o, old)); !resp.Allowed || len(resp.Patches) > 0 || len(resp.Warnings) > 0 {
					t.Errorf("%s: mutating %s: allowed %t, patches %v, warnings %q", id, op, resp.Allowed, resp.Patches, resp.Warnings)
				}
			}
		}
	}
}
