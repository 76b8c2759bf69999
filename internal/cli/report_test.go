package cli

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/openreports/reports-api/pkg/client/clientset/versioned"

	"github.com/kriguard/kriguard/internal/reports"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
)

// reportsIn returns kriguard's reports and cluster reports by the object each is about ("Kind
// ns/name"), checking each against that object.
func reportsIn(t *testing.T, c versioned.Interface) map[string]*v1alpha1.Report {
	t.Helper()
	ctx := context.Background()
	out := map[string]*v1alpha1.Report{}
	rl, err := c.OpenreportsV1alpha1().Reports("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crl, err := c.OpenreportsV1alpha1().ClusterReports().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := make([]*v1alpha1.Report, 0, len(rl.Items)+len(crl.Items))
	for i := range rl.Items {
		all = append(all, &rl.Items[i])
	}
	for i := range crl.Items {
		all = append(all, reports.FromCluster(&crl.Items[i]))
	}
	for _, r := range all {
		if r.Labels[reports.ManagedByLabel] != reports.ManagedBy {
			t.Errorf("report %s/%s has labels %v, want %s", r.Namespace, r.Name, r.Labels, reports.Selector)
		}
		if r.Scope == nil {
			t.Fatalf("report %s/%s has no scope", r.Namespace, r.Name)
		}
		ref := objectRef(r.Scope.Kind, r.Scope.Namespace, r.Scope.Name)
		if r.Namespace != r.Scope.Namespace || r.Name != reports.Name(r.Scope.UID) {
			t.Errorf("%s: report %s/%s, want %s/%s", ref, r.Namespace, r.Name, r.Scope.Namespace, reports.Name(r.Scope.UID))
		}
		if len(r.OwnerReferences) != 1 || r.OwnerReferences[0].UID != r.Scope.UID || r.OwnerReferences[0].Kind != r.Scope.Kind ||
			r.OwnerReferences[0].Name != r.Scope.Name || r.OwnerReferences[0].APIVersion != r.Scope.APIVersion {
			t.Errorf("%s: owner references %+v, want the object itself", ref, r.OwnerReferences)
		}
		out[ref] = r
	}
	return out
}

func versions(m map[string]*v1alpha1.Report) map[string]string {
	out := map[string]string{}
	for k, r := range m {
		out[k] = r.ResourceVersion
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// audit --report=cluster against a real API server with the OpenReports CRDs: reports name
// exactly the bad objects, a second run writes nothing, a fix prunes, and --report=yaml prints
// the very objects the cluster mode writes.
func TestAuditReports(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{OpenReports: testenv.OpenReports})
	ctx := context.Background()
	admin := kubeconfig(t, env, "reporter", "system:masters")
	rc, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	timeout, _ := env.Kind(rules.KumaGroup, "MeshTimeout")
	mesh, _ := env.Kind(rules.KumaGroup, "Mesh")
	plugin, _ := env.Kind(rules.KongGroup, "KongPlugin")

	objects := map[string]*unstructured.Unstructured{}
	var bad []string
	create := func(k testenv.Kind, ns, name string, labels map[string]string) {
		o := testenv.NewObject(k, ns, name)
		o.SetLabels(labels)
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		ref := objectRef(k.Kind, o.GetNamespace(), name)
		objects[ref] = o
		if labels != nil {
			bad = append(bad, ref)
		}
	}
	for _, ns := range []string{"team-a", "team-b"} {
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		create(timeout, ns, "good", nil)
		create(timeout, ns, "bad", map[string]string{"kuma.io/mesh": "Mesh_1"})
		create(plugin, ns, "good", nil)
	}
	create(mesh, "", "good", nil)
	create(mesh, "", "bad", map[string]string{"kuma.io/display-name": "Bad_Mesh"})
	slices.Sort(bad)

	auditCluster := func(t *testing.T, wantStderr string) {
		t.Helper()
		r := run(t, "", "audit", "--kubeconfig", admin, "-A", "--report=cluster")
		if r.code != ExitDenied {
			t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
		}
		if !strings.Contains(r.stderr, wantStderr) {
			t.Errorf("stderr %q, want it to say %q", r.stderr, wantStderr)
		}
	}

	var first map[string]*v1alpha1.Report
	t.Run("first run: a report for exactly the bad objects", func(t *testing.T) {
		auditCluster(t, "reports: 3 created, 0 updated, 0 deleted")
		first = reportsIn(t, rc)
		if got := sortedKeys(first); !slices.Equal(got, bad) {
			t.Fatalf("reports on %v, want exactly the bad objects %v", got, bad)
		}
		for ref, r := range first {
			o := objects[ref]
			if r.Scope.UID != o.GetUID() {
				t.Errorf("%s: scope UID %s, want the object's %s", ref, r.Scope.UID, o.GetUID())
			}
			if r.Summary.Fail != len(r.Results) || r.Summary.Fail == 0 {
				t.Errorf("%s: summary %+v for %d results", ref, r.Summary, len(r.Results))
			}
			for _, res := range r.Results {
				if res.Result != "fail" || res.Severity != "high" || res.Source != reports.Source ||
					!slices.Contains(rules.Rules(), rules.Rule(res.Policy)) || res.Rule != res.Policy {
					t.Errorf("%s: result %+v, want a failure of a rule of docs/rules.md", ref, res)
				}
				field := "metadata.labels[kuma.io/mesh]"
				if r.Scope.Kind == "Mesh" {
					field = "metadata.labels[kuma.io/display-name]"
				}
				if res.Properties["field"] != field || !strings.HasPrefix(res.Description, field+": Invalid value") {
					t.Errorf("%s: result field %q, message %q, want %s", ref, res.Properties["field"], res.Description, field)
				}
				if res.Properties["enforcement"] != "deny" || res.Timestamp.Seconds == 0 {
					t.Errorf("%s: result %+v, want enforcement deny and a timestamp", ref, res)
				}
			}
		}
		if r := first["Mesh bad"]; r != nil && r.Namespace != "" {
			t.Errorf("the cluster-scoped Mesh has a namespaced report")
		}
	})

	t.Run("second run writes nothing", func(t *testing.T) {
		auditCluster(t, "reports: 0 created, 0 updated, 0 deleted, 8 unchanged, 0 failed (0 writes)")
		if got, want := versions(reportsIn(t, rc)), versions(first); !maps.Equal(got, want) {
			t.Errorf("resource versions %v, want them unchanged: %v", got, want)
		}
	})

	t.Run("a fixed object's report is pruned", func(t *testing.T) {
		o := objects["MeshTimeout team-a/bad"]
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		o.SetLabels(map[string]string{"kuma.io/mesh": "mesh-1"})
		if err := env.Client.Update(ctx, o); err != nil {
			t.Fatal(err)
		}
		auditCluster(t, "reports: 0 created, 0 updated, 1 deleted, 7 unchanged, 0 failed (1 writes)")
		got := reportsIn(t, rc)
		want := versions(first)
		delete(want, "MeshTimeout team-a/bad")
		if !maps.Equal(versions(got), want) {
			t.Errorf("reports %v, want the others unchanged: %v", versions(got), want)
		}
	})

	t.Run("--report=yaml prints what the cluster holds", func(t *testing.T) {
		junit := filepath.Join(t.TempDir(), "results.xml")
		r := run(t, "", "audit", "--kubeconfig", admin, "-A", "--report=yaml", "-o", "junit="+junit)
		if r.code != ExitDenied {
			t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
		}
		// The results still reach the outputs given a file.
		if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), "<failure") {
			t.Errorf("-o junit=FILE with --report=yaml wrote %q (%v), want the denied objects' failures", x, err)
		}
		if r := run(t, "", "audit", "--kubeconfig", admin, "-A", "--report=yaml", "-o", "json"); r.code != ExitError || !strings.Contains(r.stderr, "-o json=FILE") {
			t.Errorf("--report=yaml -o json: exit %d, stderr %q; want a usage error asking for a file", r.code, r.stderr)
		}
		if n := strings.Count(r.stdout, "---\n"); n != 2 {
			t.Fatalf("%d documents, want the 2 reports; stdout:\n%s", n, r.stdout)
		}
		// Accepted by the API server as they are: remove the reports, create them from the
		// output, and the cluster mode finds nothing to write.
		before := reportsIn(t, rc)
		for _, rep := range before {
			var err error
			if rep.Namespace == "" {
				err = rc.OpenreportsV1alpha1().ClusterReports().Delete(ctx, rep.Name, metav1.DeleteOptions{})
			} else {
				err = rc.OpenreportsV1alpha1().Reports(rep.Namespace).Delete(ctx, rep.Name, metav1.DeleteOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		u, err := env.Environment.AddUser(envtest.User{Name: "applier", Groups: []string{"system:masters"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		kubectl, err := u.Kubectl()
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "reports.yaml")
		if err := os.WriteFile(file, []byte(r.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, err := kubectl.Run("create", "-f", file)
		if err != nil {
			msg, _ := io.ReadAll(stderr)
			t.Fatalf("kubectl create: %v: %s", err, msg)
		}
		if got := sortedKeys(reportsIn(t, rc)); !slices.Equal(got, sortedKeys(before)) {
			t.Fatalf("created %v, want %v", got, sortedKeys(before))
		}
		auditCluster(t, "reports: 0 created, 0 updated, 0 deleted, 8 unchanged, 0 failed (0 writes)")
	})

	t.Run("under the chart's audit ClusterRole", func(t *testing.T) {
		nobody := kubeconfig(t, env, "nobody")
		r := run(t, "", "audit", "--kubeconfig", nobody, "-A", "--report=cluster")
		if r.code != ExitError || !strings.Contains(r.stderr, "listing reports") || !strings.Contains(r.stderr, "forbidden") {
			t.Errorf("without a grant: exit %d, stderr %q; want 2 and the API server's refusal", r.code, r.stderr)
		}
		applyChartAuditRBAC(t, env, "report-writers", "audit.clusterRole.reports=true")
		writer := kubeconfig(t, env, "writer", "report-writers")
		o := objects["MeshTimeout team-b/good"]
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		o.SetLabels(map[string]string{"kuma.io/zone": "Zone_1"}) // now at fault: a create under the role
		if err := env.Client.Update(ctx, o); err != nil {
			t.Fatal(err)
		}
		r = run(t, "", "audit", "--kubeconfig", writer, "-A", "--report=cluster")
		if r.code != ExitDenied || !strings.Contains(r.stderr, "reports: 1 created, 0 updated, 0 deleted, 7 unchanged, 0 failed (1 writes)") {
			t.Errorf("exit %d, stderr %q; want the new report written", r.code, r.stderr)
		}
	})
}
