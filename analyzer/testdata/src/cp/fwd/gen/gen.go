package gen // want package:`forwards cfg\.Path\.ClusterName->routev3\.RouteAction_Cluster\.Cluster`

// gen imports listeners and cfg, not v3: it learns that cfg.Path.ClusterName is a sink
// only from what listeners forwards.

import (
	"strings"

	"cp/fwd/cfg"
	"cp/fwd/listeners"
)

const admin = "kuma:envoy:admin"

var paths = []*cfg.Path{
	{Path: "/ready", ClusterName: "kuma:readiness"}, // want `routev3\.RouteAction_Cluster\.Cluster gets "kuma:readiness" \(literal "kuma:readiness"\) through cfg\.Path\.ClusterName: contains ':'`
	{Path: "/stats"},
}

func Generate(unified bool) listeners.Option {
	for _, p := range paths {
		if unified {
			p.ClusterName = "self_admin"
		} else {
			p.ClusterName = admin // want `routev3\.RouteAction_Cluster\.Cluster gets "kuma:envoy:admin" \(constant admin = "kuma:envoy:admin"\) through cfg\.Path\.ClusterName: contains ':'`
		}
	}
	all := append(paths, &cfg.Path{Path: "/a:b", ClusterName: strings.ReplaceAll("x:y", ":", "_")})
	return listeners.StaticEndpoints(all)
}
