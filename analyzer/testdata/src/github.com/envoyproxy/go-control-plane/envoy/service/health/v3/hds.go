// Package healthv3 is a stub of github.com/envoyproxy/go-control-plane/envoy/service/health/v3 with the
// real names and types of the fields krilint reads.
package healthv3

type HealthCheckSpecifier struct {
	ClusterHealthChecks []*ClusterHealthCheck
}

type ClusterHealthCheck struct {
	ClusterName string
}

type ClusterEndpointsHealth struct {
	ClusterName string
}
