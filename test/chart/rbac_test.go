package chart

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// asServiceAccount returns a copy of the admin config that acts as a ServiceAccount, with exactly the
// groups the API server gives a ServiceAccount token: the only permissions it has are the chart's roles
// and what every authenticated user may do (discovery).
func asServiceAccount(namespace, name string) *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":" + name,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	return cfg
}

// projectSecret stands in for the kubelet: it copies the certificate Secret's keys into dir whenever
// they change, as a Secret volume does, until ctx ends.
func projectSecret(ctx context.Context, t testing.TB, key types.NamespacedName, dir string) {
	var last string
	_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		var s corev1.Secret
		if err := env.Client.Get(ctx, key, &s); err != nil {
			return false, nil
		}
		if len(s.Data["tls.crt"]) == 0 || s.ResourceVersion == last {
			return false, nil
		}
		for k, v := range s.Data {
			if err := os.WriteFile(filepath.Join(dir, k), v, 0o600); err != nil {
				t.Errorf("projecting %s: %v", k, err)
			}
		}
		last = s.ResourceVersion
		return false, nil
	})
}

// TestCertControllerRBAC runs cert-controller, as the webhook runs it, under the chart's ServiceAccount
// with only the chart's RBAC: it must issue the certificate into the Secret and inject the CA into both
// webhook configurations. Then it shows what the same identity may not do.
func TestCertControllerRBAC(t *testing.T) {
	const ns, release = "rbac-system", "rbac"
	n := namesFor(release + "-kriguard")
	createNamespace(t, ns, nil)
	objs := render(t, release, ns, "")
	var install manifest
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "Secret", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding",
			"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			install = append(install, o)
		}
	}
	apply(t, install)

	cfg := asServiceAccount(ns, n.serviceAccount)
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Other tests of this binary may run a rotator too; each has its own manager.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	certDir := t.TempDir()
	secretKey := types.NamespacedName{Namespace: ns, Name: n.secret}
	dnsName := n.service + "." + ns + ".svc"
	ready := make(chan struct{})
	err = rotator.AddRotator(mgr, &rotator.CertRotator{
		SecretKey: secretKey,
		CertDir:   certDir,
		// Controller names are unique per process; the webhook's own rotator (TestWebhook) uses the default.
		ControllerName: "chart-test-cert-rotator",
		CAName:         "kriguard-ca",
		CAOrganization: "kriguard",
		DNSName:        dnsName,
		IsReady:        ready,
		Webhooks: []rotator.WebhookInfo{
			{Name: n.validating, Type: rotator.Validating},
			{Name: n.mutating, Type: rotator.Mutating},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	go projectSecret(ctx, t, secretKey, certDir)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the manager stopped before cert-controller was ready: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("cert-controller did not become ready within 2 minutes as the chart's ServiceAccount (forbidden requests are logged above)")
	}

	t.Run("certificate issued", func(t *testing.T) {
		var s corev1.Secret
		if err := env.Client.Get(ctx, secretKey, &s); err != nil {
			t.Fatal(err)
		}
		ca, crt := s.Data["ca.crt"], s.Data["tls.crt"]
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(ca) {
			t.Fatal("ca.crt holds no certificate")
		}
		block, _ := pem.Decode(crt)
		if block == nil {
			t.Fatal("tls.crt holds no certificate")
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: dnsName, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("the serving certificate does not verify for %s against ca.crt: %v", dnsName, err)
		}
		for _, k := range []string{"tls.crt", "tls.key"} {
			if _, err := os.Stat(filepath.Join(certDir, k)); err != nil {
				t.Errorf("%s was not projected into the certificate folder: %v", k, err)
			}
		}
	})

	t.Run("CA injected into both configurations", func(t *testing.T) {
		var s corev1.Secret
		if err := env.Client.Get(ctx, secretKey, &s); err != nil {
			t.Fatal(err)
		}
		var v admissionregistrationv1.ValidatingWebhookConfiguration
		if err := env.Client.Get(ctx, types.NamespacedName{Name: n.validating}, &v); err != nil {
			t.Fatal(err)
		}
		var m admissionregistrationv1.MutatingWebhookConfiguration
		if err := env.Client.Get(ctx, types.NamespacedName{Name: n.mutating}, &m); err != nil {
			t.Fatal(err)
		}
		bundles := [][]byte{}
		for _, h := range v.Webhooks {
			bundles = append(bundles, h.ClientConfig.CABundle)
		}
		for _, h := range m.Webhooks {
			bundles = append(bundles, h.ClientConfig.CABundle)
		}
		for i, b := range bundles {
			if !bytes.Equal(b, s.Data["ca.crt"]) {
				t.Errorf("webhook %d: caBundle is not the Secret's ca.crt", i)
			}
		}
	})

	t.Run("nothing more", func(t *testing.T) {
		checkForbidden(t, ctx, cfg, ns, n)
	})
}

// checkForbidden shows that the chart's ServiceAccount cannot reach past its own Secret and its own two
// webhook configurations.
func checkForbidden(t *testing.T, ctx context.Context, cfg *rest.Config, ns string, n names) {
	createNamespace(t, "bystanders", nil)
	bystanders := []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "neighbour"}, StringData: map[string]string{"password": "x"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "bystanders", Name: "bystander"}, StringData: map[string]string{"password": "x"}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "bystander-validating"}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "bystander-mutating"}},
	}
	for _, o := range bystanders {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), o) })
	}
	sa, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	get := func(o client.Object) func() error {
		return func() error { return sa.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)) }
	}
	update := func(o client.Object) func() error {
		return func() error {
			c := o.DeepCopyObject().(client.Object)
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), c); err != nil {
				return err
			}
			c.SetLabels(map[string]string{"touched": "yes"})
			return sa.Update(ctx, c)
		}
	}
	ownSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: n.secret}}
	ownValidating := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: n.validating}}

	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"get another Secret of its namespace", get(bystanders[0])},
		{"update another Secret of its namespace", update(bystanders[0])},
		{"get a Secret of another namespace", get(bystanders[1])},
		{"list the Secrets of another namespace", func() error {
			return sa.List(ctx, &corev1.SecretList{}, client.InNamespace("bystanders"))
		}},
		{"update another ValidatingWebhookConfiguration", update(bystanders[2])},
		{"update another MutatingWebhookConfiguration", update(bystanders[3])},
		{"delete its own ValidatingWebhookConfiguration", func() error { return sa.Delete(ctx, ownValidating) }},
		{"delete its own Secret", func() error { return sa.Delete(ctx, ownSecret) }},
		{"create a Secret in another namespace", func() error {
			return sa.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "bystanders", Name: "new"}})
		}},
		{"read ConfigMaps", func() error { return sa.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns)) }},
		{"create a ValidatingWebhookConfiguration", func() error {
			return sa.Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "rogue"}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); !apierrors.IsForbidden(err) {
				t.Errorf("got %v, want Forbidden", err)
			}
		})
	}

	// The webhook creates its certificate Secret again when it was deleted (docs/limits.md), and RBAC
	// cannot limit create to one name: Secrets can be created in the release namespace.
	t.Run("create a Secret in its own namespace (needed to heal a deleted certificate Secret)", func(t *testing.T) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "new"}}
		if err := sa.Create(ctx, s); err != nil {
			t.Fatalf("healing needs this: %v", err)
		}
		_ = env.Client.Delete(context.Background(), s)
	})

	// cert-controller v0.16.0 lists and watches Secrets without a field selector, so RBAC cannot narrow
	// that list to one name: Secrets of the release namespace are readable by listing. The chart's README
	// says to give kriguard a namespace of its own; this keeps the statement honest.
	t.Run("list the Secrets of its own namespace (needed by cert-controller)", func(t *testing.T) {
		var l corev1.SecretList
		if err := sa.List(ctx, &l, client.InNamespace(ns)); err != nil {
			t.Fatalf("cert-controller's informer needs this: %v", err)
		}
		got := sets.New[string]()
		for _, s := range l.Items {
			got.Insert(s.Name)
		}
		if !got.Has(n.secret) {
			t.Errorf("listed %v, want it to include %s", sets.List(got), n.secret)
		}
	})
}
