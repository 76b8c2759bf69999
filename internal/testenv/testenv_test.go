package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	pathpkg "path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// env is the control plane every test of this package shares; starting it is part of what is tested.
var env *Env

func TestMain(m *testing.M) {
	os.Exit(Main(m, Options{}, &env))
}

// pinnedKubernetesVersion reads the version hack/tools.sh builds from the helper module, so that a
// version bump there needs no change here.
func pinnedKubernetesVersion(t *testing.T) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "test", "tools", "kube-apiserver", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(s.Text()), "require"))
		if len(fields) >= 2 && fields[0] == "k8s.io/kubernetes" {
			return fields[1]
		}
	}
	t.Fatal("test/tools/kube-apiserver/go.mod requires no k8s.io/kubernetes")
	return ""
}

func TestAPIServerReportsPinnedVersion(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	info, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	want := pinnedKubernetesVersion(t)
	if info.GitVersion != want {
		t.Errorf("kube-apiserver reports version %q, want %q (built by hack/tools.sh from test/tools/kube-apiserver)", info.GitVersion, want)
	}
	if major, minor, _ := strings.Cut(strings.TrimPrefix(want, "v"), "."); info.Major != major || !strings.HasPrefix(minor, info.Minor+".") {
		t.Errorf("kube-apiserver reports major %q minor %q, want those of %s", info.Major, info.Minor, want)
	}
}

// guardedKinds are the kinds kriguard guards by default (naming's registry) plus the other Kuma kinds
// upstream ships CRDs for: the harness must serve every one of them.
var guardedKinds = map[string][]string{
	"kuma.io": {
		"ContainerPatch", "Dataplane", "DataplaneInsight", "HostnameGenerator", "Mesh", "MeshAccessLog",
		"MeshCircuitBreaker", "MeshExternalService", "MeshFaultInjection", "MeshHTTPRoute", "MeshHealthCheck",
		"MeshIdentity", "MeshInsight", "MeshLoadBalancingStrategy", "MeshMetric", "MeshMultiZoneService",
		"MeshOpenTelemetryBackend", "MeshPassthrough", "MeshProxyPatch", "MeshRateLimit", "MeshRetry",
		"MeshService", "MeshTCPRoute", "MeshTLS", "MeshTimeout", "MeshTrace", "MeshTrafficPermission",
		"MeshTrust", "MeshZoneAddress", "ServiceInsight", "Workload", "Zone", "ZoneInsight",
	},
	"configuration.konghq.com": {
		"KongPlugin", "KongPluginBinding", "KongRoute", "KongService", "KongTarget", "KongUpstream",
	},
}

func TestServesEveryGuardedKind(t *testing.T) {
	for group, kinds := range guardedKinds {
		for _, kind := range kinds {
			k, ok := env.Kind(group, kind)
			if !ok {
				t.Errorf("no CRD serves %s.%s", kind, group)
				continue
			}
			if _, err := env.Client.RESTMapper().RESTMapping(k.GroupVersionKind().GroupKind(), k.Version); err != nil {
				t.Errorf("%s.%s is not served: %v", kind, group, err)
			}
		}
	}
	if v, _ := env.Kind("configuration.konghq.com", "KongPlugin"); v.Version != "v1" {
		t.Errorf("KongPlugin is served at %q, want v1", v.Version)
	}
}

func TestEveryCRDIsEstablished(t *testing.T) {
	if len(env.CRDs) != len(env.Kinds) {
		t.Fatalf("%d CRDs installed for %d kinds", len(env.CRDs), len(env.Kinds))
	}
	for _, k := range env.Kinds {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := env.Client.Get(context.Background(), client.ObjectKey{Name: k.CRDName()}, &crd); err != nil {
			t.Errorf("%s: %v", k.CRDName(), err)
			continue
		}
		established := slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
			return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
		})
		if !established {
			t.Errorf("%s is not established: %+v", k.CRDName(), crd.Status.Conditions)
		}
	}
}

