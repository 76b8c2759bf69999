package chart

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/openreports/reports-api/pkg/client/clientset/versioned"

	"github.com/kriguard/kriguard/internal/continuous"
	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

const auditValues = `
audit:
  enabled: true
  interval: 2m
config:
  kinds:
    KongRoute: {enabled: false}
`

// The continuous audit renders only when enabled: one replica of the webhook's image running `audit`,
// pods no webhook selector picks, and a ClusterRole of list and watch on exactly the enabled kinds plus
// its reports.
func TestAuditRender(t *testing.T) {
	const release = "x"
	full := release + "-kriguard"
	for _, o := range render(t, release, releaseNamespace, "") {
		if strings.Contains(o.GetName(), "audit") || o.GetKind() == "CustomResourceDefinition" {
			t.Errorf("the defaults render %s/%s", o.GetKind(), o.GetName())
		}
	}

	objs := render(t, release, releaseNamespace, auditValues)
	d := objs.get(t, "Deployment", full+"-audit")
	if r := field(t, d, "spec", "replicas"); fmt.Sprint(r) != "1" {
		t.Errorf("replicas %v, want 1", r)
	}
	if s := field(t, d, "spec", "strategy", "type"); s != "Recreate" {
		t.Errorf("strategy %v, want Recreate: one writer at a time", s)
	}
	c := slice(t, d, "spec", "template", "spec", "containers")[0]
	webhook := slice(t, objs.get(t, "Deployment", full), "spec", "template", "spec", "containers")[0]
	if c["image"] != webhook["image"] {
		t.Errorf("image %v, want the webhook's %v", c["image"], webhook["image"])
	}
	args := fmt.Sprint(c["args"])
	for _, want := range []string{"[audit ", "--config=/etc/kriguard/config/config.yaml", "--interval=2m", "--workers=4", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %s, want %s", args, want)
		}
	}
	flags := contractFlags(t)
	for _, a := range strs(c["args"])[1:] {
		if f, _, _ := strings.Cut(a, "="); !flags.Has(f) && !strings.HasPrefix(f, "--zap-") {
			t.Errorf("arg %s: not a flag of docs/contracts.md", a)
		}
	}
	if sa := field(t, d, "spec", "template", "spec", "serviceAccountName"); sa != full+"-audit" {
		t.Errorf("service account %v", sa)
	}
	podLabels := labels.Set{}
	for k, v := range field(t, d, "spec", "template", "metadata", "labels").(map[string]any) {
		podLabels[k] = v.(string)
	}
	for _, o := range slices.Concat(objs.ofKind("Service"), objs.ofKind("PodDisruptionBudget"), objs.ofKind("Deployment")) {
		sel, ok, _ := unstructuredMap(o.Object, "spec", "selector")
		if o.GetKind() != "Service" {
			sel, ok, _ = unstructuredMap(o.Object, "spec", "selector", "matchLabels")
		}
		if !ok || o.GetName() == full+"-audit" {
			continue
		}
		if labels.SelectorFromSet(sel).Matches(podLabels) {
			t.Errorf("%s %s selects the audit pod (%v)", o.GetKind(), o.GetName(), podLabels)
		}
	}

	role := objs.get(t, "ClusterRole", full+"-audit-controller")
	want := map[string][]string{}
	for _, k := range guardedKinds(chartValues(t, auditValues)) {
		want[k.group] = append(want[k.group], k.resource)
	}
	if slices.Contains(want["configuration.konghq.com"], "kongroutes") {
		t.Fatal("the disabled KongRoute is among the guarded kinds")
	}
	// The Kuma kinds a release removed (kuma.version auto may judge them under 3.0).
	for r := range removedRules(t) {
		want["kuma.io"] = append(want["kuma.io"], r[strings.LastIndex(r, "/")+1:])
	}
	got := map[string][]string{}
	for _, r := range slice(t, role, "rules") {
		groups, resources, verbs := strs(r["apiGroups"]), strs(r["resources"]), strs(r["verbs"])
		if len(groups) != 1 || slices.Contains(resources, "*") || slices.Contains(verbs, "*") {
			t.Fatalf("rule %v: want one group, no wildcard", r)
		}
		switch groups[0] {
		case "apps":
			// kuma.version auto, the default: the release is read from the control plane's Deployment.
			if !slices.Equal(resources, []string{"deployments"}) || !slices.Equal(verbs, []string{"get"}) ||
				!slices.Equal(strs(r["resourceNames"]), []string{"kuma-control-plane"}) {
				t.Errorf("rule %v, want get on the Deployment kuma-control-plane only", r)
			}
		case "openreports.io":
			if !slices.Equal(resources, []string{"reports", "clusterreports"}) ||
				!slices.Equal(verbs, []string{"get", "list", "watch", "create", "update", "delete"}) {
				t.Errorf("reports rule %v", r)
			}
		default:
			if !slices.Equal(verbs, []string{"list", "watch"}) {
				t.Errorf("rule %v: want list and watch only", r)
			}
			got[groups[0]] = resources
		}
	}
	for g := range want {
		slices.Sort(want[g])
		want[g] = slices.Compact(want[g])
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("the role reads %v, want exactly the enabled kinds %v", got, want)
	}
	binding := objs.get(t, "ClusterRoleBinding", full+"-audit-controller")
	if s := slice(t, binding, "subjects")[0]; s["name"] != full+"-audit" || s["namespace"] != releaseNamespace {
		t.Errorf("binding subject %v", s)
	}
}

