// Package corev3 is a stub of github.com/envoyproxy/go-control-plane/envoy/config/core/v3 with the real
// names and types of the fields krilint reads.
package corev3

type GrpcService struct {
	TargetSpecifier isGrpcService_TargetSpecifier
}

type isGrpcService_TargetSpecifier interface{ isGrpcService_TargetSpecifier() }

type GrpcService_EnvoyGrpc_ struct {
	EnvoyGrpc *GrpcService_EnvoyGrpc
}

func (*GrpcService_EnvoyGrpc_) isGrpcService_TargetSpecifier() {}

type GrpcService_EnvoyGrpc struct {
	ClusterName string
	Authority   string
}

func (x *GrpcService_EnvoyGrpc) GetClusterName() string {
	if x != nil {
		return x.ClusterName
	}
	return ""
}

type HttpUri struct {
	Uri              string
	HttpUpstreamType isHttpUri_HttpUpstreamType
}

type isHttpUri_HttpUpstreamType interface{ isHttpUri_HttpUpstreamType() }

type HttpUri_Cluster struct {
	Cluster string
}

func (*HttpUri_Cluster) isHttpUri_HttpUpstreamType() {}

type Address struct {
	Address isAddress_Address
}

type isAddress_Address interface{ isAddress_Address() }

type Address_SocketAddress struct {
	SocketAddress *SocketAddress
}

func (*Address_SocketAddress) isAddress_Address() {}

type SocketAddress struct {
	Address       string
	PortSpecifier isSocketAddress_PortSpecifier
}

type isSocketAddress_PortSpecifier interface{ isSocketAddress_PortSpecifier() }

type SocketAddress_PortValue struct {
	PortValue uint32
}

func (*SocketAddress_PortValue) isSocketAddress_PortSpecifier() {}

type ConfigSource struct {
	ResourceApiVersion int32
}
