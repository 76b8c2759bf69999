// Package generator turns services into Envoy resources through the builders package, two
// packages away from the go-control-plane fields. Findings are reported here, where a ':' enters.
package generator

import (
	"fmt"
	"strconv"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"cp/builders"
	"cp/names"
)

type Service struct {
	Mesh, Namespace, Name string
	Address               string
	Port                  uint32
}

func (s Service) port() string { return strconv.FormatUint(uint64(s.Port), 10) }

func InboundListener(s Service) *listenerv3.Listener {
	return builders.NewListenerBuilder("v3",
		"inbound:"+s.Address+":"+s.port(), // want `listenerv3\.Listener\.Name gets "inbound:\*:\*" \(literal "inbound:"\) through builders\.NewListenerBuilder parameter name: contains ':'`
	).Build()
}

func InboundListenerFromHelper(s Service) *listenerv3.Listener {
	return builders.NewInboundListener(names.Inbound(s.Address, s.Port)) // want `listenerv3\.Listener\.Name gets "inbound:\*:\*" \(result of names\.Inbound\) through builders\.NewInboundListener parameter name: contains ':'`
}

func InboundListenerFromLocal(s Service) *listenerv3.Listener {
	name := names.Inbound(s.Address, s.Port)
	b := builders.NewListenerBuilder("v3", name) // want `listenerv3\.Listener\.Name gets "inbound:\*:\*" \(result of names\.Inbound\) through builders\.NewListenerBuilder parameter name`
	return b.WithStatPrefix(names.Sanitize(name)).Build()
}

// MigratingListener: one definition of name holds ':', the other is a KRI; either may reach.
func MigratingListener(s Service, unified bool) *listenerv3.Listener {
	name := names.Inbound(s.Address, s.Port)
	if unified {
		name = names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, s.port())
	}
	return &listenerv3.Listener{Name: name} // want `listenerv3\.Listener\.Name gets "inbound:\*:\*" \(variable name \(result of names\.Inbound\)\): contains ':'`
}

// Overwritten: the ':' definition never reaches the sink.
func Overwritten(s Service) *listenerv3.Listener {
	name := names.Inbound(s.Address, s.Port)
	name = names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, "")
	return &listenerv3.Listener{Name: name}
}

func UnifiedListener(s Service) *listenerv3.Listener {
	name := names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, s.port())
	return builders.NewListenerBuilder("v3", name).
		WithStatPrefix(names.Sanitize(names.Inbound(s.Address, s.Port))).
		WithFilterChain(names.Internal("default")).
		Build()
}

func FilterChains(s Service) *listenerv3.Listener {
	return builders.NewListenerBuilder("v3", names.KRI("dp", s.Mesh, "", s.Namespace, s.Name, "")).
		WithFilterChain(fmt.Sprintf("chain:%s", s.Name)). // want `listenerv3\.FilterChain\.Name gets "chain:\*" \(fmt\.Sprintf format "chain:%s"\) through \(\*builders\.ListenerBuilder\)\.WithFilterChain parameter name: contains ':'`
		Build()
}

func OutboundCluster(s Service) error {
	b := builders.NewClusterBuilder(names.Outbound(s.Name))        // want `gets "outbound:\*" \(result of names\.Outbound\) through builders\.NewClusterBuilder parameter name: contains ':'`
	b.WithAltStatName(strings.Join([]string{s.Mesh, s.Name}, ":")) // want `clusterv3\.Cluster\.AltStatName gets "\*:\*" \(strings\.Join with separator ":"\) through \(\*builders\.ClusterBuilder\)\.WithAltStatName parameter name: contains ':'`
	if b.LoadAssignment() == nil {
		return fmt.Errorf("cluster %s:%s has no load assignment", s.Mesh, s.Name)
	}
	return nil
}

func KRICluster(s Service) {
	builders.NewClusterBuilder(fmt.Sprintf("kri_msvc_%s__%s_%s_", s.Mesh, s.Namespace, s.Name)).Build()
}

func BadKRICluster(s Service) {
	builders.NewClusterBuilder(fmt.Sprintf("kri_MSVC_%s__%s_%s_", s.Mesh, s.Namespace, s.Name)).Build() // want `gets "kri_MSVC_\*__\*_\*_" \(fmt\.Sprintf format "kri_MSVC_%s__%s_%s_"\) through builders\.NewClusterBuilder parameter name: starts with "kri_" but cannot form a KRI: kri\.type: must contain only lowercase letters \(found 'M'\)`
}

