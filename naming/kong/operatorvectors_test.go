package kong

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestOperatorNameVectors holds every generator to the names Kong's operator (Kong/kong-operator
// @cefc384, controller/hybridgateway/namegen) computed for routes of each Gateway API kind with
// names, namespaces and backends up to their length limits (testdata/README.md), one assertion per
// line.
func TestOperatorNameVectors(t *testing.T) {
	f, err := os.Open("testdata/operator-names.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr := &gwv1.ParentReference{Name: "test-gateway", Namespace: new(gwv1.Namespace("default")), SectionName: new(gwv1.SectionName("listener-1"))}
	match := pathPrefix("/foo")
	gm := gwv1.GRPCRouteMatch{Method: &gwv1.GRPCMethodMatch{Service: new("svc")}}
	filter := gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Set: []gwv1.HTTPHeader{{Name: "X-Test", Value: "v"}}}}
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		var v struct{ Kind, Fn, Namespace, Name, Backend, Out string }
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		n++
		meta := metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name}
		br := backend(v.Backend, 8080)
		httpRule := gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: br}}}
		grpcRule := gwv1.GRPCRouteRule{BackendRefs: []gwv1.GRPCBackendRef{{BackendRef: br}}}
		http := &gwv1.HTTPRoute{ObjectMeta: meta}
		grpc := &gwv1.GRPCRoute{ObjectMeta: meta}
		var got string
		switch v.Kind + " " + v.Fn {
		case "HTTPRoute upstream":
			got = UpstreamNameForHTTPRouteRule(testCP, http, httpRule)
		case "HTTPRoute service":
			got = ServiceNameForHTTPRouteRule(testCP, http, httpRule)
		case "HTTPRoute service-bnf":
			got = ServiceNameForHTTPRouteRuleBackendNotFound(testCP, http, httpRule)
		case "HTTPRoute route":
			got = RouteNameForHTTPRouteMatch(testCP, http, pr, match, 0)
		case "HTTPRoute target":
			got = TargetName(UpstreamNameForHTTPRouteRule(testCP, http, httpRule), "10.0.0.1", 8080, &httpRule.BackendRefs[0])
		case "HTTPRoute plugin-binding":
			got = PluginBindingName(RouteNameForHTTPRouteMatch(testCP, http, pr, match, 0), PluginNameForHTTPRouteFilter(filter, v.Namespace, "request-transformer"))
		case "HTTPRoute service-plugin":
			got = PluginNameForService(ServiceNameForHTTPRouteRule(testCP, http, httpRule), RequestTerminationPlugin)
		case "GRPCRoute upstream":
			got = UpstreamNameForGRPCRouteRule(testCP, grpc, grpcRule)
		case "GRPCRoute service":
			got = ServiceNameForGRPCRouteRule(testCP, grpc, grpcRule)
		case "GRPCRoute service-bnf":
			got = ServiceNameForGRPCRouteRuleBackendNotFound(testCP, grpc, grpcRule)
		case "GRPCRoute route":
			got = RouteNameForGRPCRouteMatch(testCP, grpc, pr, gm, 1, 2)
		case "TLSRoute service":
			got = ServiceNameForTLSRouteRule(testCP, &gwv1.TLSRoute{ObjectMeta: meta}, gwv1.TLSRouteRule{BackendRefs: []gwv1.BackendRef{br}})
		case "TLSRoute route":
			got = RouteNameForTLSRouteRule(testCP, &gwv1.TLSRoute{ObjectMeta: meta}, pr, gwv1.TLSRouteRule{BackendRefs: []gwv1.BackendRef{br}})
		case "TCPRoute service":
			got = ServiceNameForTCPRouteRule(testCP, &gwv1.TCPRoute{ObjectMeta: meta}, gwv1.TCPRouteRule{BackendRefs: []gwv1.BackendRef{br}})
		case "TCPRoute route":
			got = RouteNameForTCPRouteRule(testCP, &gwv1.TCPRoute{ObjectMeta: meta}, pr, gwv1.TCPRouteRule{BackendRefs: []gwv1.BackendRef{br}})
		case "UDPRoute service":
			got = ServiceNameForUDPRouteRule(testCP, &gwv1.UDPRoute{ObjectMeta: meta}, gwv1.UDPRouteRule{BackendRefs: []gwv1.BackendRef{br}})
		case "UDPRoute route":
			got = RouteNameForUDPRouteRule(testCP, &gwv1.UDPRoute{ObjectMeta: meta}, pr, gwv1.UDPRouteRule{BackendRefs: []gwv1.BackendRef{br}})
		case "Gateway certificate":
			if v.Name == "gw" {
				got = CertificateName(v.Name, 443, "https")
			} else {
				got = CertificateName(v.Name, 65535, strings.Repeat("l", 63))
			}
		default:
			t.Fatalf("unknown vector %s %s", v.Kind, v.Fn)
		}
		if got != v.Out {
			t.Errorf("%s %s (namespace %d, name %d, backend %d characters) = %q, the operator's is %q", v.Kind, v.Fn, len(v.Namespace), len(v.Name), len(v.Backend), got, v.Out)
		}
		if errs := ValidateName(got, nil); len(errs) > 0 {
			t.Errorf("%s %s: kriguard refuses the operator's name %q: %v", v.Kind, v.Fn, got, errs)
		}
	}
	if n < 514 {
		t.Errorf("read %d vectors", n)
	}
}
