package continuous_test

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kriguard/kriguard/internal/continuous"
	"github.com/kriguard/kriguard/rules"
)

// An auditor keeps the reports of the cluster the kubeconfig reaches current until the process is
// told to stop, its metrics in a registry that /metrics serves.
func Example() {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return // no cluster here
	}
	m := continuous.NewMetrics()
	if err := m.Register(prometheus.NewRegistry()); err != nil {
		panic(err)
	}
	a, err := continuous.New(cfg, continuous.Options{Rules: rules.DefaultConfig(), Interval: 10 * time.Minute, Metrics: m})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = a.Run(ctx)
}
