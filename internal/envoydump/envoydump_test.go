package envoydump

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
	"github.com/kriguard/kriguard/naming"
)

// found is a Name as the tests compare it: its problems reduced to their rules.
type found struct{ path, what, name, rules string }

func summarize(d *Dump) []found {
	var out []found
	for _, n := range d.Names {
		var rules []string
		for _, p := range n.Problems {
			rules = append(rules, p.Rule.String())
		}
		out = append(out, found{n.Path, n.What, n.Name, strings.Join(rules, ",")})
	}
	return out
}

const (
	l0 = "configs[0].dynamic_listeners[0].active_state.listener."
	l1 = "configs[0].dynamic_listeners[1].active_state.listener."
	c  = "configs[1]."
	rc = "configs[2].dynamic_route_configs[0].route_config."
)

// Every name of a dump is found at its path, and judged by naming.CheckEnvoyName.
func TestParse(t *testing.T) {
	all := []found{
		{l0 + "name", "listener", "kri_dp_default__kuma-demo_backend-5c7f_http", ""},
		{l0 + "filter_chains[0].filters[0].typed_config.stat_prefix", "stat_prefix", "kri_msvc_default__kuma-demo_backend_http", ""},
		{l0 + "filter_chains[0].filters[0].typed_config.rds.route_config_name", "route configuration reference", "kri_msvc_default__kuma-demo_backend_Http", "not-kri"},
		{l0 + "filter_chains[0].name", "filter chain", "inbound:10.42.0.9:8080", "colon,legacy"},
		{l1 + "name", "listener", "outbound:10.43.0.1:5432", "colon,legacy"},
		{l1 + "filter_chains[0].filters[0].typed_config.stat_prefix", "stat_prefix", "_kuma:internal", "colon"},
		{l1 + "filter_chains[0].filters[0].typed_config.weighted_clusters.clusters[0].name", "cluster reference", "kri_msvc_default__kuma-demo_db_tcp", ""},
		{l1 + "filter_chains[0].filters[0].typed_config.weighted_clusters.clusters[1].name", "cluster reference", "db:5432", "colon,legacy"},
		{c + "static_clusters[0].cluster.name", "cluster", "ads_cluster", "legacy"},
		{c + "static_clusters[1].cluster.name", "cluster", "_kuma_dynamic_config", ""},
		{c + "dynamic_active_clusters[0].cluster.name", "cluster", "kri_msvc_default__kuma-demo_backend_http", ""},
		{c + "dynamic_active_clusters[0].cluster.alt_stat_name", "alt_stat_name", "backend:http", "colon,legacy"},
		{c + "dynamic_active_clusters[0].cluster.eds_cluster_config.service_name", "cluster load assignment reference", "kri_msvc_default__kuma-demo_backend_http", ""},
		{c + "dynamic_active_clusters[0].cluster.transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs[0].name", "secret reference", "system_cp_ca", ""},
		{rc + "name", "route configuration", "kri_msvc_default__kuma-demo_backend_Http", "not-kri"},
		{rc + "virtual_hosts[0].name", "virtual host", "backend", "legacy"},
		{rc + "virtual_hosts[0].routes[0].name", "route", "kri_mhttpr_default__kuma-demo_route_rule_0", "not-kri"},
		{rc + "virtual_hosts[0].routes[0].route.weighted_clusters.clusters[0].name", "cluster reference", "kri_msvc_default__kuma-demo_backend_http", ""},
		{rc + "virtual_hosts[0].routes[0].route.request_mirror_policies[0].cluster", "cluster reference", "mirror:cluster", "colon,legacy"},
		{"configs[3].dynamic_active_secrets[0].secret.name", "secret", "system_cp_ca", ""},
	}
	eds := found{"configs[4].dynamic_endpoint_configs[0].endpoint_config.cluster_name", "cluster load assignment", "kri_msvc_default__kuma-demo_backend_http", ""}
	lenient := func(fs []found) []found {
		out := make([]found, len(fs))
		for i, f := range fs {
			f.rules = strings.TrimSuffix(strings.TrimSuffix(f.rules, "legacy"), ",")
			out[i] = f
		}
		return out
	}
	unknownNote := l0 + "filter_chains[0].filters[1].typed_config: skipped an embedded acme.filters.v1.Custom (a type kriguard does not read)"

	tests := []struct {
		name      string
		dump      []byte
		opts      naming.EnvoyNameOptions
		want      []found
		wantNotes []string
	}{
		{"strict", dumptest.KumaSidecar(false), naming.EnvoyNameOptions{Strict: true}, all, nil},
		{"legacy names pass unless strict", dumptest.KumaSidecar(false), naming.EnvoyNameOptions{}, lenient(all), nil},
		{"include_eds adds the cluster load assignments", dumptest.KumaSidecar(true), naming.EnvoyNameOptions{Strict: true}, append(all[:len(all):len(all)], eds), nil},
		{"an unknown extension type is skipped with a note", withUnknownFilter(t, dumptest.KumaSidecar(false)), naming.EnvoyNameOptions{Strict: true}, all, []string{unknownNote}},
		{"no accepted prefix", dumptest.KumaSidecar(false), naming.EnvoyNameOptions{Strict: true, Prefixes: []string{}}, withRule(all, "system_cp_ca", "legacy"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.dump, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(d)
			if len(got) != len(tt.want) {
				t.Errorf("got %d names, want %d", len(got), len(tt.want))
			}
			for i := range max(len(got), len(tt.want)) {
				var g, w found
				if i < len(got) {
					g = got[i]
				}
				if i < len(tt.want) {
					w = tt.want[i]
				}
				if g != w {
					t.Errorf("name %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
			if fmt.Sprint(d.Notes) != fmt.Sprint(tt.wantNotes) {
				t.Errorf("notes %q, want %q", d.Notes, tt.wantNotes)
			}
		})
	}
}

func withRule(fs []found, name, rule string) []found {
	out := make([]found, len(fs))
	for i, f := range fs {
		if f.name == name {
			f.rules = rule
		}
		out[i] = f
	}
	return out
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not JSON", "not json", "config dump: invalid JSON: invalid character 'o' in literal null (expecting 'u')"},
		{"two values", `{"configs": []} {}`, "config dump: invalid JSON: more than one value"},
		{"an array", `[]`, "config dump: want a JSON object with a configs list"},
		{"no configs", `{"listeners": []}`, "config dump: no configs: not the output of Envoy's /config_dump"},
		{"a known type of the wrong shape", `{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.ListenersConfigDump", "dynamic_listeners": {"a": 1}}]}`, "config dump: configs[0]: proto:"},
		{"binary", "\x00\x01\x02", "config dump: invalid JSON: invalid character '\\x00' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), naming.EnvoyNameOptions{})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want one starting with %q", err, tt.want)
			}
		})
	}
}

func withUnknownFilter(t testing.TB, dump []byte) []byte {
	t.Helper()
	b, err := dumptest.WithUnknownFilter(dump)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
