package naming_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

func rules(ps []naming.EnvoyNameProblem) []naming.EnvoyRule {
	var out []naming.EnvoyRule
	for _, p := range ps {
		out = append(out, p.Rule)
	}
	return out
}

const (
	colon  = naming.EnvoyColon
	notKRI = naming.EnvoyNotKRI
	legacy = naming.EnvoyLegacy
)

func TestCheckEnvoyName(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		strict bool
		prefix []string
		want   []naming.EnvoyRule
	}{
		{name: "kri", in: "kri_msvc_mesh-1_zone-1_kuma-demo_backend_http"},
		{name: "kri global type", in: "kri_m____default_"},
		{name: "kri with colon", in: "kri_msvc_mesh-1__ns_backend_80:http", want: []naming.EnvoyRule{colon, notKRI}},
		{name: "kri six segments", in: "kri_msvc_mesh-1_ns_backend_http", want: []naming.EnvoyRule{notKRI}},
		{name: "kri unknown type", in: "kri_nope_mesh-1__ns_backend_", want: []naming.EnvoyRule{notKRI}},
		{name: "kri upper case", in: "kri_msvc_Mesh__ns_backend_", want: []naming.EnvoyRule{notKRI}},
		{name: "kri global with mesh", in: "kri_m_default___default_", want: []naming.EnvoyRule{notKRI}},
		{name: "inbound legacy", in: "inbound:10.0.0.1:8080", want: []naming.EnvoyRule{colon}},
		{name: "inbound legacy strict", in: "inbound:10.0.0.1:8080", strict: true, want: []naming.EnvoyRule{colon, legacy}},
		{name: "internal", in: "_kuma:dynamicconfig", want: []naming.EnvoyRule{colon}},
		{name: "internal strict", in: "_kuma_dynamicconfig", strict: true},
		{name: "legacy lax", in: "outbound_backend"},
		{name: "legacy strict", in: "outbound_backend", strict: true, want: []naming.EnvoyRule{legacy}},
		{name: "self prefix strict", in: "self_inbound_http", strict: true},
		{name: "system prefix strict", in: "system_envoy_admin", strict: true},
		{name: "custom prefix", in: "mine_x", strict: true, prefix: []string{"mine_"}},
		{name: "no prefixes", in: "self_x", strict: true, prefix: []string{}, want: []naming.EnvoyRule{legacy}},
		{name: "empty", in: "", strict: true},
		{name: "bare kri", in: "kri", strict: true, want: []naming.EnvoyRule{legacy}},
		{name: "non utf8", in: "kri_msvc_m\xff__n_x_", want: []naming.EnvoyRule{notKRI}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := naming.CheckEnvoyName(tc.in, naming.EnvoyNameOptions{Strict: tc.strict, Prefixes: tc.prefix})
			if !reflect.DeepEqual(rules(got), tc.want) {
				t.Fatalf("CheckEnvoyName(%q) = %v, want %v", tc.in, got, tc.want)
			}
			for _, p := range got {
				if p.Message == "" {
					t.Errorf("problem %v has no message", p.Rule)
				}
			}
		})
	}
}

func TestCheckEnvoyNameColonOffsets(t *testing.T) {
	got := naming.CheckEnvoyName("a:b::c", naming.EnvoyNameOptions{})
	want := []naming.ColonAt{{Part: 0, Offset: 1}, {Part: 0, Offset: 3}, {Part: 0, Offset: 4}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Colons, want) {
		t.Fatalf("got %+v, want colons %v", got, want)
	}
}

func TestCheckEnvoyNameRegistry(t *testing.T) {
	reg, err := naming.NewRegistry(naming.ResourceType{Kind: "MeshWidget", ShortName: "mw", Scope: naming.ScopeMesh})
	if err != nil {
		t.Fatal(err)
	}
	name := "kri_mw_default___w_"
	if got := naming.CheckEnvoyName(name, naming.EnvoyNameOptions{Registry: reg}); got != nil {
		t.Errorf("with registry: %v", got)
	}
	if got := naming.CheckEnvoyName(name, naming.EnvoyNameOptions{}); !reflect.DeepEqual(rules(got), []naming.EnvoyRule{notKRI}) {
		t.Errorf("default registry: %v", got)
	}
}

