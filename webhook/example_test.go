package webhook_test

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/webhook"
)

func meshTimeoutRequest(object string) admission.Request {
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "1",
		Kind:      metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"},
		Operation: admissionv1.Create,
		Object:    runtime.RawExtension{Raw: []byte(object)},
	}}
}

// The validating handler answers like the API server's own validation.
func ExampleNewValidator() {
	v := webhook.NewValidator(rules.DefaultConfig())
	resp := v.Handle(context.Background(), meshTimeoutRequest(`{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": {"name": "t1", "namespace": "kuma-system", "labels": {"kuma.io/mesh": "Mesh_1"}},
		"spec": {"to": [{"targetRef": {"kind": "MeshService", "sectionName": "http"}}]}
	}`))
	fmt.Println(resp.Allowed, resp.Result.Code, resp.Result.Reason)
	for _, c := range resp.Result.Details.Causes {
		fmt.Println(c.Field)
	}
	fmt.Println(resp.Result.Message)
	// Output:
	// false 422 Invalid
	// metadata.labels[kuma.io/mesh]
	// MeshTimeout.kuma.io "t1" is invalid: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')
}

// The mutating handler names generateName objects the way Kuma's KDS names synced copies and, with
// the opt-in rules.RecordKRIAdmission (--record-kri=admission; off by default), records the KRI.
func ExampleNewMutator() {
	m := webhook.NewMutator(rules.DefaultConfig()).WithRecordKRI(rules.RecordKRIAdmission)
	resp := m.Handle(context.Background(), meshTimeoutRequest(`{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": {"generateName": "backend-", "namespace": "kuma-demo",
			"labels": {"kuma.io/mesh": "default", "kuma.io/zone": "east", "k8s.kuma.io/namespace": "kuma-demo"}}
	}`))
	for _, op := range resp.Patches {
		fmt.Println(op.Operation, op.Path, op.Value)
	}
	// Output:
	// add /metadata/name backend-4dv9w4x47w8w98v4
	// add /metadata/annotations map[kriguard.io/kri:kri_mt_default_east_kuma-demo_backend_ kuma.io/display-name:backend]
}

// The webhooks of one process share one memory budget, derived from the container's memory
// limit (docs/limits.md); NewManager does this with --memory-limit.
func ExampleNewBudget() {
	budget, err := webhook.NewBudget(256 << 20)
	if err != nil {
		panic(err)
	}
	conf := rules.DefaultConfig()
	mux := http.NewServeMux()
	mux.Handle(webhook.ValidatePath, webhook.NewBoundedHTTPHandler(webhook.NewValidator(conf), budget))
	mux.Handle(webhook.MutatePath, webhook.NewBoundedHTTPHandler(webhook.NewMutator(conf), budget))
	fmt.Printf("%d MiB for the reviews in flight\n", budget.Size()>>20)
	_, err = webhook.NewBudget(128 << 20)
	fmt.Println(err != nil)
	// Output:
	// 182 MiB for the reviews in flight
	// true
}
