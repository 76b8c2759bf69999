// Package generator turns services into Envoy resources through the builders package. The names are
// computed here or in package names and travel through builder fields before they reach go-control-plane:
// krilint must report them here, where the value enters.
package generator

import (
	"fmt"
	"strconv"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/kriguard/kriguard/test/envoyvet/builders"
	"github.com/kriguard/kriguard/test/envoyvet/names"
)

// Service is what the generator is asked to expose.
type Service struct {
	Mesh, Namespace, Name string
	Address               string
	Port                  uint32
}

func (s Service) port() string { return strconv.FormatUint(uint64(s.Port), 10) }

// InboundListener is the shape issue 7 starts from: a ':' name built here, stored by the builder,
// written into Listener.Name by Build in another package.
func InboundListener(s Service) *listenerv3.Listener {
	return builders.NewListenerBuilder("v3",
		"inbound:"+s.Address+":"+s.port(), // krilint: colon [Listener.Name]
	).Build()
}

// defaultListener is built when the package is initialised.
var defaultListener = builders.NewInboundListener("default:listener") // krilint: colon [Listener.Name]

// Default returns the listener built at initialisation.
func Default() *listenerv3.Listener { return defaultListener }

// Deferred builds the listener later, inside a closure.
func Deferred(s Service) func() *listenerv3.Listener {
	return func() *listenerv3.Listener {
		return builders.NewInboundListener("lazy:" + s.Name) // krilint: colon [Listener.Name]
	}
}

// InboundListenerFromHelper takes the name from a helper whose result is "inbound:%s:%d"-shaped and passes
// it through a function that forwards it to the builder.
func InboundListenerFromHelper(s Service) *listenerv3.Listener {
	return builders.NewInboundListener(names.Inbound(s.Address, s.Port)) // krilint: colon [Listener.Name]
}

// InboundListenerFromLocal keeps the name in a local first.
func InboundListenerFromLocal(s Service) *listenerv3.Listener {
	name := names.Inbound(s.Address, s.Port)
	b := builders.NewListenerBuilder("v3", name) // krilint: colon [Listener.Name]
	return b.WithStatPrefix(names.Sanitize(name)).Build()
}

// MigratingListener has one definition of name with ':' and one without: either may reach the sink.
func MigratingListener(s Service, unified bool) *listenerv3.Listener {
	name := names.Inbound(s.Address, s.Port)
	if unified {
		name = names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, s.port())
	}
	return &listenerv3.Listener{Name: name} // krilint: colon [Listener.Name]
}

// UnifiedListener uses KRI names and internal names only.
func UnifiedListener(s Service) *listenerv3.Listener {
	name := names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, s.port())
	return builders.NewListenerBuilder("v3", name).
		WithStatPrefix(names.Sanitize(names.Inbound(s.Address, s.Port))).
		WithFilterChain(names.Internal("default")).
		Build()
}

// FilterChains names filter chains with a Sprintf whose constant format holds ':'.
func FilterChains(s Service) *listenerv3.Listener {
	return builders.NewListenerBuilder("v3", names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, "")).
		WithFilterChain(fmt.Sprintf("chain:%s", s.Name)). // krilint: colon [FilterChain.Name]
		Build()
}

// OutboundCluster builds a cluster and its load assignment from a legacy name.
func OutboundCluster(s Service) (*clusterv3.Cluster, error) {
	b := builders.NewClusterBuilder(names.Outbound(s.Name))        // krilint: colon [Cluster.Name|ClusterLoadAssignment.ClusterName]
	b.WithAltStatName(strings.Join([]string{s.Mesh, s.Name}, ":")) // krilint: colon [Cluster.AltStatName]
	if b.LoadAssignment() == nil {
		return nil, fmt.Errorf("cluster %s:%s has no load assignment", s.Mesh, s.Name)
	}
	return b.Build(), nil
}

// EDSCluster configures a cluster with functional options that write into the go-control-plane type.
func EDSCluster(s Service) *clusterv3.Cluster {
	return builders.NewCluster(names.KRI("msvc", s.Mesh, "", s.Namespace, s.Name, ""),
		builders.WithEDSServiceName("eds:"+s.Name), // krilint: colon [Cluster_EdsClusterConfig.ServiceName]
		builders.WithStatName(names.Internal(s.Name)),
	)
}

// VirtualHost names a virtual host that its builder reads back through a getter.
func VirtualHost(s Service) *routev3.VirtualHost {
	b := builders.NewVirtualHostBuilder(s.Name+":"+s.port(), s.Name) // krilint: colon [VirtualHost.Name]
	return b.Build()
}

// KRICluster passes a KRI built with a constant format: the literal parts fit the KRI fields.
func KRICluster(s Service) *clusterv3.Cluster {
	return builders.NewClusterBuilder(fmt.Sprintf("kri_msvc_%s__%s_%s_", s.Mesh, s.Namespace, s.Name)).Build()
}

