package reports_test

import (
	"context"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/rules"
)

// The report of an object with a finding, as audit --report=yaml prints it.
func ExampleBuild() {
	d, err := rules.DefaultConfig().Decide(context.Background(), rules.Request{
		Phase: rules.Admit,
		Kind:  schema.GroupKind{Group: rules.KumaGroup, Kind: "MeshTimeout"},
		Object: []byte(`{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
			"metadata": {"name": "timeouts", "namespace": "kuma-demo", "labels": {"kuma.io/mesh": "default"}},
			"spec": {"to": [{"targetRef": {"kind": "MeshService", "sectionName": "HTTP_1"}}]}}`),
	})
	if err != nil {
		panic(err)
	}
	s := reports.Subject{APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: "kuma-demo", Name: "timeouts",
		UID: "0b7e4c1a-5d2f-4f0e-9a57-3c1d2e8f6a90"}
	r := reports.Build(s, &d, time.Unix(1767225600, 0))
	if err := reports.WriteYAML(os.Stdout, r); err != nil {
		panic(err)
	}
	// Output:
	// ---
	// apiVersion: openreports.io/v1alpha1
	// kind: Report
	// metadata:
	//   labels:
	//     app.kubernetes.io/managed-by: kriguard
	//     kriguard.io/resource.kind: MeshTimeout.kuma.io
	//     kriguard.io/resource.uid: 0b7e4c1a-5d2f-4f0e-9a57-3c1d2e8f6a90
	//   name: kriguard-0b7e4c1a-5d2f-4f0e-9a57-3c1d2e8f6a90
	//   namespace: kuma-demo
	//   ownerReferences:
	//   - apiVersion: kuma.io/v1alpha1
	//     kind: MeshTimeout
	//     name: timeouts
	//     uid: 0b7e4c1a-5d2f-4f0e-9a57-3c1d2e8f6a90
	// results:
	// - category: Kuma
	//   message: 'spec.to[0].targetRef.sectionName: Invalid value: "HTTP_1": must start
	//     with a lowercase letter or digit; must contain only lowercase letters, digits
	//     or ''-'' (found ''H'', ''T'', ''P'', ''_'')'
	//   policy: kuma/section-name
	//   properties:
	//     enforcement: deny
	//     field: spec.to[0].targetRef.sectionName
	//     kri: kri_mt_default___timeouts_
	//     level: error
	//   result: fail
	//   rule: kuma/section-name
	//   severity: high
	//   source: kriguard
	//   timestamp:
	//     nanos: 0
	//     seconds: 1767225600
	// scope:
	//   apiVersion: kuma.io/v1alpha1
	//   kind: MeshTimeout
	//   name: timeouts
	//   namespace: kuma-demo
	//   uid: 0b7e4c1a-5d2f-4f0e-9a57-3c1d2e8f6a90
	// source: kriguard
	// summary:
	//   error: 0
	//   fail: 1
	//   pass: 0
	//   skip: 0
	//   warn: 0
}
