package kong

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Every generated name costs one go-spew dump per hash. The baseline is
// Hash32 of one match, the dump a name cannot do without, so each
// generator's ratio to it shows what naming adds.

var (
	sink   string
	okSink bool
)

func BenchmarkHash32Baseline(b *testing.B) {
	m := pathPrefix("/foo")
	b.ReportAllocs()
	for b.Loop() {
		sink = Hash32(m)
	}
}

func BenchmarkControlPlaneHash(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = ControlPlaneHash(testCP)
	}
}

func BenchmarkServiceNameForHTTPRouteRule(b *testing.B) {
	route := httpRoute("default", "http-route")
	rule := gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{httpBackend("http-backend", 8080)}}
	b.ReportAllocs()
	for b.Loop() {
		sink = ServiceNameForHTTPRouteRule(testCP, route, rule)
	}
}

func BenchmarkRouteNameForHTTPRouteMatch(b *testing.B) {
	route := httpRoute("default", "http-route")
	pr := testParentRef()
	m := pathPrefix("/foo")
	b.ReportAllocs()
	for b.Loop() {
		sink = RouteNameForHTTPRouteMatch(testCP, route, pr, m, 2)
	}
}

func BenchmarkTargetName(b *testing.B) {
	ref := httpBackend("http-backend", 8080)
	b.ReportAllocs()
	for b.Loop() {
		sink = TargetName("http.default-http-backend-8080.1.cp1fbfa93f.29652d0c", "10.0.0.1", 8080, &ref)
	}
}

func BenchmarkPluginNameForHTTPRouteFilter(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = PluginNameForHTTPRouteFilter(headerModifier, "default", "request-transformer")
	}
}

func BenchmarkPluginBindingName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = PluginBindingName("http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02", "default.request-transformer.5c69e6e8")
	}
}

func BenchmarkParsePluginBindingName(b *testing.B) {
	name := goldenBindings[0][0]
	b.ReportAllocs()
	for b.Loop() {
		_, okSink = ParsePluginBindingName(name)
	}
}

func BenchmarkValidatePluginBindingName(b *testing.B) {
	tt := goldenBindings[1]
	b.ReportAllocs()
	for b.Loop() {
		okSink = ValidatePluginBindingName(tt[0], tt[1], tt[2], namePath) == nil
	}
}
