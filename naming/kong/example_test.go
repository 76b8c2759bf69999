package kong_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kriguard/kriguard/naming/kong"
)

// The names Kong's operator gives the objects of one HTTPRoute rule.
func Example() {
	route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "http-route"}}
	port := gwv1.PortNumber(8080)
	rule := gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{
		BackendObjectReference: gwv1.BackendObjectReference{Name: "http-backend", Port: &port},
	}}}}
	prefix := gwv1.PathMatchPathPrefix
	path := "/foo"
	match := gwv1.HTTPRouteMatch{Path: &gwv1.HTTPPathMatch{Type: &prefix, Value: &path}}

	upstream := kong.UpstreamNameForHTTPRouteRule("test-cp", route, rule)
	kongRoute := kong.RouteNameForHTTPRouteMatch("test-cp", route, nil, match, 0)
	fmt.Println(upstream)
	fmt.Println(kongRoute)
	fmt.Println(kong.TargetName(upstream, "10.0.0.1", 8080, &rule.BackendRefs[0]))
	// Output:
	// http.default-http-backend-8080.1.cp1fbfa93f.29652d0c
	// http.default-http-route.cp1fbfa93f.5cff32e8.m00
	// http.default-http-backend-8080.1.cp1fbfa93f.29652d0c.bb0118c8
}

func ExampleValidatePluginBindingName() {
	route := "http.default-http-route.cp1fbfa93f.5cff32e8.m00"
	plugin := "default.request-transformer.5c69e6e8"
	p := field.NewPath("metadata", "name")
	fmt.Println(kong.ValidatePluginBindingName(route+"."+plugin, route, plugin, p))
	fmt.Println(kong.ValidatePluginBindingName(route+"."+plugin, route, "default.cors.1", p))
	// Output:
	// []
	// [metadata.name: Invalid value: "http.default-http-route.cp1fbfa93f.5cff32e8.m00.default.request-transformer.5c69e6e8": must be the name of its route or service, a dot and the name of its plugin: "http.default-http-route.cp1fbfa93f.5cff32e8.m00.default.cors.1"]
}

func ExampleControlPlaneHash() {
	fmt.Println(kong.ControlPlaneHash("test-cp"))
	// Output: 1fbfa93f
}
