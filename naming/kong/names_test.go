package kong

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The golden names below are Kong's operator's own: TestRefactorGoldenNames
// and its neighbours in Kong/kong-operator
// controller/hybridgateway/namegen/name_test.go (main of 2026-08-21), and,
// marked "derived", names computed by running that package's functions
// (and those of tag v2.1.0-alpha.0 for the legacy scheme) on the inputs
// written here.

const testCP = "test-cp"

func httpRoute(namespace, name string) *gwv1.HTTPRoute {
	return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func httpBackend(name string, port gwv1.PortNumber) gwv1.HTTPBackendRef {
	return gwv1.HTTPBackendRef{BackendRef: backend(name, port)}
}

func backend(name string, port gwv1.PortNumber) gwv1.BackendRef {
	return gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(name), Port: &port}}
}

func pathPrefix(path string) gwv1.HTTPRouteMatch {
	return gwv1.HTTPRouteMatch{Path: &gwv1.HTTPPathMatch{Type: new(gwv1.PathMatchPathPrefix), Value: new(path)}}
}

// testParentRef is the operator's testParentRef(&"listener-1").
func testParentRef() *gwv1.ParentReference {
	return &gwv1.ParentReference{Name: "test-gateway", Namespace: new(gwv1.Namespace("default")), SectionName: new(gwv1.SectionName("listener-1"))}
}

var headerModifier = gwv1.HTTPRouteFilter{
	Type:                  gwv1.HTTPRouteFilterRequestHeaderModifier,
	RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Set: []gwv1.HTTPHeader{{Name: "X-Test", Value: "test-value"}}},
}

var urlRewrite = gwv1.HTTPRouteFilter{
	Type: gwv1.HTTPRouteFilterURLRewrite,
	URLRewrite: &gwv1.HTTPURLRewriteFilter{Path: &gwv1.HTTPPathModifier{
		Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new("/echo"),
	}},
}

