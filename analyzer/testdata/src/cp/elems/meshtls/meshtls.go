package meshtls // want package:`implements cp/elems/common.Cluster.Name=\(gen.own\).Name "own:cluster"` package:`forwards common\.ClusterImpl\.name->tcp_proxyv3\.TcpProxy_Cluster\.Cluster pxds\.Cluster\.name->tcp_proxyv3\.TcpProxy_Cluster\.Cluster`

// meshtls is the shape of Kuma's meshtls plugin: it names a cluster with cp/elems/pxds's builder
// and hands it on by a way krilint does not follow (a map). The field the builder keeps the name
// in is a sink in cp/elems/gen, which hands such clusters to the TCP proxy, and gen forwards it to
// its importers: every WithName here is checked.

import (
	"cp/elems/gen"
	"cp/elems/pxds"
	"cp/elems/v3"
)

func Inbound(port string) *v3.TcpProxyConfigurer {
	cluster := pxds.NewClusterBuilder().WithName("localhost:" + port).Build() // want `tcp_proxyv3\.TcpProxy_Cluster\.Cluster gets "localhost:\*" \(literal "localhost:"\) through \(\*pxds\.ClusterBuilder\)\.WithName parameter name`
	return gen.Routes(map[string]*pxds.Cluster{"inbound": cluster})
}

func Safe(port string) *v3.TcpProxyConfigurer {
	cluster := pxds.NewClusterBuilder().WithName("localhost_" + port).Build()
	return gen.Routes(map[string]*pxds.Cluster{"inbound": cluster})
}