func Routes(s Service) *routev3.RouteConfiguration {
	return builders.BuildRoutes(builders.RouteOptions{
		RouteConfigName: "kri_mhttpr_" + s.Mesh + "__" + s.Namespace + "_" + s.Name + "_",
		VirtualHost:     s.Name + ":" + s.port(), // want `routev3\.VirtualHost\.Name gets "\*:\*" \(literal ":"\) through builders\.RouteOptions\.VirtualHost: contains ':'`
		ClusterName:     names.Outbound(s.Name),  // want `routev3\.RouteAction_Cluster\.Cluster gets "outbound:\*" \(result of names\.Outbound\) through builders\.RouteOptions\.ClusterName: contains ':'`
		Prefix:          "/api:v1",
	})
}

func RoutesByAssignment(s Service) *routev3.RouteConfiguration {
	var opts builders.RouteOptions
	opts.RouteConfigName = names.Join("routes", s.Name) // want `routev3\.RouteConfiguration\.Name gets "routes:\*" \(result of names\.Join\) through builders\.RouteOptions\.RouteConfigName: contains ':'`
	opts.VirtualHost = names.Join(s.Name)
	opts.ClusterName = names.KRI("msvc", s.Mesh, "", s.Namespace, s.Name, "")
	return builders.BuildRoutes(opts)
}

func Managers(s Service) {
	builders.HTTPConnectionManager(
		names.Sanitize(names.Inbound(s.Address, s.Port)),
		"routes:"+s.Name, // want `http_connection_managerv3\.Rds\.RouteConfigName gets "routes:\*" \(literal "routes:"\) through builders\.HTTPConnectionManager parameter routeConfigName: contains ':'`
	)
	builders.TCPProxy(
		"tcp:"+s.Name,          // want `tcp_proxyv3\.TcpProxy\.StatPrefix gets "tcp:\*" \(literal "tcp:"\) through builders\.TCPProxy parameter statPrefix: contains ':'`
		names.Outbound(s.Name), // want `tcp_proxyv3\.TcpProxy_Cluster\.Cluster gets "outbound:\*" \(result of names\.Outbound\) through builders\.TCPProxy parameter cluster: contains ':'`
	)
	builders.SanitizedStatPrefix("inbound:" + s.Name)
	builders.ReassignedStatPrefix("inbound:" + s.Name)
}

func Secrets(s Service) {
	b := builders.NewSecretBuilder(names.Secret(s.Mesh, s.Name)) // want `gets "secret:\*:\*" \(result of names\.Secret\) through builders\.NewSecretBuilder parameter name: contains ':'`
	b.Build()
	b.Ref()
}

func Observability(s Service) {
	builders.AccessLogService(names.Join("als", s.Mesh)) // want `corev3\.GrpcService_EnvoyGrpc\.ClusterName gets "als:\*" \(result of names\.Join\) through builders\.AccessLogService parameter cluster: contains ':'`
	builders.AccessLogService(names.Internal("access_log_sink"))
	builders.AccessLogService(names.Join(s.Mesh))
	builders.Zipkin("zipkin", "http://zipkin:9411/api/v2/spans")
	if name, err := names.Legacy(s.Mesh); err == nil {
		builders.Zipkin(name, "/") // want `tracev3\.ZipkinConfig\.CollectorCluster gets "\*:legacy" \(result of names\.Legacy\) through builders\.Zipkin parameter cluster: contains ':'.* \(a reference to a cluster named elsewhere\)`
	}
}

func GetterAndOptions(s Service) {
	var rb builders.RouteBuilder
	rb.WithName("route:" + s.Name).Build()                                  // want `routev3\.Route\.Name gets "route:\*" \(literal "route:"\) through \(\*builders\.RouteBuilder\)\.WithName parameter name: contains ':'`
	builders.NewListener(builders.WithListenerName(names.Outbound(s.Name))) // want `listenerv3\.Listener\.Name gets "outbound:\*" \(result of names\.Outbound\) through builders\.WithListenerName parameter name: contains ':'`
}
