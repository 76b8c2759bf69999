// Package direct writes names straight into go-control-plane fields.
package direct

import (
	"fmt"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tracev3 "github.com/envoyproxy/go-control-plane/envoy/config/trace/v3"
	hcv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
)

// adminListener is a named constant: its value is read from type information.
const adminListener = "admin:9901"

var defaultRoutes = &routev3.RouteConfiguration{Name: "default:routes"} // want `routev3\.RouteConfiguration\.Name gets "default:routes" \(literal "default:routes"\): contains ':'`

func Listeners(addr string, port uint32) []*listenerv3.Listener {
	l := &listenerv3.Listener{
		Name:         "inbound:10.0.0.1:8080", // want `listenerv3\.Listener\.Name gets "inbound:10\.0\.0\.1:8080" \(literal "inbound:10\.0\.0\.1:8080"\): contains ':'`
		StatPrefix:   "inbound_10.0.0.1_8080", // want `listenerv3\.Listener\.StatPrefix gets "inbound_10\.0\.0\.1_8080" .*: holds '\.'`
		FilterChains: []*listenerv3.FilterChain{{Name: "chain:http"}}, // want `listenerv3\.FilterChain\.Name gets "chain:http"`
	}
	admin := &listenerv3.Listener{Name: adminListener} // want `listenerv3\.Listener\.Name gets "admin:9901" \(constant adminListener = "admin:9901"\): contains ':'`
	out := &listenerv3.Listener{}
	out.Name = fmt.Sprintf("outbound:%s:%d", addr, port) // want `listenerv3\.Listener\.Name gets "outbound:\*:\*" \(fmt\.Sprintf format "outbound:%s:%d"\): contains ':'`
	out.StatPrefix = fmt.Sprintf("outbound_%s_%d", addr, port)
	return []*listenerv3.Listener{l, admin, out}
}

func Clusters(service string, port int) []*clusterv3.Cluster {
	short := &clusterv3.Cluster{Name: "kri_msvc_mesh-1_backend"} // want `clusterv3\.Cluster\.Name gets "kri_msvc_mesh-1_backend" \(literal "kri_msvc_mesh-1_backend"\): starts with "kri_" but is not a KRI: kri: Invalid value: "kri_msvc_mesh-1_backend": must have exactly 7 '_'-separated segments`
	joined := &clusterv3.Cluster{
		Name: strings.Join([]string{"outbound", service, fmt.Sprint(port)}, ":"), // want `clusterv3\.Cluster\.Name gets "outbound:\*:\*" \(strings\.Join with separator ":"\): contains ':'`
	}
	joined.AltStatName = "outbound:" + service                               // want `clusterv3\.Cluster\.AltStatName gets "outbound:\*"`
	internal := &clusterv3.Cluster{Name: "_kuma:admin"}                      // want `clusterv3\.Cluster\.Name gets "_kuma:admin" \(literal "_kuma:admin"\): contains ':'`
	upper := &clusterv3.Cluster{Name: "kri_msvc_Mesh-1__kuma-demo_backend_"} // want `starts with "kri_" but is not a KRI: kri\.mesh: Invalid value: "Mesh-1"`
	good := &clusterv3.Cluster{Name: "kri_msvc_mesh-1__kuma-demo_backend_"}
	escaped := &clusterv3.Cluster{Name: "esc\x3aaped"}                                        // want `clusterv3\.Cluster\.Name gets "esc:aped"`
	raw := &clusterv3.Cluster{Name: `raw:name`}                                               // want `clusterv3\.Cluster\.Name gets "raw:name"`
	raw.EdsClusterConfig = &clusterv3.Cluster_EdsClusterConfig{ServiceName: "eds:" + service} // want `clusterv3\.Cluster_EdsClusterConfig\.ServiceName gets "eds:\*"`
	cla := &endpointv3.ClusterLoadAssignment{}
	cla.ClusterName = service + ":" + "8080" // want `endpointv3\.ClusterLoadAssignment\.ClusterName gets "\*:8080" \(literal ":"\): contains ':'`
	raw.LoadAssignment = cla
	return []*clusterv3.Cluster{short, joined, internal, upper, good, escaped, raw}
}

