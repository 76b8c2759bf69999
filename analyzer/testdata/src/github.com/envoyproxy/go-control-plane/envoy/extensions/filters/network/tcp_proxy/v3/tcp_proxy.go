// Package tcp_proxyv3 is a stub of
// github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3.
package tcp_proxyv3

type TcpProxy struct {
	StatPrefix       string
	ClusterSpecifier isTcpProxy_ClusterSpecifier
}

type isTcpProxy_ClusterSpecifier interface{ isTcpProxy_ClusterSpecifier() }

type TcpProxy_Cluster struct {
	Cluster string
}

func (*TcpProxy_Cluster) isTcpProxy_ClusterSpecifier() {}

type TcpProxy_WeightedCluster_ struct {
	WeightedClusters *TcpProxy_WeightedCluster
}

func (*TcpProxy_WeightedCluster_) isTcpProxy_ClusterSpecifier() {}

type TcpProxy_WeightedCluster struct {
	Clusters []*TcpProxy_WeightedCluster_ClusterWeight
}

type TcpProxy_WeightedCluster_ClusterWeight struct {
	Name   string
	Weight uint32
}
