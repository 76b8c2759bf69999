package kong

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

var namePath = field.NewPath("metadata", "name")

// Names Kong's operator writes (see names_test.go), by kind, of every
// scheme it shipped; the seed's shapes last.
var (
	goldenRoutes = []string{
		"http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02",
		"http.default-http-route.cp1fbfa93f.5cff32e8.m00",
		"http.default-http-route.cp1fbfa93f.5cff32e8.m123",
		"grpc.default-grpc-route.cp1fbfa93f.pr4557fd4c.a7d8418e.r01.m03",
		"grpc.default-grpc-route.cp1fbfa93f.8beb1fa4.r00.m00",
		"tls.default-tls-route.cp1fbfa93f.pr4557fd4c.7d7f1d3d",
		"tcp.default-tcp-route.cp1fbfa93f.196de16d",
		"udp.default-udp-route.cp1fbfa93f.f6d7e16d",
		"http." + strings.Repeat("s", 63) + "-" + strings.Repeat("n", 149) + ".cp1fbfa93f.pr4557fd4c.5cff32e8.m00",
		"http.default-httproute-echo.cp1fbfa93f.1b69eced",
		"default-httproute-echo.cp431ef96.1b69eced",
	}
	goldenServices = []string{
		"http.default-http-backend-8080.1.cp1fbfa93f.29652d0c",
		"http.default-http-backend-1-8080.2.cp1fbfa93f.6a6f4809",
		"http.cp1fbfa93f.49d1cfbf",
		"http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c",
		"grpc.default-grpc-backend-8080.1.cp1fbfa93f.bnf3748ad33.b6d9a138",
		"http.backend-ns-backend-service.1.cpba78230e.1f2a8c5",
		"http.serviceimport-default-svc-8080.1.cp1fbfa93f.d3b73e8",
		"tls.default-tls-backend-443.1.cp1fbfa93f.ea981935",
		"tcp.default-tcp-backend-443.1.cp1fbfa93f.e8e7532f",
		"udp.default-udp-backend-443.1.cp1fbfa93f.a1dd4f9f",
		"http." + strings.Repeat("n", 220) + "-service.cp1fbfa93f.202bb9d3",
		"cp1fbfa93f.b65e58a8",
		"http.cp1fbfa93f.b65e58a8",
		"cp431ef96.5a7cc34c",
	}
	goldenTargets = [][2]string{ // name, upstream
		{"http.default-http-backend-8080.1.cp1fbfa93f.29652d0c.bb0118c8", "http.default-http-backend-8080.1.cp1fbfa93f.29652d0c"},
		{"tcp.default-tcp-backend-443.1.cp1fbfa93f.e8e7532f.63d3738d", "tcp.default-tcp-backend-443.1.cp1fbfa93f.e8e7532f"},
		{"cp1fbfa93f.b65e58a8.8ae414c4", "cp1fbfa93f.b65e58a8"},
		{"cp431ef96.5a7cc34c.46cb9d28", "cp431ef96.5a7cc34c"},
	}
	goldenPlugins = []string{
		"default.request-transformer.5c69e6e8",
		"http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.request-termination",
		"ngn1f8aa4652a45869b",
		"request-transformer.5c69e6e8",
		"pl5c69e6e8",
		"pl72ae1b9a",
	}
	goldenBindings = [][3]string{ // name, target, plugin
		{"http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02.default.request-transformer.5c69e6e8", "http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02", "default.request-transformer.5c69e6e8"},
		{"http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.request-termination", "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c", "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c.request-termination"},
		{"http.default-httproute-echo.cp1fbfa93f.1b69eced.pl5c69e6e8", "http.default-httproute-echo.cp1fbfa93f.1b69eced", "pl5c69e6e8"},
		{"default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a", "default-httproute-echo.cp431ef96.1b69eced", "pl72ae1b9a"},
	}
)

func TestGoldenNamesAreRecognisedAndValid(t *testing.T) {
	for _, name := range goldenRoutes {
		if _, ok := ParseRouteName(name); !ok {
			t.Errorf("ParseRouteName(%q) not recognised", name)
		}
		if errs := ValidateRouteName(name, namePath); errs != nil {
			t.Errorf("ValidateRouteName(%q) = %v", name, errs)
		}
	}
	for _, name := range goldenServices {
		if _, ok := ParseServiceName(name); !ok {
			t.Errorf("ParseServiceName(%q) not recognised", name)
		}
		if errs := ValidateUpstreamName(name, namePath); errs != nil {
			t.Errorf("ValidateUpstreamName(%q) = %v", name, errs)
		}
	}
	for _, tt := range goldenTargets {
		if p, ok := ParseTargetName(tt[0]); !ok || p.Upstream != tt[1] {
			t.Errorf("ParseTargetName(%q) = %+v, %v", tt[0], p, ok)
		}
		if errs := ValidateTargetName(tt[0], tt[1], namePath); errs != nil {
			t.Errorf("ValidateTargetName(%q) = %v", tt[0], errs)
		}
	}
	for _, name := range goldenPlugins {
		if !IsPluginName(name) {
			t.Errorf("IsPluginName(%q) = false", name)
		}
		if errs := ValidatePluginName(name, namePath); errs != nil {
			t.Errorf("ValidatePluginName(%q) = %v", name, errs)
		}
	}
	for _, tt := range goldenBindings {
		if _, ok := ParsePluginBindingName(tt[0]); !ok {
			t.Errorf("ParsePluginBindingName(%q) not recognised", tt[0])
		}
		if errs := ValidatePluginBindingName(tt[0], tt[1], tt[2], namePath); errs != nil {
			t.Errorf("ValidatePluginBindingName(%q) = %v", tt[0], errs)
		}
	}
}

