package gen // want package:`has sinks foreign common.ClusterImpl.name->tcp_proxyv3.TcpProxy_Cluster.Cluster foreign pxds.Cluster.name->tcp_proxyv3.TcpProxy_Cluster.Cluster` package:`implements cp/elems/common.Cluster.Name=\(gen.own\).Name "own:cluster"`

// Package gen hands clusters to the TCP proxy options of cp/elems/listeners: a cluster of
// cp/elems/pxds, which listeners never sees, named by its builder; a common.ClusterImpl named by an
// option; and a cluster type of its own. Each ':' name is reported where it is set.

import (
	"cp/elems/common"
	"cp/elems/listeners"
	"cp/elems/pxds"
	"cp/elems/v3"
)

func Inbound(port string) *v3.TcpProxyConfigurer {
	cluster := pxds.NewClusterBuilder().WithName("localhost:" + port).Build() // want `tcp_proxyv3\.TcpProxy_Cluster\.Cluster gets "localhost:\*" \(literal "localhost:"\) through \(\*pxds\.ClusterBuilder\)\.WithName parameter name: contains ':'`
	return listeners.TcpProxy("inbound", cluster)
}

func Bypass(unified bool) *v3.TcpProxyConfigurer {
	name := "plugins:bootstrap:apiServerBypass"
	if unified {
		name = "system_bypass"
	}
	return listeners.TcpProxy(name, common.NewCluster(common.WithService(name))) // want `tcp_proxyv3\.TcpProxy_Cluster\.Cluster gets "plugins:bootstrap:apiServerBypass" \(variable name \(literal "plugins:bootstrap:apiServerBypass"\)\) through common\.WithService parameter service`
}

type own struct{}

func (own) Name() string    { return "own:cluster" } // want Name:`result "own:cluster"`
func (own) Service() string { return "own" }

func Own() *v3.TcpProxyConfigurer {
	return listeners.First([]common.Cluster{own{}}) // want `tcp_proxyv3\.TcpProxy_Cluster\.Cluster gets "own:cluster" \(result of \(gen\.own\)\.Name\) through the \[i\]\.Name\(\) of listeners\.First parameter clusters`
}

// Safe names, and a cluster with a ':' name that is only logged: quiet.
func Safe(port string) *v3.TcpProxyConfigurer {
	cluster := pxds.NewClusterBuilder().WithName("localhost_" + port).Build()
	listeners.Logged(own{})
	return listeners.TcpProxy("inbound", cluster, common.NewCluster(common.WithService("system_bypass")))
}

// Routes takes clusters by a map, which krilint does not follow.
func Routes(clusters map[string]*pxds.Cluster) *v3.TcpProxyConfigurer {
	for _, c := range clusters {
		return listeners.TcpProxy("route", c)
	}
	return nil
}
