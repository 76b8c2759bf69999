package kong

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

const testCP = "kong/cp"

func route(namespace, name string, rules ...gwv1.HTTPRouteRule) *gwv1.HTTPRoute {
	return &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       gwv1.HTTPRouteSpec{Rules: rules},
	}
}

func backend(name string, port int32) gwv1.HTTPBackendRef {
	return gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
		Name: gwv1.ObjectName(name), Port: ptr(port),
	}}}
}

func pathPrefix(p string) gwv1.HTTPRouteMatch {
	return gwv1.HTTPRouteMatch{Path: &gwv1.HTTPPathMatch{Value: ptr(p)}}
}

func fnvHex(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// TestDocumentedForm pins the hash inputs to the canonical JSON the package
// documentation spells out, hashed with hash/fnv: what another
// implementation has to reproduce, and what must not change, as every
// generated name in a cluster depends on it.
func TestDocumentedForm(t *testing.T) {
	r := route("default", "httproute-echo", gwv1.HTTPRouteRule{
		Matches:     []gwv1.HTTPRouteMatch{pathPrefix("/echo")},
		BackendRefs: []gwv1.HTTPBackendRef{backend("echo", 80)},
		Filters: []gwv1.HTTPRouteFilter{{
			Type:                  gwv1.HTTPRouteFilterRequestHeaderModifier,
			RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Remove: []string{"x-debug"}},
		}},
	})
	rule := &r.Spec.Rules[0]
	cp := fnvHex(`"kong/cp"`)
	matches := fnvHex(`{"matches":[{"path":{"type":"PathPrefix","value":"/echo"}}],"name":"httproute-echo","namespace":"default"}`)
	refs := fnvHex(`[{"group":"","kind":"Service","name":"echo","namespace":"default","port":80,"weight":1}]`)
	target := fnvHex(`{"backendRef":{"group":"","kind":"Service","name":"echo","namespace":"default","port":80,"weight":1},"ip":"10.0.0.7","port":8080}`)
	filter := fnvHex(`{"requestHeaderModifier":{"remove":["x-debug"]},"type":"RequestHeaderModifier"}`)
	plugin := fnvHex(`{"config":{"add":{"headers":["x-a:1"]},"remove":{"headers":["x-debug"]}},"plugin":"request-transformer"}`)

	tests := []struct {
		name, got, want string
	}{
		{"route", RouteName(testCP, r, rule), "default-httproute-echo.cp" + cp + "." + matches},
		{"service", ServiceName(testCP, r, rule), "cp" + cp + "." + refs},
		{"upstream", UpstreamName(testCP, r, rule), "cp" + cp + "." + refs},
		{"target", TargetName("cp"+cp+"."+refs, r, &rule.BackendRefs[0], "10.0.0.7", 8080), "cp" + cp + "." + refs + "." + target},
		{"plugin", PluginName(&rule.Filters[0]), "pl" + filter},
		{"binding", PluginBindingName(RouteName(testCP, r, rule), PluginName(&rule.Filters[0])), "default-httproute-echo.cp" + cp + "." + matches + ".pl" + filter},
	}
	pn, err := PluginNameFor("request-transformer", []byte(`{"remove": {"headers": ["x-debug"]}, "add": {"headers": ["x-a:1"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct{ name, got, want string }{"plugin from object", pn, "pl" + plugin})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestServiceNameIsASet(t *testing.T) {
	a, b := backend("a", 80), backend("b", 80)
	name := func(refs ...gwv1.HTTPBackendRef) string {
		return ServiceName(testCP, route("ns", "r"), &gwv1.HTTPRouteRule{BackendRefs: refs})
	}
	if name(a, b) != name(b, a) {
		t.Errorf("backend order changes the name: %q, %q", name(a, b), name(b, a))
	}
	if name(a, b) != name(b, a, b) {
		t.Errorf("a repeated backend changes the name: %q, %q", name(a, b), name(b, a, b))
	}
	if name(a) == name(a, b) {
		t.Errorf("sets {a} and {a, b} share the name %q", name(a))
	}
	if name(a) == name(b) {
		t.Errorf("sets {a} and {b} share the name %q", name(a))
	}
	if name() == name(a) {
		t.Errorf("no backends and {a} share the name %q", name())
	}
	if got := UpstreamName(testCP, route("ns", "r"), &gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{a}}); got != name(a) {
		t.Errorf("UpstreamName = %q, ServiceName %q", got, name(a))
	}
}

// TestDefaultsApplied checks that writing out an API-server default and
// omitting it give one name.
func TestDefaultsApplied(t *testing.T) {
	explicitRef := backend("svc", 80)
	explicitRef.Group = ptr(gwv1.Group(""))
	explicitRef.Kind = ptr(gwv1.Kind("Service"))
	explicitRef.Namespace = ptr(gwv1.Namespace("ns"))
	explicitRef.Weight = ptr(int32(1))
	r := route("ns", "r")

	omitted := &gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{backend("svc", 80)}}
	explicit := &gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{explicitRef}}
	if a, b := ServiceName(testCP, r, omitted), ServiceName(testCP, r, explicit); a != b {
		t.Errorf("ServiceName: defaults omitted %q, explicit %q", a, b)
	}
	if a, b := TargetName("u", r, &omitted.BackendRefs[0], "10.0.0.1", 80), TargetName("u", r, &explicit.BackendRefs[0], "10.0.0.1", 80); a != b {
		t.Errorf("TargetName: defaults omitted %q, explicit %q", a, b)
	}
	// A reference from another namespace to ns means the same backends.
	if a, b := ServiceName(testCP, r, omitted), ServiceName(testCP, route("other", "r"), explicit); a != b {
		t.Errorf("ServiceName: same backends from two namespaces %q, %q", a, b)
	}
	if a, b := ServiceName(testCP, r, omitted), ServiceName(testCP, route("other", "r"), omitted); a == b {
		t.Errorf("ServiceName: backends of two namespaces share %q", a)
	}

	header := gwv1.HTTPRouteMatch{Headers: []gwv1.HTTPHeaderMatch{{Name: "x", Value: "1"}}}
	headerExplicit := gwv1.HTTPRouteMatch{
		Path:    &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr("/")},
		Headers: []gwv1.HTTPHeaderMatch{{Name: "x", Value: "1", Type: ptr(gwv1.HeaderMatchExact)}},
	}
	routeTests := []struct {
		name   string
		a, b   []gwv1.HTTPRouteMatch
		wantEq bool
	}{
		{"no matches = path prefix /", nil, []gwv1.HTTPRouteMatch{pathPrefix("/")}, true},
		{"no path = path prefix /", []gwv1.HTTPRouteMatch{{}}, []gwv1.HTTPRouteMatch{pathPrefix("/")}, true},
		{"no path type = PathPrefix", []gwv1.HTTPRouteMatch{pathPrefix("/a")}, []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr("/a")}}}, true},
		{"no header type = Exact", []gwv1.HTTPRouteMatch{header}, []gwv1.HTTPRouteMatch{headerExplicit}, true},
		{"match order", []gwv1.HTTPRouteMatch{pathPrefix("/a"), pathPrefix("/b")}, []gwv1.HTTPRouteMatch{pathPrefix("/b"), pathPrefix("/a")}, true},
		{"exact differs from prefix", []gwv1.HTTPRouteMatch{pathPrefix("/a")}, []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchExact), Value: ptr("/a")}}}, false},
		{"paths differ", []gwv1.HTTPRouteMatch{pathPrefix("/a")}, []gwv1.HTTPRouteMatch{pathPrefix("/b")}, false},
	}
	for _, tt := range routeTests {
		t.Run(tt.name, func(t *testing.T) {
			a := RouteName(testCP, r, &gwv1.HTTPRouteRule{Matches: tt.a})
			b := RouteName(testCP, r, &gwv1.HTTPRouteRule{Matches: tt.b})
			if (a == b) != tt.wantEq {
				t.Errorf("RouteName %q, %q: equal = %v, want %v", a, b, a == b, tt.wantEq)
			}
		})
	}
	if a, b := RouteName(testCP, r, nil), RouteName(testCP, r, &gwv1.HTTPRouteRule{}); a != b {
		t.Errorf("RouteName: nil rule %q, empty rule %q", a, b)
	}

	redirect := gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwv1.HTTPRequestRedirectFilter{Scheme: ptr("https")}}
	redirect302 := *redirect.DeepCopy()
	redirect302.RequestRedirect.StatusCode = ptr(302)
	if a, b := PluginName(&redirect), PluginName(&redirect302); a != b {
		t.Errorf("PluginName: status code omitted %q, 302 %q", a, b)
	}
	redirect301 := *redirect.DeepCopy()
	redirect301.RequestRedirect.StatusCode = ptr(301)
	if a, b := PluginName(&redirect), PluginName(&redirect301); a == b {
		t.Errorf("PluginName: 302 and 301 redirects share %q", a)
	}
}

// TestRouteIdentity checks that the route's namespace and name are hashed,
// not only written in the readable prefix.
func TestRouteIdentity(t *testing.T) {
	rule := &gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{pathPrefix("/")}}
	a, b := RouteName(testCP, route("a-b", "c"), rule), RouteName(testCP, route("a", "b-c"), rule)
	if a == b {
		t.Fatalf("routes a-b/c and a/b-c share the name %q", a)
	}
	if !strings.HasPrefix(a, "a-b-c.") || !strings.HasPrefix(b, "a-b-c.") {
		t.Errorf("names %q, %q do not start with the prefix a-b-c", a, b)
	}
	named := &gwv1.HTTPRouteRule{Name: ptr(gwv1.SectionName("api")), Matches: rule.Matches}
	if RouteName(testCP, route("a", "b"), rule) == RouteName(testCP, route("a", "b"), named) {
		t.Errorf("a rule's name is not hashed")
	}
	if RouteName(testCP, route("a", "b"), rule) == RouteName("kong/other", route("a", "b"), rule) {
		t.Errorf("the control plane is not hashed")
	}
}

func TestNameLengths(t *testing.T) {
	label63 := strings.Repeat("n", 63)
	// A name whose cut falls right after a '.': the prefix must lose it.
	dotted := strings.Repeat("a", MaxRoutePrefixLen-len(label63)-2) + "." + strings.Repeat("b", 200)
	tests := []struct {
		name, namespace, routeName string
	}{
		{"short", "ns", "r"},
		{"longest namespace and name", label63, strings.Repeat("x", 253)},
		{"cut after a dot", label63, dotted},
		{"cut after a dash", label63, strings.Repeat("a", MaxRoutePrefixLen-len(label63)-2) + "-" + strings.Repeat("b", 200)},
		{"prefix exactly the limit", "ns", strings.Repeat("x", MaxRoutePrefixLen-3)},
		{"prefix one over the limit", "ns", strings.Repeat("x", MaxRoutePrefixLen-2)},
	}
	filter := &gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterRequestHeaderModifier}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := route(tt.namespace, tt.routeName, gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{backend("svc", 80)}})
			rule := &r.Spec.Rules[0]
			rn := RouteName(testCP, r, rule)
			up := UpstreamName(testCP, r, rule)
			binding := PluginBindingName(rn, PluginName(filter))
			for _, n := range []string{rn, up, TargetName(up, r, &rule.BackendRefs[0], "10.0.0.1", 80), binding} {
				if len(n) > MaxNameLen {
					t.Errorf("%q is %d characters long", n, len(n))
				}
				if errs := validation.IsDNS1123Subdomain(n); len(errs) != 0 {
					t.Errorf("%q is not a DNS-1123 subdomain: %v", n, errs)
				}
			}
			p, ok := ParseRouteName(rn)
			if !ok {
				t.Fatalf("ParseRouteName(%q) failed", rn)
			}
			full := tt.namespace + "-" + tt.routeName
			if want := strings.TrimRight(full[:min(len(full), MaxRoutePrefixLen)], ".-"); p.Prefix != want {
				t.Errorf("prefix %q, want %q", p.Prefix, want)
			}
			if len(p.ControlPlane) != 8 || len(p.Matches) != 8 {
				t.Errorf("hashes %q, %q are not 8 digits", p.ControlPlane, p.Matches)
			}
			if binding != rn+"."+PluginName(filter) {
				t.Errorf("binding %q is not <route>.<plugin>", binding)
			}
		})
	}
}

func TestTargetName(t *testing.T) {
	r := route("ns", "r")
	a, b := backend("a", 80), backend("b", 80)
	up := "cp0000abcd.12345678"
	base := TargetName(up, r, &a, "10.0.0.1", 8080)
	if !strings.HasPrefix(base, up+".") {
		t.Errorf("TargetName = %q, does not start with the upstream and a dot", base)
	}
	for _, other := range []string{
		TargetName(up, r, &b, "10.0.0.1", 8080),
		TargetName(up, r, &a, "10.0.0.2", 8080),
		TargetName(up, r, &a, "10.0.0.1", 8081),
		TargetName(up, route("other", "r"), &a, "10.0.0.1", 8080),
	} {
		if other == base {
			t.Errorf("distinct targets share the name %q", base)
		}
	}
	if x, y := TargetName(up, r, &a, "2001:db8::0001", 80), TargetName(up, r, &a, "2001:DB8:0:0::1", 80); x != y {
		t.Errorf("one IPv6 address in two spellings: %q, %q", x, y)
	}
	long := TargetName(strings.Repeat("u", 250)+".-x", r, &a, "10.0.0.1", 80)
	if len(long) > MaxNameLen || len(validation.IsDNS1123Subdomain(long)) != 0 {
		t.Errorf("TargetName of a long upstream = %q (%d characters)", long, len(long))
	}
}

func TestPluginNameFor(t *testing.T) {
	base, err := PluginNameFor("cors", []byte(`{"origins":["*"],"max_age":5}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		plugin  string
		config  string
		same    bool
		wantErr bool
	}{
		{"member order and space", "cors", "{ \"max_age\": 5,\n \"origins\": [\"*\"] }", true, false},
		{"escaped text", "cors", `{"origins":["\u002a"],"max_age":5}`, true, false},
		{"other value", "cors", `{"origins":["*"],"max_age":6}`, false, false},
		{"other plugin", "cors2", `{"origins":["*"],"max_age":5}`, false, false},
		{"list order matters", "cors", `{"origins":["*","a"],"max_age":5}`, false, false},
		{"invalid JSON", "cors", `{"origins":`, false, true},
		{"duplicate member", "cors", `{"max_age":5,"max_age":5}`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PluginNameFor(tt.plugin, []byte(tt.config))
			if (err != nil) != tt.wantErr {
				t.Fatalf("PluginNameFor(%q, %s) error = %v, want error %v", tt.plugin, tt.config, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if (got == base) != tt.same {
				t.Errorf("PluginNameFor(%q, %s) = %q, base %q; want equal %v", tt.plugin, tt.config, got, base, tt.same)
			}
		})
	}
	none, _ := PluginNameFor("cors", nil)
	for _, c := range []string{"", " ", "null", " null\n"} {
		if got, err := PluginNameFor("cors", []byte(c)); err != nil || got != none {
			t.Errorf("PluginNameFor(cors, %q) = %q, %v; want %q like no config", c, got, err, none)
		}
	}
	if empty, _ := PluginNameFor("cors", []byte("{}")); empty == none {
		t.Errorf("config {} and no config share %q", none)
	}
}

func TestPluginBindingName(t *testing.T) {
	if got := PluginBindingName("ns-r.cp1.2", "pl3"); got != "ns-r.cp1.2.pl3" {
		t.Errorf("PluginBindingName = %q", got)
	}
	tests := []struct {
		name, route, plugin string
	}{
		{"generated route with a long prefix", strings.Repeat("p", 240) + ".cp0000abcd.12345678", "pl12345678"},
		{"other route", strings.Repeat("r", 250), "pl12345678"},
		{"route ends in a separator after the cut", strings.Repeat("r", 241) + "." + strings.Repeat("r", 10), "pl12345678"},
		{"long plugin", "r", strings.Repeat("l", 300)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PluginBindingName(tt.route, tt.plugin)
			if len(got) > MaxNameLen {
				t.Errorf("len = %d", len(got))
			}
			if errs := validation.IsDNS1123Subdomain(got); len(errs) != 0 {
				t.Errorf("%q is not a DNS-1123 subdomain: %v", got, errs)
			}
			if rp, ok := ParseRouteName(tt.route); ok {
				p, ok := ParsePluginBindingName(got)
				if !ok {
					t.Fatalf("ParsePluginBindingName(%q) failed", got)
				}
				if p.RouteParts.ControlPlane != rp.ControlPlane || p.RouteParts.Matches != rp.Matches || p.Plugin != tt.plugin {
					t.Errorf("the cut lost a hash: %+v", p)
				}
			}
		})
	}
}

// TestDistinct generates names for many distinct inputs and checks that
// none collide (with 32-bit hashes, a collision among these is unlikely
// enough, and the inputs are fixed).
func TestDistinct(t *testing.T) {
	seen := map[string]string{}
	add := func(name, input string) {
		t.Helper()
		if prev, ok := seen[name]; ok {
			t.Fatalf("%s and %s share the name %q", prev, input, name)
		}
		seen[name] = input
	}
	for i := range 40 {
		for j := range 40 {
			ns, n := fmt.Sprintf("n%d", i), fmt.Sprintf("r%d", j)
			r := route(ns, n, gwv1.HTTPRouteRule{
				Matches:     []gwv1.HTTPRouteMatch{pathPrefix(fmt.Sprintf("/%d", j))},
				BackendRefs: []gwv1.HTTPBackendRef{backend(fmt.Sprintf("s%d", i), int32(j+1))},
			})
			rule := &r.Spec.Rules[0]
			add(RouteName(testCP, r, rule), "route "+ns+"/"+n)
			up := ServiceName(testCP, r, rule)
			add(up, "service "+ns+"/"+n)
			add(TargetName("cp1.2", r, &rule.BackendRefs[0], fmt.Sprintf("10.0.%d.%d", i, j), 80), "target "+ns+"/"+n)
			f := gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwv1.HTTPURLRewriteFilter{Hostname: ptr(gwv1.PreciseHostname(ns + "." + n))}}
			add(PluginName(&f), "filter "+ns+"/"+n)
		}
	}
}

