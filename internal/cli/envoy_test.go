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
	var names []envoyResult
	if err := json.Unmarshal([]byte(r.stdout), &names); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, r.stdout)
	}
	allowed, denied := 0, 0
	for _, n := range names {
		if n.Allowed != (len(n.Problems) == 0) {
			t.Errorf("%s: allowed=%v with %d problems", n.Path, n.Allowed, len(n.Problems))
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
