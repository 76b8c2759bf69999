package serverbench

import (
	"bufio"
	"context"
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

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// BenchmarkIdleMemory starts the cmd/webhook binary, waits until it is ready, lets it idle and
// reports its resident memory (VmRSS) as idle-rss-MiB, in the two certificate modes:
//
//   - external-certs: certificates made here (--cert-management=external). The binary needs a
//     kubeconfig to start its manager, but in this mode nothing reads from the API server, so the
//     kubeconfig points at a closed loopback port: the webhook's own footprint.
//   - cert-controller: against a real control plane (internal/testenv), with cert-controller
//     issuing the certificate and injecting the CA into real webhook configurations, so its caches
//     and controller are counted too. This is the default deployment.
func BenchmarkIdleMemory(b *testing.B) {
	bin := buildWebhook(b)
	b.Run("external-certs", func(b *testing.B) {
		b.ReportAllocs()
		var rss float64
		for range b.N {
			rss = idleRSS(b, bin)
		}
		b.ReportMetric(rss/(1<<20), "idle-rss-MiB")
	})
	b.Run("cert-controller", func(b *testing.B) {
		env, err := testenv.Start(testenv.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			if err := env.Stop(); err != nil {
				b.Error(err)
			}
		})
		b.ReportAllocs()
		var rss float64
		for range b.N {
			rss = idleRSSCertController(b, bin, env)
		}
		b.ReportMetric(rss/(1<<20), "idle-rss-MiB")
	})
}

// buildWebhook builds cmd/webhook into a temporary folder, unless KRIGUARD_WEBHOOK_BINARY names a
// prebuilt binary to measure instead.
func buildWebhook(b testing.TB) string {
	b.Helper()
	if bin := os.Getenv("KRIGUARD_WEBHOOK_BINARY"); bin != "" {
		return bin
	}
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

// idleRSS runs the binary with external certificates until it is ready and idle and returns its
// VmRSS in bytes.
func idleRSS(b *testing.B, bin string) float64 {
	b.Helper()
	dir := b.TempDir()
	writeCerts(b, dir)
	ports := freePorts(b, 4)
	kubeconfig := unreachableKubeconfig(b, dir, ports[3])
	p := start(b, bin,
		"--kubeconfig="+kubeconfig,
		"--cert-management=external",
		"--cert-dir="+dir,
		"--webhook-host=127.0.0.1",
		"--webhook-port="+strconv.Itoa(ports[0]),
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(ports[1]),
		"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(ports[2]),
		"--shutdown-delay=0s",
	)
	defer p.stop()
	p.waitReady(b, "http://127.0.0.1:"+strconv.Itoa(ports[2])+"/readyz")
	return p.idleRSS(b)
}

// idleRSSCertController runs the binary with cert-controller against env until it is ready and
// idle and returns its VmRSS in bytes.
func idleRSSCertController(b *testing.B, bin string, env *testenv.Env) float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := b.TempDir()
	s, err := webhookenv.NewSetup(dir)
	if err != nil {
		b.Fatal(err)
	}
	s.ShutdownDelay = 0
	if err := s.Prepare(ctx, env.Client); err != nil {
		b.Fatal(err)
	}
	user, err := env.Environment.AddUser(envtest.User{Name: "serverbench", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		b.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		b.Fatal(err)
	}
	p := start(b, bin, append(s.Args(), "--kubeconfig="+kubeconfig)...)
	defer p.stop()
	if err := s.Register(ctx, env.Client); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Unregister(context.Background(), env.Client) }()
	if err := s.WaitReady(ctx, env.Client); err != nil {
		b.Fatalf("%v; output:\n%s", err, p.output.String())
	}
	return p.idleRSS(b)
}

// process is a running webhook binary.
type process struct {
	cmd    *exec.Cmd
	output *webhookenv.SyncBuffer
	done   chan struct{}
}

func start(b testing.TB, bin string, args ...string) *process {
	b.Helper()
	p := &process{cmd: exec.Command(bin, args...), output: &webhookenv.SyncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	if err := p.cmd.Start(); err != nil {
		b.Fatalf("starting the webhook: %v", err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p
}

// stop sends SIGTERM and waits for the process, killing it after 30s.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *process) waitReady(b testing.TB, readyz string) {
	b.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get(readyz)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("the webhook was not ready within a minute (%v); output:\n%s", err, p.output.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// idleRSS lets the process idle for a few seconds, so that start-up work (certificates, listeners,
// caches) is over, and reads its VmRSS.
func (p *process) idleRSS(b *testing.B) float64 {
	b.Helper()
	time.Sleep(5 * time.Second)
	rss, err := vmRSS(p.cmd.Process.Pid)
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
func freePorts(b testing.TB, n int) []int {
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

// unreachableKubeconfig writes a kubeconfig whose API server (127.0.0.1:port) nobody serves, for runs of
// the binary with external certificates that never need the API server, and returns its path.
func unreachableKubeconfig(b testing.TB, dir string, port int) string {
	b.Helper()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
`, port)), 0o600); err != nil {
		b.Fatal(err)
	}
	return kubeconfig
}
