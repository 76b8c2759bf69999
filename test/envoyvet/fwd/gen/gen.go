// Package gen fills the paths, importing listeners and paths but not v3, as Kuma's admin proxy and
// Prometheus endpoint generators do: go vet gives it no fact of v3, only what listeners forwards.
package gen

import (
	"github.com/kriguard/kriguard/test/envoyvet/fwd/listeners"
	"github.com/kriguard/kriguard/test/envoyvet/fwd/paths"
)

const adminCluster = "kuma:envoy:admin"

var adminPaths = []*paths.Path{
	{Path: "/ready"},
	{Path: "/stats"},
}

// Admin exposes the admin paths and the readiness endpoint.
func Admin(unified bool) listeners.Configurer {
	ps := []*paths.Path{}
	for _, p := range adminPaths {
		p.ClusterName = adminCluster // krilint: colon [RouteAction_Cluster.Cluster]
		if unified {
			p.ClusterName = "self_admin"
		}
		ps = append(ps, p)
	}
	ps = append(ps, &paths.Path{
		Path:        "/ready:probe",   // a path, not a name
		ClusterName: "kuma:readiness", // krilint: colon [RouteAction_Cluster.Cluster]
	})
	return listeners.StaticEndpoints("self_admin", ps)
}
