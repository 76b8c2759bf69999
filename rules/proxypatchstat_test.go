package rules

import (
	"context"
	"encoding/json"
	"maps"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

var meshProxyPatchGK = schema.GroupKind{Group: KumaGroup, Kind: "MeshProxyPatch"}

// proxyPatch is a MeshProxyPatch whose appendModifications are mods, each a modification type and
// the YAML of its value.
func proxyPatch(t testing.TB, mods ...[2]string) []byte {
	t.Helper()
	list := make([]map[string]any, 0, len(mods))
	for _, m := range mods {
		op := "Add"
		if m[0] == "networkFilter" || m[0] == "httpFilter" {
			op = "AddFirst"
		}
		list = append(list, map[string]any{m[0]: map[string]any{"operation": op, "value": m[1]}})
	}
	obj := map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshProxyPatch",
		"metadata": map[string]any{"name": "p", "namespace": "kuma-system", "labels": map[string]any{"kuma.io/mesh": "default"}},
		"spec": map[string]any{
			"targetRef": map[string]any{"kind": "Mesh"},
			"default":   map[string]any{"appendModifications": list},
		},
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

const (
	hcmAt      = "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"
	tcpProxyAt = "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy"
)

// TestProxyPatchStatUnsafe: each name a modification's value gives a resource where Envoy's stats
// read it is warned about once, at the value's field, unless it is stat-safe or an alt_stat_name
// covers the cluster; values Kuma would refuse give nothing.
func TestProxyPatchStatUnsafe(t *testing.T) {
	big := "name: a.b\n# " + strings.Repeat("x", maxPatchValueBytes) + "\n"
	deep := "name: a.b\nx: " + strings.Repeat("[", maxPatchValueDepth+1) + strings.Repeat("]", maxPatchValueDepth+1) + "\n"
	// Four values of 16 KiB each, within the object's 64 KiB, then a fifth past it.
	pad := "\n# " + strings.Repeat("x", maxPatchValueBytes-40) + "\n"
	tests := []struct {
		name string
		mods [][2]string
		// want are the findings, each "field: Invalid value: "v": detail", detail only its start.
		want []string
	}{
		{"a dotted cluster name without alt_stat_name",
			[][2]string{{"cluster", "name: httpbin.org_443\ntype: STRICT_DNS\n"}},
			[]string{`spec.default.appendModifications[0].cluster.value: Invalid value: "httpbin.org_443": name (a cluster's name, with no alt_stat_name) holds '.', outside Envoy's stat-safe set [a-zA-Z0-9_-]: '.' splits the name in Envoy's stats, and the tag extractors keep only its first segment; alt_stat_name: "httpbin_org_443" keeps the stats whole, as Kuma writes it`}},
		{"Kuma's sanitized alt_stat_name covers the name",
			[][2]string{{"cluster", "name: kri_extsvc_default__kuma-system_httpbin.org_443\nalt_stat_name: kri_extsvc_default__kuma-system_httpbin_org_443\n"}},
			nil},
		{"the JSON name altStatName covers it too",
			[][2]string{{"cluster", `{"name": "a.b", "altStatName": "a_b"}`}},
			nil},
		{"a dotted alt_stat_name, not the name it covers",
			[][2]string{{"cluster", "name: a.b\nalt_stat_name: stats.a.b\n"}},
			[]string{`spec.default.appendModifications[0].cluster.value: Invalid value: "stats.a.b": alt_stat_name (the cluster's name in stats) holds '.'`}},
		{"jsonpb: the JSON name wins over the proto name",
			[][2]string{{"cluster", "name: a\nalt_stat_name: x.y\naltStatName: x_y\n"}},
			nil},
		{"a null alt_stat_name is none",
			[][2]string{{"cluster", "name: a.b\nalt_stat_name: null\n"}},
			[]string{`Invalid value: "a.b": name (a cluster's name, with no alt_stat_name) holds '.'`}},
		{"a stat-safe name, and ':' which Envoy's stats turn into '_'",
			[][2]string{{"cluster", "name: kri_msvc_default__kuma-demo_backend_http\n"}, {"cluster", "name: outbound:backend\n"}},
			nil},
		{"other characters",
			[][2]string{{"virtualHost", "name: \"a b/é\"\ndomains: ['*']\n"}},
			[]string{`spec.default.appendModifications[0].virtualHost.value: Invalid value: "a b/é": name (a virtual host's name) holds ' ', '/', 'é', outside Envoy's stat-safe set [a-zA-Z0-9_-]: stats sinks rewrite it`}},
		{"a listener: its stat_prefix, its filter chains' HTTP connection manager, route_config and TCP proxy",
			[][2]string{{"listener", `name: my.listener
address: {socketAddress: {address: 0.0.0.0, portValue: 8080}}
stat_prefix: in.8080
filter_chains:
- filters:
  - name: envoy.filters.network.http_connection_manager
    typed_config:
      '@type': ` + hcmAt + `
      statPrefix: http.in
      route_config:
        virtual_hosts:
        - {name: api.example.com, domains: ['*']}
        - {name: ok, domains: ['*']}
- filters:
  - name: envoy.filters.network.tcp_proxy
    typedConfig: {'@type': ` + tcpProxyAt + `, stat_prefix: tcp.in, cluster: a.b}
default_filter_chain:
  filters:
  - typed_config: {'@type': ` + tcpProxyAt + `, stat_prefix: default.in}
`}},
			[]string{
				`Invalid value: "in.8080": stat_prefix (a listener's stat_prefix) holds '.'`,
				`Invalid value: "http.in": filter_chains[0].filters[0].typed_config.stat_prefix (an HTTP connection manager's stat_prefix) holds '.'`,
				`Invalid value: "api.example.com": filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].name (a virtual host's name) holds '.'`,
				`Invalid value: "tcp.in": filter_chains[1].filters[0].typed_config.stat_prefix (a TCP proxy's stat_prefix) holds '.'`,
				`Invalid value: "default.in": default_filter_chain.filters[0].typed_config.stat_prefix (a TCP proxy's stat_prefix) holds '.'`,
			}},
		{"a network filter's HTTP connection manager and TCP proxy; another filter's stat_prefix is not read",
			[][2]string{
				{"networkFilter", "name: envoy.filters.network.http_connection_manager\ntyped_config:\n  '@type': " + hcmAt + "\n  stat_prefix: a.b\n"},
				{"networkFilter", "name: envoy.filters.network.tcp_proxy\ntyped_config:\n  '@type': " + tcpProxyAt + "\n  stat_prefix: c.d\n"},
				{"networkFilter", "name: envoy.filters.network.rbac\ntyped_config:\n  '@type': type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC\n  stat_prefix: rbac.\n"},
			},
			[]string{
				`spec.default.appendModifications[0].networkFilter.value: Invalid value: "a.b": typed_config.stat_prefix (an HTTP connection manager's stat_prefix) holds '.'`,
				`spec.default.appendModifications[1].networkFilter.value: Invalid value: "c.d": typed_config.stat_prefix (a TCP proxy's stat_prefix) holds '.'`,
			}},
		{"an HTTP filter's value holds no name the rule reads",
			[][2]string{{"httpFilter", "name: envoy.filters.http.local_ratelimit\ntyped_config:\n  '@type': type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit\n  stat_prefix: a.b\n"}},
			nil},
		{"values Kuma refuses give nothing",
			[][2]string{
				{"cluster", "name: [unclosed"},
				{"cluster", "- name: a.b\n"},
				{"cluster", "name: 1.5\n"},
				{"cluster", "a.b"},
				{"virtualHost", "name: {x: a.b}\n"},
				{"listener", "filter_chains: a.b\nstat_prefix: [a.b]\n"},
			},
			nil},
		{"a value over the size bound is not read", [][2]string{{"cluster", big}}, nil},
		{"a value nested past the depth bound is not read", [][2]string{{"cluster", deep}}, nil},
		{"values past the object's bound are not read",
			[][2]string{{"cluster", "name: a.1" + pad}, {"cluster", "name: a.2" + pad}, {"cluster", "name: a.3" + pad}, {"cluster", "name: a.4" + pad}, {"cluster", "name: a.5" + pad}},
			[]string{`"a.1"`, `"a.2"`, `"a.3"`, `"a.4"`}},
	}
	c := DefaultConfig()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := c.Decide(context.Background(), Request{Phase: Validate, Kind: meshProxyPatchGK, Operation: "CREATE", Object: proxyPatch(t, tt.mods...)})
			if err != nil {
				t.Fatal(err)
			}
			if !d.Allowed || d.Outcome != Allowed {
				t.Errorf("outcome %s, allowed %v; a warning denies nothing", d.Outcome, d.Allowed)
			}
			fs := d.Findings()
			if len(fs) != len(tt.want) {
				t.Errorf("%d findings, want %d: %v", len(fs), len(tt.want), fs)
			}
			for i, f := range fs {
				if f.Rule != RuleProxyPatchStatUnsafe || f.Level != LevelWarning {
					t.Errorf("finding %q: rule %s, level %s; want %s, warning", f.Message(), f.Rule, f.Level, RuleProxyPatchStatUnsafe)
				}
				if i < len(tt.want) && !strings.Contains(f.Message(), tt.want[i]) {
					t.Errorf("finding %d:\n %s\nwant it to hold\n %s", i, f.Message(), tt.want[i])
				}
			}
		})
	}
}

