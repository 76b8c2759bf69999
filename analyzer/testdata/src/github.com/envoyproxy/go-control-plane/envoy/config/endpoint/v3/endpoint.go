// Package endpointv3 is a stub of github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3.
package endpointv3

type ClusterLoadAssignment struct {
	ClusterName string
}

func (x *ClusterLoadAssignment) GetClusterName() string {
	if x != nil {
		return x.ClusterName
	}
	return ""
}
