package auditbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kriguard/kriguard/internal/kumaapi/kumaapitest"
	"github.com/kriguard/kriguard/internal/served"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

const pageSize = 500

// envInt is the environment variable name as a positive int, or def.
func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// build compiles kriguard and barelist into a temporary directory.
func build(tb testing.TB) (kriguard, barelist string) {
	tb.Helper()
	dir := tb.TempDir()
	kriguard, barelist = filepath.Join(dir, "kriguard"), filepath.Join(dir, "barelist")
	for pkg, out := range map[string]string{"../../cmd/kriguard": kriguard, "./barelist": barelist} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return kriguard, barelist
}

// seedKinds are the kinds the objects are spread over: Kuma policies with target references, a
// MeshService, a cluster-scoped Mesh and a Kong object.
var seedKinds = []struct{ group, kind string }{
	{rules.KumaGroup, "MeshTimeout"}, {rules.KumaGroup, "MeshRetry"}, {rules.KumaGroup, "MeshService"},
	{rules.KumaGroup, "MeshTrafficPermission"}, {rules.KongGroup, "KongPlugin"}, {rules.KumaGroup, "Mesh"},
}

// seed creates n objects over seedKinds in five namespaces, every 37th Kuma object with a label no
// KRI can hold, and returns how many are bad.
func seed(tb testing.TB, env *testenv.Env, n int) int {
	tb.Helper()
	ctx := context.Background()
	var namespaces []string
	for i := range 5 {
		ns := fmt.Sprintf("bench-%d", i)
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			tb.Fatal(err)
		}
		namespaces = append(namespaces, ns)
	}
	var g errgroup.Group
	g.SetLimit(8)
	bad := 0
	for i := range n {
		sk := seedKinds[i%len(seedKinds)]
		k, ok := env.Kind(sk.group, sk.kind)
		if !ok {
			tb.Fatalf("the control plane serves no %s.%s", sk.kind, sk.group)
		}
		name := fmt.Sprintf("obj-%d", i)
		obj := testenv.NewObject(k, namespaces[(i/len(seedKinds))%len(namespaces)], name)
		if i%37 == 0 && k.Group == rules.KumaGroup {
			bad++
			if k.Kind == "Mesh" {
				obj.SetLabels(map[string]string{"kuma.io/display-name": "Obj_" + name})
			} else {
				obj.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
			}
		}
		g.Go(func() error { return env.Client.Create(ctx, obj) })
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	return bad
}

// resources returns, as group/version/resource, what audit -A lists: the guarded kinds the
// control plane serves under the default release, and the Gateway API kinds it compares.
func resources(tb testing.TB, env *testenv.Env) []string {
	tb.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		tb.Fatal(err)
	}
	kinds, err := served.KindsFor(context.Background(), dc, rules.DefaultConfig(), naming.DefaultRelease, false, "list")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, k := range kinds {
		out = append(out, k.GVR.Group+"/"+k.GVR.Version+"/"+k.GVR.Resource)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		tb.Fatal(err)
	}
	for _, g := range groups.Groups {
		if g.Name != rules.GatewayGroup {
			continue
		}
		gv := g.Name + "/" + g.PreferredVersion.Version
		rl, err := dc.ServerResourcesForGroupVersion(gv)
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range rl.APIResources {
			if slices.Contains([]string{"GatewayClass", "Gateway", "HTTPRoute"}, r.Kind) && !strings.Contains(r.Name, "/") {
				out = append(out, gv+"/"+r.Name)
			}
		}
	}
	return out
}

