package kong

import (
	"strings"
	"testing"
)

func TestParseRouteName(t *testing.T) {
	tests := []struct {
		in   string
		want RouteNameParts
		ok   bool
	}{
		{"default-httproute-echo.cp431ef96.1b69eced", RouteNameParts{"default-httproute-echo", "431ef96", "1b69eced"}, true},
		{"a-b.c.cp0.f", RouteNameParts{"a-b.c", "0", "f"}, true},
		{"ns-r.cp12345678.abcdef01", RouteNameParts{"ns-r", "12345678", "abcdef01"}, true},
		{"ns-r.cp123456789.abcdef01", RouteNameParts{}, false},   // 9 digits
		{"ns-r.cp12345678.abcdef012", RouteNameParts{}, false},   // 9 digits
		{"ns-r.cp431EF96.1b69eced", RouteNameParts{}, false},     // upper case
		{"ns-r.cp.1b69eced", RouteNameParts{}, false},            // empty hash
		{"ns-r.cp431ef96.", RouteNameParts{}, false},             // empty hash
		{".cp431ef96.1b69eced", RouteNameParts{}, false},         // empty prefix
		{"cp431ef96.1b69eced", RouteNameParts{}, false},          // service shape
		{"ns-r..cp431ef96.1b69eced", RouteNameParts{}, false},    // prefix ends in '.'
		{"ns-r-.cp431ef96.1b69eced", RouteNameParts{}, false},    // prefix ends in '-'
		{"ns-r.xp431ef96.1b69eced", RouteNameParts{}, false},     // wrong marker
		{"ns-r.cp431ef96.1b69eced.pl1", RouteNameParts{}, false}, // binding shape
		{"", RouteNameParts{}, false},
		{".", RouteNameParts{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseRouteName(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseRouteName(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseServiceAndTargetName(t *testing.T) {
	services := []struct {
		in   string
		want ServiceNameParts
		ok   bool
	}{
		{"cp431ef96.5a7cc34c", ServiceNameParts{"431ef96", "5a7cc34c"}, true},
		{"cp1.2", ServiceNameParts{"1", "2"}, true},
		{"cp431ef96.5a7cc34c.46cb9d28", ServiceNameParts{}, false},
		{"cp431ef96", ServiceNameParts{}, false},
		{"cp431ef96.", ServiceNameParts{}, false},
		{"cp.5a7cc34c", ServiceNameParts{}, false},
		{"xcp1.2", ServiceNameParts{}, false},
		{"cp1.g", ServiceNameParts{}, false},
		{"", ServiceNameParts{}, false},
	}
	for _, tt := range services {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseServiceName(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseServiceName(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
			if up, upOK := ParseUpstreamName(tt.in); up != got || upOK != ok {
				t.Errorf("ParseUpstreamName(%q) = %+v, %v; ParseServiceName %+v, %v", tt.in, up, upOK, got, ok)
			}
		})
	}
	targets := []struct {
		in   string
		want TargetNameParts
		ok   bool
	}{
		{"cp431ef96.5a7cc34c.46cb9d28", TargetNameParts{"cp431ef96.5a7cc34c", ServiceNameParts{"431ef96", "5a7cc34c"}, "46cb9d28"}, true},
		{"cp1.2.3", TargetNameParts{"cp1.2", ServiceNameParts{"1", "2"}, "3"}, true},
		{"cp431ef96.5a7cc34c", TargetNameParts{}, false},
		{"cp431ef96.5a7cc34c.46cb9d28.1", TargetNameParts{}, false},
		{"up.46cb9d28", TargetNameParts{}, false},
		{"cp1.2.", TargetNameParts{}, false},
	}
	for _, tt := range targets {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseTargetName(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseTargetName(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParsePluginAndBindingName(t *testing.T) {
	plugins := []struct {
		in, want string
		ok       bool
	}{
		{"pl72ae1b9a", "72ae1b9a", true},
		{"pl0", "0", true},
		{"pl", "", false},
		{"pl72ae1b9a0", "", false},
		{"pl72AE1B9A", "", false},
		{"plugin", "", false},
		{"x.pl1", "", false},
	}
	for _, tt := range plugins {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParsePluginName(tt.in)
			if (ok && got != tt.want) || ok != tt.ok {
				t.Errorf("ParsePluginName(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
	bindings := []struct {
		in   string
		want PluginBindingNameParts
		ok   bool
	}{
		{"default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a", PluginBindingNameParts{
			Route:      "default-httproute-echo.cp431ef96.1b69eced",
			RouteParts: RouteNameParts{"default-httproute-echo", "431ef96", "1b69eced"},
			Plugin:     "pl72ae1b9a",
			PluginHash: "72ae1b9a",
		}, true},
		// A route prefix may hold dots and even marker-like labels: the split
		// works from the end.
		{"a.cp1.b-c.cp2.3.pl4", PluginBindingNameParts{"a.cp1.b-c.cp2.3", RouteNameParts{"a.cp1.b-c", "2", "3"}, "pl4", "4"}, true},
		{"default-httproute-echo.cp431ef96.1b69eced", PluginBindingNameParts{}, false},
		{"default-httproute-echo.pl72ae1b9a", PluginBindingNameParts{}, false},
		{"cp431ef96.1b69eced.pl72ae1b9a", PluginBindingNameParts{}, false},
		{"pl72ae1b9a", PluginBindingNameParts{}, false},
		{"", PluginBindingNameParts{}, false},
	}
	for _, tt := range bindings {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParsePluginBindingName(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParsePluginBindingName(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestClaims(t *testing.T) {
	tests := []struct {
		name                            string
		route, service, plugin, binding bool
	}{
		{"default-httproute-echo.cp431ef96.1b69eced", true, false, false, true},
		{"ns-r.cp431ef96123.1b69eced", true, false, false, true},
		{"cp431ef96.5a7cc34c", true, true, false, true},
		{"cpu-service", false, false, false, false},
		{"cpanel", false, false, false, false},
		{"cpa.x", true, true, false, true},
		{"echo-route", false, false, false, false},
		{"pl72ae1b9a", false, false, true, true},
		{"place", false, false, true, true},
		{"plugin", false, false, false, false},
		{"r.pl72ae1b9a", false, false, false, true},
		{"cp", false, false, false, false},
		{"", false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := [4]bool{claimsRoute(tt.name), claimsService(tt.name), claimsPlugin(tt.name), claimsPluginBinding(tt.name)}
			if want := [4]bool{tt.route, tt.service, tt.plugin, tt.binding}; got != want {
				t.Errorf("claims (route, service, plugin, binding) = %v, want %v", got, want)
			}
		})
	}
}

func TestRecognisersDoNotAllocate(t *testing.T) {
	const binding = "default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a"
	if n := testing.AllocsPerRun(100, func() {
		ParseRouteName(binding[:41])
		ParseServiceName("cp431ef96.5a7cc34c")
		ParseTargetName("cp431ef96.5a7cc34c.46cb9d28")
		ParsePluginName("pl72ae1b9a")
		ParsePluginBindingName(binding)
		ValidatePluginBindingName(binding, binding[:41], "pl72ae1b9a", nil)
	}); n != 0 {
		t.Errorf("recognisers allocate %v times, want 0", n)
	}
}

// FuzzParse checks that the recognisers never panic on any string, and
// that what they accept they split into parts that rebuild the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"default-httproute-echo.cp431ef96.1b69eced",
		"cp431ef96.5a7cc34c",
		"cp431ef96.5a7cc34c.46cb9d28",
		"pl72ae1b9a",
		"default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a",
		"a.cp1.b.cp2.3.pl4",
		"..cp..", "", ".", "cp", "pl", "\xff.cp1.2",
		strings.Repeat("a.", 200) + "cp1.2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, ok := ParseRouteName(s); ok {
			if p.Prefix+".cp"+p.ControlPlane+"."+p.Matches != s || !isHash(p.ControlPlane) || !isHash(p.Matches) {
				t.Errorf("ParseRouteName(%q) = %+v", s, p)
			}
			if !claimsRoute(s) {
				t.Errorf("route name %q does not claim the shape", s)
			}
		}
		if p, ok := ParseServiceName(s); ok {
			if "cp"+p.ControlPlane+"."+p.BackendRefs != s || !claimsService(s) {
				t.Errorf("ParseServiceName(%q) = %+v", s, p)
			}
		}
		if p, ok := ParseTargetName(s); ok {
			if p.Upstream+"."+p.Target != s || !isHash(p.Target) || !claimsService(s) {
				t.Errorf("ParseTargetName(%q) = %+v", s, p)
			}
		}
		if h, ok := ParsePluginName(s); ok {
			if "pl"+h != s || !claimsPlugin(s) {
				t.Errorf("ParsePluginName(%q) = %q", s, h)
			}
		}
		if p, ok := ParsePluginBindingName(s); ok {
			if p.Route+"."+p.Plugin != s || !claimsPluginBinding(s) {
				t.Errorf("ParsePluginBindingName(%q) = %+v", s, p)
			}
			// Longer names cannot exist; PluginBindingName would cut them.
			if err := ValidatePluginBindingName(s, p.Route, p.Plugin, nil); err != nil && len(s) <= MaxNameLen {
				t.Errorf("ValidatePluginBindingName(%q, own parts) = %v", s, err)
			}
		}
		ValidateRouteName(s, nil)
		ValidateServiceName(s, s, nil)
		ValidateUpstreamName(s, nil)
		ValidateTargetName(s, s, nil)
		ValidatePluginName(s, nil)
	})
}