func TestHash(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"control plane test-cp", ControlPlaneHash("test-cp"), "1fbfa93f"},
		{"control plane multi-cp, unpadded", ControlPlaneHash("multi-cp"), "918460a"},
		{"control plane namespaced-cp", ControlPlaneHash("namespaced-cp"), "ba78230e"},
		// The seed's example: the matches of a rule routing PathPrefix /echo.
		{"seed matches", Hash32([]gwv1.HTTPRouteMatch{pathPrefix("/echo")}), "1b69eced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestGoldenNames(t *testing.T) {
	route := httpRoute("default", "http-route")
	basic := gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{httpBackend("http-backend", 8080)}}
	multi := gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{httpBackend("http-backend-2", 8080), httpBackend("http-backend-1", 8080)}}
	zero := gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{pathPrefix("/zero")}}
	timeout := gwv1.HTTPRouteRule{BackendRefs: basic.BackendRefs, Timeouts: &gwv1.HTTPRouteTimeouts{BackendRequest: new(gwv1.Duration("750ms"))}}
	timeout0 := gwv1.HTTPRouteRule{BackendRefs: basic.BackendRefs, Timeouts: &gwv1.HTTPRouteTimeouts{BackendRequest: new(gwv1.Duration("0s"))}}

	grpcRoute := &gwv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "grpc-route"}}
	grpcBasic := gwv1.GRPCRouteRule{BackendRefs: []gwv1.GRPCBackendRef{{BackendRef: backend("grpc-backend", 8080)}}}
	gmatch := gwv1.GRPCRouteMatch{Method: &gwv1.GRPCMethodMatch{Service: new("svc.Echo")}}

	tlsRoute := &gwv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "tls-route"}}
	tlsRule := gwv1.TLSRouteRule{BackendRefs: []gwv1.BackendRef{backend("tls-backend", 443)}}
	tcpRoute := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "tcp-route"}}
	tcpRule := gwv1.TCPRouteRule{BackendRefs: []gwv1.BackendRef{backend("tcp-backend", 443)}}
	udpRoute := &gwv1.UDPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "udp-route"}}
	udpRule := gwv1.UDPRouteRule{BackendRefs: []gwv1.BackendRef{backend("udp-backend", 443)}}

	longNS := gwv1.Namespace(strings.Repeat("n", 220))
	longRefs := []gwv1.HTTPBackendRef{httpBackend("service-a", 8080), httpBackend("service-b", 8080)}
	longRefs[0].Namespace, longRefs[1].Namespace = &longNS, &longNS
	kindRef := httpBackend("svc", 8080)
	kindRef.Kind = new(gwv1.Kind("ServiceImport"))

	upstream := ServiceNameForHTTPRouteRule(testCP, route, basic)
	bnf := ServiceNameForHTTPRouteRuleBackendNotFound(testCP, route, basic)
	termination := PluginNameForService(bnf, RequestTerminationPlugin)
	kongRoute := RouteNameForHTTPRouteMatch(testCP, route, testParentRef(), pathPrefix("/foo"), 2)
	plugin := PluginNameForHTTPRouteFilter(headerModifier, "default", "request-transformer")
	targetRef := httpBackend("http-backend", 8080)
	grpcTargetRef := gwv1.GRPCBackendRef{BackendRef: targetRef.BackendRef}
	plainTargetRef := targetRef.BackendRef

	echo := httpRoute("default", "httproute-echo")
	echoRule := gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{pathPrefix("/echo")}, BackendRefs: []gwv1.HTTPBackendRef{httpBackend("echo", 8080)}}
	echoRef := httpBackend("echo", 8080)

	tests := []struct {
		name string
		got  string
		want string
	}{
		// TestRefactorGoldenNames.
		{"HTTP upstream", UpstreamNameForHTTPRouteRule(testCP, route, basic), "http.default-http-backend-8080.1.cp1fbfa93f.29652d0c"},
		{"HTTP service", ServiceNameForHTTPRouteRule(testCP, route, basic), "http.default-http-backend-8080.1.cp1fbfa93f.29652d0c"},
		{"HTTP two backends", ServiceNameForHTTPRouteRule(testCP, route, multi), "http.default-http-backend-1-8080.2.cp1fbfa93f.6a6f4809"},
		{"HTTP match-only rule", UpstreamNameForHTTPRouteRule(testCP, route, zero), "http.cp1fbfa93f.49d1cfbf"},
		{"HTTP 750ms timeout", ServiceNameForHTTPRouteRule(testCP, route, timeout), "http.default-http-backend-8080.1.cp1fbfa93f.ea93d3e7"},
		{"HTTP backend not found", bnf, "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c"},
		{"gRPC upstream", UpstreamNameForGRPCRouteRule(testCP, grpcRoute, grpcBasic), "grpc.default-grpc-backend-8080.1.cp1fbfa93f.b6d9a138"},
		{"gRPC backend not found", ServiceNameForGRPCRouteRuleBackendNotFound(testCP, grpcRoute, grpcBasic), "grpc.default-grpc-backend-8080.1.cp1fbfa93f.bnf3748ad33.b6d9a138"},
		{"TLS upstream", ServiceNameForTLSRouteRule(testCP, tlsRoute, tlsRule), "tls.default-tls-backend-443.1.cp1fbfa93f.ea981935"},
		{"TLS route with parentRef", RouteNameForTLSRouteRule(testCP, tlsRoute, testParentRef(), tlsRule), "tls.default-tls-route.cp1fbfa93f.pr4557fd4c.7d7f1d3d"},
		{"TLS route", RouteNameForTLSRouteRule(testCP, tlsRoute, nil, tlsRule), "tls.default-tls-route.cp1fbfa93f.7d7f1d3d"},
		{"TCP upstream", ServiceNameForTCPRouteRule(testCP, tcpRoute, tcpRule), "tcp.default-tcp-backend-443.1.cp1fbfa93f.e8e7532f"},
		{"TCP route with parentRef", RouteNameForTCPRouteRule(testCP, tcpRoute, testParentRef(), tcpRule), "tcp.default-tcp-route.cp1fbfa93f.pr4557fd4c.196de16d"},
		{"TCP route", RouteNameForTCPRouteRule(testCP, tcpRoute, nil, tcpRule), "tcp.default-tcp-route.cp1fbfa93f.196de16d"},
		{"UDP upstream", ServiceNameForUDPRouteRule(testCP, udpRoute, udpRule), "udp.default-udp-backend-443.1.cp1fbfa93f.a1dd4f9f"},
		{"UDP route with parentRef", RouteNameForUDPRouteRule(testCP, udpRoute, testParentRef(), udpRule), "udp.default-udp-route.cp1fbfa93f.pr4557fd4c.f6d7e16d"},
		{"UDP route", RouteNameForUDPRouteRule(testCP, udpRoute, nil, udpRule), "udp.default-udp-route.cp1fbfa93f.f6d7e16d"},
		{"HTTP route, match /foo at 2", kongRoute, "http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02"},
		{"gRPC route, rule 1 match 3", RouteNameForGRPCRouteMatch(testCP, grpcRoute, testParentRef(), gmatch, 1, 3), "grpc.default-grpc-route.cp1fbfa93f.pr4557fd4c.a7d8418e.r01.m03"},
		// TestNewKongUpstreamNameForHTTPRoute.
		{"one backend", ServiceNameForHTTPRouteRule(testCP, httpRoute("default", "test-route"), gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{httpBackend("service1", 8080)}}), "http.default-service1-8080.1.cp1fbfa93f.e25441d7"},
		{"lowest backend shown, unpadded cp", ServiceNameForHTTPRouteRule("multi-cp", httpRoute("default", "test-route"), gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{httpBackend("service2", 9090), httpBackend("service1", 8080)}}), "http.default-service1-8080.2.cp918460a.2c5d1acf"},
		{"cross-namespace backend, unpadded hash", ServiceNameForHTTPRouteRule("namespaced-cp", httpRoute("default", "test-route"), gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "backend-service", Namespace: new(gwv1.Namespace("backend-ns"))}}}}}), "http.backend-ns-backend-service.1.cpba78230e.1f2a8c5"},
		{"backendless rule with a filter", ServiceNameForHTTPRouteRule("namespaced-cp", httpRoute("default", "test-route"), gwv1.HTTPRouteRule{
			BackendRefs: []gwv1.HTTPBackendRef{},
			Filters:     []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Set: []gwv1.HTTPHeader{{Name: "header", Value: "value"}}}}},
			Matches:     []gwv1.HTTPRouteMatch{pathPrefix("/prefix")},
		}), "http.cpba78230e.7f99a851"},
		// Derived.
		{"0s timeout", ServiceNameForHTTPRouteRule(testCP, route, timeout0), "http.default-http-backend-8080.1.cp1fbfa93f.4380edee"},
		{"backend kind shown", ServiceNameForHTTPRouteRule(testCP, route, gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{kindRef}}), "http.serviceimport-default-svc-8080.1.cp1fbfa93f.d3b73e8"},
		{"readable part cut", ServiceNameForHTTPRouteRule(testCP, route, gwv1.HTTPRouteRule{BackendRefs: longRefs}), "http." + strings.Repeat("n", 220) + "-service.cp1fbfa93f.202bb9d3"},
		{"readable part cut, backend not found", ServiceNameForHTTPRouteRuleBackendNotFound(testCP, route, gwv1.HTTPRouteRule{BackendRefs: longRefs}), "http." + strings.Repeat("n", 216) + ".cp1fbfa93f.bnfa610931f.202bb9d3"},
		{"gRPC match-only rule", ServiceNameForGRPCRouteRule(testCP, grpcRoute, gwv1.GRPCRouteRule{Matches: []gwv1.GRPCRouteMatch{gmatch}}), "grpc.cp1fbfa93f.53f82305"},
		{"HTTP route, one parent", RouteNameForHTTPRouteMatch(testCP, route, nil, pathPrefix("/foo"), 0), "http.default-http-route.cp1fbfa93f.5cff32e8.m00"},
		{"HTTP route, match 123", RouteNameForHTTPRouteMatch(testCP, route, nil, pathPrefix("/foo"), 123), "http.default-http-route.cp1fbfa93f.5cff32e8.m123"},
		{"HTTP route cut", RouteNameForHTTPRouteMatch(testCP, httpRoute(strings.Repeat("s", 63), strings.Repeat("n", 253)), testParentRef(), pathPrefix("/foo"), 0), "http." + strings.Repeat("s", 63) + "-" + strings.Repeat("n", 149) + ".cp1fbfa93f.pr4557fd4c.5cff32e8.m00"},
		{"gRPC route, empty match", RouteNameForGRPCRouteMatch(testCP, grpcRoute, nil, gwv1.GRPCRouteMatch{}, 0, 0), "grpc.default-grpc-route.cp1fbfa93f.8beb1fa4.r00.m00"},
		{"HTTP target", TargetName(upstream, "10.0.0.1", 8080, &targetRef), "http.default-http-backend-8080.1.cp1fbfa93f.29652d0c.bb0118c8"},
		{"gRPC target", TargetName("grpc.default-http-backend-8080.1.cp1fbfa93f.b6d9a138", "10.0.0.1", 8080, &grpcTargetRef), "grpc.default-http-backend-8080.1.cp1fbfa93f.b6d9a138.44707390"},
		{"TCP target", TargetName("tcp.default-tcp-backend-443.1.cp1fbfa93f.e8e7532f", "10.0.0.2", 443, &plainTargetRef), "tcp.default-tcp-backend-443.1.cp1fbfa93f.e8e7532f.63d3738d"},
		{"target of a long upstream", TargetName(strings.Repeat("a", 250), "10.0.0.1", 8080, &targetRef), "ngnd65edce5fee0e3a0"},
		{"plugin", plugin, "default.request-transformer.5c69e6e8"},
		{"one filter, merged", PluginNameForHTTPRouteFilters([]gwv1.HTTPRouteFilter{headerModifier}, "default", "request-transformer"), "default.request-transformer.5c69e6e8"},
		{"merged filters", PluginNameForHTTPRouteFilters([]gwv1.HTTPRouteFilter{urlRewrite, headerModifier}, "default", "request-transformer"), "default.request-transformer.f4f77aae"},
		{"merged filters reordered", PluginNameForHTTPRouteFilters([]gwv1.HTTPRouteFilter{headerModifier, urlRewrite}, "default", "request-transformer"), "default.request-transformer.ae5729fa"},
		{"gRPC filter plugin", PluginNameForGRPCRouteFilter(gwv1.GRPCRouteFilter{Type: gwv1.GRPCRouteFilterRequestHeaderModifier, RequestHeaderModifier: headerModifier.RequestHeaderModifier}, "default", "request-transformer"), "default.request-transformer.2328f3d0"},
		{"request-termination plugin", termination, "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.request-termination"},
		{"request-termination binding", PluginBindingName(bnf, termination), "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.request-termination"},
		{"route binding", PluginBindingName(kongRoute, plugin), "http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02.default.request-transformer.5c69e6e8"},
		{"long binding", PluginBindingName(strings.Repeat("r", 200), strings.Repeat("p", 60)), "ngnd5488ee27803bb09"},
		{"long service plugin", PluginNameForService(strings.Repeat("s", 240), RequestTerminationPlugin), "ngn1f8aa4652a45869b"},
		// Derived from v2.1.0-alpha.0.
		{"legacy upstream", LegacyUpstreamName(testCP, echoRule), "cp1fbfa93f.b65e58a8"},
		{"legacy service", LegacyServiceName(testCP, echoRule), "http.cp1fbfa93f.b65e58a8"},
		{"legacy route", LegacyRouteName(testCP, echo, echoRule), "http.default-httproute-echo.cp1fbfa93f.1b69eced"},
		{"legacy plugin", LegacyPluginName(headerModifier), "pl5c69e6e8"},
		{"legacy binding", PluginBindingName(LegacyRouteName(testCP, echo, echoRule), LegacyPluginName(headerModifier)), "http.default-httproute-echo.cp1fbfa93f.1b69eced.pl5c69e6e8"},
		{"legacy target", TargetName(LegacyUpstreamName(testCP, echoRule), "10.0.0.1", 8080, &echoRef), "cp1fbfa93f.b65e58a8.8ae414c4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got  %q\nwant %q", tt.got, tt.want)
			}
		})
	}
}