// TestServesUpstreamSchemas checks that the apiserver serves the upstream schema of every CRD of the
// upstream folders, as read from its file.
func TestServesUpstreamSchemas(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := crdDirs(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs.upstream {
		upstream, err := readCRDDir(dir, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range upstream {
			t.Run(want.crd.Name, func(t *testing.T) {
				var got apiextensionsv1.CustomResourceDefinition
				if err := env.Client.Get(context.Background(), client.ObjectKey{Name: want.crd.Name}, &got); err != nil {
					t.Fatal(err)
				}
				for i, v := range want.crd.Spec.Versions {
					if i >= len(got.Spec.Versions) || got.Spec.Versions[i].Name != v.Name {
						t.Fatalf("installed versions %v, want %s at %d", got.Spec.Versions, v.Name, i)
					}
					if !equality.Semantic.DeepEqual(got.Spec.Versions[i].Schema, v.Schema) {
						t.Errorf("%s: installed schema differs from %s", v.Name, want.source)
					}
				}
				k, ok := env.Kind(want.crd.Spec.Group, want.crd.Spec.Names.Kind)
				if !ok || !k.Upstream || k.Source != want.source {
					t.Errorf("Env.Kinds has %+v, want the kind from %s", k, want.source)
				}
			})
		}
	}
}

// kumaVersions are the Kuma versions a control plane can serve.
var kumaVersions = []string{Kuma214, Kuma30}

// TestKumaVersions starts a control plane of the Kuma version the shared one does not serve, beside
// it: each serves exactly its own release's Kuma kinds (2.14 still has MeshGateway, 3.0 has not), and
// every one of them accepts the objects NewObject builds.
func TestKumaVersions(t *testing.T) {
	if env.Kuma != DefaultKuma {
		t.Fatalf("the shared control plane serves Kuma %q, want the default %q", env.Kuma, DefaultKuma)
	}
	other := Kuma214
	if DefaultKuma == Kuma214 {
		other = Kuma30
	}
	e := StartForTest(t, Options{Kuma: other})
	if e.Kuma != other {
		t.Fatalf("Env.Kuma = %q, want %q", e.Kuma, other)
	}
	for _, e := range []*Env{env, e} {
		root, err := repoRoot()
		if err != nil {
			t.Fatal(err)
		}
		files, err := readCRDDir(filepath.Join(root, UpstreamCRDDirs(e.Kuma)[0]), true)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, c := range files {
			want = append(want, c.crd.Spec.Names.Kind)
		}
		for _, k := range e.Kinds {
			if k.Group == "kuma.io" {
				got = append(got, k.Kind)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Kuma %s: serves the Kuma kinds %q, its CRDs define %q", e.Kuma, got, want)
		}
		_, gateway := e.Kind("kuma.io", "MeshGateway")
		if gateway != (e.Kuma == Kuma214) {
			t.Errorf("Kuma %s: MeshGateway served: %t", e.Kuma, gateway)
		}
		refByName(t, e)
	}
	roundTripEveryKind(t, e)
}

// refByName records what each release's schema does with a targetRef by name (docs/releases.md):
// 2.14 stores it; 3.0's schema has no name, so the API server prunes it before any admission
// webhook sees the object, leaving the labels.
func refByName(t *testing.T, e *Env) {
	t.Helper()
	k, ok := e.Kind("kuma.io", "MeshTimeout")
	if !ok {
		t.Fatalf("Kuma %s serves no MeshTimeout", e.Kuma)
	}
	ref := map[string]any{"kind": "MeshService", "name": "backend", "namespace": "kuma-demo", "labels": map[string]any{"app": "backend"}}
	u := NewObject(k, e.NewNamespace(t), "by-name")
	u.Object["spec"] = map[string]any{
		"targetRef": map[string]any{"kind": "Mesh"},
		"to":        []any{map[string]any{"targetRef": ref, "default": map[string]any{"idleTimeout": "20s"}}},
	}
	if err := e.Client.Create(context.Background(), u); err != nil {
		t.Fatalf("Kuma %s: creating a MeshTimeout with a targetRef by name: %v", e.Kuma, err)
	}
	stored, _, _ := unstructured.NestedSlice(u.Object, "spec", "to")
	if len(stored) != 1 {
		t.Fatalf("Kuma %s: stored spec.to %v", e.Kuma, stored)
	}
	tr, _ := stored[0].(map[string]any)["targetRef"].(map[string]any)
	_, hasName := tr["name"]
	_, hasLabels := tr["labels"]
	if hasName != (e.Kuma == Kuma214) || !hasLabels {
		t.Errorf("Kuma %s: stored targetRef %v: name kept %t, labels kept %t", e.Kuma, tr, hasName, hasLabels)
	}
}

func TestEveryKindRoundTrips(t *testing.T) { roundTripEveryKind(t, env) }

// roundTripEveryKind creates an object of every kind env serves, with NewObject, and reads it back.
func roundTripEveryKind(t *testing.T, env *Env) {
	ctx := context.Background()
	ns := env.NewNamespace(t)
	var namespace corev1.Namespace
	if err := env.Client.Get(ctx, client.ObjectKey{Name: ns}, &namespace); err != nil || namespace.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("NewNamespace gave %q, phase %q: %v", ns, namespace.Status.Phase, err)
	}

	for _, k := range env.Kinds {
		t.Run(k.Kind, func(t *testing.T) {
			obj := NewObject(k, ns, "roundtrip-"+strings.ToLower(k.Kind))
			labels := map[string]string{"kuma.io/mesh": "default", "kuma.io/display-name": "roundtrip"}
			obj.SetLabels(labels)
			want := obj.DeepCopy()
			if err := env.Client.Create(ctx, obj); err != nil {
				t.Fatalf("creating %s (upstream schema: %t): %v", k.Kind, k.Upstream, err)
			}
			if !k.Namespaced {
				t.Cleanup(func() { _ = env.Client.Delete(ctx, obj) })
			}

			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(k.GroupVersionKind())
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
				t.Fatalf("reading %s back: %v", k.Kind, err)
			}
			if got.GetUID() == "" || got.GetUID() != obj.GetUID() {
				t.Errorf("read back uid %q, created %q", got.GetUID(), obj.GetUID())
			}
			if got.GetName() != want.GetName() || got.GetNamespace() != want.GetNamespace() {
				t.Errorf("read back %s/%s, want %s/%s", got.GetNamespace(), got.GetName(), want.GetNamespace(), want.GetName())
			}
			if !reflect.DeepEqual(got.GetLabels(), labels) {
				t.Errorf("read back labels %v, want %v", got.GetLabels(), labels)
			}
			for field, v := range want.Object {
				if field == "apiVersion" || field == "kind" || field == "metadata" {
					continue
				}
				if path, ok := contains(got.Object[field], v); !ok {
					t.Errorf("read back %s%s differs: got %v, sent %v", field, path, got.Object[field], v)
				}
			}
		})
	}
}

// contains reports whether got holds everything sent holds: the apiserver may add defaults from the
// schema but must not drop or change what it was given. It names the first path that differs.
func contains(got, sent any) (string, bool) {
	switch s := sent.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return "", false
		}
		for k, v := range s {
			if path, ok := contains(g[k], v); !ok {
				return "." + k + path, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return "", false
		}
		for i := range s {
			if path, ok := contains(g[i], s[i]); !ok {
				return fmt.Sprintf("[%d]%s", i, path), false
			}
		}
		return "", true
	default:
		return "", reflect.DeepEqual(got, sent)
	}
}

