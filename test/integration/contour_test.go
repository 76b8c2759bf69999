package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// contourEnv enables TestContour: it downloads Contour and its ~1000 dependency packages from the
// module proxy and vets them, minutes of work on a cold cache.
const contourEnv = "KRILINT_CONTOUR"

// contourProbe is a package the test adds to its copy of Contour: two names with ':' handed to
// Contour's own builders, which krilint must follow into go-control-plane.
const contourProbe = `// Package krilintprobe is not Contour's: krilint's integration test adds it to a scratch copy.
package krilintprobe

import envoy_v3 "github.com/projectcontour/contour/internal/envoy/v3"

func Probe(service string) {
	_ = envoy_v3.RouteConfiguration("probe:" + service)
	_ = envoy_v3.NewEnvoyGen(envoy_v3.EnvoyGenOpt{XDSClusterName: "probe:xds"}).GetConfigSource()
}
`

// TestContour runs krilint as a vet tool over Contour (github.com/projectcontour/contour, pinned in
// testdata/contour/go.mod), a large xDS control plane built on go-control-plane: it must not crash,
// must report nothing of Contour's own code (its names hold no ':', and every finding was read: see
// docs/krilint.md), must find the two names of a probe package that goes through Contour's builders,
// and with -strict must follow Contour's legacy names through its builders and option structs.
// contourStatUnsafe are the stat-unsafe warnings over Contour v1.33.8: literals in its tests.
var contourStatUnsafe = func() []string {
	var out []string
	for _, line := range []int{690, 737, 785, 834, 882, 931, 978, 1026, 1075, 1124, 1171, 1224, 1283, 1336, 1384, 1432, 1481} {
		out = append(out, "internal/envoy/v3/listener_test.go:"+strconv.Itoa(line)+": stat-unsafe")
	}
	for _, line := range []int{1272, 1280, 1288, 1311, 1329} {
		out = append(out, "internal/envoy/v3/route_test.go:"+strconv.Itoa(line)+": stat-unsafe")
	}
	return out
}()

func TestContour(t *testing.T) {
	if os.Getenv(contourEnv) == "" {
		t.Skipf("set %s=1 to vet Contour (downloads it from the module proxy; minutes)", contourEnv)
	}
	krilint := buildKrilint(t)
	pin, err := filepath.Abs(filepath.Join("testdata", "contour"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := goCommand(pin, "mod", "download", "-json", "github.com/projectcontour/contour").Output()
	if err != nil {
		t.Fatalf("downloading Contour: %v", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(mod.Dir)); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "internal", "krilintprobe", "probe.go")
	if err := os.MkdirAll(filepath.Dir(probe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(probe, []byte(contourProbe), 0o644); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	diags := vetDir(t, dir, krilint)
	t.Logf("go vet -vettool=krilint ./... over Contour: %d findings in %s", len(diags), time.Since(start).Round(time.Second))
	var got []string
	for _, d := range diags {
		got = append(got, d.at.String())
	}
	// The probe's two names hold a ':'; Contour's own names hold none. The stat-unsafe warnings are
	// literals of Contour's tests, each read by hand (docs/krilint.md, "On a real control plane:
	// Contour"): HTTP connection managers with the stat prefix "default/kuard" (a '/'), and
	// virtual hosts named after host names ("*", "*.bar.com", "www.example.com"), which Contour's
	// own code computes at run time from the objects it serves, out of krilint's sight.
	want := []string{"internal/krilintprobe/probe.go:7: colon", "internal/krilintprobe/probe.go:8: colon"}
	want = append(want, contourStatUnsafe...)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings over Contour:\n got %q\nwant %q (the probe's and the stat-unsafe warnings of Contour's tests)", got, want)
		for _, d := range diags {
			t.Logf("%s: %s", d.at, d.Message)
		}
	}

	start = time.Now()
	strict := vetDir(t, dir, krilint, "-strict")
	t.Logf("go vet -vettool=krilint -strict ./... over Contour: %d findings in %s", len(strict), time.Since(start).Round(time.Second))
	seen := map[string]string{}
	for _, d := range strict {
		if d.Category != "legacy" && !strings.HasPrefix(d.at.File, "internal/krilintprobe/") && !slices.Contains(contourStatUnsafe, d.at.String()) {
			t.Errorf("%s: %s finding in Contour's code: %s", d.at, d.Category, d.Message)
		}
		seen[d.at.File+":"+strconv.Itoa(d.at.Line)] = d.Message
	}
	// Names that reach go-control-plane through Contour's builders, option structs and helpers.
	for at, field := range map[string]string{
		"internal/envoy/v3/stats.go:48":      "listenerv3.Listener.Name",
		"internal/envoy/v3/bootstrap.go:234": "clusterv3.Cluster.Name",
		"internal/xdscache/v3/route.go:72":   "routev3.RouteConfiguration.Name gets \"ingress_http\" (literal \"ingress_http\") through v3.RouteConfiguration parameter name",
		"cmd/contour/serve.go:489":           "corev3.GrpcService_EnvoyGrpc.ClusterName gets \"contour\" (literal \"contour\") through v3.EnvoyGenOpt.XDSClusterName",
	} {
		if msg, ok := seen[at]; !ok || !strings.Contains(msg, field) {
			t.Errorf("%s: want a legacy finding naming %s, got %q", at, field, msg)
		}
	}
}

// vetDir runs `go vet -json -vettool=krilint FLAGS ./...` in dir and returns the findings.
func vetDir(t *testing.T, dir, krilint string, flags ...string) []diagnostic {
	t.Helper()
	args := append(append([]string{"vet", "-json", "-vettool=" + krilint}, flags...), "./...")
	cmd := goCommand(dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go vet %v: %v\nstderr:\n%s", flags, err, stderr.Bytes())
	}
	return parseJSONTrees(t, dir, stdout.Bytes())
}