// BadKRICluster claims to be a KRI but its literal type segment is upper case.
func BadKRICluster(s Service) *clusterv3.Cluster {
	return builders.NewClusterBuilder(fmt.Sprintf("kri_MSVC_%s__%s_%s_", s.Mesh, s.Namespace, s.Name)).Build() // krilint: not-kri [Cluster.Name|ClusterLoadAssignment.ClusterName]
}

// Routes fills a configuration struct whose fields end in RouteConfiguration.Name, VirtualHost.Name and
// RouteAction.Cluster.
func Routes(s Service) *routev3.RouteConfiguration {
	return builders.BuildRoutes(builders.RouteOptions{
		RouteConfigName: "kri_mhttpr_" + s.Mesh + "__" + s.Namespace + "_" + s.Name + "_",
		VirtualHost:     s.Name + ":" + s.port(), // krilint: colon [VirtualHost.Name]
		Domains:         []string{s.Name + ":" + s.port()},
		ClusterName:     names.Outbound(s.Name), // krilint: colon [RouteAction_Cluster.Cluster]
		Prefix:          "/api:v1",
	})
}

// RoutesByAssignment sets the same configuration fields one by one.
func RoutesByAssignment(s Service) *routev3.RouteConfiguration {
	var opts builders.RouteOptions
	opts.RouteConfigName = names.Join("routes", s.Name) // krilint: colon [RouteConfiguration.Name]
	opts.VirtualHost = names.Join(s.Name)
	opts.ClusterName = names.KRI("msvc", s.Mesh, "", s.Namespace, s.Name, "")
	return builders.BuildRoutes(opts)
}

// HTTPManager references a route configuration by a legacy name.
func HTTPManager(s Service) *hcmv3.HttpConnectionManager {
	return builders.HTTPConnectionManager(
		names.Sanitize(names.Inbound(s.Address, s.Port)),
		"routes:"+s.Name, // krilint: colon [Rds.RouteConfigName]
	)
}

// TCP proxies to a legacy cluster with a legacy stat prefix.
func TCP(s Service) *tcpv3.TcpProxy {
	return builders.TCPProxy(
		"tcp:"+s.Name,          // krilint: colon [TcpProxy.StatPrefix]
		names.Outbound(s.Name), // krilint: colon [TcpProxy_Cluster.Cluster]
	)
}

// Secrets builds a secret and its reference from a name made by a join helper.
func Secrets(s Service) (*tlsv3.Secret, *tlsv3.SdsSecretConfig) {
	b := builders.NewSecretBuilder(names.Secret(s.Mesh, s.Name)) // krilint: colon [Secret.Name|SdsSecretConfig.Name]
	return b.Build(), b.Ref()
}

// AccessLogs sends access logs to a cluster named in the legacy style.
func AccessLogs(s Service) {
	_ = builders.AccessLogService(names.Join("als", s.Mesh)) // krilint: colon [GrpcService_EnvoyGrpc.ClusterName]
	_ = builders.AccessLogService(names.Internal("access_log_sink"))
}

// PortListeners builds one listener per port, appending to the name in a loop.
func PortListeners(s Service, ports []string) []*listenerv3.Listener {
	var out []*listenerv3.Listener
	for _, port := range ports {
		name := "inbound"
		name += ":" + port
		out = append(out, builders.NewListenerBuilder("v3", name).Build()) // krilint: colon [Listener.Name]
	}
	return out
}

// ByProtocol picks a name per protocol; one branch is a legacy name.
func ByProtocol(s Service, protocol string) *clusterv3.Cluster {
	var name string
	switch protocol {
	case "grpc":
		name = names.KRI("msvc", s.Mesh, "", s.Namespace, s.Name, "grpc")
	case "tcp":
		name = names.Internal(s.Name + "_tcp")
	default:
		name = "outbound|" + s.port() + "||" + s.Name + ".svc.cluster.local:http"
	}
	return builders.NewClusterBuilder(name).Build() // krilint: colon [Cluster.Name|ClusterLoadAssignment.ClusterName]
}

// meshListenerBuilder embeds the builder: its promoted methods are the builder's.
type meshListenerBuilder struct {
	*builders.ListenerBuilder
	mesh string
}

// Embedded calls a promoted builder method.
func Embedded(s Service) *listenerv3.Listener {
	b := meshListenerBuilder{ListenerBuilder: builders.NewListenerBuilder("v3", names.Internal("mesh")), mesh: s.Mesh}
	b.WithFilterChain(b.mesh + ":chain") // krilint: colon [FilterChain.Name]
	return b.Build()
}

// Background builds listeners in a goroutine and on return.
func Background(s Service) {
	go builders.NewInboundListener("background:" + s.Name) // krilint: colon [Listener.Name]
	defer builders.NewInboundListener(names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, ""))
}
