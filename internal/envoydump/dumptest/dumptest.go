package dumptest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"

	adminv3 "github.com/envoyproxy/go-control-plane/envoy/admin/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// names are the names the dumps carry, by role. Many break the Envoy-name rule on purpose; they are
// data (names.json) rather than Go literals so that krilint, which rightly reports such literals
// handed to go-control-plane types, checks this package like any other.
var names = func() map[string]string {
	var m map[string]string
	if err := json.Unmarshal(namesJSON, &m); err != nil {
		panic(fmt.Sprintf("dumptest: names.json: %v", err)) // a broken embedded file is a build defect
	}
	return m
}()

//go:embed names.json
var namesJSON []byte

func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(err) // only for messages of registered types, built here
	}
	return a
}

// KumaSidecar builds a config dump the way Envoy prints one for a Kuma sidecar: listeners with an
// HTTP connection manager and a TCP proxy, clusters, a route configuration, secrets and, when eds
// is set, endpoints. Names cover KRIs (valid and not), legacy names with ':', internal "_" names
// and the accepted prefixes.
func KumaSidecar(eds bool) []byte {
	router := mustAny(&routerv3.Router{})
	hcm := &hcmv3.HttpConnectionManager{
		StatPrefix: names["backend"],
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{
			RouteConfigName: names["backendRoutes"],
			ConfigSource:    &corev3.ConfigSource{ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}},
		}},
		HttpFilters: []*hcmv3.HttpFilter{{Name: "envoy.filters.http.router", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: router}}},
	}
	inbound := &listenerv3.Listener{
		Name: names["inboundListener"],
		FilterChains: []*listenerv3.FilterChain{{
			Name: names["inboundChain"],
			Filters: []*listenerv3.Filter{{
				Name:       "envoy.filters.network.http_connection_manager",
				ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(hcm)},
			}},
		}},
	}
	tcp := &tcpv3.TcpProxy{
		StatPrefix: names["internalStats"],
		ClusterSpecifier: &tcpv3.TcpProxy_WeightedClusters{WeightedClusters: &tcpv3.TcpProxy_WeightedCluster{
			Clusters: []*tcpv3.TcpProxy_WeightedCluster_ClusterWeight{
				{Name: names["db"], Weight: 1},
				{Name: names["dbLegacy"], Weight: 1},
			},
		}},
	}
	outbound := &listenerv3.Listener{
		Name: names["outboundListener"],
		FilterChains: []*listenerv3.FilterChain{{
			Filters: []*listenerv3.Filter{{
				Name:       "envoy.filters.network.tcp_proxy",
				ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(tcp)},
			}},
		}},
	}
	listeners := &adminv3.ListenersConfigDump{
		VersionInfo: "1",
		DynamicListeners: []*adminv3.ListenersConfigDump_DynamicListener{
			{Name: inbound.Name, ActiveState: &adminv3.ListenersConfigDump_DynamicListenerState{Listener: mustAny(inbound), LastUpdated: timestamppb.New(timestamppb.Now().AsTime())}},
			{Name: outbound.Name, ActiveState: &adminv3.ListenersConfigDump_DynamicListenerState{Listener: mustAny(outbound)}},
		},
	}
	backend := &clusterv3.Cluster{
		Name:                 names["backend"],
		AltStatName:          names["backendStats"],
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:     &clusterv3.Cluster_EdsClusterConfig{ServiceName: names["backend"]},
		TransportSocket: &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{
			TypedConfig: mustAny(&tlsv3.UpstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
				TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{Name: names["caSecret"]}},
			}}),
		}},
	}
	ads := &clusterv3.Cluster{Name: names["adsCluster"]}
	clusters := &adminv3.ClustersConfigDump{
		StaticClusters: []*adminv3.ClustersConfigDump_StaticCluster{
			{Cluster: mustAny(ads)},
			{Cluster: mustAny(&clusterv3.Cluster{Name: names["internalCluster"]})},
		},
		DynamicActiveClusters: []*adminv3.ClustersConfigDump_DynamicCluster{{Cluster: mustAny(backend)}},
	}
	rc := &routev3.RouteConfiguration{
		Name: names["backendRoutes"],
		VirtualHosts: []*routev3.VirtualHost{{
			Name:    names["virtualHost"],
			Domains: []string{"*"},
			Routes: []*routev3.Route{{
				Name:  names["route"],
				Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}},
				Action: &routev3.Route_Route{Route: &routev3.RouteAction{
					ClusterSpecifier: &routev3.RouteAction_WeightedClusters{WeightedClusters: &routev3.WeightedCluster{
						Clusters: []*routev3.WeightedCluster_ClusterWeight{{Name: names["backend"], Weight: wrapperspb.UInt32(100)}},
					}},
					RequestMirrorPolicies: []*routev3.RouteAction_RequestMirrorPolicy{{Cluster: names["mirror"]}},
				}},
			}},
		}},
	}
	routes := &adminv3.RoutesConfigDump{DynamicRouteConfigs: []*adminv3.RoutesConfigDump_DynamicRouteConfig{{RouteConfig: mustAny(rc)}}}
	secrets := &adminv3.SecretsConfigDump{DynamicActiveSecrets: []*adminv3.SecretsConfigDump_DynamicSecret{{
		Name:   names["caSecret"],
		Secret: mustAny(&tlsv3.Secret{Name: names["caSecret"]}),
	}}}
	dump := &adminv3.ConfigDump{Configs: []*anypb.Any{mustAny(listeners), mustAny(clusters), mustAny(routes), mustAny(secrets)}}
	if eds {
		cla := &endpointv3.ClusterLoadAssignment{ClusterName: names["backend"]}
		dump.Configs = append(dump.Configs, mustAny(&adminv3.EndpointsConfigDump{
			DynamicEndpointConfigs: []*adminv3.EndpointsConfigDump_DynamicEndpointConfig{{EndpointConfig: mustAny(cla)}},
		}))
	}
	b, err := protojson.MarshalOptions{UseProtoNames: true, Indent: "  "}.Marshal(dump)
	if err != nil {
		panic(err)
	}
	return b
}

// WithUnknownFilter adds, to the first listener's first filter chain of a dump KumaSidecar built, a network filter of a type
// no registry knows, as a dump from an Envoy with a custom extension has.
func WithUnknownFilter(dump []byte) ([]byte, error) {
	var d map[string]any
	if err := json.Unmarshal(dump, &d); err != nil {
		return nil, fmt.Errorf("decoding the dump: %w", err)
	}
	chain := d["configs"].([]any)[0].(map[string]any)["dynamic_listeners"].([]any)[0].(map[string]any)["active_state"].(map[string]any)["listener"].(map[string]any)["filter_chains"].([]any)[0].(map[string]any)
	chain["filters"] = append(chain["filters"].([]any), map[string]any{
		"name": "acme.custom",
		"typed_config": map[string]any{
			"@type":       "type.googleapis.com/acme.filters.v1.Custom",
			"stat_prefix": "not:checked",
		},
	})
	return json.Marshal(d)
}

// AdminHandler answers as an Envoy admin interface of a Kuma sidecar does at /config_dump: the
// dump of KumaSidecar(false), or KumaSidecar(true) for ?include_eds; 404 for any other path.
func AdminHandler() http.Handler {
	plain, eds := KumaSidecar(false), KumaSidecar(true)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/config_dump" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Has("include_eds") {
			_, _ = w.Write(eds)
			return
		}
		_, _ = w.Write(plain)
	})
}
