package v3 // want package:`has sinks foreign cfg\.Path\.ClusterName->routev3\.RouteAction_Cluster\.Cluster`

// v3 finds cfg.Path.ClusterName to be a sink, as Kuma's listeners/v3 does.

import (
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"cp/fwd/cfg"
)

type StaticEndpoints struct {
	Paths []*cfg.Path
}

func (c *StaticEndpoints) Routes() []*routev3.RouteAction {
	var out []*routev3.RouteAction
	for _, p := range c.Paths {
		out = append(out, &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: p.ClusterName}})
	}
	return out
}