func TestServiceOfUpstream(t *testing.T) {
	up := "http.default-http-backend-8080.1.cp1fbfa93f.29652d0c"
	long := "http." + strings.Repeat("n", 220) + "-service.cp1fbfa93f.202bb9d3"
	tests := []struct {
		name, service, host string
		ok                  bool
	}{
		{"same name", up, up, true},
		{"backend not found", "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c", up, true},
		{"backend not found, cut shorter", "http." + strings.Repeat("n", 216) + ".cp1fbfa93f.bnfa610931f.202bb9d3", long, true},
		{"v2.1.0-alpha.0", "http.cp1fbfa93f.b65e58a8", "cp1fbfa93f.b65e58a8", true},
		{"free name", "my-service", up, false},
		{"other hash", "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.1", up, false},
		{"other readable", "http.default-other-8080.1.cp1fbfa93f.bnfa610931f.29652d0c", up, false},
		{"plain host", "my-service", "example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateServiceName(tt.service, tt.host, namePath)
			if (errs == nil) != tt.ok {
				t.Errorf("ValidateServiceName(%q, %q) = %v, want ok %v", tt.service, tt.host, errs, tt.ok)
			}
		})
	}
}

func TestValidateRelations(t *testing.T) {
	route := "http.default-http-route.cp1fbfa93f.5cff32e8.m00"
	plugin := "default.request-transformer.5c69e6e8"
	tests := []struct {
		name string
		errs field.ErrorList
		want string // "" for none, else a substring of the only error
	}{
		{"binding of its refs", ValidatePluginBindingName(route+"."+plugin, route, plugin, namePath), ""},
		{"binding of another plugin", ValidatePluginBindingName(route+"."+plugin, route, "default.cors.1", namePath), "default.cors.1"},
		{"binding of another route", ValidatePluginBindingName(route+"."+plugin, "http.default-other.cp1fbfa93f.1.m00", plugin, namePath), "default-other"},
		{"long binding falls back to ngn", ValidatePluginBindingName(PluginBindingName(strings.Repeat("r", 200), strings.Repeat("p", 60)), strings.Repeat("r", 200), strings.Repeat("p", 60), namePath), ""},
		{"freely named binding", ValidatePluginBindingName("my-binding", route, plugin, namePath), ""},
		{"binding not a DNS name", ValidatePluginBindingName("My_Binding", route, plugin, namePath), "RFC 1123"},
		{"target of another upstream", ValidateTargetName("cp1fbfa93f.b65e58a8.8ae414c4", "cp1fbfa93f.0", namePath), "upstream"},
		{"freely named target", ValidateTargetName("my-target", "cp1fbfa93f.0", namePath), ""},
		{"route not a DNS name", ValidateRouteName("http.Default.cp1.1", namePath), "RFC 1123"},
		{"route of a malformed generated shape", ValidateRouteName("default-echo.cp431ef96", namePath), ""},
		{"too long", ValidatePluginName(strings.Repeat("a", 254), namePath), "253"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				if tt.errs != nil {
					t.Fatalf("got %v, want none", tt.errs)
				}
				return
			}
			if len(tt.errs) != 1 || !strings.Contains(tt.errs[0].Error(), tt.want) {
				t.Fatalf("got %v, want one error with %q", tt.errs, tt.want)
			}
		})
	}
}

func TestRecognisersRejectNearMisses(t *testing.T) {
	for _, name := range []string{"", ".", "cp1.", "cp.1", "cp123456789.1", "x.cp1.g", "http.cp1.bnf1", "ftp.a.1.cp1.2", ".cp1.2", "http.ns-n.cp1.2.m0", "http.ns-n.cp1.2.r01"} {
		if p, ok := ParseServiceName(name); ok {
			t.Errorf("ParseServiceName(%q) = %+v", name, p)
		}
	}
	for _, name := range []string{"", "cp1.2", ".cp1.2", "ns-n.cp1.2.m0", "ns-n.pr1.2", "ns-n.cp1.x"} {
		if p, ok := ParseRouteName(name); ok {
			t.Errorf("ParseRouteName(%q) = %+v", name, p)
		}
	}
}

// validGen turns fuzz input into the values the API server admits: DNS
// labels and ports; names are what the operator computes from them.
func validLabel(s string, max int) string {
	b := make([]byte, 0, min(len(s), max))
	for i := 0; i < len(s) && len(b) < max; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case len(b) > 0 && b[len(b)-1] != '-':
			b = append(b, '-')
		}
	}
	for len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "x"
	}
	return string(b)
}

