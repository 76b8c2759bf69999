package cgen // want package:`forwards cfg\.RouteOptions\.ClusterName->routev3\.RouteAction_Cluster\.Cluster`

import (
	"cp/cbuild"
	"cp/cfg"
	"cp/names"
)

func Generate(svc string) {
	cbuild.Action(cfg.RouteOptions{ClusterName: names.Outbound(svc), Note: "a:b"}) // want `routev3\.RouteAction_Cluster\.Cluster gets "outbound:\*" \(result of names\.Outbound\) through cfg\.RouteOptions\.ClusterName: contains ':'`
	var o cfg.RouteOptions
	o.ClusterName = "_" + svc
	o.Note = "x:y"
	cbuild.Action(o)
}
