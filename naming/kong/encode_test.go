package kong

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"slices"
	"testing"

	"sigs.k8s.io/randfill"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The reference encoders below compute the documented canonical form the
// slow, obvious way: apply the defaults to a copy, json.Marshal it, decode
// into generic values, sort the sets, re-encode with sorted keys. The hand
// written encoders must agree byte for byte.

func ptr[T any](v T) *T { return &v }

func refDefaultMatch(m *gwv1.HTTPRouteMatch) {
	if m.Path == nil {
		m.Path = &gwv1.HTTPPathMatch{}
	}
	if m.Path.Type == nil {
		m.Path.Type = ptr(gwv1.PathMatchPathPrefix)
	}
	if m.Path.Value == nil {
		m.Path.Value = ptr("/")
	}
	for i := range m.Headers {
		if m.Headers[i].Type == nil {
			m.Headers[i].Type = ptr(gwv1.HeaderMatchExact)
		}
	}
	for i := range m.QueryParams {
		if m.QueryParams[i].Type == nil {
			m.QueryParams[i].Type = ptr(gwv1.QueryParamMatchExact)
		}
	}
}

func refDefaultObjectRef(r *gwv1.BackendObjectReference, namespace string) {
	if r.Group == nil {
		r.Group = ptr(gwv1.Group(""))
	}
	if r.Kind == nil {
		r.Kind = ptr(gwv1.Kind("Service"))
	}
	if r.Namespace == nil && namespace != "" {
		r.Namespace = ptr(gwv1.Namespace(namespace))
	}
}

func refDefaultBackendRef(r *gwv1.HTTPBackendRef, namespace string) {
	refDefaultObjectRef(&r.BackendObjectReference, namespace)
	if r.Weight == nil {
		r.Weight = ptr(int32(1))
	}
	for i := range r.Filters {
		refDefaultFilter(&r.Filters[i])
	}
}

func refDefaultFilter(f *gwv1.HTTPRouteFilter) {
	if f.RequestRedirect != nil && f.RequestRedirect.StatusCode == nil {
		f.RequestRedirect.StatusCode = ptr(302)
	}
	if m := f.RequestMirror; m != nil {
		refDefaultObjectRef(&m.BackendRef, "")
		if m.Fraction != nil && m.Fraction.Denominator == nil {
			m.Fraction.Denominator = ptr(int32(100))
		}
	}
	if f.CORS != nil && f.CORS.MaxAge == 0 {
		f.CORS.MaxAge = 5
	}
	if f.ExternalAuth != nil {
		refDefaultObjectRef(&f.ExternalAuth.BackendRef, "")
	}
}

// refGeneric turns v into generic JSON values, as encoding/json sees it.
func refGeneric(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var g any
	if err := d.Decode(&g); err != nil {
		t.Fatal(err)
	}
	return g
}

// refSet sorts generic values by their canonical encoding and drops
// duplicates.
func refSet(t testing.TB, list []any) []any {
	t.Helper()
	slices.SortFunc(list, func(a, b any) int { return bytes.Compare(refEncode(t, a), refEncode(t, b)) })
	return slices.CompactFunc(list, func(a, b any) bool { return bytes.Equal(refEncode(t, a), refEncode(t, b)) })
}

func refMatch(t testing.TB, m *gwv1.HTTPRouteMatch) any {
	m = m.DeepCopy()
	refDefaultMatch(m)
	g := refGeneric(t, m).(map[string]any)
	for _, key := range []string{"headers", "queryParams"} {
		if l, ok := g[key].([]any); ok {
			g[key] = refSet(t, l)
		}
	}
	return g
}

func refRouteInput(t testing.TB, namespace, name string, rule *gwv1.HTTPRouteRule) []byte {
	matches := rule.Matches
	if len(matches) == 0 {
		matches = []gwv1.HTTPRouteMatch{{}}
	}
	var list []any
	for i := range matches {
		list = append(list, refMatch(t, &matches[i]))
	}
	in := map[string]any{"matches": refSet(t, list), "name": valid(name), "namespace": valid(namespace)}
	if rule.Name != nil {
		in["rule"] = valid(string(*rule.Name))
	}
	return refEncode(t, in)
}

func refBackendRef(t testing.TB, namespace string, r *gwv1.HTTPBackendRef) any {
	r = r.DeepCopy()
	refDefaultBackendRef(r, namespace)
	return refGeneric(t, r)
}

