package chart

import (
	"context"
	"crypto/tls"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/webhook"
)

// freeAddress returns a loopback address with a port nobody listens on right now.
func freeAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestWebhook runs the real webhook the way the chart runs it: with the arguments and the configuration
// file the chart renders, as the chart's ServiceAccount with only the chart's RBAC, behind the chart's
// webhook configurations (pointed at localhost instead of the Service). cert-controller must issue the
// certificate and inject the CA, the webhook must become ready, and then the API server must send it
// the requests the configurations route: a bad name is rejected, an opted-out namespace is not checked.
// It runs twice: with the chart's default values, which record no KRI (a CREATE with a name reaches the
// validating webhook alone and is not annotated), and with webhook.recordKRI=admission, the opt-in,
// which records it.
func TestWebhook(t *testing.T) {
	for _, tc := range []struct {
		name, release, values string
		record                bool
	}{
		{"default values", "webhook", "", false},
		{"webhook.recordKRI=admission", "webhook-rec", "webhook: {recordKRI: admission}\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) { testWebhook(t, tc.release, tc.values, tc.record) })
	}
}

func testWebhook(t *testing.T, release, values string, record bool) {
	ns, team, optedOut := release+"-system", release+"-team", release+"-opted-out"
	n := namesFor(release + "-kriguard")
	createNamespace(t, ns, nil)
	createNamespace(t, team, nil)
	createNamespace(t, optedOut, map[string]string{"kriguard.io/ignore": "true"})
	objs := render(t, release, ns, values)

	addr := freeAddress(t)
	host, port, _ := net.SplitHostPort(addr)
	var install manifest
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "Secret", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
			install = append(install, o)
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			o = o.DeepCopy()
			for _, h := range slice(t, o, "webhooks") {
				path := h["clientConfig"].(map[string]any)["service"].(map[string]any)["path"].(string)
				h["clientConfig"] = map[string]any{"url": "https://localhost:" + port + path}
			}
			install = append(install, o)
		}
	}
	apply(t, install)

	// The container's arguments, as the kubelet would expand them, with the in-pod paths and ports
	// replaced by local ones (a later flag wins).
	cm := objs.get(t, "ConfigMap", n.configMap)
	configFile := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(configFile, []byte(field(t, cm, "data", "config.yaml").(string)), 0o600); err != nil {
		t.Fatal(err)
	}
	health := freeAddress(t)
	d := objs.get(t, "Deployment", n.full)
	var args []string
	c0 := slice(t, d, "spec", "template", "spec", "containers")[0]
	limit := resource.MustParse(c0["resources"].(map[string]any)["limits"].(map[string]any)["memory"].(string))
	memoryLimit := strconv.FormatInt(limit.Value(), 10)
	for _, a := range slice(t, d, "spec", "template", "spec", "containers")[0]["args"].([]any) {
		// MEMORY_LIMIT is resources.limits.memory in bytes, as the kubelet's resourceFieldRef gives it.
		args = append(args, strings.NewReplacer("$(POD_NAMESPACE)", ns, "$(MEMORY_LIMIT)", memoryLimit).Replace(a.(string)))
	}
	args = append(args,
		"--config="+configFile, "--cert-dir="+t.TempDir(), "--webhook-host="+host, "--webhook-port="+port,
		"--cert-dns-name=localhost", "--health-probe-bind-address="+health, "--metrics-bind-address=0",
		"--shutdown-delay=0s")
	opts := webhook.NewOptions()
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	opts.BindFlags(fs)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("the chart's arguments do not parse: %v", err)
	}

	logs := &logBuffer{}
	logf.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(logs)))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the webhook's log:\n%s", logs.tail(8<<10))
		}
	})
	mgr, err := webhook.NewManager(asServiceAccount(ns, n.serviceAccount), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook: %v", err)
		}
	})

	var lastReadyz string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			done <- err
			return false, err
		default:
		}
		resp, err := http.Get("http://" + health + "/readyz?verbose")
		if err != nil {
			return false, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		lastReadyz = string(body)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		hint := ""
		if strings.Contains(lastReadyz, "[+]certs ok") && strings.Contains(lastReadyz, "[-]webhook failed") {
			// controller-runtime starts Options.WebhookServer only once something calls
			// mgr.GetWebhookServer() (or adds the server itself); registering handlers is not enough.
			hint = "\ncertificates are ready but the webhook server never started: webhook.NewManager must add it to the manager (mgr.GetWebhookServer() or mgr.Add(server))"
		}
		t.Fatalf("the webhook did not become ready as the chart's ServiceAccount: %v; /readyz says:\n%s%s", err, lastReadyz, hint)
	}
	// Ready means the CA is in the configurations; the API server's informer may lag behind.
	tlsConn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"})
	if err != nil {
		t.Fatalf("the webhook does not serve TLS on %s: %v", addr, err)
	}
	if got := tlsConn.ConnectionState().PeerCertificates[0].DNSNames; len(got) == 0 || got[0] != "localhost" {
		t.Errorf("serving certificate names %v, want localhost", got)
	}
	tlsConn.Close()

	mt, _ := env.Kind("kuma.io", "MeshTimeout")
	meshTimeout := func(namespace, name, mesh string) *unstructured.Unstructured {
		o := object(mt, namespace, name)
		o.SetLabels(map[string]string{"kuma.io/mesh": mesh})
		return o
	}

	t.Run("a bad name is rejected", func(t *testing.T) {
		var err error
		_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			err = env.Client.Create(ctx, meshTimeout(team, "bad", "Mesh_1"), client.DryRunAll)
			return apierrors.IsInvalid(err), nil
		})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "kuma.io/mesh") {
			t.Errorf("creating a MeshTimeout with mesh label Mesh_1: %v, want Invalid naming metadata.labels[kuma.io/mesh]", err)
		}
	})
	t.Run("a good name is admitted", func(t *testing.T) {
		o := meshTimeout(team, "good", "default")
		before := webhookRequests(t)
		if err := env.Client.Create(ctx, o, client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		after := webhookRequests(t)
		got, ok := o.GetAnnotations()[naming.AnnotationKRI]
		kri, errs := naming.ForObject(naming.WithMesh(o, ""), "MeshTimeout")
		if len(errs) > 0 {
			t.Fatal(errs.ToAggregate())
		}
		if want := kri.String(); record && got != want {
			t.Errorf("webhook.recordKRI=admission: %s = %q, want %q; annotations %v", naming.AnnotationKRI, got, want, o.GetAnnotations())
		}
		if !record && ok {
			t.Errorf("default values: %s = %q, want none: recording the KRI is opt-in", naming.AnnotationKRI, got)
		}
		// Recording on, the mutating webhook is called (once, or twice when the API server runs the
		// mutating chain again after the patch); off, the chart's matchCondition keeps a CREATE with a
		// name from it, and the validating webhook alone is called.
		mutated, validated := after["/mutate"]-before["/mutate"], after["/validate"]-before["/validate"]
		if validated != 1 || record && mutated == 0 || !record && mutated != 0 {
			t.Errorf("a CREATE with a name made %v mutating and %v validating calls (recording: %v)", mutated, validated, record)
		}
	})
	t.Run("a generateName object is named", func(t *testing.T) {
		o := meshTimeout(team, "", "default")
		o.SetGenerateName("backend-")
		if err := env.Client.Create(ctx, o, client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		if want := hashsuffix.Name("default", "backend"); o.GetName() != want || o.GetAnnotations()[naming.AnnotationDisplayName] != "backend" {
			t.Errorf("a generateName object is %s %v, want %s with display name backend", o.GetName(), o.GetAnnotations(), want)
		}
		if got, ok := o.GetAnnotations()[naming.AnnotationKRI]; ok != record {
			t.Errorf("a generateName object has %s = %q (present: %v), want it present only when recording (%v)", naming.AnnotationKRI, got, ok, record)
		}
	})
	t.Run("an opted-out namespace is not checked", func(t *testing.T) {
		if err := env.Client.Create(ctx, meshTimeout(optedOut, "bad", "Mesh_1"), client.DryRunAll); err != nil {
			t.Errorf("a MeshTimeout in an opted-out namespace was checked: %v", err)
		}
	})
}

// webhookRequests is controller-runtime's controller_runtime_webhook_requests_total per path, every code
// summed: the webhook of testWebhook runs in this process and registers its metrics there.
func webhookRequests(t testing.TB) map[string]float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "controller_runtime_webhook_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "webhook" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// logBuffer collects the webhook's log for the failure report; the manager logs from its goroutines,
// also after the test's last line.
type logBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *logBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) > n {
		return string(b.buf[len(b.buf)-n:])
	}
	return string(b.buf)
}