// The continuous audit's ClusterRole gets the Kuma control plane's Deployment, by the configured name,
// only when kuma.version or kuma.mode is auto: a fixed release and mode read nothing of Kuma's.
func TestAuditRenderKumaRelease(t *testing.T) {
	for _, tc := range []struct {
		values string
		want   []string // the resourceNames of the get on Deployments; nil: no such rule
	}{
		{auditValues, []string{"kuma-control-plane"}},
		{auditValues + "  kuma: {version: auto, controlPlane: {namespace: mesh, deployment: cp}}\n", []string{"cp"}},
		{auditValues + "  kuma: {version: \"3.0\"}\n", []string{"kuma-control-plane"}}, // kuma.mode auto
		{auditValues + "  kuma: {version: \"3.0\", mode: zone}\n", nil},
		{auditValues + "  kuma: {version: \"2.14\", mode: standalone}\n", nil},
		{auditValues + "  kuma: {version: auto, mode: global}\n", []string{"kuma-control-plane"}},
	} {
		objs := render(t, "x", releaseNamespace, tc.values)
		var got []string
		n := 0
		for _, r := range slice(t, objs.get(t, "ClusterRole", "x-kriguard-audit-controller"), "rules") {
			if !slices.Contains(strs(r["apiGroups"]), "apps") {
				continue
			}
			n++
			if !slices.Equal(strs(r["resources"]), []string{"deployments"}) || !slices.Equal(strs(r["verbs"]), []string{"get"}) {
				t.Errorf("values %q: rule %v, want get on deployments", tc.values, r)
			}
			got = strs(r["resourceNames"])
		}
		if n > 1 || !slices.Equal(got, tc.want) || (tc.want != nil && n == 0) {
			t.Errorf("values %q: %d rules on apps, resourceNames %v, want %v", tc.values, n, got, tc.want)
		}
	}
}

// audit.clusterRole.reports adds to the command's ClusterRole what --report=cluster writes, and
// nothing when off.
func TestAuditClusterRoleReports(t *testing.T) {
	for _, on := range []bool{false, true} {
		objs := render(t, "x", releaseNamespace, fmt.Sprintf("audit: {clusterRole: {create: true, reports: %t}}", on))
		var reportRules []map[string]any
		for _, r := range slice(t, objs.get(t, "ClusterRole", "x-kriguard-audit"), "rules") {
			switch {
			case slices.Contains(strs(r["apiGroups"]), "openreports.io"):
				reportRules = append(reportRules, r)
			case slices.Contains(strs(r["apiGroups"]), "apps"):
				// the release detection of kuma.version auto: get on the Kuma control plane's Deployment
				if !slices.Equal(strs(r["verbs"]), []string{"get"}) || !slices.Equal(strs(r["resourceNames"]), []string{"kuma-control-plane"}) {
					t.Errorf("reports %t: rule %v, want get on the Deployment kuma-control-plane only", on, r)
				}
			case !slices.Equal(strs(r["verbs"]), []string{"list"}):
				t.Errorf("reports %t: rule %v, want list only", on, r)
			}
		}
		switch {
		case !on && len(reportRules) > 0:
			t.Errorf("reports off: %v", reportRules)
		case on && (len(reportRules) != 1 || !slices.Equal(strs(reportRules[0]["verbs"]), []string{"get", "list", "create", "update", "delete"})):
			t.Errorf("reports on: %v, want get, list, create, update, delete on reports", reportRules)
		}
	}
}

