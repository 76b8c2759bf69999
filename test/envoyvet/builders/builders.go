// Package builders holds the builder layer of the fixture control plane. No name is written here as a
// literal: builders keep the names they are given in fields and write them into go-control-plane types
// when Build is called, so krilint must carry the sink back to the callers in other packages.
package builders

import (
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// ListenerBuilder builds a Listener; its name travels in a field until Build.
type ListenerBuilder struct {
	version    string
	name       string
	statPrefix string
	chains     []*listenerv3.FilterChain
}

// NewListenerBuilder starts a listener named name.
func NewListenerBuilder(version, name string) *ListenerBuilder {
	return &ListenerBuilder{version: version, name: name}
}

// WithStatPrefix sets the listener's stat prefix.
func (b *ListenerBuilder) WithStatPrefix(prefix string) *ListenerBuilder {
	b.statPrefix = prefix
	return b
}

// WithFilterChain adds a filter chain named name.
func (b *ListenerBuilder) WithFilterChain(name string, filters ...*listenerv3.Filter) *ListenerBuilder {
	b.chains = append(b.chains, &listenerv3.FilterChain{Name: name, Filters: filters})
	return b
}

// Build writes the collected names into the Listener.
func (b *ListenerBuilder) Build() *listenerv3.Listener {
	return &listenerv3.Listener{
		Name:         b.name,
		StatPrefix:   b.statPrefix,
		FilterChains: b.chains,
	}
}

// NewInboundListener passes its name on to another sink parameter.
func NewInboundListener(name string) *listenerv3.Listener {
	return NewListenerBuilder("v3", name).Build()
}

// NewSanitizedListener sanitizes its name itself: its parameter does not reach the sink by copies, so its
// callers may pass anything.
func NewSanitizedListener(name string) *listenerv3.Listener {
	return &listenerv3.Listener{Name: strings.ReplaceAll(name, ":", "_")}
}

// ClusterBuilder builds a Cluster and its load assignment from one name.
type ClusterBuilder struct {
	name        string
	altStatName string
}

// NewClusterBuilder starts a cluster named name.
func NewClusterBuilder(name string) *ClusterBuilder {
	b := &ClusterBuilder{}
	b.name = name
	return b
}

// WithAltStatName sets the name the cluster's stats use.
func (b *ClusterBuilder) WithAltStatName(name string) *ClusterBuilder {
	b.altStatName = name
	return b
}

// Build returns the Cluster.
func (b *ClusterBuilder) Build() *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: b.name, AltStatName: b.altStatName}
}

// LoadAssignment returns the cluster's endpoints.
func (b *ClusterBuilder) LoadAssignment() *endpointv3.ClusterLoadAssignment {
	cla := &endpointv3.ClusterLoadAssignment{}
	cla.ClusterName = b.name
	return cla
}

// ClusterOption configures a Cluster by writing straight into the go-control-plane type.
type ClusterOption func(*clusterv3.Cluster)

// WithEDSServiceName names the EDS resource the cluster reads its endpoints from.
func WithEDSServiceName(name string) ClusterOption {
	return func(c *clusterv3.Cluster) {
		c.EdsClusterConfig = &clusterv3.Cluster_EdsClusterConfig{ServiceName: name}
	}
}

// WithStatName sets the name the cluster's stats use.
func WithStatName(name string) ClusterOption {
	return func(c *clusterv3.Cluster) { c.AltStatName = name }
}

// NewCluster returns a cluster named name, configured by opts.
func NewCluster(name string, opts ...ClusterOption) *clusterv3.Cluster {
	c := &clusterv3.Cluster{Name: name}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// VirtualHostBuilder reads its name back through a getter when it builds.
type VirtualHostBuilder struct {
	name    string
	domains []string
}

// NewVirtualHostBuilder starts a virtual host named name.
func NewVirtualHostBuilder(name string, domains ...string) *VirtualHostBuilder {
	return &VirtualHostBuilder{name: name, domains: domains}
}

// Name returns the virtual host's name.
func (b *VirtualHostBuilder) Name() string { return b.name }

// Build returns the VirtualHost.
func (b *VirtualHostBuilder) Build() *routev3.VirtualHost {
	return &routev3.VirtualHost{Name: b.Name(), Domains: b.domains}
}

// RouteOptions configures a route configuration. Its fields are sinks because BuildRoutes writes them
// into go-control-plane name fields.
type RouteOptions struct {
	RouteConfigName string
	VirtualHost     string
	Domains         []string
	ClusterName     string
	// Prefix is a path prefix, not a name: it may hold ':'.
	Prefix string
}

// BuildRoutes returns a route configuration with one virtual host and one route to opts.ClusterName.
func BuildRoutes(opts RouteOptions) *routev3.RouteConfiguration {
	action := &routev3.RouteAction{
		ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: opts.ClusterName},
	}
	route := &routev3.Route{
		Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: opts.Prefix}},
		Action: &routev3.Route_Route{Route: action},
	}
	return &routev3.RouteConfiguration{
		Name: opts.RouteConfigName,
		VirtualHosts: []*routev3.VirtualHost{{
			Name:    opts.VirtualHost,
			Domains: opts.Domains,
			Routes:  []*routev3.Route{route},
		}},
	}
}

// HTTPConnectionManager returns a connection manager that fetches routeConfigName over RDS.
func HTTPConnectionManager(statPrefix, routeConfigName string) *hcmv3.HttpConnectionManager {
	return &hcmv3.HttpConnectionManager{
		StatPrefix: statPrefix,
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{
			Rds: &hcmv3.Rds{RouteConfigName: routeConfigName},
		},
	}
}

// TCPProxy returns a TCP proxy to cluster.
func TCPProxy(statPrefix, cluster string) *tcpv3.TcpProxy {
	p := &tcpv3.TcpProxy{StatPrefix: statPrefix}
	p.ClusterSpecifier = &tcpv3.TcpProxy_Cluster{Cluster: cluster}
	return p
}

// SecretBuilder builds a Secret and the SDS reference to it.
type SecretBuilder struct {
	name string
}

// NewSecretBuilder starts a secret named name.
func NewSecretBuilder(name string) SecretBuilder {
	return SecretBuilder{name: name}
}

// Build returns the Secret.
func (b SecretBuilder) Build() *tlsv3.Secret {
	return &tlsv3.Secret{Name: b.name}
}

// Ref returns an SDS reference to the secret.
func (b SecretBuilder) Ref() *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: b.name}
}

// AccessLogService returns a gRPC service on the Envoy cluster named cluster.
func AccessLogService(cluster string) *corev3.GrpcService {
	return &corev3.GrpcService{
		TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
			EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster},
		},
	}
}
