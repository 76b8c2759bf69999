package kong

import (
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

var (
	sinkString string
	sinkBool   bool
)

// benchRoute is a typical rule: two matches with a header, two backends
// and a redirect filter.
func benchRoute() (*gwv1.HTTPRoute, *gwv1.HTTPRouteRule) {
	r := route("default", "httproute-echo", gwv1.HTTPRouteRule{
		Matches: []gwv1.HTTPRouteMatch{
			pathPrefix("/echo"),
			{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchExact), Value: ptr("/health")}, Headers: []gwv1.HTTPHeaderMatch{{Name: "x-env", Value: "prod"}}},
		},
		BackendRefs: []gwv1.HTTPBackendRef{backend("echo-v2", 8080), backend("echo-v1", 8080)},
		Filters: []gwv1.HTTPRouteFilter{{
			Type:            gwv1.HTTPRouteFilterRequestRedirect,
			RequestRedirect: &gwv1.HTTPRequestRedirectFilter{Scheme: ptr("https"), Hostname: ptr(gwv1.PreciseHostname("example.com"))},
		}},
	})
	return r, &r.Spec.Rules[0]
}

func BenchmarkRouteName(b *testing.B) {
	r, rule := benchRoute()
	b.ReportAllocs()
	for b.Loop() {
		sinkString = RouteName(testCP, r, rule)
	}
}

func BenchmarkRouteNameLong(b *testing.B) {
	r, rule := benchRoute()
	r.Namespace, r.Name = strings.Repeat("n", 63), strings.Repeat("r", 253)
	b.ReportAllocs()
	for b.Loop() {
		sinkString = RouteName(testCP, r, rule)
	}
}

func BenchmarkServiceName(b *testing.B) {
	r, rule := benchRoute()
	b.ReportAllocs()
	for b.Loop() {
		sinkString = ServiceName(testCP, r, rule)
	}
}

func BenchmarkUpstreamName(b *testing.B) {
	r, rule := benchRoute()
	b.ReportAllocs()
	for b.Loop() {
		sinkString = UpstreamName(testCP, r, rule)
	}
}

func BenchmarkTargetName(b *testing.B) {
	r, rule := benchRoute()
	up := ServiceName(testCP, r, rule)
	b.ReportAllocs()
	for b.Loop() {
		sinkString = TargetName(up, r, &rule.BackendRefs[0], "10.244.1.17", 8080)
	}
}

func BenchmarkPluginName(b *testing.B) {
	_, rule := benchRoute()
	b.ReportAllocs()
	for b.Loop() {
		sinkString = PluginName(&rule.Filters[0])
	}
}

func BenchmarkPluginNameFor(b *testing.B) {
	config := []byte(`{"remove": {"headers": ["x-debug"]}, "add": {"headers": ["x-a:1", "x-b:2"]}}`)
	b.ReportAllocs()
	for b.Loop() {
		sinkString, _ = PluginNameFor("request-transformer", config)
	}
}

func BenchmarkPluginBindingName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkString = PluginBindingName("default-httproute-echo.cp431ef96.1b69eced", "pl72ae1b9a")
	}
}

func BenchmarkParseRouteName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBool = ParseRouteName("default-httproute-echo.cp431ef96.1b69eced")
	}
}

func BenchmarkParseServiceName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBool = ParseServiceName("cp431ef96.5a7cc34c")
	}
}

func BenchmarkParseTargetName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBool = ParseTargetName("cp431ef96.5a7cc34c.46cb9d28")
	}
}

func BenchmarkParsePluginName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBool = ParsePluginName("pl72ae1b9a")
	}
}

func BenchmarkParsePluginBindingName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, sinkBool = ParsePluginBindingName("default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a")
	}
}

func BenchmarkValidatePluginBindingName(b *testing.B) {
	const route = "default-httproute-echo.cp431ef96.1b69eced"
	b.ReportAllocs()
	for b.Loop() {
		sinkBool = ValidatePluginBindingName(route+".pl72ae1b9a", route, "pl72ae1b9a", namePath) == nil
	}
}