func TestGeneratorsAllocateOnce(t *testing.T) {
	r := route("default", "httproute-echo", gwv1.HTTPRouteRule{
		Matches:     []gwv1.HTTPRouteMatch{pathPrefix("/echo"), {Headers: []gwv1.HTTPHeaderMatch{{Name: "x", Value: "1"}, {Name: "a", Value: "2"}}}},
		BackendRefs: []gwv1.HTTPBackendRef{backend("b", 80), backend("a", 80)},
		Filters:     []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwv1.HTTPRequestRedirectFilter{Scheme: ptr("https")}}},
	})
	rule := &r.Spec.Rules[0]
	config := []byte(`{"b":[1,2],"a":{"y":"z"}}`)
	tests := map[string]func(){
		"RouteName":         func() { RouteName(testCP, r, rule) },
		"ServiceName":       func() { ServiceName(testCP, r, rule) },
		"TargetName":        func() { TargetName("cp1.2", r, &rule.BackendRefs[0], "10.0.0.1", 80) },
		"PluginName":        func() { PluginName(&rule.Filters[0]) },
		"PluginNameFor":     func() { PluginNameFor("x", config) },
		"PluginBindingName": func() { PluginBindingName("a.cp1.2", "pl3") },
	}
	for name, f := range tests {
		if n := testing.AllocsPerRun(50, f); n > 1 {
			t.Errorf("%s allocates %v times, want at most 1", name, n)
		}
	}
}

