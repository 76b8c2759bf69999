package serverbench

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkIdleMemory starts the cmd/webhook binary with certificates made here
// (--cert-management=external), waits until it is ready, lets it idle and reports its resident
// memory (VmRSS) as idle-rss-MiB.
//
// The binary needs a kubeconfig to start its manager, but with external certificates nothing in
// it reads from the API server, so the kubeconfig points at a closed loopback port: the figure is
// the webhook's own footprint, not that of any cache.
func BenchmarkIdleMemory(b *testing.B) {
	bin := buildWebhook(b)
	b.ReportAllocs()
	var rss float64
	for range b.N {
		rss = idleRSS(b, bin)
	}
	b.ReportMetric(rss/(1<<20), "idle-rss-MiB")
}

// buildWebhook builds cmd/webhook into a temporary folder.
func buildWebhook(b *testing.B) string {
	b.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		b.Fatalf("go env GOMOD: %v", err)
	}
	out := filepath.Join(b.TempDir(), "kriguard-webhook")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/webhook")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/webhook: %v\n%s", err, o)
	}
	return out
}

// idleRSS runs the binary until it is ready and idle and returns its VmRSS in bytes.
func idleRSS(b *testing.B, bin string) float64 {
	b.Helper()
	dir := b.TempDir()
	writeCerts(b, dir)
	ports := freePorts(b, 4)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`, ports[3])), 0o600); err != nil {
		b.Fatal(err)
	}
	var output bytes.Buffer
	cmd := exec.Command(bin,
		"--kubeconfig="+kubeconfig,
		"--cert-management=external",
		"--cert-dir="+dir,
		"--webhook-host=127.0.0.1",
		"--webhook-port="+strconv.Itoa(ports[0]),
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(ports[1]),
		"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(ports[2]),
		"--shutdown-delay=0s",
	)
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting the webhook: %v", err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	readyz := "http://127.0.0.1:" + strconv.Itoa(ports[2]) + "/readyz"
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(readyz)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the webhook was not ready within a minute (%v); output:\n%s", err, output.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Idle for a few seconds, so that start-up work (certificate loading, listeners) is over.
	time.Sleep(5 * time.Second)
	rss, err := vmRSS(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	return rss
}

// vmRSS reads a process's resident set size from /proc.
func vmRSS(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the webhook's memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("parsing VmRSS %q: %w", v, err)
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(b *testing.B, n int) []int {
	b.Helper()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatalf("finding a free port: %v", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