// kubeconfig writes a kubeconfig of a member of system:masters.
func kubeconfig(tb testing.TB, env *testenv.Env) string {
	tb.Helper()
	u, err := env.Environment.AddUser(envtest.User{Name: "bench", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := u.KubeConfig()
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(tb.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// process is one command measured.
type process struct {
	name string
	args []string
	// check reads the exit code and standard output and says what is wrong with them.
	check func(code int, out []byte) error
}

// cost is what one run of a process took.
type cost struct{ wall, cpu time.Duration }

func (p process) run(tb testing.TB) cost {
	tb.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(p.args[0], p.args[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			tb.Fatalf("%s: %v", p.name, err)
		}
		code = ee.ExitCode()
	}
	if err := p.check(code, out.Bytes()); err != nil {
		tb.Fatalf("%s: %v\n%s", p.name, err, errOut.String())
	}
	return cost{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// compare runs the processes in rounds, the first (the baseline) and the others in an order that
// turns each round, and prints each round, each process's median wall and CPU time and the median
// of its per-round ratios to the baseline.
func compare(b *testing.B, objects, rounds int, ps []process) {
	b.Helper()
	fmt.Printf("machine: %d cores, load average %s, %s; %d objects, pages of %d, %d rounds\n",
		runtime.NumCPU(), loadAverage(), runtime.Version(), objects, pageSize, rounds)
	for _, p := range ps {
		p.run(b) // warm the page cache and the API server's
	}
	costs := make([][]cost, len(ps))
	for r := range rounds {
		order := make([]int, len(ps))
		for i := range ps {
			order[i] = (i + r) % len(ps)
		}
		line := fmt.Sprintf("round %d:", r+1)
		got := make([]cost, len(ps))
		for _, i := range order {
			got[i] = ps[i].run(b)
		}
		for i, c := range got {
			costs[i] = append(costs[i], c)
			line += fmt.Sprintf("  %s %v (cpu %v)", ps[i].name, c.wall.Round(time.Millisecond), c.cpu.Round(time.Millisecond))
		}
		fmt.Println(line)
	}
	for i, p := range ps {
		walls, cpus := make([]float64, rounds), make([]float64, rounds)
		wallRatio, cpuRatio := make([]float64, rounds), make([]float64, rounds)
		for r, c := range costs[i] {
			base := costs[0][r]
			walls[r], cpus[r] = c.wall.Seconds(), c.cpu.Seconds()
			wallRatio[r], cpuRatio[r] = c.wall.Seconds()/base.wall.Seconds(), c.cpu.Seconds()/base.cpu.Seconds()
		}
		fmt.Printf("%-12s wall %6.0f ms  cpu %6.0f ms  %5.1f µs cpu/object", p.name, median(walls)*1e3, median(cpus)*1e3, median(cpus)*1e6/float64(objects))
		if i > 0 {
			fmt.Printf("  wall %.2fx  cpu %.2fx the baseline (medians of per-round ratios)", median(wallRatio), median(cpuRatio))
			b.ReportMetric(median(wallRatio), "x-bare-"+p.name)
		}
		fmt.Println()
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(raw))[:3], " ")
}

// countOutput checks a count barelist printed.
func countOutput(want int) func(int, []byte) error {
	return func(code int, out []byte) error {
		if code != 0 {
			return fmt.Errorf("exit %d", code)
		}
		if got := strings.TrimSpace(string(out)); got != strconv.Itoa(want) {
			return fmt.Errorf("listed %s objects, want %d", got, want)
		}
		return nil
	}
}

// auditOutput checks an audit that found bad objects: with json, that it gave a result for each
// of want objects, bad of them denied; as text, that it printed bad lines.
func auditOutput(json bool, want, bad int) func(int, []byte) error {
	return func(code int, out []byte) error {
		if code != 1 {
			return fmt.Errorf("exit %d, want 1 (objects denied)", code)
		}
		if !json {
			if got := bytes.Count(out, []byte("\n")); got < bad {
				return fmt.Errorf("%d lines, want at least %d:\n%s", got, bad, out)
			}
			return nil
		}
		return checkJSON(out, want, bad)
	}
}

func checkJSON(out []byte, want, bad int) error {
	var results []struct {
		Allowed bool `json:"allowed"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		return err
	}
	denied := 0
	for _, r := range results {
		if !r.Allowed {
			denied++
		}
	}
	if len(results) != want || denied != bad {
		return fmt.Errorf("%d results, %d denied; want %d, %d denied", len(results), denied, want, bad)
	}
	return nil
}

// BenchmarkAuditProcess: kriguard audit -A (text and -o json) against barelist over the same kinds
// of a seeded kube-apiserver, pages of 500, as whole processes. OBJECTS (default 6000) and ROUNDS
// (default 5) change the run.
//
//	go test ./test/auditbench -run '^$' -bench AuditProcess -benchtime 1x
func BenchmarkAuditProcess(b *testing.B) {
	n, rounds := envInt(b, "OBJECTS", 6000), envInt(b, "ROUNDS", 5)
	kriguard, barelist := build(b)
	ctrllog.SetLogger(logr.Discard())
	env := testenv.StartForTest(b, testenv.Options{})
	bad := seed(b, env, n)
	kc := kubeconfig(b, env)
	audit := []string{kriguard, "audit", "-A", "--kubeconfig", kc, "--chunk-size", strconv.Itoa(pageSize)}
	ps := []process{
		{name: "barelist", args: append([]string{barelist, "-kubeconfig", kc, "-limit", strconv.Itoa(pageSize)}, resources(b, env)...), check: countOutput(n)},
		{name: "audit", args: audit, check: auditOutput(false, n, bad)},
		{name: "audit-json", args: append(slices.Clip(audit), "-o", "json"), check: auditOutput(true, n, bad)},
	}
	for b.Loop() {
		compare(b, n, rounds, ps)
	}
}

// BenchmarkKumaAuditProcess: kriguard audit --kuma-api (text and -o json) against barelist over the
// same resource types of a Kuma REST API served by this process (OBJECTS MeshTimeouts, default
// 10000), pages of 500, as whole processes.
//
//	go test ./test/auditbench -run '^$' -bench KumaAuditProcess -benchtime 1x
func BenchmarkKumaAuditProcess(b *testing.B) {
	n, rounds := envInt(b, "OBJECTS", 10000), envInt(b, "ROUNDS", 5)
	kriguard, barelist := build(b)
	s, types := kumaServer(b, n)
	bad := (n + 9) / 10
	audit := []string{kriguard, "audit", "--kuma-api", s.URL, "--chunk-size", strconv.Itoa(pageSize)}
	ps := []process{
		{name: "barelist", args: append([]string{barelist, "-kuma-api", s.URL, "-limit", strconv.Itoa(pageSize)}, types...), check: countOutput(n)},
		{name: "audit", args: audit, check: auditOutput(false, n, bad)},
		{name: "audit-json", args: append(slices.Clip(audit), "-o", "json"), check: auditOutput(true, n, bad)},
	}
	for b.Loop() {
		compare(b, n, rounds, ps)
	}
}

// kumaServer serves a Kuma 2.14.3 control plane's index and types (recorded in
// internal/cli/testdata/kumaapi) and n MeshTimeouts, shaped as that control plane lists them, one
// in ten with a display name no KRI can hold; the other types list empty. Pages as Kuma's: size,
// offset, next. It returns the server and the paths of the types audit judges.
func kumaServer(tb testing.TB, n int) (*httptest.Server, []string) {
	tb.Helper()
	raw, err := os.ReadFile("../../internal/cli/testdata/kumaapi/v2.14.3-0c7aaec.json")
	if err != nil {
		tb.Fatal(err)
	}
	var fixture map[string]struct {
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(raw, &fixture); err != nil {
		tb.Fatal(err)
	}
	var index struct {
		Version string `json:"version"`
	}
	var typeList struct {
		Resources []struct{ Name, Path string } `json:"resources"`
	}
	if err := json.Unmarshal(fixture["/"].Body, &index); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(fixture["/_resources"].Body, &typeList); err != nil {
		tb.Fatal(err)
	}
	rel, err := naming.ParseRelease(index.Version)
	if err != nil {
		tb.Fatal(err)
	}
	var paths []string
	for _, t := range typeList.Resources {
		if rules.DefaultConfig().Judges(schema.GroupKind{Group: rules.KumaGroup, Kind: t.Name}, rel) {
			paths = append(paths, t.Path)
		}
	}
	s := httptest.NewServer(kumaapitest.Handler(fixture["/"].Body, fixture["/_resources"].Body, kumaapitest.Timeouts(n)))
	tb.Cleanup(s.Close)
	return s, paths
}
