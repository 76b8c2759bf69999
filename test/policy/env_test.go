package policy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// judgeLabel routes an object of the agreement corpus to one judge: the webhook or the policy.
const judgeLabel = "policy-test.kriguard.io/judge"

const (
	judgeWebhook = "webhook"
	judgePolicy  = "policy"
)

var (
	env  *testenv.Env
	hook *webhookenv.Setup
	// nop is the do-nothing webhook of the benchmark.
	nop *httptest.Server
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	// The upstream schemas are the point: the policies are compared on objects a real cluster
	// accepts. testenv always serves them.
	dir, err := os.MkdirTemp("", "kriguard-policy-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if env, err = testenv.Start(testenv.Options{}); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\n", err)
		return 1
	}
	defer env.Stop()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if hook, err = webhookenv.NewSetup(dir); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	// The opt-in, recording the KRI at admission: BenchmarkCreate's (b) is that configuration, and
	// its registration sends a CREATE with a name to the mutating webhook. (i), the default install,
	// is registered as the chart registers webhook.recordKRI off, so that no CREATE with a name
	// reaches this process's mutating webhook there (BenchmarkCreate's calls pass checks it).
	hook.RecordKRI = rules.RecordKRIAdmission
	if err := hook.Prepare(ctx, env.Client); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	// Both configurations exist before the webhook starts: cert-controller injects the CA bundle
	// into them. They match nothing until a test narrows them (registerWebhook).
	if err := registerWebhook(ctx, hook.ValidatingName, hook.MutatingName, "", nil, selectNothing(), selectNothing()); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	stop, err := webhookenv.StartManager(ctx, env.Config, hook.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer stop()
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	if err := hook.WaitReady(wctx, env.Client); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	nop = httptest.NewTLSServer(http.HandlerFunc(nopReview))
	defer nop.Close()
	return m.Run()
}

func selectNothing() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: judgeLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"nobody"},
	}}}
}

// guardedRules routes every resource of the guarded groups, as the webhook's own tests do.
func guardedRules(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	all := admissionregistrationv1.AllScopes
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: ops,
		Rule: admissionregistrationv1.Rule{
			APIGroups:   []string{rules.KumaGroup, rules.KongGroup},
			APIVersions: []string{"*"},
			Resources:   []string{"*"},
			Scope:       &all,
		},
	}}
}

// registerWebhook creates or replaces a validating and a mutating webhook configuration (either name
// may be empty) calling base+"/validate" and base+"/mutate", or the kriguard webhook when base is
// empty, for the objects and namespaces the selectors pick.
func registerWebhook(ctx context.Context, validating, mutating, base string, caBundle []byte, objects, namespaces *metav1.LabelSelector) error {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	timeout := int32(5)
	cc := func(path string) admissionregistrationv1.WebhookClientConfig {
		u := base + path
		if base == "" {
			u = hook.URL(path)
		}
		return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: caBundle}
	}
	if namespaces == nil {
		namespaces = &metav1.LabelSelector{}
	}
	// The API server's metrics name a webhook by its name: another server's are told apart.
	vname, mname := "validate.kriguard.io", "mutate.kriguard.io"
	switch {
	case strings.HasSuffix(base, nopPatchPath):
		vname, mname = "validate.nop-patch.kriguard.io", "mutate.nop-patch.kriguard.io"
	case base != "":
		vname, mname = "validate.nop.kriguard.io", "mutate.nop.kriguard.io"
	}
	var objs []client.Object
	if validating != "" {
		objs = append(objs, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: validating},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: vname, ClientConfig: cc("/validate"),
				Rules:         guardedRules(admissionregistrationv1.Create, admissionregistrationv1.Update),
				FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
				AdmissionReviewVersions: []string{"v1"}, ObjectSelector: objects, NamespaceSelector: namespaces,
			}},
		})
	}
	if mutating != "" {
		// As the chart registers it (charts/kriguard, admission.reinvocationPolicy).
		ifNeeded := admissionregistrationv1.IfNeededReinvocationPolicy
		objs = append(objs, &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: mutating},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: mname, ClientConfig: cc("/mutate"),
				Rules:         guardedRules(admissionregistrationv1.Create, admissionregistrationv1.Update),
				FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
				AdmissionReviewVersions: []string{"v1"}, ObjectSelector: objects, NamespaceSelector: namespaces,
				ReinvocationPolicy: &ifNeeded,
			}},
		})
	}
	for _, obj := range objs {
		key := client.ObjectKeyFromObject(obj)
		switch err := env.Client.Get(ctx, key, obj.DeepCopyObject().(client.Object)); {
		case apierrors.IsNotFound(err):
			if err := env.Client.Create(ctx, obj); err != nil {
				return fmt.Errorf("creating %s: %w", key.Name, err)
			}
			continue
		case err != nil:
			return fmt.Errorf("reading %s: %w", key.Name, err)
		}
		// Replace the rules and selectors, keeping the CA bundle cert-controller injected.
		if err := updateWebhooks(ctx, obj, caBundle != nil); err != nil {
			return err
		}
	}
	return nil
}

func updateWebhooks(ctx context.Context, want client.Object, ownCA bool) error {
	switch w := want.(type) {
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		have := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(w), have); err != nil {
			return err
		}
		if !ownCA {
			w.Webhooks[0].ClientConfig.CABundle = have.Webhooks[0].ClientConfig.CABundle
		}
		have.Webhooks = w.Webhooks
		return env.Client.Update(ctx, have)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		have := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(w), have); err != nil {
			return err
		}
		if !ownCA {
			w.Webhooks[0].ClientConfig.CABundle = have.Webhooks[0].ClientConfig.CABundle
		}
		have.Webhooks = w.Webhooks
		return env.Client.Update(ctx, have)
	}
	return errors.New("not a webhook configuration")
}

