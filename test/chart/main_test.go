package chart

import (
	"context"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/internal/testenv"
)

// env is the control plane every test of the package shares: the project's Kuma, Kong and OpenReports CRDs plus
// stand-ins for cert-manager's (testdata/crds).
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m, testenv.Options{ExtraCRDDirs: []string{"testdata/crds"}, OpenReports: testenv.OpenReports}, &env))
}

// testContext is cancelled when the test ends.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// createNamespace creates a namespace with labels; it stays for the rest of the run (envtest has no
// namespace controller, so a deleted namespace would only hang in Terminating).
func createNamespace(t testing.TB, name string, labels map[string]string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := env.Client.Create(testContext(t), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}

// apply creates every object (as the cluster admin) and deletes the cluster-scoped ones when the test
// ends, so that webhook configurations of one test never intercept another's requests.
func apply(t testing.TB, objs manifest) {
	t.Helper()
	ctx := testContext(t)
	for _, o := range objs {
		o := o.DeepCopy()
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatalf("creating %s/%s: %v", o.GetKind(), o.GetName(), err)
		}
		t.Cleanup(func() { deleteObject(t, o) })
	}
}

func deleteObject(t testing.TB, o *unstructured.Unstructured) {
	err := env.Client.Delete(context.Background(), o, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting %s/%s: %v", o.GetKind(), o.GetName(), err)
	}
}