// The rule holds on every path to a decision: UPDATE (a warning is not ratcheted, it stays one),
// Admit (check and audit), and Kuma Universal resources.
func TestProxyPatchStatUnsafeFrontDoors(t *testing.T) {
	c := DefaultConfig()
	raw := proxyPatch(t, [2]string{"cluster", "name: a.b\n"})
	universal := []byte(`{"type":"MeshProxyPatch","mesh":"default","name":"p","spec":{"targetRef":{"kind":"Mesh"},"default":{"appendModifications":[{"cluster":{"operation":"Add","value":"name: a.b\n"}}]}}}`)
	for _, r := range []Request{
		{Phase: Validate, Operation: "UPDATE", Object: raw, OldObject: raw},
		{Phase: Admit, Object: raw},
		{Phase: Admit, Object: raw, Release: naming.Kuma3_0},
		{Phase: Admit, Object: universal, Universal: true},
	} {
		r.Kind = meshProxyPatchGK
		d, err := c.Decide(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		fs := d.Findings()
		if !d.Allowed || len(fs) != 1 || fs[0].Rule != RuleProxyPatchStatUnsafe || fs[0].Level != LevelWarning ||
			fs[0].Problem.Field != "spec.default.appendModifications[0].cluster.value" || fs[0].Problem.BadValue != "a.b" {
			t.Errorf("phase %d %s universal=%v: allowed %v, findings %v; want one warning of %s at the cluster's value",
				r.Phase, r.Operation, r.Universal, d.Allowed, fs, RuleProxyPatchStatUnsafe)
		}
	}
	// dryrun kinds are only logged and counted: no warnings.
	dry, err := ParseConfig([]byte("apiVersion: kriguard.io/v1alpha1\nkind: Configuration\ndefaultEnforcement: dryrun\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := dry.Decide(context.Background(), Request{Phase: Validate, Kind: meshProxyPatchGK, Operation: "CREATE", Object: raw}); err != nil || len(d.Findings()) != 0 {
		t.Errorf("dryrun: %v, %v; want no finding", d.Findings(), err)
	}
}

// TestRuleDisabled: a rule turned off in the configuration reports nothing, on every phase and
// release; the other rules of the object still do.
func TestRuleDisabled(t *testing.T) {
	c, err := ParseConfig([]byte("apiVersion: kriguard.io/v1alpha1\nkind: Configuration\nrules:\n  disabled: [kuma/proxy-patch-stat-unsafe]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Enabled(RuleProxyPatchStatUnsafe) || !c.Enabled(RuleProxyPatchLegacyName) {
		t.Errorf("Enabled: %v for the rule turned off, %v for another", c.Enabled(RuleProxyPatchStatUnsafe), c.Enabled(RuleProxyPatchLegacyName))
	}
	raw := proxyPatch(t, [2]string{"cluster", "name: a.b\n"})
	raw = []byte(strings.Replace(string(raw), `"operation":"Add"`, `"operation":"Patch","match":{"name":"outbound:a"}`, 1))
	for _, r := range []Request{
		{Phase: Validate, Operation: "CREATE", Object: raw},
		{Phase: Admit, Object: raw, Release: naming.Kuma3_0},
	} {
		r.Kind = meshProxyPatchGK
		for _, cfg := range []*Config{DefaultConfig(), c} {
			d, err := cfg.Decide(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			rules := map[Rule]int{}
			for _, f := range d.Findings() {
				rules[f.Rule]++
			}
			want := map[Rule]int{RuleProxyPatchLegacyName: 1, RuleProxyPatchStatUnsafe: 1}
			if cfg == c {
				delete(want, RuleProxyPatchStatUnsafe)
			}
			if !maps.Equal(rules, want) {
				t.Errorf("phase %d, disabled %v: findings by rule %v, want %v", r.Phase, cfg == c, rules, want)
			}
		}
	}
}

// FuzzProxyPatchValue: any text as a modification's value, of any type, is read without a panic;
// every finding is a warning of the rule about a name that is not stat-safe.
func FuzzProxyPatchValue(f *testing.F) {
	for _, s := range []string{
		"name: a.b\n", "name: a.b\nalt_stat_name: a_b\n", "{\"name\": \"a\", \"altStatName\": \"x.y\"}",
		"stat_prefix: a.b\nfilter_chains:\n- filters:\n  - typed_config: {'@type': " + hcmAt + ", stat_prefix: x.y, route_config: {virtual_hosts: [{name: v.h}]}}\n",
		"typed_config: {'@type': " + tcpProxyAt + ", statPrefix: t.p}\n",
		"a: &a [1]\nb: *a\n", "[[[[[[", "name: !!binary aGVsbG8=\n", "? [a]\n: b\n", "\t- x",
	} {
		f.Add(s)
	}
	c := DefaultConfig()
	f.Fuzz(func(t *testing.T, value string) {
		if len(value) <= maxPatchValueBytes {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			readPatchValue(value)
			runtime.ReadMemStats(&after)
			if got, bound := after.TotalAlloc-before.TotalAlloc, maxPatchValueAlloc(len(value)); got > bound {
				t.Fatalf("reading %d bytes allocated %d, more than %d", len(value), got, bound)
			}
		}
		for _, typ := range proxyPatchValueTypes {
			d, err := c.Decide(context.Background(), Request{Phase: Validate, Kind: meshProxyPatchGK, Operation: "CREATE", Object: proxyPatch(t, [2]string{typ, value})})
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			for _, fd := range d.Findings() {
				v, _ := fd.Problem.BadValue.(string)
				if fd.Rule == RuleProxyPatchStatUnsafe && (fd.Level != LevelWarning || naming.StatSafe(v)) {
					t.Fatalf("%s: finding %+v", typ, fd)
				}
			}
		}
	})
}

// maxPatchValueAlloc bounds what reading a value of n bytes allocates: go-yaml's trees, the JSON,
// and the objects read from it.
func maxPatchValueAlloc(n int) uint64 { return 384*uint64(n) + 128<<10 }

// TestProxyPatchValueMemory: a value of the largest size read costs at most maxPatchValueAlloc
// whatever its shape; a value with anchors is not read.
func TestProxyPatchValueMemory(t *testing.T) {
	n := maxPatchValueBytes
	var keys strings.Builder
	for i := 0; keys.Len() < n-16; i++ {
		keys.WriteString("k" + strconv.Itoa(i) + ": 1\n")
	}
	shapes := []struct {
		name, value string
		read        bool
	}{
		{"flow list", "[" + strings.Repeat("a,", n/2-2) + "a]", false},
		{"flow maps", "[" + strings.Repeat("{a: b},", n/7-2) + "{}]", false},
		{"empty lists", "[" + strings.Repeat("[],", n/3-2) + "[]]", false},
		{"block list", strings.Repeat("- a\n", n/4-1), false},
		{"keys", keys.String(), true},
		{"a long string", "name: " + strings.Repeat("x", n-10), true},
		{"nested", "x: " + strings.Repeat("[", maxPatchValueDepth) + strings.Repeat("]", maxPatchValueDepth), false},
		{"aliases", "a: &a [" + strings.Repeat("b,", 50) + "b]\nc: [" + strings.Repeat("*a,", n/3-60) + "*a]", false},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			if len(s.value) > n {
				t.Fatalf("%d bytes, more than %d", len(s.value), n)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, ok := readPatchValue(s.value)
			runtime.ReadMemStats(&after)
			if ok != s.read {
				t.Errorf("read %v, want %v", ok, s.read)
			}
			got := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes: %d allocated, %.0f per byte", len(s.value), got, float64(got)/float64(len(s.value)))
			if bound := maxPatchValueAlloc(len(s.value)); got > bound {
				t.Errorf("%d bytes allocated, more than %d", got, bound)
			}
		})
	}
}