// nopPatchPath is the path under the do-nothing webhook's URL where its mutating half answers with
// the patch kriguard's mutating webhook answers for the benchmark's object.
const nopPatchPath = "/patch"

// nopReview is the do-nothing webhook, the floor of the benchmark: it reads the review's uid and
// allows it, with no framework between. Under nopPatchPath its mutating half answers with the JSON
// patch kriguard's answers for a MeshTimeout of mesh "default" without annotations: the KRI
// annotation added, so that the API server's cost of applying a patch is measured apart from
// kriguard's.
func nopReview(w http.ResponseWriter, r *http.Request) {
	var review struct {
		Request struct {
			UID       string `json:"uid"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != nopPatchPath+"/mutate" {
		_, _ = fmt.Fprintf(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":%q,"allowed":true}}`, review.Request.UID)
		return
	}
	patch := fmt.Sprintf(`[{"op":"add","path":"/metadata/annotations","value":{%q:%q}}]`,
		naming.AnnotationKRI, nopKRI(review.Request.Namespace, review.Request.Name))
	_, _ = fmt.Fprintf(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":%q,"allowed":true,"patch":%q,"patchType":"JSONPatch"}}`,
		review.Request.UID, base64.StdEncoding.EncodeToString([]byte(patch)))
}

// nopKRI is the KRI of the benchmark's MeshTimeout name in namespace ns (benchObject).
func nopKRI(ns, name string) string {
	return naming.KRI{Type: "mt", Mesh: "default", Namespace: ns, Name: name}.String()
}

func nopCABundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: nop.Certificate().Raw})
}

// installPolicies generates the policies of the default configuration, narrows each to the objects
// and namespaces the selectors pick, creates them and their bindings, and removes them when the test
// ends. It returns the policies as created.
func installPolicies(t testing.TB, objects, namespaces *metav1.LabelSelector) *admissionpolicy.Objects {
	t.Helper()
	objs, err := admissionpolicy.Generate(rules.DefaultConfig(), admissionpolicy.Options{ExcludeNamespaces: []string{hook.Namespace}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, p := range objs.Policies {
		p.Spec.MatchConstraints.ObjectSelector = objects
		if namespaces != nil {
			p.Spec.MatchConstraints.NamespaceSelector.MatchExpressions = append(p.Spec.MatchConstraints.NamespaceSelector.MatchExpressions, namespaces.MatchExpressions...)
		}
		b := objs.Bindings[i]
		for _, obj := range []client.Object{p, b} {
			if err := createRetrying(ctx, obj); err != nil {
				t.Fatalf("creating %s: %v", obj.GetName(), err)
			}
		}
		t.Cleanup(func() {
			_ = env.Client.Delete(context.Background(), b)
			_ = env.Client.Delete(context.Background(), p)
		})
	}
	return objs
}

// createRetrying creates obj, again when the API server timed out, as it does on a loaded machine
// while it compiles a policy's expressions: a timed-out create may have been stored, so that an
// AlreadyExists that follows it is taken as done.
func createRetrying(ctx context.Context, obj client.Object) error {
	var err error
	for try := range 5 {
		err = env.Client.Create(ctx, obj)
		switch {
		case try > 0 && apierrors.IsAlreadyExists(err):
			return nil
		case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
			continue
		}
		return err
	}
	return err
}

// typeCheck type-checks every policy against the served schemas of the kinds it matches, as
// kube-controller-manager does for the policies' status, and fails the test on any warning: an
// expression that names a field the schema does not have, or uses a value as the wrong type.
func typeCheck(t testing.TB, objs *admissionpolicy.Objects) {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	tc := &validating.TypeChecker{SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: dc}, RestMapper: env.Client.RESTMapper()}
	for _, p := range objs.Policies {
		for _, w := range tc.Check(p) {
			t.Errorf("policy %s: type checking: %s: %s", p.Name, w.FieldRef, w.Warning)
		}
	}
}

// newNamespace creates a namespace with labels.
func newNamespace(t testing.TB, name string, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if err := env.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return name
}

// outcome is what the API server answered to a dry-run create.
type outcome struct {
	// verdict: "allowed", "denied" (by the judge under test) or "rejected" (by the API server itself:
	// schema, metadata validation).
	verdict string
	message string
	// causes are the fields the webhook's causes name.
	causes []string
}

const (
	allowed  = "allowed"
	denied   = "denied"
	rejected = "rejected"
)

func create(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) outcome {
	var opts []client.CreateOption
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	err := env.Client.Create(ctx, obj, opts...)
	if err == nil {
		return outcome{verdict: allowed}
	}
	msg := err.Error()
	o := outcome{verdict: rejected, message: msg}
	if strings.Contains(msg, `admission webhook "validate.kriguard.io" denied the request`) ||
		strings.Contains(msg, "ValidatingAdmissionPolicy 'kriguard.") {
		o.verdict = denied
	}
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.ErrStatus.Details != nil {
		for _, c := range se.ErrStatus.Details.Causes {
			o.causes = append(o.causes, c.Field)
		}
	}
	return o
}

// dump renders an object for a failure message.
func dump(obj *unstructured.Unstructured) string {
	b, _ := json.Marshal(obj.Object)
	return string(b)
}
