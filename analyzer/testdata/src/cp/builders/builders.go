package builders // want package:"has sinks"

import (
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tracev3 "github.com/envoyproxy/go-control-plane/envoy/config/trace/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

// ListenerBuilder keeps its names in fields until Build.
type ListenerBuilder struct {
	version    string
	name       string
	statPrefix string
	chains     []*listenerv3.FilterChain
}

func NewListenerBuilder(version, name string) *ListenerBuilder { // want NewListenerBuilder:`sink params 1->listenerv3.Listener.Name` NewListenerBuilder:`copies 0->version`
	return &ListenerBuilder{version: version, name: name}
}

func (b *ListenerBuilder) WithStatPrefix(prefix string) *ListenerBuilder { // want WithStatPrefix:`sink params 0->listenerv3.Listener.StatPrefix`
	b.statPrefix = prefix
	return b
}

func (b *ListenerBuilder) WithFilterChain(name string, filters ...*listenerv3.Filter) *ListenerBuilder { // want WithFilterChain:`sink params 0->listenerv3.FilterChain.Name`
	b.chains = append(b.chains, &listenerv3.FilterChain{Name: name, Filters: filters})
	return b
}

// Version is not a name.
func (b *ListenerBuilder) Version() string { return b.version } // want Version:`returns field version`

func (b *ListenerBuilder) Build() *listenerv3.Listener {
	return &listenerv3.Listener{Name: b.name, StatPrefix: b.statPrefix, FilterChains: b.chains}
}

// NewInboundListener passes its name on to another sink parameter.
func NewInboundListener(name string) *listenerv3.Listener { // want NewInboundListener:`sink params 0->listenerv3.Listener.Name`
	return NewListenerBuilder("v3", name).Build()
}

// ClusterBuilder writes one name to the cluster and to its load assignment.
type ClusterBuilder struct {
	name        string
	altStatName string
}

func NewClusterBuilder(name string) *ClusterBuilder { // want NewClusterBuilder:`sink params 0->(clusterv3.Cluster.Name|endpointv3.ClusterLoadAssignment.ClusterName)`
	b := &ClusterBuilder{}
	b.name = name
	return b
}

func (b *ClusterBuilder) WithAltStatName(name string) *ClusterBuilder { // want WithAltStatName:`sink params 0->clusterv3.Cluster.AltStatName`
	n := name
	b.altStatName = n
	return b
}

func (b *ClusterBuilder) Build() *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: b.name, AltStatName: b.altStatName}
}

func (b *ClusterBuilder) LoadAssignment() *endpointv3.ClusterLoadAssignment {
	cla := &endpointv3.ClusterLoadAssignment{}
	cla.ClusterName = b.name
	return cla
}

// RouteOptions is a configuration struct whose fields end in go-control-plane name fields.
type RouteOptions struct {
	RouteConfigName string // want RouteConfigName:`sink field ->routev3.RouteConfiguration.Name`
	VirtualHost     string // want VirtualHost:`sink field ->routev3.VirtualHost.Name`
	ClusterName     string // want ClusterName:`sink field ->routev3.RouteAction_Cluster.Cluster`
	// Prefix is a path prefix, not a name.
	Prefix string
}

func BuildRoutes(opts RouteOptions) *routev3.RouteConfiguration {
	action := &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: opts.ClusterName}}
	route := &routev3.Route{
		Match:  &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: opts.Prefix}},
		Action: &routev3.Route_Route{Route: action},
	}
	return &routev3.RouteConfiguration{
		Name:         opts.RouteConfigName,
		VirtualHosts: []*routev3.VirtualHost{{Name: opts.VirtualHost, Routes: []*routev3.Route{route}}},
	}
}

func HTTPConnectionManager(statPrefix, routeConfigName string) *hcmv3.HttpConnectionManager { // want HTTPConnectionManager:`sink params 0->http_connection_managerv3.HttpConnectionManager.StatPrefix 1->http_connection_managerv3.Rds.RouteConfigName`
	return &hcmv3.HttpConnectionManager{
		StatPrefix:     statPrefix,
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{RouteConfigName: routeConfigName}},
	}
}

func TCPProxy(statPrefix, cluster string) *tcpv3.TcpProxy { // want TCPProxy:`sink params 0->tcp_proxyv3.TcpProxy.StatPrefix 1->tcp_proxyv3.TcpProxy_Cluster.Cluster`
	p := &tcpv3.TcpProxy{StatPrefix: statPrefix}
	p.ClusterSpecifier = &tcpv3.TcpProxy_Cluster{Cluster: cluster}
	return p
}

// SecretBuilder is a value receiver builder.
type SecretBuilder struct {
	name string
}

func NewSecretBuilder(name string) SecretBuilder { // want NewSecretBuilder:`sink params 0->tlsv3.(Secret|SdsSecretConfig).Name`
	return SecretBuilder{name: name}
}

func (b SecretBuilder) Build() *tlsv3.Secret { return &tlsv3.Secret{Name: b.name} }

func (b SecretBuilder) Ref() *tlsv3.SdsSecretConfig { return &tlsv3.SdsSecretConfig{Name: b.name} }

func AccessLogService(cluster string) *corev3.GrpcService { // want AccessLogService:`sink params 0->corev3.GrpcService_EnvoyGrpc.ClusterName`
	return &corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
		EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster},
	}}
}

func Zipkin(cluster, endpoint string) *tracev3.ZipkinConfig { // want Zipkin:`sink params 0->tracev3.ZipkinConfig.CollectorCluster`
	return &tracev3.ZipkinConfig{CollectorCluster: cluster, CollectorEndpoint: endpoint}
}

// SanitizedStatPrefix sanitizes before writing: its parameter is no sink.
func SanitizedStatPrefix(prefix string) *hcmv3.HttpConnectionManager {
	return &hcmv3.HttpConnectionManager{StatPrefix: sanitize(prefix)}
}

// ReassignedStatPrefix overwrites its parameter with a sanitized copy before writing it: the
// argument never reaches the sink.
func ReassignedStatPrefix(prefix string) *tcpv3.TcpProxy {
	prefix = sanitize(prefix)
	return &tcpv3.TcpProxy{StatPrefix: prefix}
}

func sanitize(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c == ':' {
			out[i] = '_'
		}
	}
	return string(out)
}

// RouteBuilder reads its name back through a getter: still a copy of the field.
type RouteBuilder struct {
	name string
}

func (b *RouteBuilder) WithName(name string) *RouteBuilder { // want WithName:`sink params 0->routev3.Route.Name` WithName:`copies 0->name`
	b.name = name
	return b
}

func (b *RouteBuilder) Name() string { return b.name } // want Name:`returns field name`

func (b *RouteBuilder) Build() *routev3.Route { return &routev3.Route{Name: b.Name()} }

// Functional options: the option closes over its parameter and writes it to a field.
type ListenerOpt func(*listenerOpts)

type listenerOpts struct {
	name string
}

func WithListenerName(name string) ListenerOpt { // want WithListenerName:`sink params 0->listenerv3.Listener.Name`
	return func(o *listenerOpts) { o.name = name }
}

func NewListener(opts ...ListenerOpt) *listenerv3.Listener {
	o := &listenerOpts{}
	for _, opt := range opts {
		opt(o)
	}
	return &listenerv3.Listener{Name: o.name}
}
