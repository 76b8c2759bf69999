// Package direct writes names straight into go-control-plane fields: composite literals, assignments,
// named constants, Sprintf, strings.Join and '+'.
package direct

import (
	"fmt"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	healthcheckv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
)

// adminListener is a named constant: krilint reads its value from type information.
const adminListener = "admin:9901"

// ClusterName is a named string type; its constants are still read from type information.
type ClusterName string

const legacyCluster ClusterName = "legacy:cluster"

const (
	meshName     = "mesh-1"
	kriSeparator = "_"
)

// Listeners covers listener and filter chain names.
func Listeners(addr string, port int) []*listenerv3.Listener {
	l := &listenerv3.Listener{
		Name:       "inbound:10.0.0.1:8080", // krilint: colon
		StatPrefix: "inbound_10_0_0_1_8080", // krilint(strict): legacy
		FilterChains: []*listenerv3.FilterChain{
			{Name: "chain:http"}, // krilint: colon
			{Name: "_default"},
		},
	}
	admin := &listenerv3.Listener{Name: adminListener} // krilint: colon
	outbound := &listenerv3.Listener{}
	outbound.Name = fmt.Sprintf("outbound:%s:%d", addr, port)       // krilint: colon
	outbound.StatPrefix = fmt.Sprintf("outbound_%s_%d", addr, port) // krilint(strict): legacy
	kri := &listenerv3.Listener{
		Name: "kri_dp_" + meshName + "__kuma-demo_backend-01_" + fmt.Sprint(port),
	}
	self := &listenerv3.Listener{Name: "self_inbound_8080", StatPrefix: "self_inbound.10.0.0.1"} // krilint: stat-unsafe [Listener.StatPrefix]
	legacy := &listenerv3.Listener{Name: "inbound-8080"}                                         // krilint(strict): legacy
	return []*listenerv3.Listener{l, admin, outbound, kri, self, legacy}
}

// Clusters covers cluster names, alt stat names and load assignments.
func Clusters(service string, port int) []*clusterv3.Cluster {
	good := &clusterv3.Cluster{
		Name:        "kri_msvc_mesh-1__kuma-demo_backend_http",
		AltStatName: "_backend_http",
	}
	short := &clusterv3.Cluster{Name: "kri_msvc_mesh-1_backend"} // krilint: not-kri
	joined := &clusterv3.Cluster{
		Name: strings.Join([]string{"outbound", service, fmt.Sprint(port)}, ":"), // krilint: colon
	}
	joined.AltStatName = "outbound:" + service                               // krilint: colon
	internal := &clusterv3.Cluster{Name: "_kuma:admin"}                      // krilint: colon
	upper := &clusterv3.Cluster{Name: "kri_msvc_Mesh-1__kuma-demo_backend_"} // krilint: not-kri
	built := &clusterv3.Cluster{
		Name: strings.Join([]string{"kri", "msvc", meshName, "", "kuma-demo", service, ""}, kriSeparator),
	}
	typed := &clusterv3.Cluster{Name: string(legacyCluster)}                 // krilint: colon
	sprint := &clusterv3.Cluster{Name: fmt.Sprint("outbound", ":", service)} // krilint: colon
	// A dotted name splits the cluster's stats, unless an alt_stat_name stands in for it; the one
	// Kuma writes, the name sanitized, is no KRI and is not reported for it.
	dotted := &clusterv3.Cluster{Name: "kri_extsvc_mesh-1__kuma-system_httpbin.org_443"} // krilint: stat-unsafe [Cluster.Name]
	sanitized := &clusterv3.Cluster{
		Name:        "kri_extsvc_mesh-1__kuma-system_httpbin.org_443",
		AltStatName: "kri_extsvc_mesh-1__kuma-system_httpbin_org_443",
	}
	return []*clusterv3.Cluster{good, short, joined, internal, upper, built, typed, sprint, dotted, sanitized}
}

// Endpoints covers ClusterLoadAssignment.ClusterName.
func Endpoints(service string) *endpointv3.ClusterLoadAssignment {
	cla := &endpointv3.ClusterLoadAssignment{}
	cla.ClusterName = service + ":" + "8080" // krilint: colon
	return cla
}

// Routes covers route configurations, virtual hosts, routes and route actions.
func Routes(service string) *routev3.RouteConfiguration {
	return &routev3.RouteConfiguration{
		Name: "routes:" + service, // krilint: colon
		VirtualHosts: []*routev3.VirtualHost{{
			Name:    fmt.Sprintf("%s:80", service), // krilint: colon
			Domains: []string{service + ":80"},
			Routes: []*routev3.Route{{
				Name:  "route:default", // krilint: colon
				Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
				Action: &routev3.Route_Route{Route: &routev3.RouteAction{
					ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "outbound:" + service}, // krilint: colon
				}},
			}},
		}},
	}
}

// Filters covers stat prefixes and the reference fields of the network filters.
func Filters(service string) (*hcmv3.HttpConnectionManager, *tcpv3.TcpProxy) {
	hcm := &hcmv3.HttpConnectionManager{
		StatPrefix: "http:" + service, // krilint: colon
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{
			RouteConfigName: "routes:" + service, // krilint: colon
		}},
	}
	tcp := &tcpv3.TcpProxy{
		StatPrefix:       "tcp_" + service,                                    // krilint(strict): legacy
		ClusterSpecifier: &tcpv3.TcpProxy_Cluster{Cluster: service + ":9000"}, // krilint: colon
	}
	return hcm, tcp
}

// Secrets covers secret names and SDS references.
func Secrets(service string) (*tlsv3.Secret, *tlsv3.SdsSecretConfig) {
	secret := &tlsv3.Secret{Name: "cert:" + service} // krilint: colon
	ref := &tlsv3.SdsSecretConfig{}
	ref.Name = "cert:" + service // krilint: colon
	return secret, ref
}

// GRPC covers a gRPC service's Envoy cluster.
func GRPC() *corev3.GrpcService {
	return &corev3.GrpcService{
		TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{
			ClusterName: "als:" + meshName, // krilint: colon
		}},
	}
}

// HealthCheck covers a map whose keys are cluster names.
func HealthCheck(service string) *healthcheckv3.HealthCheck {
	hc := &healthcheckv3.HealthCheck{
		ClusterMinHealthyPercentages: map[string]*typev3.Percent{
			"outbound:" + service:                         {Value: 50}, // krilint: colon [ClusterMinHealthyPercentages]
			"kri_msvc_mesh-1__kuma-demo_" + service + "_": {Value: 50},
		},
	}
	hc.ClusterMinHealthyPercentages["legacy:"+service] = &typev3.Percent{Value: 10} // krilint: colon
	return hc
}