// openreports.installCRDs renders the upstream CRDs unmodified, from the files hack/chart-crds.sh
// writes; without them it fails and says so.
func TestOpenReportsCRDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kriguard")
	if err := os.CopyFS(dir, os.DirFS(chartDir(t))); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(dir, "files", "openreports")
	if err := os.RemoveAll(files); err != nil {
		t.Fatal(err)
	}
	_, err := helm(t, "", "template", "x", dir, "--set", "openreports.installCRDs=true")
	if err == nil || !strings.Contains(err.Error(), "hack/chart-crds.sh") {
		t.Errorf("without the files: %v, want an error naming hack/chart-crds.sh", err)
	}

	upstream := filepath.Join(root(t), filepath.FromSlash(testenv.OpenReportsCRDDir(testenv.OpenReports)))
	if err := os.CopyFS(files, os.DirFS(upstream)); err != nil {
		t.Fatal(err)
	}
	out, err := helm(t, "", "template", "x", dir, "--set", "openreports.installCRDs=true")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeObjects(out)
	if err != nil {
		t.Fatal(err)
	}
	crds := objs.ofKind("CustomResourceDefinition")
	if len(crds) != 2 {
		t.Fatalf("%d CRDs, want Report and ClusterReport", len(crds))
	}
	for _, crd := range crds {
		raw, err := os.ReadFile(filepath.Join(upstream, "openreports.io_"+strings.TrimSuffix(crd.GetName(), ".openreports.io")+".yaml"))
		if err != nil {
			t.Fatalf("%s: %v", crd.GetName(), err)
		}
		var want map[string]any
		if err := yaml.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if !apiequality.Semantic.DeepEqual(crd.Object, want) {
			t.Errorf("%s differs from the upstream file", crd.GetName())
		}
	}
}

// The continuous audit runs under the chart's ServiceAccount with only the chart's RBAC: it syncs and
// writes the report of a bad object; the same identity may not write a guarded object or read a Secret.
func TestAuditRBAC(t *testing.T) {
	const ns, release = "audit-rbac-system", "auditrbac"
	full := release + "-kriguard"
	createNamespace(t, ns, nil)
	var install manifest
	objs := render(t, release, ns, auditValues)
	for _, o := range objs {
		switch o.GetKind() {
		case "ClusterRole", "ClusterRoleBinding", "ServiceAccount":
			if strings.HasPrefix(o.GetName(), full+"-audit") {
				install = append(install, o)
			}
		}
	}
	if len(install) != 3 {
		t.Fatalf("rendered %v, want the audit's ServiceAccount, ClusterRole and ClusterRoleBinding", install.names())
	}
	apply(t, install)

	ctx := testContext(t)
	app := "audit-rbac-app"
	createNamespace(t, app, nil)
	k, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
	bad := testenv.NewObject(k, app, "bad")
	bad.SetLabels(map[string]string{"kuma.io/mesh": "Mesh_1"})
	if err := env.Client.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}

	// The configuration the pod mounts: the enabled kinds, which the role lets it watch.
	conf, err := rules.ParseConfig([]byte(field(t, objs.get(t, "ConfigMap", full+"-config"), "data", "config.yaml").(string)))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []schema.GroupKind
	for _, a := range strs(slice(t, objs.get(t, "Deployment", full+"-audit"), "spec", "template", "spec", "containers")[0]["args"]) {
		if list, ok := strings.CutPrefix(a, "--kinds="); ok {
			for k := range strings.SplitSeq(list, ",") {
				kinds = append(kinds, schema.ParseGroupKind(k))
			}
		}
	}
	if len(kinds) < 10 || slices.Contains(kinds, schema.GroupKind{Group: rules.KongGroup, Kind: "KongRoute"}) {
		t.Fatalf("--kinds %v: want the enabled kinds, without KongRoute", kinds)
	}
	cfg := asServiceAccount(ns, full+"-audit")
	a, err := continuous.New(cfg, continuous.Options{Rules: conf, Kinds: kinds, Interval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := rc.OpenreportsV1alpha1().Reports(app).Get(ctx, reports.Name(bad.GetUID()), metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("no report under the chart's RBAC (synced: %v): %v", a.Synced(), err)
	}

	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	other := testenv.NewObject(k, app, "written-by-the-audit")
	if err := c.Create(ctx, other); !apierrors.IsForbidden(err) {
		t.Errorf("creating a MeshTimeout as the audit: %v, want forbidden", err)
	}
	var secrets corev1.SecretList
	if err := c.List(ctx, &secrets, client.InNamespace(ns)); !apierrors.IsForbidden(err) {
		t.Errorf("listing Secrets as the audit: %v, want forbidden", err)
	}
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, s := range l {
		out[i], _ = s.(string)
	}
	return out
}

func unstructuredMap(obj map[string]any, path ...string) (map[string]string, bool, error) {
	m := obj
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil, false, nil
		}
		m = next
	}
	out := map[string]string{}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false, fmt.Errorf("%s: not a string", k)
		}
		out[k] = s
	}
	return out, true, nil
}
