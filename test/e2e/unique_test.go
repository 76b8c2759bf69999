package e2e

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The in-process webhook runs as on a global control plane (kuma.mode global): a copy KDS cannot
// store in the zones is denied at the source, and what Kuma stores fine is admitted.
func TestKDSCopyOnGlobal(t *testing.T) {
	ns := newNamespace(t)
	mesh := map[string]string{"kuma.io/mesh": "default"}

	dot236 := strings.Repeat("a", 235) + "." + strings.Repeat("b", 17)
	err := env.Client.Create(testContext(t), object(kumaAPIVersion, "MeshTimeout", ns, dot236, mesh, map[string]any{}))
	if err == nil || !strings.Contains(err.Error(), deniedPrefix) || !strings.Contains(err.Error(), "its KDS copy") || !strings.Contains(err.Error(), ".-") {
		t.Errorf("a 253-character MeshTimeout with '.' at 236: error %v, want the webhook's denial naming its copy", err)
	}

	// Its copy has 80 characters: Kuma checks the display name, not the copy's name (kuma #13015).
	name63 := "m" + strings.Repeat("s", 62)
	if err := env.Client.Create(testContext(t), object(kumaAPIVersion, "MeshService", ns, name63, mesh, map[string]any{})); err != nil {
		t.Errorf("a 63-character MeshService: %v, want it admitted", err)
	}
}

// A second KongSNI "*" on the control plane of the first is denied once the webhook's cache has
// seen the first; on another control plane it is admitted.
func TestKongSNIUniqueAtAdmission(t *testing.T) {
	ns := newNamespace(t)
	cert := func(name, cp string) *unstructured.Unstructured {
		return object(kongAPIVersion, "KongCertificate", ns, name, nil, map[string]any{
			"type": "secretRef", "secretRef": map[string]any{"name": "tls"},
			"controlPlaneRef": map[string]any{"type": "konnectNamespacedRef", "konnectNamespacedRef": map[string]any{"name": cp}},
		})
	}
	sni := func(name string) *unstructured.Unstructured {
		return object(kongAPIVersion, "KongSNI", ns, name, nil, map[string]any{"name": "*", "certificateRef": map[string]any{"name": name}})
	}
	for _, o := range []*unstructured.Unstructured{
		cert("cert.gw1.443.https", "cp-a"), cert("cert.gw1.8443.https-alt", "cp-a"), cert("cert.gw2.443.https", "cp-b"),
		sni("cert.gw1.443.https"),
	} {
		if err := env.Client.Create(testContext(t), o); err != nil {
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	// The cache sees the objects a watch event after they are stored: until then the webhook
	// admits with a note, so try until it denies.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := env.Client.Create(testContext(t), sni("cert.gw1.8443.https-alt"))
		if err != nil {
			if !strings.Contains(err.Error(), deniedPrefix) || !strings.Contains(err.Error(), "cert.gw1.443.https") {
				t.Fatalf("second KongSNI * on cp-a: %v, want the webhook's denial naming the first", err)
			}
			break
		}
		if err := env.Client.Delete(testContext(t), sni("cert.gw1.8443.https-alt")); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("a second KongSNI * on the same control plane was still admitted after 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := env.Client.Create(testContext(t), sni("cert.gw2.443.https")); err != nil {
		t.Errorf("a KongSNI * on another control plane: %v, want it admitted", err)
	}
}
