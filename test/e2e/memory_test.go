package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// TestBinaryLargeReviews runs the cmd/webhook binary as the chart runs it (--memory-limit of the
// chart's default limit) behind the real API server and sends it 30 concurrent updates of large
// objects (test/serverbench BenchmarkLargeReviews sends the largest, 6 MiB, directly), the costliest
// kind: their section names are all invalid (they were
// admitted before the webhook, standing in by the bypass label), so that both objects are decoded in
// full and every problem is compared by value. Every update must be decided (allowed, the problems
// being pre-existing) and the process must stay below its memory limit.
func TestBinaryLargeReviews(t *testing.T) {
	const (
		objects     = 30
		objectBytes = 64 << 10  // what an envtest API server on 2 shared cores handles 30 of at once (schema, field management)
		memoryLimit = 256 << 20 // the chart's default
	)
	ns := newNamespace(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	s, err := webhookenv.NewSetup(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Namespace = "kriguard-large"
	s.ValidatingName, s.MutatingName = "kriguard-large-validating", "kriguard-large-mutating"
	s.Namespaces = []string{ns}
	s.BypassLabel = bypassLabel
	s.ShutdownDelay = 0
	if err := s.Prepare(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, append(s.Args(), "--kubeconfig="+kubeconfig(t, "kriguard-large"), "--memory-limit="+strconv.Itoa(memoryLimit))...)
	if err := s.Register(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Unregister(context.Background(), env.Client) })
	if err := s.WaitReady(ctx, env.Client); err != nil {
		t.Fatal(err)
	}

	big := func(i int) *unstructured.Unstructured {
		var to []any
		size := 0
		for j := 0; size < objectBytes; j++ {
			to = append(to, map[string]any{
				"targetRef": map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": fmt.Sprintf("backend-%d", j)}, "sectionName": "Bad_Port"},
				"default":   map[string]any{"idleTimeout": "20s", "connectionTimeout": "2s", "http": map[string]any{"requestTimeout": "2s"}},
			})
			size += 190
		}
		o := object(kumaAPIVersion, "MeshTimeout", ns, "big-"+strconv.Itoa(i), map[string]string{bypassLabel: "true"}, map[string]any{
			"targetRef": map[string]any{"kind": "Mesh"},
			"to":        to,
		})
		return o
	}
	run := func(what string, f func(i int) error) {
		t.Helper()
		errs := make([]error, objects)
		var wg sync.WaitGroup
		for i := range objects {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = f(i)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%s %d of %d: %v", what, i+1, objects, err)
			}
		}
	}
	for i := range objects { // one at a time: this is not what is measured
		if err := env.Client.Create(ctx, big(i)); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	start := time.Now()
	run("update", func(i int) error {
		o := &unstructured.Unstructured{}
		o.SetAPIVersion(kumaAPIVersion)
		o.SetKind("MeshTimeout")
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "big-" + strconv.Itoa(i)}, o); err != nil {
			return err
		}
		o.SetLabels(map[string]string{"kuma.io/mesh": "default", "rev": "2"}) // drops the bypass label
		return env.Client.Update(ctx, o)
	})
	elapsed := time.Since(start)

	peak, err := procStatusBytes(p.cmd.Process.Pid, "VmHWM:")
	if err != nil {
		t.Fatal(err)
	}
	if peak >= memoryLimit {
		t.Errorf("peak resident memory %d MiB, at or above the limit of %d MiB", peak>>20, memoryLimit>>20)
	}
	t.Logf("%d concurrent updates of %d KiB objects decided in %s; peak resident memory %d MiB of %d MiB",
		objects, objectBytes>>10, elapsed.Round(time.Millisecond), peak>>20, memoryLimit>>20)
}

// procStatusBytes reads one "Key: N kB" line of /proc/<pid>/status, in bytes.
func procStatusBytes(pid int, key string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}
