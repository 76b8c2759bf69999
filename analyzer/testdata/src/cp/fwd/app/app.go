package app // want package:`forwards cfg\.Path\.ClusterName->routev3\.RouteAction_Cluster\.Cluster`

// app imports neither v3 nor listeners, nor go-control-plane: only the field it writes,
// forwarded by gen, makes it worth analysing.

import (
	"cp/fwd/cfg"
	"cp/fwd/gen"
)

func Extra() *cfg.Path {
	_ = gen.Generate(false)
	return &cfg.Path{Path: "/x:y", ClusterName: "app:extra"} // want `routev3\.RouteAction_Cluster\.Cluster gets "app:extra" \(literal "app:extra"\) through cfg\.Path\.ClusterName: contains ':'`
}
