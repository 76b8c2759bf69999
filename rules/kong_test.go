package rules

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming/kong"
)

// kongCases are kongBench and the objects whose relations fail in every way the rules tell apart.
var kongCases = append(kongBench[:len(kongBench):len(kongBench)], []struct{ kind, raw string }{
	{"KongService", `{"metadata":{"name":"http.default-echo-8080.1.cp1fbfa93f.bnf1a2b3c4d.29652d0c"},"spec":{"host":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}`},
	{"KongService", `{"metadata":{"name":"http.http.default-echo-8080.1.cp1fbfa93f.29652d0c"},"spec":{"host":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}`},
	{"KongService", `{"metadata":{"name":"other"},"spec":{"host":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}`},
	{"KongService", `{"metadata":{"name":"Bad_Name"},"spec":{"host":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}`},
	{"KongService", `{"metadata":{"name":"svc"},"spec":{"host":"example.com"}}`},
	{"KongTarget", `{"metadata":{"name":"http.default-echo-8080.1.cp1fbfa93f.29652d0c.bb0118c8"}}`},
	{"KongTarget", `{"metadata":{"name":"plain-target"}}`},
	{"KongPluginBinding", `{"metadata":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00.default.request-transformer.5c69e6e8"},"spec":{}}`},
	{"KongPluginBinding", `{"metadata":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00.default.request-transformer.5c69e6e8"},"spec":{"pluginRef":{"name":"default.request-transformer.5c69e6e8"}}}`},
	{"KongPluginBinding", `{"metadata":{"name":"binding"},"spec":{"pluginRef":{"name":"p"},"targets":{"serviceRef":{"name":"s"}}}}`},
	{"KongPluginBinding", `{"metadata":{"name":"Bad_Binding"},"spec":{}}`},
	{"KongRoute", `{"metadata":{"name":"Bad_Route"}}`},
}...)

func decodeKong(t testing.TB, kind, raw string) *admitted {
	gk := schema.GroupKind{Group: KongGroup, Kind: kind}
	obj, err := decodeObject(runtime.RawExtension{Raw: []byte(`{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"` + kind + `",` + raw[1:])}, "object", gk, true)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestKongParsesEachNameOnce: judging a Kong object parses each name it holds (its own, its host,
// its references) at most once, and decides as naming/kong's string validators, which parse a name
// again for each relation.
func TestKongParsesEachNameOnce(t *testing.T) {
	for i, tc := range kongCases {
		t.Run(fmt.Sprintf("%d %s", i, tc.kind), func(t *testing.T) {
			obj := decodeKong(t, tc.kind, tc.raw)
			parses := map[string]int{}
			count := kongParsers{
				service: func(s string) (kong.ServiceNameParts, bool) { parses[s]++; return kong.ParseServiceName(s) },
				target:  func(s string) (kong.TargetNameParts, bool) { parses[s]++; return kong.ParseTargetName(s) },
				binding: func(s string) (kong.PluginBindingNameParts, bool) { parses[s]++; return kong.ParsePluginBindingName(s) },
			}
			got := kongErrorsWith(tc.kind, obj, count)
			for name, n := range parses {
				if n > 1 {
					t.Errorf("%q parsed %d times", name, n)
				}
			}
			if want := stringValidators(tc.kind, obj); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %v\nwant %v (the string validators')", got, want)
			}
		})
	}
}

// stringValidators is how the Kong rules were written before they compared parts: naming/kong's
// validators over the object's strings, each parsing what it needs.
func stringValidators(kind string, obj *admitted) field.ErrorList {
	name := obj.name
	switch kind {
	case "KongRoute":
		return kong.ValidateRouteName(name, namePath)
	case "KongService":
		return kong.ValidateServiceName(name, stringAt(obj, "spec", "host"), namePath)
	case "KongUpstream":
		return kong.ValidateUpstreamName(name, namePath)
	case "KongTarget":
		upstream := stringAt(obj, "spec", "upstreamRef", "name")
		errs := kong.ValidateTargetName(name, upstream, namePath)
		if _, generated := kong.ParseTargetName(name); len(errs) > 0 && generated && upstream == "" {
			return field.ErrorList{field.Required(upstreamRefPath, "a KongTarget with a generated name must reference its upstream")}
		}
		return errs
	case "KongPlugin":
		return kong.ValidatePluginName(name, namePath)
	case "KongPluginBinding":
		target, plugin := bindingRefs(obj)
		errs := kong.ValidatePluginBindingName(name, target, plugin, namePath)
		if _, generated := kong.ParsePluginBindingName(name); len(errs) > 0 && generated && (target == "" || plugin == "") {
			errs = nil
			if target == "" {
				errs = append(errs, field.Required(routeRefPath, "a KongPluginBinding with a generated name must bind a route or, with "+serviceRefPath.String()+", a service"))
			}
			if plugin == "" {
				errs = append(errs, field.Required(pluginRefPath, "a KongPluginBinding with a generated name must bind a plugin"))
			}
		}
		return errs
	}
	return nil
}
