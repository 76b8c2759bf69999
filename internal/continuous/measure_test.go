package continuous

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kriguard/kriguard/internal/cli"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// measureEnv turns on TestMeasure, which seeds thousands of objects: a measurement for
// docs/reports.md, not a check (times on a shared machine are noise).
const measureEnv = "KRIGUARD_MEASURE_REPORTS"

// writes returns the API server's count of write requests (POST, PUT, PATCH, DELETE) to
// openreports.io so far, from its own metrics.
func writes(t *testing.T) int {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "apiserver_request_total{") || !strings.Contains(l, `group="openreports.io"`) {
			continue
		}
		if !strings.Contains(l, `verb="POST"`) && !strings.Contains(l, `verb="PUT"`) && !strings.Contains(l, `verb="PATCH"`) && !strings.Contains(l, `verb="DELETE"`) {
			continue
		}
		v, err := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
		if err != nil {
			t.Fatal(err)
		}
		n += int(v)
	}
	return n
}

// TestMeasure seeds 6,000 objects (one in 37 of the Kuma ones bad), runs `kriguard audit -A
// --report=cluster` twice and counts its writes, then measures the continuous audit's heap once it
// has judged them all.
func TestMeasure(t *testing.T) {
	if os.Getenv(measureEnv) == "" {
		t.Skipf("a measurement: set %s=1 to run it", measureEnv)
	}
	const n = 6000
	// KRIGUARD_MEASURE_PADDING adds an annotation of that many bytes to each object: the memory of
	// bigger objects.
	padding, _ := strconv.Atoi(os.Getenv("KRIGUARD_MEASURE_PADDING"))
	ctx := context.Background()
	seedKinds := []string{"MeshTimeout", "MeshRetry", "MeshService", "MeshTrafficPermission", "KongPlugin", "Mesh"}
	var nss []string
	for i := range 5 {
		ns := fmt.Sprintf("measure-%d", i)
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		nss = append(nss, ns)
	}
	var g errgroup.Group
	g.SetLimit(8)
	bad, jsonBytes := 0, 0
	for i := range n {
		kind := seedKinds[i%len(seedKinds)]
		group := rules.KumaGroup
		if kind == "KongPlugin" {
			group = rules.KongGroup
		}
		k, ok := env.Kind(group, kind)
		if !ok {
			t.Fatalf("no %s", kind)
		}
		o := testenv.NewObject(k, nss[(i/len(seedKinds))%len(nss)], fmt.Sprintf("obj-%d", i))
		if padding > 0 {
			o.SetAnnotations(map[string]string{"example.com/padding": strings.Repeat("p", padding)})
		}
		if i%37 == 0 && group == rules.KumaGroup {
			bad++
			if kind == "Mesh" {
				o.SetLabels(map[string]string{"kuma.io/display-name": "Obj_" + o.GetName()})
			} else {
				o.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
			}
		}
		g.Go(func() error { return env.Client.Create(ctx, o) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d objects, %d bad", n, bad)

	u, err := env.Environment.AddUser(envtest.User{Name: "measure", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"first", "second"} {
		before := writes(t)
		var out, errOut bytes.Buffer
		start := time.Now()
		code := cli.Main(ctx, []string{"audit", "-A", "--kubeconfig", kubeconfig, "--report=cluster", "-o", "json"}, cli.Streams{Out: &out, Err: &errOut})
		took := time.Since(start)
		if code != cli.ExitDenied {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		t.Logf("audit --report=cluster, %s run: %s, %d API writes to openreports.io; %s", run, took.Round(time.Millisecond), writes(t)-before, strings.TrimSpace(errOut.String()))
	}

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapAlloc
	m := NewMetrics()
	a, err := New(env.Config, Options{Interval: time.Hour, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- a.Run(runCtx) }()
	defer func() { cancel(); <-done }()
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 5*time.Minute, true, func(context.Context) (bool, error) {
		return a.Synced() && a.queue.Len() == 0 && judgedTotal(a) >= n, nil
	})
	if err != nil {
		t.Fatalf("not done: %v (judged %d)", err, judgedTotal(a))
	}
	took := time.Since(start)
	for _, k := range a.watched() {
		for _, o := range k.informer.GetStore().List() {
			jsonBytes += len(o.(*stored).raw)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap := int64(ms.HeapAlloc) - int64(heapBefore)
	t.Logf("continuous audit: synced and judged %d objects in %s; heap %.1f MiB more than before it started (%.1f MiB per 10,000 objects); the objects' JSON: %.1f MiB (%d bytes each on average)",
		judgedTotal(a), took.Round(time.Millisecond), float64(heap)/(1<<20), float64(heap)/(1<<20)*10000/float64(n), float64(jsonBytes)/(1<<20), jsonBytes/n)
}

// judgedTotal is the number of objects the auditor has judged and still watches.
func judgedTotal(a *Auditor) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.outcome)
}
