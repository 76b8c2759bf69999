package serverbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// upstreamKumaCRDs is the folder, from the repository root, of Kuma's own CRDs of the release whose
// free-form fields the attack goes through.
const upstreamKumaCRDs = "../shared/upstream/kuma/v2.14.3/crds"

// TestAttackThroughAPIServer (defect 1, end to end): through a real kube-apiserver with Kuma's
// upstream CRDs (v2.14.3's MeshProxyPatch), a replace of a 1 MB MeshProxyPatch (free-form JSON in jsonPatches[].value: one
// 20 KB key above 45,000 bad references) took the webhook from 62 to 1,350 MB. It must be answered
// 422, with the webhook's peak under 128 MiB.
func TestAttackThroughAPIServer(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(root, upstreamKumaCRDs)
	if _, err := os.Stat(crds); err != nil {
		t.Fatalf("Kuma's upstream CRDs: %v", err)
	}
	env, err := testenv.Start(testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	// The control plane serves the CRDs of Kuma's development line: serve MeshProxyPatch as the
	// release does.
	replaceCRD(ctx, t, env, filepath.Join(crds, "kuma.io_meshproxypatches.yaml"))
	const ns = "kuma-attack"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := webhookenv.NewSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.ShutdownDelay = 0
	s.Namespaces = []string{ns}
	if err := s.Prepare(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	user, err := env.Environment.AddUser(envtest.User{Name: "serverbench-attack", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	p := start(t, buildWebhook(t), append(s.Args(), "--kubeconfig="+kubeconfig, "--memory-limit="+strconv.Itoa(chartMemoryLimit))...)
	defer p.stop()
	if err := s.Register(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Unregister(context.Background(), env.Client) }()
	if err := s.WaitReady(ctx, env.Client); err != nil {
		t.Fatalf("%v; output:\n%s", err, tail(p.output.String(), 8<<10))
	}

	patch := func(value any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kuma.io/v1alpha1", "kind": "MeshProxyPatch",
			"metadata": map[string]any{"name": "attack", "namespace": ns, "labels": map[string]any{"kuma.io/mesh": "default"}},
			"spec": map[string]any{"default": map[string]any{"appendModifications": []any{map[string]any{"cluster": map[string]any{
				"operation":   "Patch",
				"match":       map[string]any{"name": "kri_msvc_default_zone-1_kuma-demo_backend_http"},
				"jsonPatches": []any{map[string]any{"op": "add", "path": "/metadata", "value": value}},
			}}}}},
		}}
		return u
	}
	obj := patch(map[string]any{"x": "y"})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) { // the replaced CRD is served
		err := env.Client.Create(ctx, obj)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("creating a small MeshProxyPatch: %v", err)
		}
	}
	refs := make([]any, 45_000)
	for i := range refs {
		refs[i] = map[string]any{"sectionName": "B_"}
	}
	big := patch(map[string]any{strings.Repeat("k", 20_000): map[string]any{"backendRefs": refs}})
	big.SetResourceVersion(obj.GetResourceVersion())
	idle, err := procStatus(p.cmd.Process.Pid, "VmHWM:")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = env.Client.Update(ctx, big)
	took := time.Since(start)
	peak, perr := procStatus(p.cmd.Process.Pid, "VmHWM:")
	if perr != nil {
		t.Fatal(perr)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	t.Logf("replace of a MeshProxyPatch with 45,000 bad references under a 20 KB key: %s after %s (%d-byte message); webhook peak %.0f MiB (%.0f MiB before)",
		reasonOf(err), took.Round(time.Millisecond), len(msg), peak/(1<<20), idle/(1<<20))
	if !apierrors.IsInvalid(err) || !strings.Contains(msg, "jsonPatches[0].value.kkkk") || !strings.Contains(msg, "bytes in all") {
		t.Errorf("replace answered %v, want a 422 at the references, their path cut", boundErr(msg))
	}
	if peak >= singleReviewPeak {
		t.Errorf("webhook peak resident memory %.0f MiB, want under %d MiB", peak/(1<<20), singleReviewPeak>>20)
	}
}

// replaceCRD replaces the CRD of env of the same name with the one in file.
func replaceCRD(ctx context.Context, t *testing.T, env *testenv.Env, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &crd.Object); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	have := &unstructured.Unstructured{}
	have.SetGroupVersionKind(crd.GroupVersionKind())
	if err := env.Client.Get(ctx, client.ObjectKey{Name: crd.GetName()}, have); err != nil {
		t.Fatalf("reading CRD %s: %v", crd.GetName(), err)
	}
	crd.SetResourceVersion(have.GetResourceVersion())
	if err := env.Client.Update(ctx, crd); err != nil {
		t.Fatalf("replacing CRD %s: %v", crd.GetName(), err)
	}
}

func reasonOf(err error) string {
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return "allowed"
	case errors.As(err, &status):
		return string(status.Status().Reason) + " (" + strconv.Itoa(int(status.Status().Code)) + ")"
	}
	return err.Error()
}

// repoRoot is the folder of the module's go.mod.
func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(b))), nil
}

func boundErr(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
