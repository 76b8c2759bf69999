package kong_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kriguard/kriguard/naming/kong"
)

// Example builds every Kong object name for one rule of an HTTPRoute, as a
// hybrid gateway controller would.
func Example() {
	prefix := gwv1.PathMatchPathPrefix
	path := "/echo"
	port := gwv1.PortNumber(80)
	route := &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "httproute-echo"},
		Spec: gwv1.HTTPRouteSpec{Rules: []gwv1.HTTPRouteRule{{
			Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: &prefix, Value: &path}}},
			BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{
				BackendObjectReference: gwv1.BackendObjectReference{Name: "echo", Port: &port},
			}}},
			Filters: []gwv1.HTTPRouteFilter{{
				Type:                  gwv1.HTTPRouteFilterRequestHeaderModifier,
				RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Remove: []string{"x-debug"}},
			}},
		}}},
	}
	rule := &route.Spec.Rules[0]
	cp := kong.ControlPlaneID("kong", "cp")

	routeName := kong.RouteName(cp, route, rule)
	upstream := kong.UpstreamName(cp, route, rule)
	plugin := kong.PluginName(&rule.Filters[0])
	fmt.Println(routeName)
	fmt.Println(kong.ServiceName(cp, route, rule))
	fmt.Println(upstream)
	fmt.Println(kong.TargetName(upstream, route, &rule.BackendRefs[0], "10.0.0.7", 8080))
	fmt.Println(plugin)
	fmt.Println(kong.PluginBindingName(routeName, plugin))
	// Output:
	// default-httproute-echo.cpeac575c8.872cd013
	// cpeac575c8.05abd94f
	// cpeac575c8.05abd94f
	// cpeac575c8.05abd94f.d9f9f59a
	// pl76083207
	// default-httproute-echo.cpeac575c8.872cd013.pl76083207
}

func ExamplePluginNameFor() {
	// What a KongPlugin object holds: its plugin and its configuration.
	name, err := kong.PluginNameFor("request-transformer", []byte(`{"remove": {"headers": ["x-debug"]}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(name)
	// Member order and white space do not matter.
	same, _ := kong.PluginNameFor("request-transformer", []byte(`{"remove":{"headers":["x-debug"]}}`))
	fmt.Println(same == name)
	// Output:
	// pl2a50543b
	// true
}

func ExampleParsePluginBindingName() {
	// Kong's operator writes hashes without zero padding; both are recognised.
	for _, name := range []string{
		"default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a",
		"default-httproute-echo.pl72ae1b9a",
	} {
		p, ok := kong.ParsePluginBindingName(name)
		fmt.Printf("%v route=%q control-plane=%q matches=%q plugin=%q\n", ok, p.Route, p.RouteParts.ControlPlane, p.RouteParts.Matches, p.Plugin)
	}
	// Output:
	// true route="default-httproute-echo.cp431ef96.1b69eced" control-plane="431ef96" matches="1b69eced" plugin="pl72ae1b9a"
	// false route="" control-plane="" matches="" plugin=""
}

func ExampleValidatePluginBindingName() {
	name := field.NewPath("metadata", "name")
	const route = "default-httproute-echo.cp431ef96.1b69eced"
	fmt.Println(kong.ValidatePluginBindingName(route+".pl72ae1b9a", route, "pl72ae1b9a", name))
	fmt.Println(kong.ValidatePluginBindingName(route+".pl72ae1b9a", route, "pl00000001", name).ToAggregate())
	// Output:
	// []
	// metadata.name: Invalid value: "default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a": must be the name of its route, a dot and the name of its plugin: "default-httproute-echo.cp431ef96.1b69eced.pl00000001"
}
