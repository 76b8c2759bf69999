package admissionpolicy

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming/kong"
)

// kongCases are names of every scheme the operator has shipped, and near misses.
var kongCases = []string{
	"", "cp1.2", "cp431ef96.5a7cc34c", "cp123456789.1", "cp1.123456789", "http.cp1.2", "http.cp1.bnf3.2", "cp1.bnf3.2",
	"http.backend.2.cp1.2", "grpc.x.cp1.bnf2.3", "tcp..cp1.2", "ftp.cp1.2", "http.cp1.cp2.3", "x.cp1.2", "default-echo.cp1.2",
	"http.default-echo.cp1.pr2.3", "http.default-echo.cp1.pr2.3.m00", "http.default-echo.cp1.pr2.3.r01.m02", "a.cp1.2.r01",
	"a.cp1.m00", "cp1.pr2.3", "a.cp1.2.m0", "a.cp1.2.m000", "pl1", "pl123456789", "ngn0123456789abcdef", "ngn0123456789abcdef0",
	"key-auth.1234abcd", "ns.key-auth.1234abcd", "a.b.c.1", "http.cp1.2.key-auth", "http.cp1.2.12345678", "http.cp1.2.123456789",
	"default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a", "a.cp1.2.ns.type.3", "http.cp1.2.pl3", ".a.1", "a..1",
	"cp431ef96.5a7cc34c.46cb9d28", "http.x.cp1.bnf2.3.4", "A.cp1.2", "a.cp1.2\n", "a\n.cp1.2",
}

// kongLabels are the labels generated names are made of, and near misses.
var kongLabels = []string{
	"cp1", "cp431ef96", "cp123456789", "pl3", "pl72ae1b9a", "pr2", "bnf3", "m00", "m0", "r01", "http", "grpc", "tls",
	"x", "ns", "default-echo", "1", "abc", "12345678", "123456789", "ngn0123", "key-auth", "", "A", "g1", "x\n",
}

func FuzzKongExpressions(f *testing.F) {
	for _, s := range kongCases {
		f.Add(s)
	}
	service, route, plugin, binding := regexp.MustCompile(whole(kongService)), regexp.MustCompile(whole(kongRoute)),
		regexp.MustCompile(whole(kongPlugin)), regexp.MustCompile(whole(kongBinding))
	f.Fuzz(func(t *testing.T, s string) {
		_, sok := kong.ParseServiceName(s)
		_, rok := kong.ParseRouteName(s)
		_, bok := kong.ParsePluginBindingName(s)
		if service.MatchString(s) != sok || route.MatchString(s) != rok || plugin.MatchString(s) != kong.IsPluginName(s) ||
			binding.MatchString(s) != (bok && len(s) <= kongMaxName) {
			t.Errorf("%q: the expressions and naming/kong disagree", s)
		}
	})
}

func randomKongName(rng *rand.Rand) string {
	labels := make([]string, 1+rng.IntN(8))
	for i := range labels {
		labels[i] = kongLabels[rng.IntN(len(kongLabels))]
	}
	return strings.Join(labels, ".")
}

// TestKongExpressionsMatchRecognisers: each expression accepts exactly what naming/kong's
// recogniser accepts.
func TestKongExpressionsMatchRecognisers(t *testing.T) {
	recognisers := []struct {
		name string
		re   string
		ok   func(string) bool
	}{
		{"service", kongService, func(s string) bool { _, ok := kong.ParseServiceName(s); return ok }},
		{"route", kongRoute, func(s string) bool { _, ok := kong.ParseRouteName(s); return ok }},
		{"plugin", kongPlugin, kong.IsPluginName},
		{"target", kongTarget, func(s string) bool { _, ok := kong.ParseTargetName(s); return ok }},
		{"binding", kongBinding, func(s string) bool { _, ok := kong.ParsePluginBindingName(s); return ok && len(s) <= kongMaxName }},
		{"bnf service", kongServiceBNF, func(s string) bool { p, ok := kong.ParseServiceName(s); return ok && p.BackendNotFound != "" }},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, r := range recognisers {
		re := regexp.MustCompile(whole(r.re))
		accepted := 0
		check := func(s string) {
			got, want := re.MatchString(s), r.ok(s)
			if got != want {
				t.Errorf("%s: %q: expression says %t, naming/kong says %t", r.name, s, got, want)
			}
			if want {
				accepted++
			}
		}
		for _, s := range kongCases {
			check(s)
		}
		for range 100000 {
			check(randomKongName(rng))
		}
		if accepted < 3 {
			t.Errorf("%s: only %d names of the generated shape were tried", r.name, accepted)
		}
	}
}
