package e2e

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/kriguard/kriguard/naming/kong"
)

// kongNames are the names Kong's operator gives the objects of HTTPRoute kong-demo/echo (rule:
// PathPrefix /echo, backend echo:8080, a RequestHeaderModifier filter) on control plane kong-cp,
// computed by naming/kong, whose names are tested byte for byte against the operator's own.
type kongNames struct {
	upstream, backendNotFound, route, plugin, target, termination string
}

func operatorNames() kongNames {
	route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "kong-demo", Name: "echo"}}
	port := gwv1.PortNumber(8080)
	prefix, path := gwv1.PathMatchPathPrefix, "/echo"
	filter := gwv1.HTTPRouteFilter{
		Type:                  gwv1.HTTPRouteFilterRequestHeaderModifier,
		RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Set: []gwv1.HTTPHeader{{Name: "X-Test", Value: "test-value"}}},
	}
	rule := gwv1.HTTPRouteRule{
		Matches:     []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: &prefix, Value: &path}}},
		Filters:     []gwv1.HTTPRouteFilter{filter},
		BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "echo", Port: &port}}}},
	}
	n := kongNames{
		upstream:        kong.UpstreamNameForHTTPRouteRule("kong-cp", route, rule),
		backendNotFound: kong.ServiceNameForHTTPRouteRuleBackendNotFound("kong-cp", route, rule),
		route:           kong.RouteNameForHTTPRouteMatch("kong-cp", route, nil, rule.Matches[0], 0),
		plugin:          kong.PluginNameForHTTPRouteFilter(filter, "kong-demo", "request-transformer"),
	}
	n.target = kong.TargetName(n.upstream, "10.0.0.12", 8080, &rule.BackendRefs[0])
	n.termination = kong.PluginNameForService(n.backendNotFound, kong.RequestTerminationPlugin)
	return n
}

// kongRoute returns a KongRoute for the path /echo.
func kongRoute(namespace, name string) *unstructured.Unstructured {
	return object(kongAPIVersion, "KongRoute", namespace, name, nil, map[string]any{
		"controlPlaneRef": kongControlPlaneRef(),
		"paths":           []any{"/echo"},
		"protocols":       []any{"http"},
	})
}

// kongUpstream returns a KongUpstream.
func kongUpstream(namespace, name string) *unstructured.Unstructured {
	return object(kongAPIVersion, "KongUpstream", namespace, name, nil, map[string]any{
		"controlPlaneRef": kongControlPlaneRef(),
	})
}

// kongServicePluginBinding binds plugin to the KongService named service.
func kongServicePluginBinding(namespace, name, service, plugin string) *unstructured.Unstructured {
	return object(kongAPIVersion, "KongPluginBinding", namespace, name, nil, map[string]any{
		"controlPlaneRef": kongControlPlaneRef(),
		"pluginRef":       map[string]any{"kind": "KongPlugin", "name": plugin},
		"targets": map[string]any{"serviceRef": map[string]any{
			"group": "configuration.konghq.com", "kind": "KongService", "name": service,
		}},
	})
}

