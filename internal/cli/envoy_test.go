package cli

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
)

// adminServer serves config dumps the way Envoy's admin interface does: /config_dump without
// endpoints, and with them for ?include_eds.
func adminServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(dumptest.AdminHandler())
	t.Cleanup(s.Close)
	return s
}

func TestEnvoy(t *testing.T) {
	s := adminServer(t)
	dir := t.TempDir()
	dumpFile := writeFile(t, dir, "config_dump.json", string(dumptest.KumaSidecar(false)))
	unknown, err := dumptest.WithUnknownFilter(dumptest.KumaSidecar(false))
	if err != nil {
		t.Fatal(err)
	}
	unknownFile := writeFile(t, dir, "custom.json", string(unknown))
	notADump := writeFile(t, dir, "not-a-dump.json", `{"apiVersion": "v1", "kind": "ConfigMap"}`)
	binary := writeFile(t, dir, "bin", "\x00\x01\x02")
	closed := closedPort(t)

	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		golden string // compares stdout with testdata/golden/<golden>
		stdout []string
		stderr string
	}{
		{name: "file, text", args: []string{dumpFile}, code: ExitDenied, golden: "envoy.text"},
		{name: "file, json", args: []string{"-o", "json", dumpFile}, code: ExitDenied, golden: "envoy.json"},
		{name: "file, strict", args: []string{"--strict", dumpFile}, code: ExitDenied, golden: "envoy-strict.text"},
		{name: "standard input", stdin: string(dumptest.KumaSidecar(false)), args: []string{"-"}, code: ExitDenied,
			stdout: []string{`-: configs[0].dynamic_listeners[1].active_state.listener.name: listener "outbound:10.43.0.1:5432" contains ':'`}},
		{name: "admin URL", args: []string{s.URL + "/config_dump"}, code: ExitDenied,
			stdout: []string{s.URL + `/config_dump: configs[1].dynamic_active_clusters[0].cluster.alt_stat_name: alt_stat_name "backend:http" contains ':'`}},
		{name: "admin URL with endpoints", args: []string{"--strict", "-o", "json", s.URL + "/config_dump?include_eds"}, code: ExitDenied,
			stdout: []string{`"path":"configs[4].dynamic_endpoint_configs[0].endpoint_config.cluster_name","what":"cluster load assignment","name":"kri_msvc_default__kuma-demo_backend_http","allowed":true`}},
		{name: "an unknown extension is skipped with a note", args: []string{unknownFile}, code: ExitDenied,
			stderr: unknownFile + ": note: configs[0].dynamic_listeners[0].active_state.listener.filter_chains[0].filters[1].typed_config: skipped an embedded acme.filters.v1.Custom (a type kriguard does not read)\n"},
		{name: "not a config dump", args: []string{notADump}, code: ExitError,
			stderr: "kriguard envoy: " + notADump + ": config dump: no configs: not the output of Envoy's /config_dump\n"},
		{name: "binary", args: []string{binary}, code: ExitError,
			stderr: "kriguard envoy: " + binary + `: config dump: invalid JSON: invalid character '\x00' looking for beginning of value` + "\n"},
		{name: "missing file", args: []string{dir + "/nope.json"}, code: ExitError,
			stderr: "kriguard envoy: " + dir + "/nope.json: reading: no such file or directory\n"},
		{name: "too large", args: []string{"--max-bytes", "100", dumpFile}, code: ExitError,
			stderr: "kriguard envoy: " + dumpFile + ": config dump is larger than 100 bytes (--max-bytes)\n"},
		{name: "admin URL not found", args: []string{s.URL + "/stats"}, code: ExitError,
			stderr: "kriguard envoy: fetching the config dump: 404 Not Found: 404 page not found\n"},
		{name: "admin URL unreachable", args: []string{"http://" + closed + "/config_dump"}, code: ExitError,
			stderr: "kriguard envoy: fetching the config dump: Get \"http://" + closed + "/config_dump\": dial tcp " + closed + ": connect: connection refused\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.stdin, append([]string{"envoy"}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			if tt.golden != "" {
				golden(t, tt.golden, strings.ReplaceAll(r.stdout, dumpFile, "config_dump.json"))
			}
			for _, s := range tt.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
				}
			}
			if r.stderr != tt.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", r.stderr, tt.stderr)
			}
			if tt.code == ExitError && r.stdout != "" {
				t.Errorf("stdout should be empty on an error, got:\n%s", r.stdout)
			}
		})
	}
}

