package chart

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kubeconfig writes a kubeconfig for the test control plane (as its admin) and returns its path.
func kubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, env.Environment.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestInstallUpgradeUninstall installs the chart with helm into the test API server (its pods never
// run: there is no kubelet, which changes nothing for what helm creates and deletes), lets a stand-in
// for the certificate injector fill the Secret and the caBundles, upgrades, and uninstalls.
func TestInstallUpgradeUninstall(t *testing.T) {
	const release, ns = "lifecycle", "lifecycle-system"
	n := namesFor(release + "-kriguard")
	kc := kubeconfig(t)
	ctx := testContext(t)

	if out, err := helm(t, kc, "install", release, chartDir(t), "--namespace", ns, "--create-namespace"); err != nil {
		t.Fatal(err)
	} else {
		t.Log(out)
	}
	uninstalled := false
	t.Cleanup(func() {
		if !uninstalled {
			_, _ = helm(t, kc, "uninstall", release, "--namespace", ns)
		}
	})
	objs := render(t, release, ns, "")

	t.Run("every object is helm's", func(t *testing.T) {
		for _, o := range objs {
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(o.GroupVersionKind())
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), live); err != nil {
				t.Errorf("%s/%s: %v", o.GetKind(), o.GetName(), err)
				continue
			}
			a := live.GetAnnotations()
			if a["meta.helm.sh/release-name"] != release || a["meta.helm.sh/release-namespace"] != ns {
				t.Errorf("%s/%s: not owned by release %s/%s: annotations %v", o.GetKind(), o.GetName(), ns, release, a)
			}
		}
	})

	// What cert-controller does once it runs: fill the Secret and set the caBundles, with updates.
	caBundle := []byte("-----BEGIN CERTIFICATE-----\nstand-in\n-----END CERTIFICATE-----\n")
	secretData := map[string][]byte{"ca.crt": caBundle, "tls.crt": []byte("cert"), "tls.key": []byte("key")}
	var secret corev1.Secret
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: n.secret}, &secret); err != nil {
		t.Fatal(err)
	}
	secret.Data = secretData
	if err := env.Client.Update(ctx, &secret); err != nil {
		t.Fatal(err)
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := env.Client.Get(ctx, client.ObjectKey{Name: n.validating}, &vwc); err != nil {
		t.Fatal(err)
	}
	for i := range vwc.Webhooks {
		vwc.Webhooks[i].ClientConfig.CABundle = caBundle
	}
	if err := env.Client.Update(ctx, &vwc); err != nil {
		t.Fatal(err)
	}
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := env.Client.Get(ctx, client.ObjectKey{Name: n.mutating}, &mwc); err != nil {
		t.Fatal(err)
	}
	for i := range mwc.Webhooks {
		mwc.Webhooks[i].ClientConfig.CABundle = caBundle
	}
	if err := env.Client.Update(ctx, &mwc); err != nil {
		t.Fatal(err)
	}

	t.Run("upgrade keeps the injected certificate", func(t *testing.T) {
		if _, err := helm(t, kc, "upgrade", release, chartDir(t), "--namespace", ns, "--set", "admission.timeoutSeconds=7"); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: n.validating}, &vwc); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: n.mutating}, &mwc); err != nil {
			t.Fatal(err)
		}
		if got := *vwc.Webhooks[0].TimeoutSeconds; got != 7 {
			t.Errorf("the upgrade did not apply: timeoutSeconds = %d, want 7", got)
		}
		for _, cc := range []admissionregistrationv1.WebhookClientConfig{vwc.Webhooks[0].ClientConfig, mwc.Webhooks[0].ClientConfig} {
			if !bytes.Equal(cc.CABundle, caBundle) {
				t.Errorf("the upgrade changed the injected caBundle to %q", cc.CABundle)
			}
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: n.secret}, &secret); err != nil {
			t.Fatal(err)
		}
		for k, v := range secretData {
			if !bytes.Equal(secret.Data[k], v) {
				t.Errorf("the upgrade changed the Secret's %s to %q", k, secret.Data[k])
			}
		}
	})

	t.Run("uninstall leaves nothing behind", func(t *testing.T) {
		if _, err := helm(t, kc, "uninstall", release, "--namespace", ns); err != nil {
			t.Fatal(err)
		}
		uninstalled = true
		for _, o := range objs {
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(o.GroupVersionKind())
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), live); !apierrors.IsNotFound(err) {
				t.Errorf("%s/%s is still there after uninstall (%v)", o.GetKind(), o.GetName(), err)
			}
		}
		// Nothing the chart did not render either (a hook, or something the webhook created).
		byLabel := client.MatchingLabels{"app.kubernetes.io/instance": release}
		for _, l := range []client.ObjectList{
			&admissionregistrationv1.ValidatingWebhookConfigurationList{},
			&admissionregistrationv1.MutatingWebhookConfigurationList{},
			&corev1.SecretList{}, &corev1.ConfigMapList{},
		} {
			if err := env.Client.List(ctx, l, byLabel); err != nil {
				t.Fatal(err)
			}
			if items, _ := meta.ExtractList(l); len(items) > 0 {
				t.Errorf("%d %T of the release remain", len(items), l)
			}
		}
		var secrets corev1.SecretList
		if err := env.Client.List(ctx, &secrets, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets.Items {
			t.Errorf("Secret %s remains in the release namespace (type %s)", s.Name, s.Type)
		}
	})
}
