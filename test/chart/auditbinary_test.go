package chart

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openreports/reports-api/pkg/client/clientset/versioned"

	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freeAddr returns a loopback address with a port free at the time of the call.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// serviceAccountKubeconfig writes a kubeconfig that acts as the ServiceAccount, as asServiceAccount
// does, for a process.
func serviceAccountKubeconfig(t *testing.T, namespace, name string) string {
	t.Helper()
	u, err := env.Environment.AddUser(envtest.User{Name: "impersonator", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range kc.AuthInfos {
		ai.Impersonate = "system:serviceaccount:" + namespace + ":" + name
		ai.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// The webhook binary runs the chart's audit Deployment as rendered (its args, its configuration file)
// under the chart's ServiceAccount: it becomes ready, writes the report of a bad object, counts it
// in its metrics, and stops on SIGTERM.
func TestAuditBinary(t *testing.T) {
	const ns, release = "audit-bin-system", "auditbin"
	full := release + "-kriguard"
	createNamespace(t, ns, nil)
	objs := render(t, release, ns, auditValues)
	var install manifest
	for _, o := range objs {
		if (o.GetKind() == "ClusterRole" || o.GetKind() == "ClusterRoleBinding" || o.GetKind() == "ServiceAccount") &&
			strings.HasPrefix(o.GetName(), full+"-audit") {
			install = append(install, o)
		}
	}
	apply(t, install)

	dir := t.TempDir()
	bin := filepath.Join(dir, "kriguard-webhook")
	build := exec.Command("go", "build", "-o", bin, "./cmd/webhook")
	build.Dir = root(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/webhook: %v\n%s", err, out)
	}
	configFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configFile, []byte(field(t, objs.get(t, "ConfigMap", full+"-config"), "data", "config.yaml").(string)), 0o600); err != nil {
		t.Fatal(err)
	}
	health, metrics := freeAddr(t), freeAddr(t)
	var args []string
	for _, a := range strs(slice(t, objs.get(t, "Deployment", full+"-audit"), "spec", "template", "spec", "containers")[0]["args"]) {
		switch f, _, _ := strings.Cut(a, "="); f {
		case "--config":
			a = "--config=" + configFile
		case "--interval":
			a = "--interval=3s"
		case "--health-probe-bind-address":
			a = "--health-probe-bind-address=" + health
		case "--metrics-bind-address":
			a = "--metrics-bind-address=" + metrics
		}
		args = append(args, a)
	}
	if args[0] != "audit" {
		t.Fatalf("args %v: want the audit subcommand first", args)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+serviceAccountKubeconfig(t, ns, full+"-audit"))
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("its output:\n%s", out.String())
		}
	}()

	ctx := testContext(t)
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		code, _ := get("http://" + health + "/readyz")
		return code == http.StatusOK, nil
	}); err != nil {
		t.Fatalf("never ready: %v", err)
	}

	app := "audit-bin-app"
	createNamespace(t, app, nil)
	k, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
	bad := testenv.NewObject(k, app, "bad")
	bad.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
	if err := env.Client.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 3*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := rc.OpenreportsV1alpha1().Reports(app).Get(ctx, reports.Name(bad.GetUID()), metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("no report within the interval: %v", err)
	}
	denied := regexp.MustCompile(`(?m)^kriguard_audit_objects\{kind="MeshTimeout\.kuma\.io",outcome="denied"\} ([0-9.e+]+)$`)
	code, body := get("http://" + metrics + "/metrics")
	m := denied.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("/metrics: %d, no denied MeshTimeout:\n%s", code, body)
	}
	if v, _ := strconv.ParseFloat(m[1], 64); v < 1 {
		t.Errorf("%s denied MeshTimeouts, want at least 1", m[1])
	}
	for _, name := range []string{"kriguard_audit_synced 1", "kriguard_audit_report_writes_total{operation=\"created\"}", "go_goroutines"} {
		if !strings.Contains(body, name) {
			t.Errorf("/metrics has no %s", name)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after SIGTERM")
	}
}