var (
	h = naming.HolePart()
	l = naming.Lit
)

func TestCheckEnvoyPattern(t *testing.T) {
	tests := []struct {
		name   string
		in     []naming.PatternPart
		strict bool
		want   []naming.EnvoyRule
	}{
		{name: "inbound format", in: []naming.PatternPart{l("inbound:"), h, l(":"), h}, want: []naming.EnvoyRule{colon}},
		{name: "hole only", in: []naming.PatternPart{h}, strict: true},
		{name: "kri format", in: []naming.PatternPart{l("kri_msvc_"), h, l("_"), h, l("_"), h, l("_"), h, l("_"), h}},
		{name: "kri format five holes empty zone", in: []naming.PatternPart{l("kri_msvc_"), h, l("__"), h, l("_"), h, l("_")}},
		{name: "kri too many separators", in: []naming.PatternPart{l("kri_msvc_"), h, l("_"), h, l("_"), h, l("_"), h, l("_"), h, l("_x")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri few separators", in: []naming.PatternPart{l("kri_msvc_"), h}},
		{name: "kri few separators bad char", in: []naming.PatternPart{l("kri_msvc_"), h, l("_Web")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri unknown type", in: []naming.PatternPart{l("kri_bogus_"), h, l("_"), h}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri type hole", in: []naming.PatternPart{l("kri_"), h, l("_"), h, l("__"), h, l("_")}},
		{name: "kri upper literal in name", in: []naming.PatternPart{l("kri_msvc_"), h, l("___"), h, l("Web_")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri name ends with dash", in: []naming.PatternPart{l("kri_msvc_"), h, l("___"), h, l("-_")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri name starts with dash", in: []naming.PatternPart{l("kri_msvc_"), h, l("___-"), h, l("_")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri name required", in: []naming.PatternPart{l("kri_msvc_"), h, l("____")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri mesh required", in: []naming.PatternPart{l("kri_msvc____"), h, l("_")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri global mesh literal", in: []naming.PatternPart{l("kri_m_default___"), h, l("_")}, want: []naming.EnvoyRule{notKRI}},
		{name: "kri global mesh hole", in: []naming.PatternPart{l("kri_m_"), h, l("__"), h, l("_")}},
		{name: "kri with colon", in: []naming.PatternPart{l("kri_msvc_"), h, l("___"), h, l("_http:80")}, want: []naming.EnvoyRule{colon, notKRI}},
		{name: "internal", in: []naming.PatternPart{l("_"), h}, strict: true},
		{name: "internal colon", in: []naming.PatternPart{l("_kuma:"), h}, want: []naming.EnvoyRule{colon}},
		{name: "prefix", in: []naming.PatternPart{l("self_"), h}, strict: true},
		{name: "prefix across parts", in: []naming.PatternPart{l("sys"), l("tem_"), h}, strict: true},
		{name: "short literal may become prefix", in: []naming.PatternPart{l("sel"), h}, strict: true},
		{name: "short literal may become kri", in: []naming.PatternPart{l("kr"), h}, strict: true},
		{name: "legacy strict", in: []naming.PatternPart{l("outbound_"), h}, strict: true, want: []naming.EnvoyRule{legacy}},
		{name: "legacy lax", in: []naming.PatternPart{l("outbound_"), h}},
		{name: "no holes", in: []naming.PatternPart{l("kri_msvc_m"), l("esh___x_")}},
		{name: "no holes colon", in: []naming.PatternPart{l("a"), l("b:c")}, want: []naming.EnvoyRule{colon}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := naming.CheckEnvoyPattern(tc.in, naming.EnvoyNameOptions{Strict: tc.strict})
			if !reflect.DeepEqual(rules(got), tc.want) {
				t.Fatalf("CheckEnvoyPattern(%v) = %+v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestCheckEnvoyPatternColonOffsets(t *testing.T) {
	got := naming.CheckEnvoyPattern([]naming.PatternPart{l("inbound:"), h, l("x:")}, naming.EnvoyNameOptions{})
	want := []naming.ColonAt{{Part: 0, Offset: 7}, {Part: 2, Offset: 1}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Colons, want) {
		t.Fatalf("got %+v, want colons %v", got, want)
	}
}

// FuzzCheckEnvoyPattern checks that the two checks agree and that holes never make the pattern
// check stricter than some filling of them.
func FuzzCheckEnvoyPattern(f *testing.F) {
	for _, s := range []string{
		"kri_msvc_mesh-1_zone-1_kuma-demo_backend_http|2|9",
		"inbound:10.0.0.1:8080|3|8",
		"kri_m____default_|5|6",
		"_kuma|1|1",
		"self_x|0|5",
		"kri_msvc_mesh___x_|12|13",
		"kri_msvc_Mesh_a_b_c_d|10|11",
	} {
		parts := strings.Split(s, "|")
		var a, b int
		fmt.Sscan(parts[1], &a)
		fmt.Sscan(parts[2], &b)
		f.Add(parts[0], a, b, "x", true)
	}
	f.Fuzz(func(t *testing.T, s string, a, b int, fill string, strict bool) {
		opts := naming.EnvoyNameOptions{Strict: strict}
		full := naming.CheckEnvoyName(s, opts)
		a, b = clamp(a, len(s)), clamp(b, len(s))
		if a > b {
			a, b = b, a
		}
		split := []naming.PatternPart{l(s[:a]), l(s[a:b]), l(s[b:])}
		if got := naming.CheckEnvoyPattern(split, opts); !reflect.DeepEqual(rules(got), rules(full)) {
			t.Fatalf("pattern %+v verdict %v, name verdict %v", split, rules(got), rules(full))
		}
		// Replace s[a:b] with a hole. Filled with fill (no separator), the name must not be
		// flagged for a rule the pattern reports.
		if strings.IndexByte(fill, '_') >= 0 {
			return
		}
		holed := []naming.PatternPart{l(s[:a]), h, l(s[b:])}
		pat := naming.CheckEnvoyPattern(holed, opts)
		filled := naming.CheckEnvoyName(s[:a]+fill+s[b:], opts)
		for _, r := range rules(pat) {
			if !contains(rules(filled), r) {
				t.Fatalf("pattern %+v reports %v, but filling the hole with %q gives %v", holed, r, fill, rules(filled))
			}
		}
	})
}

func clamp(i, n int) int {
	if i < 0 {
		i = -i
	}
	if i < 0 || n == 0 {
		return 0
	}
	return i % (n + 1)
}

func contains(rs []naming.EnvoyRule, r naming.EnvoyRule) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func BenchmarkCheckEnvoyName(b *testing.B) {
	opts := naming.EnvoyNameOptions{Strict: true}
	for _, name := range []string{"kri_msvc_mesh-1_zone-1_kuma-demo_backend_http", "self_inbound_http"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if naming.CheckEnvoyName(name, opts) != nil {
					b.Fatal("unexpected problem")
				}
			}
		})
	}
}

func BenchmarkCheckEnvoyPattern(b *testing.B) {
	opts := naming.EnvoyNameOptions{Strict: true}
	pat := []naming.PatternPart{l("kri_msvc_"), h, l("_"), h, l("_"), h, l("_"), h, l("_"), h}
	b.ReportAllocs()
	for b.Loop() {
		if naming.CheckEnvoyPattern(pat, opts) != nil {
			b.Fatal("unexpected problem")
		}
	}
}

func ExampleCheckEnvoyPattern() {
	// fmt.Sprintf("inbound:%s:%d", addr, port), as krilint sees it.
	pat := []naming.PatternPart{naming.Lit("inbound:"), naming.HolePart(), naming.Lit(":"), naming.HolePart()}
	for _, p := range naming.CheckEnvoyPattern(pat, naming.EnvoyNameOptions{}) {
		fmt.Println(p.Rule, p.Message, p.Colons)
	}
	// Output:
	// colon contains ':', which Envoy resource names must not (use '_') [{0 7} {2 0}]
}
