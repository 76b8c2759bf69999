// Package clusterv3 is a stub of github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3.
package clusterv3

import endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"

type Cluster struct {
	Name             string
	AltStatName      string
	EdsClusterConfig *Cluster_EdsClusterConfig
	LoadAssignment   *endpointv3.ClusterLoadAssignment
}

func (x *Cluster) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

type Cluster_EdsClusterConfig struct {
	ServiceName string
}
