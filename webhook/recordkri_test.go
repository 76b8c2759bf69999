package webhook

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// TestMutatorRecordsNoKRIByDefault holds a Mutator given no WithRecordKRI, as NewManager builds it
// with --record-kri unset, to the default, off: a named object gets no patch and a generateName one
// only its name, while rules.RecordKRIAdmission, the opt-in, records the KRI on both.
func TestMutatorRecordsNoKRIByDefault(t *testing.T) {
	if got := NewOptions().RecordKRI; got != rules.RecordKRIOff {
		t.Fatalf("--record-kri defaults to %q, want %q", got, rules.RecordKRIOff)
	}
	named := request(admissionv1.Create, kuma("MeshService", "ns", "backend", nil, nil), nil)
	generated := request(admissionv1.Create, kuma("MeshService", "ns", "", nil, nil).with("generateName", "backend-"), nil)
	records := func(m *Mutator, req admission.Request) (patched, recorded bool) {
		resp := m.Handle(context.Background(), req)
		if !resp.Allowed {
			t.Fatalf("not allowed: %+v", resp.Result)
		}
		for _, op := range resp.Patches {
			if strings.Contains(op.Path, "kriguard.io~1kri") {
				recorded = true
			}
			if v, ok := op.Value.(map[string]string); ok {
				if _, ok := v[naming.AnnotationKRI]; ok {
					recorded = true
				}
			}
		}
		return len(resp.Patches) > 0, recorded
	}
	def, opt := NewMutator(rules.DefaultConfig()), NewMutator(rules.DefaultConfig()).WithRecordKRI(rules.RecordKRIAdmission)
	if patched, _ := records(def, named); patched {
		t.Error("by default, a named object was patched")
	}
	if patched, recorded := records(def, generated); !patched || recorded {
		t.Errorf("by default, a generateName object: patched %v, KRI recorded %v; want named, not recorded", patched, recorded)
	}
	for _, req := range []admission.Request{named, generated} {
		if _, recorded := records(opt, req); !recorded {
			t.Errorf("with %s, %s %q (generateName or not) was not given its KRI", rules.RecordKRIAdmission, req.Kind.Kind, req.Name)
		}
	}
}
