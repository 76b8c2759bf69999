package chart

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestServerSideDryRun submits every object the chart renders, for every value set, to the real API
// server as a dry-run create: the server's own validation (and defaulting) must accept all of them.
func TestServerSideDryRun(t *testing.T) {
	for i, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			ns := fmt.Sprintf("dry-run-%d", i)
			// The strictest Pod Security Standard: the API server rejects any pod that could run as root,
			// keep capabilities, escalate privileges or run without a seccomp profile.
			createNamespace(t, ns, map[string]string{
				"pod-security.kubernetes.io/enforce":         "restricted",
				"pod-security.kubernetes.io/enforce-version": "latest",
			})
			ctx := testContext(t)
			objs := render(t, "kriguard", ns, vs.values)
			for _, o := range objs {
				if err := env.Client.Create(ctx, o.DeepCopy(), client.DryRunAll); err != nil {
					t.Errorf("%s/%s: %v", o.GetKind(), o.GetName(), err)
				}
			}
			// Pod Security admission checks pods, not Deployments: submit a pod of the Deployment's template.
			d := objs.ofKind("Deployment")[0]
			pod := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "Pod",
				"metadata": field(t, d, "spec", "template", "metadata"),
				"spec":     field(t, d, "spec", "template", "spec"),
			}}
			pod = pod.DeepCopy()
			pod.SetNamespace(ns)
			pod.SetName(d.GetName() + "-pod")
			if err := env.Client.Create(ctx, pod, client.DryRunAll); err != nil {
				t.Errorf("a pod of the Deployment's template: %v", err)
			}
		})
	}
}
