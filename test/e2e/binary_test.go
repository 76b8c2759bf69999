package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// webhookBinaryEnv names a prebuilt webhook binary to test instead of building cmd/webhook (a
// release build, say).
const webhookBinaryEnv = "KRIGUARD_WEBHOOK_BINARY"

// webhookBinary builds cmd/webhook once for the package.
func webhookBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if builtBin = os.Getenv(webhookBinaryEnv); builtBin != "" {
			return
		}
		builtBin, buildErr = goBuild("./cmd/webhook", "kriguard-webhook")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// goBuild builds a package of this module into the package's temporary folder.
func goBuild(pkg, name string) (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(buildDir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return out, nil
}

// repoRoot is the folder of the module's go.mod.
func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the kriguard module")
	}
	return filepath.Dir(gomod), nil
}

// kubeconfig writes a kubeconfig for a new member of system:masters of the package's control plane.
func kubeconfig(t *testing.T, name string) string {
	t.Helper()
	user, err := env.Environment.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatalf("adding user %s: %v", name, err)
	}
	b, err := user.KubeConfig()
	if err != nil {
		t.Fatalf("building a kubeconfig: %v", err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// process is a running cmd/webhook.
type process struct {
	cmd    *exec.Cmd
	output *webhookenv.SyncBuffer // stdout and stderr
	stderr *webhookenv.SyncBuffer
	done   chan struct{}
	err    error
}

func startBinary(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(webhookBinary(t), args...), output: &webhookenv.SyncBuffer{}, stderr: &webhookenv.SyncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.output, io.MultiWriter(p.output, p.stderr)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting the webhook binary: %v", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("webhook binary output:\n%s", tailOf([]byte(p.output.String()), 16<<10))
		}
	})
	return p
}

// wait waits up to d for the process to exit and returns its exit code.
func (p *process) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("the webhook binary did not exit within %s", d)
	}
	var exit *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exit):
		return exit.ExitCode()
	}
	t.Fatalf("waiting for the webhook binary: %v", p.err)
	return -1
}

// TestBinary runs the real cmd/webhook against the control plane: cert-controller in the binary
// issues its certificate, the API server calls it, its metrics count the decision, and on SIGTERM
// it keeps serving for the shutdown delay and then exits 0.
func TestBinary(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	s, err := webhookenv.NewSetup(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Namespace = "kriguard-binary"
	s.ValidatingName, s.MutatingName = "kriguard-binary-validating", "kriguard-binary-mutating"
	s.Namespaces = []string{ns}
	s.ShutdownDelay = 3 * time.Second
	if err := s.Prepare(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, append(s.Args(), "--kubeconfig="+kubeconfig(t, "kriguard-binary"))...)
	if err := s.Register(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := s.Unregister(ctx, env.Client); err != nil {
			t.Error(err)
		}
	})
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := s.WaitReady(wctx, env.Client); err != nil {
		if !strings.Contains(p.output.String(), "Serving webhook server") {
			t.Fatalf("%v\nthe binary never started its TLS webhook server: controller-runtime starts the "+
				"manager's WebhookServer only once mgr.GetWebhookServer() (or mgr.Add) has added it", err)
		}
		t.Fatal(err)
	}

	// Through the API server: both webhooks guard ns, and both deny.
	obj := meshTimeout(ns, "t1", map[string]string{"kuma.io/mesh": "Mesh_1"}, "http")
	if err := env.Client.Create(ctx, obj); err == nil {
		t.Fatalf("created an invalid MeshTimeout")
	}
	// With no --record-kri, the default records no KRI: the binary's mutating webhook (Register sends
	// it every CREATE) leaves a named object's annotations alone and only names a generateName one.
	// bypassLabel keeps the package's shared webhook, which records at admission, off these objects.
	own := map[string]string{"kuma.io/mesh": "default", bypassLabel: "true"}
	good := meshTimeout(ns, "t3", own, "http")
	if err := env.Client.Create(ctx, good); err != nil {
		t.Fatalf("creating a valid MeshTimeout: %v", err)
	}
	if got, ok := good.GetAnnotations()[naming.AnnotationKRI]; ok {
		t.Errorf("the binary with no --record-kri wrote %s = %q on a named object, want none", naming.AnnotationKRI, got)
	}
	gen := meshTimeout(ns, "", own, "http")
	gen.SetGenerateName("backend-")
	if err := env.Client.Create(ctx, gen); err != nil {
		t.Fatalf("creating a MeshTimeout with generateName: %v", err)
	}
	if want := hashsuffix.Name("default", "backend"); gen.GetName() != want || gen.GetAnnotations()[naming.AnnotationDisplayName] != "backend" {
		t.Errorf("the generateName object is %s %v, want %s with display name backend", gen.GetName(), gen.GetAnnotations(), want)
	}
	if got, ok := gen.GetAnnotations()[naming.AnnotationKRI]; ok {
		t.Errorf("the binary with no --record-kri wrote %s = %q on a generateName object, want none", naming.AnnotationKRI, got)
	}

	metricsURL := "http://" + net.JoinHostPort(s.Host, strconv.Itoa(s.MetricsPort)) + "/metrics"
	metrics := httpGet(t, metricsURL)
	wantSeries := `kriguard_admission_decisions_total{decision="denied",enforcement="deny",kind="MeshTimeout",kuma_mode="unknown",kuma_release="2.14",operation="CREATE",override="none"} 1`
	if !strings.Contains(metrics, wantSeries) {
		t.Errorf("the binary's /metrics lacks %s; its kriguard lines:\n%s", wantSeries, grepLines(metrics, "kriguard_"))
	}

	// Shutdown: the server keeps answering for the shutdown delay, then the process exits 0.
	bundles, err := s.CABundles(ctx, env.Client)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := s.HTTPClient(bundles[0])
	if err != nil {
		t.Fatal(err)
	}
	review := reviewFor(t, meshTimeout(ns, "t2", nil, "http"))
	if err := postReview(hc, s.URL("/validate"), review); err != nil {
		t.Fatalf("direct review before SIGTERM: %v", err)
	}
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	served := 0
	for time.Since(sent) < s.ShutdownDelay*2/3 {
		if err := postReview(hc, s.URL("/validate"), review); err != nil {
			t.Fatalf("review %s after SIGTERM, within the %s shutdown delay: %v", time.Since(sent).Round(time.Millisecond), s.ShutdownDelay, err)
		}
		served++
		time.Sleep(50 * time.Millisecond)
	}
	if code := p.wait(t, s.ShutdownDelay+30*time.Second); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	if elapsed := time.Since(sent); elapsed < s.ShutdownDelay {
		t.Errorf("exited %s after SIGTERM, before the %s shutdown delay ended", elapsed.Round(time.Millisecond), s.ShutdownDelay)
	}
	t.Logf("%d reviews answered during the shutdown delay", served)
}