func TestLoadKindsMatchesStartedControlPlane(t *testing.T) {
	kinds, err := LoadKinds(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kinds, env.Kinds) {
		t.Errorf("LoadKinds gives %d kinds, the running control plane %d, or they differ", len(kinds), len(env.Kinds))
	}
}

func TestMinimalObjectsNameLoadedKinds(t *testing.T) {
	served := map[schema.GroupKind]bool{}
	for _, v := range kumaVersions {
		kinds, err := LoadKinds(Options{Kuma: v})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kinds {
			served[schema.GroupKind{Group: k.Group, Kind: k.Kind}] = true
		}
	}
	for gk := range minimalFields {
		if !served[gk] {
			t.Errorf("objects.yaml lists %s, which no Kuma version's control plane serves", gk)
		}
	}
}

// TestStartFailsWithoutBinaries proves that a machine without the tools fails the suite with the fix,
// rather than skipping the end-to-end tests.
func TestStartFailsWithoutBinaries(t *testing.T) {
	t.Setenv(AssetsEnv, t.TempDir())
	e, err := Start(Options{})
	if err == nil {
		_ = e.Stop()
		t.Fatal("Start succeeded with an empty KUBEBUILDER_ASSETS")
	}
	for _, want := range []string{"kube-apiserver", "./hack/tools.sh install", "make test"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestStartForTestInstallsWebhooks starts a second control plane, as a single test would, with a
// scheme of its own and a validating webhook configuration: envtest must point it at a local serving address with a CA bundle
// and hand back where the webhook server has to listen.
func TestStartForTestInstallsWebhooks(t *testing.T) {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	path := "/validate"
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kriguard-validating"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "validate.kriguard.io",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Name: "kriguard-webhook", Namespace: "kriguard-system", Path: &path},
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"kuma.io"}, APIVersions: []string{"*"}, Resources: []string{"*"}},
			}},
		}},
	}
	// A scheme of the test's own that does not know CRDs: Start must not depend on it.
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	e := StartForTest(t, Options{Scheme: scheme, WebhookInstallOptions: envtest.WebhookInstallOptions{
		ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{vwc},
	}})
	if e.Scheme != scheme || e.Client.Scheme() != scheme {
		t.Error("the client does not use Options.Scheme")
	}
	if e.Config.Host == env.Config.Host {
		t.Fatalf("second control plane shares the first one's address %s", e.Config.Host)
	}
	wio := e.Environment.WebhookInstallOptions
	if wio.LocalServingPort == 0 || wio.LocalServingHost == "" {
		t.Fatalf("no local serving address: %+v", wio)
	}
	if _, err := os.Stat(filepath.Join(wio.LocalServingCertDir, "tls.crt")); err != nil {
		t.Errorf("no serving certificate: %v", err)
	}
	var got admissionregistrationv1.ValidatingWebhookConfiguration
	if err := e.Client.Get(context.Background(), client.ObjectKey{Name: vwc.Name}, &got); err != nil {
		t.Fatal(err)
	}
	// envtest joins host and service path with a slash of its own ("https://host:port//validate"); the
	// apiserver's webhook client cleans the path before calling, so only the cleaned path matters.
	cc := got.Webhooks[0].ClientConfig
	if cc.URL == nil || len(cc.CABundle) == 0 {
		t.Fatalf("installed client config has URL %v and a %d-byte CA bundle, want both", cc.URL, len(cc.CABundle))
	}
	u, err := url.Parse(*cc.URL)
	if err != nil {
		t.Fatal(err)
	}
	wantHost := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	if u.Scheme != "https" || u.Host != wantHost || pathpkg.Clean(u.Path) != "/validate" {
		t.Errorf("installed webhook URL %s, want https://%s/validate", u, wantHost)
	}
}