func refBackendRefs(t testing.TB, namespace string, refs []gwv1.HTTPBackendRef) []byte {
	list := []any{}
	for i := range refs {
		list = append(list, refBackendRef(t, namespace, &refs[i]))
	}
	return refEncode(t, refSet(t, list))
}

func refFilter(t testing.TB, f *gwv1.HTTPRouteFilter) []byte {
	f = f.DeepCopy()
	refDefaultFilter(f)
	return refEncode(t, refGeneric(t, f))
}

func refTargetInput(t testing.TB, namespace string, r *gwv1.HTTPBackendRef, ip string, port int32) []byte {
	if a, err := netip.ParseAddr(ip); err == nil {
		ip = a.String()
	}
	return refEncode(t, map[string]any{"backendRef": refBackendRef(t, namespace, r), "ip": valid(ip), "port": port})
}

// valid replaces each byte of invalid UTF-8 with U+FFFD, which is what
// encoding/json decodes it to.
func valid(s string) string { return string([]rune(s)) }

// filler fills Gateway API values with random content, drawing strings
// and numbers from small sets often enough to produce equal elements,
// defaults written out, and zero values.
func filler(f *randfill.Filler) *randfill.Filler {
	return f.NilChance(0.3).NumElements(0, 4).MaxDepth(8).Funcs(
		func(s *string, c randfill.Continue) {
			switch c.Intn(4) {
			case 0:
				*s = []string{"", "/", "a", "b", "x\"y\\z", "\u2028\n<é>", "\xff"}[c.Intn(7)]
			default:
				c.FillNoCustom(s)
			}
		},
		func(i *int32, c randfill.Continue) {
			*i = []int32{0, 1, 5, 100, -1, 1 << 30}[c.Intn(6)]
		},
		func(p *gwv1.PathMatchType, c randfill.Continue) {
			*p = []gwv1.PathMatchType{gwv1.PathMatchPathPrefix, gwv1.PathMatchExact, "x"}[c.Intn(3)]
		},
		func(h *gwv1.HeaderMatchType, c randfill.Continue) {
			*h = []gwv1.HeaderMatchType{gwv1.HeaderMatchExact, gwv1.HeaderMatchRegularExpression}[c.Intn(2)]
		},
		func(n *gwv1.HTTPHeaderName, c randfill.Continue) {
			*n = []gwv1.HTTPHeaderName{"a", "b", "X-Y"}[c.Intn(3)]
		},
	)
}

func TestEncodersMatchReference(t *testing.T) {
	f := filler(randfill.NewWithSeed(7))
	for i := range 500 {
		var rule gwv1.HTTPRouteRule
		f.Fill(&rule)
		var filter gwv1.HTTPRouteFilter
		f.Fill(&filter)
		var ref gwv1.HTTPBackendRef
		f.Fill(&ref)
		namespace := []string{"", "ns", "é"}[i%3]
		ip := []string{"10.0.0.1", "::0001", "not an ip", ""}[i%4]
		compareEncodings(t, namespace, &rule, &filter, &ref, ip, int32(i))
	}
}

func compareEncodings(t *testing.T, namespace string, rule *gwv1.HTTPRouteRule, filter *gwv1.HTTPRouteFilter, ref *gwv1.HTTPBackendRef, ip string, port int32) {
	t.Helper()
	check := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	check("route input", appendRouteInput(nil, namespace, "route", rule), refRouteInput(t, namespace, "route", rule))
	check("backend refs", appendBackendRefs(nil, namespace, rule.BackendRefs), refBackendRefs(t, namespace, rule.BackendRefs))
	check("filter", appendFilter(nil, filter), refFilter(t, filter))
	check("target input", appendTargetInput(nil, namespace, ref, ip, port), refTargetInput(t, namespace, ref, ip, port))
}

func FuzzEncoders(f *testing.F) {
	f.Add([]byte("seed"), "ns", "10.1.2.3")
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 250, 251, 252}, "", "::1")
	f.Fuzz(func(t *testing.T, data []byte, namespace, ip string) {
		fl := filler(randfill.NewFromGoFuzz(data))
		var rule gwv1.HTTPRouteRule
		fl.Fill(&rule)
		var filter gwv1.HTTPRouteFilter
		fl.Fill(&filter)
		var ref gwv1.HTTPBackendRef
		fl.Fill(&ref)
		compareEncodings(t, namespace, &rule, &filter, &ref, ip, 80)
	})
}