func FuzzRouteName(f *testing.F) {
	f.Add("default", "httproute-echo", "/echo", "x-a", "1", "10.0.0.1", int32(80), "cors", `{"a":1}`)
	f.Add(strings.Repeat("n", 63), strings.Repeat("a.", 126)+"a", "", "", "", "::1", int32(0), "", "")
	f.Add("a", "b", "\xff", "\n", "\u2028", "fe80::1%eth0", int32(-1), "p", "[")
	f.Fuzz(func(t *testing.T, namespace, name, path, header, value, ip string, port int32, plugin, config string) {
		r := route(namespace, name, gwv1.HTTPRouteRule{
			Matches:     []gwv1.HTTPRouteMatch{pathPrefix(path), {Headers: []gwv1.HTTPHeaderMatch{{Name: gwv1.HTTPHeaderName(header), Value: value}}}},
			BackendRefs: []gwv1.HTTPBackendRef{backend(value, port), backend(header, port)},
			Filters:     []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gwv1.HTTPHeaderFilter{Remove: []string{value}}}},
		})
		rule := &r.Spec.Rules[0]
		rn := RouteName(ip, r, rule)
		up := ServiceName(ip, r, rule)
		tn := TargetName(up, r, &rule.BackendRefs[0], ip, port)
		pn := PluginName(&rule.Filters[0])
		bn := PluginBindingName(rn, pn)
		pn2, err := PluginNameFor(plugin, []byte(config))
		if err == nil {
			if _, ok := ParsePluginName(pn2); !ok {
				t.Errorf("ParsePluginName(%q) failed", pn2)
			}
		}
		if rn != RouteName(ip, r, rule) || up != ServiceName(ip, r, rule) {
			t.Fatalf("names are not deterministic")
		}
		if p, ok := ParseServiceName(up); !ok || "cp"+p.ControlPlane+"."+p.BackendRefs != up {
			t.Errorf("ParseServiceName(%q) = %+v, %v", up, p, ok)
		}
		if p, ok := ParseTargetName(tn); !ok || p.Upstream != up || p.Upstream+"."+p.Target != tn {
			t.Errorf("ParseTargetName(%q) = %+v, %v", tn, p, ok)
		}
		if h, ok := ParsePluginName(pn); !ok || "pl"+h != pn {
			t.Errorf("ParsePluginName(%q) = %q, %v", pn, h, ok)
		}
		// The remaining guarantees hold for valid routes: make the inputs
		// valid rather than wait for the fuzzer to find valid ones.
		r.Namespace = dnsName(namespace, false, 63)
		r.Name = dnsName(name, true, 253)
		if errs := append(validation.IsDNS1123Label(r.Namespace), validation.IsDNS1123Subdomain(r.Name)...); len(errs) != 0 {
			t.Fatalf("dnsName made an invalid route %s/%s: %v", r.Namespace, r.Name, errs)
		}
		rn = RouteName(ip, r, rule)
		up = ServiceName(ip, r, rule)
		tn = TargetName(up, r, &rule.BackendRefs[0], ip, port)
		bn = PluginBindingName(rn, pn)
		for _, n := range []string{rn, up, tn, pn, bn} {
			if len(n) > MaxNameLen || len(validation.IsDNS1123Subdomain(n)) != 0 {
				t.Errorf("%q (%d characters) is not a valid name", n, len(n))
			}
		}
		p, ok := ParseRouteName(rn)
		if !ok || p.Prefix+".cp"+p.ControlPlane+"."+p.Matches != rn {
			t.Errorf("ParseRouteName(%q) = %+v, %v", rn, p, ok)
		}
		if b, ok := ParsePluginBindingName(bn); !ok || b.Route != rn || b.Plugin != pn {
			t.Errorf("ParsePluginBindingName(%q) = %+v, %v", bn, b, ok)
		}
	})
}

// dnsName maps s onto a valid DNS-1123 label (or subdomain, with dots) of
// at most limit characters, keeping its length and shape where it can.
func dnsName(s string, dots bool, limit int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789-."
	n := len(chars)
	if !dots {
		n--
	}
	b := make([]byte, 0, len(s)+1)
	for i := 0; i < len(s); i++ {
		b = append(b, chars[int(s[i])%n])
	}
	b = b[:min(len(b), limit)]
	// Labels must start and end alphanumeric.
	for i := range b {
		atStart := i == 0 || b[i-1] == '.'
		atEnd := i == len(b)-1 || b[i+1] == '.'
		if (b[i] == '-' || b[i] == '.') && (atStart || atEnd) {
			b[i] = 'x'
		}
	}
	if len(b) == 0 {
		return "x"
	}
	return string(b)
}
