package cbuild // want package:`has sinks foreign cfg\.RouteOptions\.ClusterName->routev3\.RouteAction_Cluster\.Cluster`

import (
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"cp/cfg"
)

func Action(o cfg.RouteOptions) *routev3.RouteAction {
	_ = o.Note
	return &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: o.ClusterName}}
}

func Local() {
	Action(cfg.RouteOptions{ClusterName: "local:x"}) // want `routev3\.RouteAction_Cluster\.Cluster gets "local:x" \(literal "local:x"\) through cfg\.RouteOptions\.ClusterName`
}
