// Package health_checkv3 is a stub of
// github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3.
package health_checkv3

import typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"

type HealthCheck struct {
	// The keys are cluster names.
	ClusterMinHealthyPercentages map[string]*typev3.Percent
}