// TestDefaultKinds checks the chart's default config.kinds against the two things they must agree with:
// the webhook's built-in guarded kinds, and the CRDs (the plural in each rule is what the API server
// matches, and a wrong one silently guards nothing).
func TestDefaultKinds(t *testing.T) {
	want := map[string]string{} // group/kind → version
	for _, k := range rules.DefaultConfig().GuardedKinds() {
		want[k.Group+"/"+k.Kind] = k.Version
	}
	got := guardedKinds(chartValues(t, ""))
	if len(got) != len(want) {
		t.Errorf("the chart guards %d kinds by default, the webhook %d", len(got), len(want))
	}
	for _, k := range got {
		id := k.group + "/" + k.kind
		if v, ok := want[id]; !ok || v != k.version {
			t.Errorf("%s %s: the webhook's defaults have %q", id, k.version, v)
		}
		crd, ok := env.Kind(k.group, k.kind)
		if !ok {
			t.Errorf("%s: no CRD", id)
			continue
		}
		if crd.Plural != k.resource {
			t.Errorf("%s: resource %q, the CRD's plural is %q", id, k.resource, crd.Plural)
		}
		if !slices.Contains(crd.Versions, k.version) {
			t.Errorf("%s: version %s is not served (the CRD serves %v)", id, k.version, crd.Versions)
		}
	}
}

// TestConfigMapLoads feeds the configuration file the chart renders, for every value set, to the
// webhook's own parser, which decodes strictly.
func TestConfigMapLoads(t *testing.T) {
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			objs := render(t, "kriguard", releaseNamespace, vs.values)
			var cm *unstructured.Unstructured
			for _, o := range objs.ofKind("ConfigMap") {
				if strings.HasSuffix(o.GetName(), "-config") { // not the client CA's
					cm = o
				}
			}
			c, err := rules.ParseConfig([]byte(field(t, cm, "data", "config.yaml").(string)))
			if err != nil {
				t.Fatalf("the webhook rejects the chart's configuration: %v", err)
			}
			for _, k := range guardedKinds(chartValues(t, vs.values)) {
				enf, ok := c.Enforcement(schema.GroupKind{Group: k.group, Kind: k.kind})
				if !ok {
					t.Errorf("%s/%s is routed to the webhook but not guarded by it", k.group, k.kind)
					continue
				}
				if k.enforcement != "" && string(enf) != k.enforcement {
					t.Errorf("%s/%s: enforcement %s, want %s", k.group, k.kind, enf, k.enforcement)
				}
			}
		})
	}
}
