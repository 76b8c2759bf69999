package listeners // want package:"has sinks"

// Package listeners is the shape of Kuma's TCP proxy options: the Name() of each element of a
// variadic parameter goes into an adapter that cp/elems/v3 reads back as ClusterName(). The package
// sees common.ClusterImpl, an implementation of common.Cluster; its callers may pass another.

import (
	"cp/elems/common"
	"cp/elems/v3"
)

type splitAdapter struct {
	clusterName string
	weight      uint32
}

func (s *splitAdapter) ClusterName() string { return s.clusterName } // want ClusterName:`returns field clusterName`
func (s *splitAdapter) Weight() uint32      { return s.weight }

func TcpProxy(statsName string, clusters ...common.Cluster) *v3.TcpProxyConfigurer { // want TcpProxy:`sink params 1\.\[i\]\.Name\(\)->tcp_proxyv3\.TcpProxy_Cluster\.Cluster`
	var splits []common.Split
	for _, cluster := range clusters {
		sa := &splitAdapter{clusterName: cluster.Name(), weight: 1}
		if c, ok := cluster.(*common.ClusterImpl); ok {
			sa.weight = uint32(len(c.Service()))
		}
		splits = append(splits, sa)
	}
	return &v3.TcpProxyConfigurer{StatsName: statsName, Splits: splits}
}

// First names the proxy after the first cluster of a slice parameter.
func First(clusters []common.Cluster) *v3.TcpProxyConfigurer { // want First:`sink params 0\.\[i\]\.Name\(\)->tcp_proxyv3\.TcpProxy_Cluster\.Cluster`
	return &v3.TcpProxyConfigurer{Splits: []common.Split{&splitAdapter{clusterName: clusters[0].Name()}}}
}

// Logged only logs the clusters' names: no sink.
func Logged(clusters ...common.Cluster) {
	for _, c := range clusters {
		println(c.Name())
	}
}
