package v3 // want package:"has sinks"

// Package v3 is the shape of Kuma's listeners/v3.TcpProxyConfigurer: it writes the ClusterName()
// of the elements of its field Splits, and sees no implementation of Split.

import (
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"

	"cp/elems/common"
)

type TcpProxyConfigurer struct {
	StatsName string
	Splits    []common.Split // want Splits:`sink methods \[i\]\.ClusterName\(\)->tcp_proxyv3\.TcpProxy_Cluster\.Cluster`
	// Logged splits are only logged: no sink.
	Logged []common.Split
}

func (c *TcpProxyConfigurer) Build() *tcpv3.TcpProxy {
	for _, s := range c.Logged {
		println(s.ClusterName())
	}
	if len(c.Splits) == 1 {
		return &tcpv3.TcpProxy{ClusterSpecifier: &tcpv3.TcpProxy_Cluster{Cluster: c.Splits[0].ClusterName()}}
	}
	var ws []*tcpv3.TcpProxy_WeightedCluster_ClusterWeight
	for _, s := range c.Splits {
		ws = append(ws, &tcpv3.TcpProxy_WeightedCluster_ClusterWeight{Name: s.ClusterName(), Weight: s.Weight()})
	}
	return &tcpv3.TcpProxy{ClusterSpecifier: &tcpv3.TcpProxy_WeightedCluster_{WeightedClusters: &tcpv3.TcpProxy_WeightedCluster{Clusters: ws}}}
}