// TestBinaryBadConfig checks that a bad configuration file stops the binary with the offending
// field path on stderr.
func TestBinaryBadConfig(t *testing.T) {
	kc := kubeconfig(t, "kriguard-bad-config")
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{
			name: "enforcement",
			config: `apiVersion: kriguard.io/v1alpha1
kind: Configuration
kinds:
  - group: kuma.io
    version: v1alpha1
    kind: MeshTimeout
    enforcement: block
`,
			want: []string{`kinds[0].enforcement`, `block`},
		},
		{
			name: "scope of an extra type",
			config: `apiVersion: kriguard.io/v1alpha1
kind: Configuration
types:
  - kind: MeshWidget
    shortName: mw
    scope: Cluster
`,
			want: []string{`types[0].scope`, `Cluster`},
		},
		{
			name: "default enforcement",
			config: `apiVersion: kriguard.io/v1alpha1
kind: Configuration
defaultEnforcement: audit
`,
			want: []string{`defaultEnforcement`, `audit`},
		},
		{
			name: "requester override",
			config: `apiVersion: kriguard.io/v1alpha1
kind: Configuration
requesters:
  - name: kuma-control-plane
    users: [system:serviceaccount:kuma-system:kuma-control-plane]
    enforcement: allow
`,
			want: []string{`requesters[0].enforcement`, `allow`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.yaml")
			if err := os.WriteFile(path, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := webhookenv.NewSetup(dir)
			if err != nil {
				t.Fatal(err)
			}
			s.ConfigFile = path
			s.Namespace = "kriguard-bad-config"
			p := startBinary(t, append(s.Args(), "--kubeconfig="+kc)...)
			if code := p.wait(t, time.Minute); code == 0 {
				t.Fatalf("exit code 0 with a bad configuration")
			}
			// The path and the value, on stderr (in the JSON log line, quotes are escaped).
			if out := p.stderr.String(); !containsAll(out, tc.want...) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, out)
			}
		})
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	return string(b)
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// reviewFor encodes a CREATE review of obj as the API server sends it.
func reviewFor(t *testing.T, obj interface{ MarshalJSON() ([]byte, error) }) []byte {
	t.Helper()
	raw, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Kind     string            `json:"kind"`
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	gvk := metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: meta.Kind}
	b, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("00000000-0000-0000-0000-000000000001"),
			Kind:      gvk,
			Resource:  metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: strings.ToLower(meta.Kind) + "s"},
			Name:      meta.Metadata.Name,
			Namespace: meta.Metadata.Namespace,
			Operation: admissionv1.Create,
			Object:    runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// postReview sends a review and checks that it is answered with an allowed response.
func postReview(hc *http.Client, url string, review []byte) error {
	resp, err := hc.Post(url, "application/json", bytes.NewReader(review))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out admissionv1.AdmissionReview
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return fmt.Errorf("%s: decoding the answer: %w", resp.Status, err)
	}
	if out.Response == nil || !out.Response.Allowed {
		return fmt.Errorf("%s: not allowed: %+v", resp.Status, out.Response)
	}
	return nil
}