func Routes(service string) *routev3.RouteConfiguration {
	return &routev3.RouteConfiguration{
		Name: "routes:" + service, // want `routev3\.RouteConfiguration\.Name gets "routes:\*"`
		VirtualHosts: []*routev3.VirtualHost{{
			Name:    fmt.Sprintf("%s:80", service), // want `routev3\.VirtualHost\.Name gets "\*:80" \(fmt\.Sprintf format "%s:80"\)`
			Domains: []string{service + ":80"},
			Routes: []*routev3.Route{{
				Name: "route:default", // want `routev3\.Route\.Name gets "route:default"`
				Action: &routev3.Route_Route{Route: &routev3.RouteAction{
					ClusterSpecifier:      &routev3.RouteAction_Cluster{Cluster: "outbound:" + service},               // want `routev3\.RouteAction_Cluster\.Cluster gets "outbound:\*"`
					RequestMirrorPolicies: []*routev3.RouteAction_RequestMirrorPolicy{{Cluster: "mirror:" + service}}, // want `routev3\.RouteAction_RequestMirrorPolicy\.Cluster gets "mirror:\*"`
				}},
			}, {
				Action: &routev3.Route_Route{Route: &routev3.RouteAction{
					ClusterSpecifier: &routev3.RouteAction_WeightedClusters{WeightedClusters: &routev3.WeightedCluster{
						Clusters: []*routev3.WeightedCluster_ClusterWeight{{Name: "weighted:" + service}}, // want `routev3\.WeightedCluster_ClusterWeight\.Name gets "weighted:\*"`
					}},
				}},
			}},
		}},
	}
}

func Others(service, meshName string) {
	_ = &tcpv3.TcpProxy{
		StatPrefix:       "tcp_" + service,
		ClusterSpecifier: &tcpv3.TcpProxy_Cluster{Cluster: service + ":9000"}, // want `tcp_proxyv3\.TcpProxy_Cluster\.Cluster gets "\*:9000"`
	}
	_ = &tcpv3.TcpProxy_WeightedCluster_ClusterWeight{Name: "w:" + service} // want `tcp_proxyv3\.TcpProxy_WeightedCluster_ClusterWeight\.Name gets "w:\*"`
	secret := &tlsv3.Secret{Name: "cert:" + service}                        // want `tlsv3\.Secret\.Name gets "cert:\*"`
	ref := &tlsv3.SdsSecretConfig{}
	ref.Name = "cert:" + service                                                                                                        // want `tlsv3\.SdsSecretConfig\.Name gets "cert:\*"`
	_ = &tlsv3.CommonTlsContext{TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{ref, {Name: "kri_mtls_" + meshName + "____"}}} // want `tlsv3\.SdsSecretConfig\.Name gets "kri_mtls_\*____" \(literal "kri_mtls_"\): starts with "kri_" but cannot form a KRI: kri\.name: is required and empty`
	_ = secret
	_ = &corev3.GrpcService_EnvoyGrpc{ClusterName: "als:" + meshName}                                                    // want `corev3\.GrpcService_EnvoyGrpc\.ClusterName gets "als:\*"`
	_ = &corev3.HttpUri{HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: "jwks:" + meshName}, Uri: "https://jwks:443"} // want `corev3\.HttpUri_Cluster\.Cluster gets "jwks:\*"`
	_ = &tracev3.DatadogConfig{CollectorCluster: "datadog:" + meshName, ServiceName: "svc:x"}                            // want `tracev3\.DatadogConfig\.CollectorCluster gets "datadog:\*"`
	_ = &tracev3.LightstepConfig{CollectorCluster: "_lightstep:" + meshName}                                             // want `tracev3\.LightstepConfig\.CollectorCluster gets "_lightstep:\*"`
	// Unkeyed literal: the first field is Name.
	_ = &clusterv3.Cluster_EdsClusterConfig{"unkeyed:" + meshName} // want `clusterv3\.Cluster_EdsClusterConfig\.ServiceName gets "unkeyed:\*"`
}

// The keys of HealthCheck.ClusterMinHealthyPercentages are cluster names; other map keys are not.
func HealthChecks(service string) *hcv3.HealthCheck {
	hc := &hcv3.HealthCheck{ClusterMinHealthyPercentages: map[string]*typev3.Percent{
		"outbound:" + service: {Value: 50}, // want `a key of health_checkv3\.HealthCheck\.ClusterMinHealthyPercentages gets "outbound:\*"`
		"_internal":           {Value: 10},
	}}
	hc.ClusterMinHealthyPercentages["backup:"+service] = &typev3.Percent{Value: 5} // want `a key of health_checkv3\.HealthCheck\.ClusterMinHealthyPercentages gets "backup:\*"`
	other := map[string]*typev3.Percent{"not:a:name": nil}
	other["x:y"] = nil
	return hc
}
