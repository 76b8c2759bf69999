package chart

import (
	"fmt"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestServerSideDryRun submits every object the chart renders, for every value set, to the real API
// server as a dry-run create: the server's own validation (and defaulting) must accept all of them.
func TestServerSideDryRun(t *testing.T) {
	for i, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			ns := fmt.Sprintf("dry-run-%d", i)
			createNamespace(t, ns, nil)
			ctx := testContext(t)
			objs := render(t, "kriguard", ns, vs.values)
			for _, o := range objs {
				if err := env.Client.Create(ctx, o.DeepCopy(), client.DryRunAll); err != nil {
					t.Errorf("%s/%s: %v", o.GetKind(), o.GetName(), err)
				}
			}
		})
	}
}
