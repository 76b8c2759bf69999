package webhook

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/internal/kumarelease"
)

// deploymentReader reads the control plane's Deployment with a controller-runtime client.Reader
// (the manager's API reader: one GET by name, which RBAC can limit to that name). It lives here,
// not in internal/kumarelease, so that the kriguard command, which detects the release too, links
// no controller-runtime client (docs/performance.md, "Change 15").
func deploymentReader(c client.Reader) kumarelease.GetDeployment {
	return func(ctx context.Context, key types.NamespacedName) (*appsv1.Deployment, error) {
		var d appsv1.Deployment
		if err := c.Get(ctx, key, &d); err != nil {
			return nil, err
		}
		return &d, nil
	}
}
