package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// audit over two zone clusters, one context each, finds exactly the clashes planted across and
// within them, naming both objects, and nothing for names that only look alike.
func TestAuditZones(t *testing.T) {
	zones := []string{"zone-1", "zone-1a"}
	envs := make([]*testenv.Env, len(zones))
	merged := clientcmdapi.NewConfig()
	gatewayAPI := gatewayAPICRDs(t)
	for i, z := range zones {
		envs[i] = testenv.StartForTest(t, testenv.Options{ExtraCRDDirs: []string{gatewayAPI}})
		cfg, err := clientcmd.Load(mustRead(t, kubeconfig(t, envs[i], "auditor", "system:masters")))
		if err != nil {
			t.Fatal(err)
		}
		ctx := cfg.Contexts[cfg.CurrentContext]
		merged.Clusters[z], merged.AuthInfos[z] = cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo]
		merged.Contexts[z] = &clientcmdapi.Context{Cluster: z, AuthInfo: z}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*merged, path); err != nil {
		t.Fatal(err)
	}
	create := func(env *testenv.Env, group, kind, ns, name string, labels map[string]string, spec map[string]any) {
		t.Helper()
		k, ok := env.Kind(group, kind)
		if !ok {
			t.Fatalf("the control plane serves no %s.%s", kind, group)
		}
		o := testenv.NewObject(k, ns, name)
		o.SetLabels(labels)
		if spec != nil {
			if err := unstructured.SetNestedMap(o.Object, spec, "spec"); err != nil {
				t.Fatal(err)
			}
		}
		if err := env.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %s %s/%s: %v", kind, ns, name, err)
		}
	}
	for i, env := range envs {
		for _, ns := range []string{"abc", "bc", "kong", "b-c", "c"} {
			if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				t.Fatal(err)
			}
		}
		mesh := map[string]string{"kuma.io/mesh": "default"}
		// backend/zone-1/abc and backend/zone-1a/bc: one copy name on global.
		create(env, rules.KumaGroup, "MeshService", []string{"abc", "bc"}[i], "backend", mesh, nil)
		// frontend/abc in both zones: two copy names.
		create(env, rules.KumaGroup, "MeshService", "abc", "frontend", mesh, nil)
		// Two KongSNIs "*" on one control plane, in zone-1 only; zone-1a has one on each of two.
		cps := [][]string{{"cp-a", "cp-a"}, {"cp-a", "cp-b"}}[i]
		for j, cert := range []string{"cert.gw1.443.https", "cert.gw1.8443.https-alt"} {
			create(env, rules.KongGroup, "KongCertificate", "kong", cert, nil, map[string]any{
				"type": "secretRef", "secretRef": map[string]any{"name": "tls"},
				"controlPlaneRef": map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": cps[j]}}})
			create(env, rules.KongGroup, "KongSNI", "kong", cert, nil, map[string]any{"name": "*", "certificateRef": map[string]any{"name": cert}})
		}
		if i > 0 {
			continue
		}
		// In zone-1 only: HTTPRoutes a of b-c and a-b of c on Service n/s give Kuma one
		// MeshHTTPRoute name; a listener with two certificateRefs gives Kong one certificate name.
		for _, r := range [][2]string{{"b-c", "a"}, {"c", "a-b"}} {
			create(env, rules.GatewayGroup, "HTTPRoute", r[0], r[1], nil, map[string]any{
				"parentRefs": []any{map[string]any{"group": "", "kind": "Service", "name": "s", "namespace": "n"}}})
		}
		create(env, rules.GatewayGroup, "Gateway", "kong", "gw1", nil, map[string]any{"gatewayClassName": "kong",
			"listeners": []any{map[string]any{"name": "https", "port": int64(443), "protocol": "HTTPS",
				"tls": map[string]any{"certificateRefs": []any{map[string]any{"name": "tls-rsa"}, map[string]any{"name": "tls-ecdsa"}}}}}})
	}

	start := time.Now()
	r := run(t, "", "audit", "-A", "--kubeconfig", path, "--context", "zone-1", "--context", "zone-1a")
	took := time.Since(start)
	var got []string
	for line := range strings.Lines(r.stdout) {
		if strings.Contains(line, "Duplicate value") {
			got = append(got, line)
		}
	}
	slices.Sort(got)
	want := []string{
		`cluster: Gateway kong/gw1: spec.listeners[0].tls.certificateRefs[1]: Duplicate value: "cert.gw1.443.https": Kong's operator names`,
		`cluster: HTTPRoute c/a-b: spec.parentRefs[0]: Duplicate value: "a-b-c-s.n": Kuma names the MeshHTTPRoute of this parentRef "a-b-c-s.n", as it names one of HTTPRoute b-c/a of zone zone-1`,
		`cluster: KongSNI kong/cert.gw1.8443.https-alt: spec.name: Duplicate value: "*": KongSNI kong/cert.gw1.443.https of zone zone-1 has the same SNI`,
		`cluster: MeshService bc/backend: metadata.name: Duplicate value: "backend": KDS gives it and MeshService abc/backend of zone zone-1 one copy name "backend-z9vdzz8dx42ffz26" on global`,
	}
	if len(got) != len(want) {
		t.Fatalf("exit %d, clashes:\n%s\nwant %d; stderr:\n%s", r.code, strings.Join(got, ""), len(want), r.stderr)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("clash %q, want it to start with %q", got[i], want[i])
		}
	}
	if r.code != ExitDenied {
		t.Errorf("exit %d, want %d", r.code, ExitDenied)
	}
	// The same kinds listed bare, for the note: what comparing across zones costs over listing.
	start = time.Now()
	for _, env := range envs {
		bareList(t, env.Config)
	}
	t.Logf("audit of two zones, %d lines: %s; bare LISTs of the same kinds: %s", strings.Count(r.stdout, "\n"), took, time.Since(start))
}

// bareList lists every guarded kind cfg serves, in the auditor's pages, and judges nothing.
func bareList(t *testing.T, cfg *rest.Config) {
	t.Helper()
	au := &auditor{rest: cfg, rules: rules.DefaultConfig(), chunk: 500}
	c := clientConfig(cfg)
	kinds, err := au.discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(c))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		if err := au.listKind(context.Background(), client, k, func([]byte) error { return nil }, func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
}

// gatewayAPICRDs returns a folder of the Gateway API CRDs the rules across objects read, from the
// module kriguard builds with.
func gatewayAPICRDs(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Fatalf("finding the gateway-api module: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "standard")
	dir := t.TempDir()
	for _, f := range []string{"gatewayclasses", "gateways", "httproutes"} {
		name := "gateway.networking.k8s.io_" + f + ".yaml"
		if err := os.WriteFile(filepath.Join(dir, name), mustRead(t, filepath.Join(src, name)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