// TestKong checks the Kong kinds through the real API server with the upstream Kong CRDs: every
// object Kong's operator writes is admitted under the name it gives it, names that break a relation
// with the object's own references are denied, and generateName yields the operator's names.
func TestKong(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	n := operatorNames()
	const otherUpstream = "http.kong-demo-echo-v2-8080.1.cp72966f1a.c4f80b67"
	const otherPlugin = "kong-demo.request-transformer.4c856398"

	t.Run("operator names admitted", func(t *testing.T) {
		for _, obj := range []*unstructured.Unstructured{
			kongUpstream(ns, n.upstream),
			kongService(ns, n.upstream, n.upstream),
			kongService(ns, n.backendNotFound, n.upstream),
			kongTarget(ns, n.target, n.upstream),
			kongRoute(ns, n.route),
			kongRoute(ns, "http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02"),
			kongRoute(ns, "grpc.default-grpc-route.cp1fbfa93f.pr4557fd4c.a7d8418e.r01.m03"),
			kongPlugin(ns, n.plugin, "request-transformer", nil),
			kongPlugin(ns, n.termination, "request-termination", map[string]any{"status_code": int64(500)}),
			kongPluginBinding(ns, kong.PluginBindingName(n.route, n.plugin), n.route, n.plugin),
			kongServicePluginBinding(ns, kong.PluginBindingName(n.backendNotFound, n.termination), n.backendNotFound, n.termination),
			// v2.1.0-alpha.0 names.
			kongUpstream(ns, "cp1fbfa93f.b65e58a8"),
			kongService(ns, "http.cp1fbfa93f.b65e58a8", "cp1fbfa93f.b65e58a8"),
			kongRoute(ns, "http.default-httproute-echo.cp1fbfa93f.1b69eced"),
			kongPlugin(ns, "pl5c69e6e8", "request-transformer", nil),
			// A name that claims nothing is the user's business.
			kongService(ns, "echo", "echo.kong-demo.svc"),
		} {
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Errorf("create %s %q: %v", obj.GetKind(), obj.GetName(), err)
			}
		}
	})

	t.Run("denied", func(t *testing.T) {
		binding := kong.PluginBindingName(n.route, otherPlugin)
		for _, tc := range []struct {
			name    string
			obj     *unstructured.Unstructured
			message string
		}{
			{
				name: "binding named after another plugin",
				obj:  kongPluginBinding(ns, binding, n.route, n.plugin),
				message: `Invalid value: "` + binding + `": must be the name of its route or service, a dot and the name of its plugin: "` +
					n.route + "." + n.plugin + `"`,
			},
			{
				name:    "service not named after its generated host",
				obj:     kongService(ns, "echo-service", n.upstream),
				message: `Invalid value: "echo-service": must equal the service's host "` + n.upstream + `", a generated KongUpstream name`,
			},
			{
				name:    "target of another upstream",
				obj:     kongTarget(ns, n.target, otherUpstream),
				message: `Invalid value: "` + n.target + `": must start with the name of its upstream "` + otherUpstream + `" and a dot`,
			},
		} {
			t.Run(tc.name, func(t *testing.T) {
				err := env.Client.Create(ctx, tc.obj)
				if err == nil {
					t.Fatalf("created %s %q; want it denied", tc.obj.GetKind(), tc.obj.GetName())
				}
				gvk := tc.obj.GroupVersionKind()
				checkInvalid(t, err, tc.obj,
					[]cause{{Field: "metadata.name", Type: "FieldValueInvalid", Message: tc.message}},
					gvk.Kind+"."+gvk.Group+` "`+tc.obj.GetName()+`" is invalid: metadata.name: `+tc.message)
			})
		}
	})

	t.Run("generateName", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			obj  func() *unstructured.Unstructured
			want string
		}{
			{"route plugin binding", func() *unstructured.Unstructured {
				return kongPluginBinding(ns, "", n.route, otherPlugin)
			}, n.route + "." + otherPlugin},
			{"service plugin binding", func() *unstructured.Unstructured {
				return kongServicePluginBinding(ns, "", otherUpstream, kong.PluginNameForService(otherUpstream, kong.RequestTerminationPlugin))
			}, otherUpstream + "." + otherUpstream + ".request-termination"},
			{"service", func() *unstructured.Unstructured {
				return kongService(ns, "", otherUpstream)
			}, otherUpstream},
		} {
			t.Run(tc.name, func(t *testing.T) {
				obj := tc.obj()
				obj.SetGenerateName("generated-")
				if err := env.Client.Create(ctx, obj); err != nil {
					t.Fatalf("create: %v", err)
				}
				if obj.GetName() != tc.want {
					t.Errorf("name = %q, want %q", obj.GetName(), tc.want)
				}
				again := tc.obj()
				again.SetGenerateName("generated-")
				if err := env.Client.Create(ctx, again); !apierrors.IsAlreadyExists(err) {
					t.Errorf("second create with the same inputs: got %v, want AlreadyExists", err)
				}
			})
		}
	})

	t.Run("plugin keeps its random name", func(t *testing.T) {
		obj := kongPlugin(ns, "", "cors", map[string]any{"origins": []any{"https://example.com"}})
		obj.SetGenerateName("cors-")
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatalf("create: %v", err)
		}
		if name := obj.GetName(); len(name) != len("cors-")+5 || name[:5] != "cors-" {
			t.Errorf("name = %q, want cors- and a random suffix", name)
		}
	})
}