func FuzzGeneratedNamesAreDNSSubdomains(f *testing.F) {
	f.Add("default", "http-route", "http-backend", "test-cp", uint16(8080), 2, "/foo")
	f.Add(strings.Repeat("s", 63), strings.Repeat("n", 300), strings.Repeat("b", 300), "", uint16(1), 123, "")
	f.Fuzz(func(t *testing.T, namespace, name, backendName, cp string, port uint16, idx int, path string) {
		namespace, name, backendName = validLabel(namespace, 63), validLabel(name, 253), validLabel(backendName, 253)
		if idx < 0 {
			idx = -idx
		}
		if idx < 0 { // the least int
			idx = 0
		}
		route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		p := gwv1.PortNumber(max(1, port))
		rule := gwv1.HTTPRouteRule{
			Matches:     []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: new(gwv1.PathMatchPathPrefix), Value: &path}}},
			BackendRefs: []gwv1.HTTPBackendRef{httpBackend(backendName, p)},
		}
		up := ServiceNameForHTTPRouteRule(cp, route, rule)
		kr := RouteNameForHTTPRouteMatch(cp, route, testParentRef(), rule.Matches[0], idx)
		pl := PluginNameForHTTPRouteFilter(headerModifier, namespace, "request-transformer")
		bnf := ServiceNameForHTTPRouteRuleBackendNotFound(cp, route, rule)
		for _, n := range []string{
			up, kr, pl, bnf,
			RouteNameForGRPCRouteMatch(cp, &gwv1.GRPCRoute{ObjectMeta: route.ObjectMeta}, nil, gwv1.GRPCRouteMatch{}, idx, idx),
			ServiceNameForTCPRouteRule(cp, &gwv1.TCPRoute{ObjectMeta: route.ObjectMeta}, gwv1.TCPRouteRule{BackendRefs: []gwv1.BackendRef{rule.BackendRefs[0].BackendRef}}),
			TargetName(up, "10.0.0.1", int(p), &rule.BackendRefs[0]),
			PluginBindingName(kr, pl),
			PluginBindingName(bnf, PluginNameForService(bnf, RequestTerminationPlugin)),
			LegacyRouteName(cp, route, rule),
		} {
			if errs := validation.IsDNS1123Subdomain(n); errs != nil {
				t.Fatalf("%q: %v", n, errs)
			}
		}
		if _, ok := ParseServiceName(up); !ok {
			t.Errorf("ParseServiceName(%q) not recognised", up)
		}
		if _, ok := ParseRouteName(kr); !ok {
			t.Errorf("ParseRouteName(%q) not recognised", kr)
		}
		if !IsServiceOfUpstream(bnf, up) {
			t.Errorf("IsServiceOfUpstream(%q, %q) = false", bnf, up)
		}
		if b := PluginBindingName(kr, pl); ValidatePluginBindingName(b, kr, pl, namePath) != nil {
			t.Errorf("binding %q of its own refs denied", b)
		}
	})
}

func FuzzRecognisers(f *testing.F) {
	for _, s := range append(append(goldenRoutes, goldenServices...), goldenPlugins...) {
		f.Add(s, s)
	}
	f.Add("a.cp1.2.pl3", "x")
	f.Fuzz(func(t *testing.T, s, other string) {
		// What a recogniser splits must put back together into the name it was given.
		if p, ok := ParseRouteName(s); ok {
			got := p.Readable + ".cp" + p.ControlPlane
			if p.ParentRef != "" {
				got += ".pr" + p.ParentRef
			}
			got += "." + p.Hash
			for _, l := range []string{p.Rule, p.Match} {
				if l != "" {
					got += "." + l
				}
			}
			if got != s {
				t.Errorf("ParseRouteName(%q) = %+v, which reassembles to %q", s, p, got)
			}
		}
		if p, ok := ParseServiceName(s); ok && !strings.HasSuffix(s, "cp"+p.ControlPlane+"."+p.Hash) &&
			!strings.HasSuffix(s, "cp"+p.ControlPlane+".bnf"+p.BackendNotFound+"."+p.Hash) {
			t.Errorf("ParseServiceName(%q) = %+v: not a suffix of the name", s, p)
		}
		if p, ok := ParseTargetName(s); ok && p.Upstream+"."+p.Hash != s {
			t.Errorf("ParseTargetName(%q) = %+v", s, p)
		}
		if p, ok := ParsePluginBindingName(s); ok && (p.Target+"."+p.Plugin != s || !IsPluginName(p.Plugin)) {
			t.Errorf("ParsePluginBindingName(%q) = %+v", s, p)
		}
		IsServiceOfUpstream(s, other)
		ValidateServiceName(s, other, namePath)
		ValidateTargetName(s, other, namePath)
		if errs := ValidatePluginBindingName(s, other, other, namePath); errs == nil && validation.IsDNS1123Subdomain(s) != nil {
			t.Fatalf("%q admitted but not a DNS subdomain", s)
		}
	})
}