// The JSON of envoy lists every name, with its problems, in one array.
func TestEnvoyJSONShape(t *testing.T) {
	dumpFile := writeFile(t, t.TempDir(), "d.json", string(dumptest.KumaSidecar(true)))
	r := run(t, "", "envoy", "-o", "json", dumpFile)
	var names []struct {
		Source, Path, What, Name string
		Allowed                  bool
		Problems                 []jsonFinding
	}
	if err := json.Unmarshal([]byte(r.stdout), &names); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, r.stdout)
	}
	allowed, denied := 0, 0
	for _, n := range names {
		errs := 0
		for _, p := range n.Problems {
			if p.Rule == "" || p.Level == "" {
				t.Errorf("%s: a problem without its rule or level: %+v", n.Path, p)
			}
			if p.Level == "error" {
				errs++
			}
		}
		if n.Allowed != (errs == 0) {
			t.Errorf("%s: allowed=%v with %d errors", n.Path, n.Allowed, errs)
		}
		if n.Allowed {
			allowed++
		} else {
			denied++
		}
	}
	if len(names) != 21 || denied != 9 {
		t.Errorf("%d names, %d with problems; want 21 names, 9 with problems", len(names), denied)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// statDump holds dotted names Envoy's stats split, one of them covered by Kuma's sanitized
// alt_stat_name, which starts with "kri_" and is no KRI.
const statDump = `{"configs": [
 {"@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump", "dynamic_active_clusters": [
  {"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
   "name": "kri_extsvc_default__kuma-system_httpbin.org_443", "alt_stat_name": "kri_extsvc_default__kuma-system_httpbin_org_443"}},
  {"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "api.example.com_443"}},
  {"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "system_db", "alt_stat_name": "kri_db"}},
  {"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "system_cache.v1", "alt_stat_name": "cache.v1"}}]},
 {"@type": "type.googleapis.com/envoy.admin.v3.ListenersConfigDump", "dynamic_listeners": [
  {"name": "self_inbound", "active_state": {"listener": {"@type": "type.googleapis.com/envoy.config.listener.v3.Listener",
   "name": "self_inbound", "stat_prefix": "inbound.10.0.0.1", "filter_chains": [{"filters": [
    {"name": "envoy.filters.network.http_connection_manager", "typed_config": {
     "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
     "stat_prefix": "http.in", "rds": {"route_config_name": "self_routes"}}}]},
    {"filters": [{"name": "envoy.filters.network.tcp_proxy", "typed_config": {
     "@type": "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
     "stat_prefix": "tcp_in", "cluster": "system_db"}}]}]}}}]},
 {"@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump", "dynamic_route_configs": [
  {"route_config": {"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "name": "self_routes",
   "virtual_hosts": [{"name": "httpbin.org", "domains": ["httpbin.org"]}]}}]}]}`

func TestEnvoyStatNames(t *testing.T) {
	dumpFile := writeFile(t, t.TempDir(), "stats.json", statDump)
	r := run(t, "", "envoy", dumpFile)
	if r.code != ExitDenied {
		t.Errorf("exit %d, want %d (the alt_stat_name \"kri_db\" is no KRI); stderr:\n%s", r.code, ExitDenied, r.stderr)
	}
	want := []string{
		dumpFile + `: configs[0].dynamic_active_clusters[1].cluster.name: cluster "api.example.com_443" holds '.', outside Envoy's stat-safe set [a-zA-Z0-9_-]: '.' splits the name in Envoy's stats, and the tag extractors keep only its first segment [envoy/stat-unsafe, warning]`,
		dumpFile + `: configs[0].dynamic_active_clusters[2].cluster.alt_stat_name: alt_stat_name "kri_db" starts with "kri_" but is not a KRI: `,
		dumpFile + `: configs[0].dynamic_active_clusters[3].cluster.alt_stat_name: alt_stat_name "cache.v1" holds '.'`,
		dumpFile + `: configs[1].dynamic_listeners[0].active_state.listener.stat_prefix: stat_prefix "inbound.10.0.0.1" holds '.'`,
		dumpFile + `: configs[1].dynamic_listeners[0].active_state.listener.filter_chains[0].filters[0].typed_config.stat_prefix: stat_prefix "http.in" holds '.'`,
		dumpFile + `: configs[2].dynamic_route_configs[0].route_config.virtual_hosts[0].name: virtual host "httpbin.org" holds '.'`,
		dumpFile + ": envoy/not-kri (error): 1 of 15 names\n",
		dumpFile + ": envoy/stat-unsafe (warning): 5 of 15 names\n",
	}
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
	// Kuma's cluster: its name is covered by the alt_stat_name, which is not denied.
	if strings.Contains(r.stdout, "httpbin_org") || strings.Contains(r.stdout, "clusters[0]") {
		t.Errorf("Kuma's sanitized alt_stat_name or its cluster reported:\n%s", r.stdout)
	}
	// One warning per unsafe name: a dotted name its alt_stat_name covers ("system_cache.v1") is
	// not one, and neither is the stat-safe TCP proxy's prefix.
	if n := strings.Count(r.stdout, "[envoy/stat-unsafe, warning]"); n != 5 {
		t.Errorf("%d stat-unsafe warnings, want 5:\n%s", n, r.stdout)
	}
	// Every finding names its rule; the summary lines follow, one per rule.
	for line := range strings.Lines(r.stdout) {
		if strings.Contains(line, " names\n") {
			continue
		}
		if i := strings.LastIndex(line, " [envoy/"); i < 0 || !strings.HasSuffix(line, "]\n") {
			t.Errorf("a finding without its rule: %q", line)
		}
	}
	if strings.Contains(r.stdout, `"system_cache.v1"`) || strings.Contains(r.stdout, `"tcp_in"`) {
		t.Errorf("a covered or stat-safe name reported:\n%s", r.stdout)
	}

	// Turned off in the configuration, the rule reports nothing; the others still do.
	off := writeFile(t, t.TempDir(), "off.yaml", "apiVersion: kriguard.io/v1alpha1\nkind: Configuration\nrules:\n  disabled: [envoy/stat-unsafe]\n")
	r = run(t, "", "envoy", "--config", off, dumpFile)
	if strings.Contains(r.stdout, "stat-unsafe") || !strings.Contains(r.stdout, dumpFile+": envoy/not-kri (error): 1 of 15 names\n") || r.code != ExitDenied {
		t.Errorf("envoy/stat-unsafe turned off: exit %d\n%s", r.code, r.stdout)
	}

	// Warnings alone deny nothing.
	okFile := writeFile(t, t.TempDir(), "ok.json", strings.Replace(statDump, `"alt_stat_name": "kri_db"`, `"alt_stat_name": "system_db_stats"`, 1))
	if r := run(t, "", "envoy", okFile); r.code != ExitOK {
		t.Errorf("only warnings: exit %d, want %d\n%s", r.code, ExitOK, r.stdout)
	}
}
