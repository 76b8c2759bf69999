package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/internal/manifest"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// seeded is what seed put in a cluster.
type seeded struct {
	total      int
	bad        []string // "Kind namespace/name" of every object check denies
	namespaces []string
	perNS      map[string]int
}

// The kinds seed creates objects of: four namespaced Kuma kinds, a Kong kind and Mesh, which is
// cluster-scoped.
var seedKinds = []struct{ group, kind string }{
	{rules.KumaGroup, "MeshTimeout"}, {rules.KumaGroup, "MeshRetry"}, {rules.KumaGroup, "MeshService"},
	{rules.KumaGroup, "MeshTrafficPermission"}, {rules.KongGroup, "KongPlugin"}, {rules.KumaGroup, "Mesh"},
}

// seed creates n objects spread over the seed kinds and five namespaces, every 37th with a
// kuma.io/mesh label that cannot form a KRI, as objects created while the webhook only warned or
// before it was installed. padding adds an annotation of that many bytes to each object.
func seed(t testing.TB, env *testenv.Env, n, padding int) seeded {
	t.Helper()
	ctx := context.Background()
	s := seeded{perNS: map[string]int{}}
	for i := range 5 {
		ns := fmt.Sprintf("audit-%d", i)
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		s.namespaces = append(s.namespaces, ns)
	}
	kinds := make([]testenv.Kind, len(seedKinds))
	for i, sk := range seedKinds {
		k, ok := env.Kind(sk.group, sk.kind)
		if !ok {
			t.Fatalf("the control plane serves no %s.%s", sk.kind, sk.group)
		}
		kinds[i] = k
	}
	var g errgroup.Group
	g.SetLimit(8)
	for i := range n {
		k := kinds[i%len(kinds)]
		ns := s.namespaces[(i/len(kinds))%len(s.namespaces)]
		name := fmt.Sprintf("obj-%d", i)
		obj := testenv.NewObject(k, ns, name)
		bad := i%37 == 0 && k.Group == rules.KumaGroup
		if bad && k.Kind != "Mesh" {
			obj.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
		} else if bad {
			obj.SetLabels(map[string]string{"kuma.io/display-name": "Obj_" + name})
		}
		if padding > 0 {
			obj.SetAnnotations(map[string]string{"example.com/padding": strings.Repeat("p", padding)})
		}
		ref := k.Kind + " " + name
		if k.Namespaced {
			ref = k.Kind + " " + ns + "/" + name
			s.perNS[ns]++
		}
		if bad {
			s.bad = append(s.bad, ref)
		}
		g.Go(func() error {
			if err := env.Client.Create(ctx, obj); err != nil {
				return fmt.Errorf("creating %s: %w", ref, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	s.total = n
	slices.Sort(s.bad)
	return s
}

// kubeconfig writes a kubeconfig for a new user of the control plane, in groups.
func kubeconfig(t testing.TB, env *testenv.Env, user string, groups ...string) string {
	t.Helper()
	u, err := env.Environment.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// listCounter counts the LIST requests of a client and the largest limit they asked for.
type listCounter struct {
	next     http.RoundTripper
	requests atomic.Int64
}

func (c *listCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Query().Has("limit") {
		c.requests.Add(1)
	}
	return c.next.RoundTrip(r)
}

// audit runs the auditor over cfg and returns the results and the number of LIST requests.
func audit(t testing.TB, cfg *rest.Config, namespace string, chunk int64, emit func(Result)) (tally, int64) {
	t.Helper()
	c := rest.CopyConfig(cfg)
	lc := &listCounter{}
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { lc.next = rt; return lc }
	au := &auditor{rest: c, rules: rules.DefaultConfig(), namespace: namespace, chunk: chunk}
	var tl tally
	err := au.run(context.Background(), &tl, func(r Result) error { emit(r); return nil },
		func(err error) { t.Errorf("audit: %v", err) }, func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return tl, lc.requests.Load()
}

// audit over a real API server: thousands of objects across kinds and namespaces, listed in
// pages much smaller than their number, finds exactly the bad ones.
func TestAudit(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{})
	s := seed(t, env, 3000, 0)
	admin := kubeconfig(t, env, "auditor", "system:masters")

	t.Run("every namespace, in pages", func(t *testing.T) {
		var denied []string
		judged := 0
		tl, lists := audit(t, env.Config, "", 100, func(r Result) {
			judged++
			if !r.Allowed {
				denied = append(denied, objectRef(r.Object.Kind.Kind, r.Object.Namespace, r.Name()))
			}
			if r.Source != SourceCluster || r.Line != 0 {
				t.Errorf("result from %s:%d, want the cluster", r.Source, r.Line)
			}
		})
		slices.Sort(denied)
		if judged != s.total || tl.objects != s.total {
			t.Errorf("judged %d objects, want %d", judged, s.total)
		}
		if !slices.Equal(denied, s.bad) {
			t.Errorf("denied %d objects, want exactly the %d bad ones:\n got %v\nwant %v", len(denied), len(s.bad), denied, s.bad)
		}
		if min := int64(s.total / 100); lists < min {
			t.Errorf("%d LIST requests for %d objects in pages of 100, want at least %d", lists, s.total, min)
		}
		t.Logf("%d objects in %d LIST requests, %d denied", judged, lists, len(denied))
	})

	t.Run("--report=cluster without the OpenReports CRDs", func(t *testing.T) {
		r := run(t, "", "audit", "--kubeconfig", admin, "-A", "--report=cluster")
		if r.code != ExitError || !strings.Contains(r.stderr, "the cluster does not serve openreports.io/v1alpha1 (install the OpenReports CRDs") {
			t.Errorf("exit %d, stderr %q; want 2 and what to install", r.code, r.stderr)
		}
	})

	t.Run("the command, one namespace", func(t *testing.T) {
		ns := s.namespaces[2]
		r := run(t, "", "audit", "--kubeconfig", admin, "-n", ns, "--chunk-size", "50", "-o", "json")
		if r.code != ExitDenied {
			t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
		}
		results := decodeResults(t, r.stdout)
		var denied, want []string
		for _, res := range results {
			if res.Namespace != ns {
				t.Errorf("%s from namespace %q", objectRef(res.Kind, res.Namespace, res.Name), res.Namespace)
			}
			if !res.Allowed {
				denied = append(denied, objectRef(res.Kind, res.Namespace, res.Name))
			}
		}
		for _, b := range s.bad {
			if strings.Contains(b, " "+ns+"/") {
				want = append(want, b)
			}
		}
		slices.Sort(denied)
		if len(results) != s.perNS[ns] || !slices.Equal(denied, want) {
			t.Errorf("%d results, denied %v; want %d results, denied %v", len(results), denied, s.perNS[ns], want)
		}
	})

	t.Run("the command, text", func(t *testing.T) {
		r := run(t, "", "audit", "--kubeconfig", admin, "-A")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != ExitDenied || len(lines) != len(s.bad) {
			t.Fatalf("exit %d, %d lines, want %d lines; stderr:\n%s", r.code, len(lines), len(s.bad), r.stderr)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "cluster: ") {
				t.Errorf("line %q does not start with the source", l)
			}
		}
	})

	t.Run("progress on a terminal", func(t *testing.T) {
		var out, errOut strings.Builder
		code := Main(context.Background(), []string{"audit", "--kubeconfig", admin, "-A", "-o", "json"},
			Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, ErrIsTerminal: true})
		if code != ExitDenied {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		wantSummary := fmt.Sprintf("audit: %d objects checked in ", s.total)
		if !strings.Contains(errOut.String(), "\r\x1b[Kaudit: 0/") || !strings.Contains(errOut.String(), wantSummary) ||
			!strings.Contains(errOut.String(), fmt.Sprintf("%d denied, 0 errors\n", len(s.bad))) {
			t.Errorf("stderr lacks the progress line or the summary %q:\n%q", wantSummary, errOut.String())
		}
		if strings.Contains(out.String(), "audit:") {
			t.Errorf("progress on standard output")
		}
		if r := run(t, "", "audit", "--kubeconfig", admin, "-A", "--kuma-version", "2.14", "-o", "json"); r.stderr != "" {
			t.Errorf("not a terminal: stderr should stay quiet, got %q", r.stderr)
		}
	})

	t.Run("the chart's audit ClusterRole is enough, and read-only", func(t *testing.T) {
		applyChartAuditRBAC(t, env, "auditors")
		auditor := kubeconfig(t, env, "carol", "auditors")
		// The API server's RBAC authorizer learns of new roles from an informer: give it a moment.
		r := run(t, "", "audit", "--kubeconfig", auditor, "-A", "--kuma-version", "2.14", "-o", "json")
		for deadline := time.Now().Add(10 * time.Second); r.code == ExitError && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			r = run(t, "", "audit", "--kubeconfig", auditor, "-A", "--kuma-version", "2.14", "-o", "json")
		}
		if r.code != ExitDenied || r.stderr != "" {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if n := len(decodeResults(t, r.stdout)); n != s.total {
			t.Errorf("%d results, want %d", n, s.total)
		}
		u, err := env.Environment.AddUser(envtest.User{Name: "carol2", Groups: []string{"auditors"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl, err := client.New(u.Config(), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		k, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
		obj := testenv.NewObject(k, s.namespaces[0], "written-by-an-auditor")
		if err := cl.Create(context.Background(), obj); !apierrors.IsForbidden(err) {
			t.Errorf("an auditor's create: %v, want forbidden", err)
		}
		if err := cl.Get(context.Background(), client.ObjectKey{Namespace: s.namespaces[0], Name: "obj-0"}, obj); !apierrors.IsForbidden(err) {
			t.Errorf("an auditor's get: %v, want forbidden (list is all audit needs)", err)
		}
	})

	t.Run("a user who may not list", func(t *testing.T) {
		nobody := kubeconfig(t, env, "nobody")
		r := run(t, "", "audit", "--kubeconfig", nobody, "-A")
		if r.code != ExitError || !strings.Contains(r.stderr, `kriguard audit: listing meshtimeouts.kuma.io: meshtimeouts.kuma.io is forbidden: User "nobody" cannot list resource "meshtimeouts" in API group "kuma.io" at the cluster scope`) {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})

	t.Run("an unreachable cluster", func(t *testing.T) {
		closed := closedPort(t)
		broken := writeFile(t, t.TempDir(), "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://`+closed+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)
		r := run(t, "", "audit", "--kubeconfig", broken, "-A")
		if r.code != ExitError || !strings.Contains(r.stderr, "kriguard audit: discovering the API groups: ") || !strings.Contains(r.stderr, "connection refused") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("stdout: %s", r.stdout)
		}
	})

	t.Run("a missing kubeconfig", func(t *testing.T) {
		r := run(t, "", "audit", "--kubeconfig", filepath.Join(t.TempDir(), "none"))
		if r.code != ExitError || !strings.Contains(r.stderr, "kriguard audit: loading the kubeconfig: ") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})

	// Last: it adds objects of its own.
	t.Run("the command, golden output", func(t *testing.T) {
		const ns = "audit-golden"
		if err := env.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		for i, o := range []struct {
			kind, name string
			labels     map[string]string
		}{
			{"MeshTimeout", "timeouts", map[string]string{"kuma.io/zone": "east", "k8s.kuma.io/namespace": "kuma-demo"}},
			{"MeshTimeout", "timeouts-eu", map[string]string{"kuma.io/zone": "EU_West"}},
			{"MeshRetry", "retries", nil},
			{"MeshRetry", "retries-2", map[string]string{"kuma.io/mesh": ""}},
			{"KongPlugin", "rate-limit", nil},
		} {
			k, _ := env.Kind(rules.KumaGroup, o.kind)
			if i == 4 {
				k, _ = env.Kind(rules.KongGroup, o.kind)
			}
			obj := testenv.NewObject(k, ns, o.name)
			obj.SetLabels(o.labels)
			if o.name == "retries-2" {
				obj.SetAnnotations(map[string]string{"kuma.io/display-name": "Retries_2"})
			}
			if err := env.Client.Create(context.Background(), obj); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range []string{"text", "json"} {
			r := run(t, "", "audit", "--kubeconfig", admin, "-n", ns, "--chunk-size", "1", "--kuma-version", "2.14", "-o", format)
			if r.code != ExitDenied || r.stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			golden(t, "audit-namespace."+format, r.stdout)
		}
	})
}

// audit holds a page or two at a time, never the whole list: the live heap while auditing five
// times as many objects is no larger, where holding them would add megabytes (each object
// carries an 8 KiB annotation).
func TestAuditMemoryDoesNotGrowWithObjects(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{})
	s := seed(t, env, 2500, 8<<10)
	few, all := s.namespaces[0], ""
	maxLive := func(namespace string) (uint64, int) {
		var peak uint64
		n := 0
		var ms runtime.MemStats
		audit(t, env.Config, namespace, 50, func(Result) {
			n++
			if n%100 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		})
		return peak, n
	}
	maxLive(few) // warm up: clients, discovery caches
	smallPeak, smallN := maxLive(few)
	bigPeak, bigN := maxLive(all)
	if bigN < 4*smallN {
		t.Fatalf("audited %d and %d objects: the comparison needs a larger difference", smallN, bigN)
	}
	held := uint64(bigN-smallN) * 8 << 10 // what holding the extra objects would add, at least
	growth := int64(bigPeak) - int64(smallPeak)
	t.Logf("live heap: %d objects %.1f MiB, %d objects %.1f MiB (holding them would add %.1f MiB)",
		smallN, float64(smallPeak)/(1<<20), bigN, float64(bigPeak)/(1<<20), float64(held)/(1<<20))
	if growth > int64(held/4) {
		t.Errorf("the live heap grew by %.1f MiB from %d to %d objects: audit holds objects beyond its pages",
			float64(growth)/(1<<20), smallN, bigN)
	}
}

// applyChartAuditRBAC renders the chart's audit ClusterRole, bound to group, with helm (and the
// values of set, as --set takes them) and creates it in env.
func applyChartAuditRBAC(t *testing.T, env *testenv.Env, group string, set ...string) {
	t.Helper()
	args := []string{"--show-only", "templates/audit-rbac.yaml",
		"--set", "audit.clusterRole.create=true",
		"--set", "audit.clusterRole.subjects[0].kind=Group",
		"--set", "audit.clusterRole.subjects[0].name=" + group}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out := helmTemplate(t, args...)
	created := 0
	err := manifest.Read("audit-rbac.yaml", bytes.NewReader(out), manifest.Options{}, func(d manifest.Document) error {
		if d.Err != nil {
			return d.Err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(d.Object); err != nil {
			return err
		}
		created++
		return env.Client.Create(context.Background(), u)
	})
	if err != nil || created != 2 {
		t.Fatalf("creating the chart's audit RBAC: %v (%d objects)", err, created)
	}
}

// helmTemplate renders the chart with the pinned helm that hack/tools.sh links into bin/ (another
// major version renders otherwise), with private helm folders.
func helmTemplate(t *testing.T, args ...string) []byte {
	t.Helper()
	helm, err := filepath.Abs("../../bin/helm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(helm); err != nil {
		t.Fatalf("helm is missing (%v): run ./hack/tools.sh install (or make test) to build the pinned helm", err)
	}
	cmd := exec.Command(helm, append([]string{"template", "kriguard", "../../charts/kriguard"}, args...)...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+home, "HELM_CACHE_HOME="+home, "HELM_DATA_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr.String())
	}
	return out
}

// audit --kuma-version 3.0 on a 2.14 cluster lists the objects of the kinds 3.0 removed, each
// refused as removed with no KRI, beside the others judged as 3.0 judges them; audit on 2.14
// judges the 2.14 kinds (MeshGateway, ZoneIngress) and skips the kinds without a KRI.
func TestAuditKumaVersion(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{Kuma: testenv.Kuma214})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kuma-demo"}}
	if err := env.Client.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	for _, y := range []string{
		"apiVersion: kuma.io/v1alpha1\nkind: MeshGateway\nmetadata: {name: edge}\nmesh: default\nspec: {conf: {listeners: [{port: 8080, protocol: HTTP}]}}\n",
		"apiVersion: kuma.io/v1alpha1\nkind: ZoneIngress\nmetadata: {name: zi, namespace: kuma-demo}\nspec: {}\n",
		"apiVersion: kuma.io/v1alpha1\nkind: TrafficRoute\nmetadata: {name: route-all}\nmesh: default\nspec: {}\n",
		"apiVersion: kuma.io/v1alpha1\nkind: MeshGatewayInstance\nmetadata: {name: edge, namespace: kuma-demo}\nspec: {replicas: 1, serviceType: LoadBalancer}\n",
		"apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: timeouts, namespace: kuma-demo, labels: {kuma.io/mesh: default}}\nspec: {}\n",
	} {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Create(t.Context(), u); err != nil {
			t.Fatalf("creating %s: %v", u.GetKind(), err)
		}
	}
	admin := kubeconfig(t, env, "auditor", "system:masters")
	audit := func(args ...string) (map[string]jsonResult, int, string) {
		r := run(t, "", append([]string{"audit", "--kubeconfig", admin, "-A", "-o", "json"}, args...)...)
		out := map[string]jsonResult{}
		for _, res := range decodeResults(t, r.stdout) {
			out[res.Kind] = res
		}
		return out, r.code, r.stderr
	}
	judged := func(version string) (map[string]jsonResult, int) {
		out, code, stderr := audit("--kuma-version", version)
		if stderr != "" {
			t.Errorf("--kuma-version %s: stderr %s", version, stderr)
		}
		return out, code
	}

	on214, code := judged("2.14")
	if code != ExitOK || len(on214) != 3 || on214["MeshGateway"].KRI != "kri_mgw_default___edge_" || on214["ZoneIngress"].KRI != "kri_zi____zi_" || !on214["MeshTimeout"].Allowed {
		t.Errorf("2.14: exit %d, %+v; want the MeshGateway, ZoneIngress and MeshTimeout judged and allowed", code, on214)
	}
	on30, code := judged("3.0")
	var removed []string
	for kind, res := range on30 {
		if kind == "MeshTimeout" {
			if !res.Allowed {
				t.Errorf("3.0: MeshTimeout denied: %+v", res.Causes)
			}
			continue
		}
		if res.Allowed || res.KRI != "" || len(res.Causes) != 1 || res.Causes[0].Field != "kind" || !strings.Contains(res.Causes[0].Message, "removed in Kuma 3.0") {
			t.Errorf("3.0: %s %+v, want refused as removed with no KRI", kind, res)
		}
		removed = append(removed, kind)
	}
	slices.Sort(removed)
	if want := []string{"MeshGateway", "MeshGatewayInstance", "TrafficRoute", "ZoneIngress"}; code != ExitDenied || !slices.Equal(removed, want) {
		t.Errorf("3.0: exit %d, removed kinds listed %q, want 1 and %q", code, removed, want)
	}

	// Without --kuma-version, the release is detected as the webhook detects it: none without a
	// control plane (2.14, with a warning), 3.0 once its Deployment runs 3.0 (with a warning that
	// 2.14's CRDs are still served).
	got, code, stderr := audit()
	if code != ExitOK || len(got) != len(on214) || !strings.Contains(stderr, "kriguard audit: warning: the Kuma release is unknown (no Deployment kuma-system/kuma-control-plane") {
		t.Errorf("no control plane: exit %d, %d results, stderr %q", code, len(got), stderr)
	}
	if err := env.Client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kuma-system"}}); err != nil {
		t.Fatal(err)
	}
	cp := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kuma-system", Name: "kuma-control-plane"}}
	cp.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "kuma-control-plane"}}
	cp.Spec.Template.Labels = cp.Spec.Selector.MatchLabels
	cp.Spec.Template.Spec.Containers = []corev1.Container{{Name: "control-plane", Image: "docker.io/kumahq/kuma-cp:3.0.0"}}
	if err := env.Client.Create(t.Context(), cp); err != nil {
		t.Fatal(err)
	}
	got, code, stderr = audit()
	if code != ExitDenied || len(got) != len(on30) || !got["MeshTimeout"].Allowed || got["MeshGateway"].Allowed ||
		!strings.Contains(stderr, "kriguard audit: warning: Kuma 3.0: the kinds ") || strings.Contains(stderr, "unknown") {
		t.Errorf("a 3.0 control plane: exit %d, %d results, stderr %q", code, len(got), stderr)
	}
}
