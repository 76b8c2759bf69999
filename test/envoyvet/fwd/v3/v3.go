// Package v3 copies the ClusterName of each path to a route's cluster, which makes
// paths.Path.ClusterName a sink; as Kuma's listeners/v3, it is imported by the listeners package
// only, never by the generators that fill the paths.
package v3

import (
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/kriguard/kriguard/test/envoyvet/fwd/paths"
)

// StaticEndpoints routes each path to its cluster.
type StaticEndpoints struct {
	VirtualHost string
	Paths       []*paths.Path
}

// Configure builds the route configuration.
func (c *StaticEndpoints) Configure() *routev3.RouteConfiguration {
	vh := &routev3.VirtualHost{Name: c.VirtualHost, Domains: []string{"*"}}
	for _, p := range c.Paths {
		vh.Routes = append(vh.Routes, &routev3.Route{
			Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: p.Path}},
			Action: &routev3.Route_Route{Route: &routev3.RouteAction{
				ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: p.ClusterName},
			}},
		})
	}
	return &routev3.RouteConfiguration{Name: "static", VirtualHosts: []*routev3.VirtualHost{vh}}
}
