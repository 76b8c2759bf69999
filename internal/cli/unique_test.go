package cli

import (
	"strings"
	"testing"
)

// TestCheckAcrossObjects: the pairs the admission tests deny give one check finding each, naming
// both objects and the name they share (docs/unique.md).
func TestCheckAcrossObjects(t *testing.T) {
	dir := t.TempDir()
	kds := writeFile(t, dir, "zones.yaml", `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  name: backend
  namespace: abc
  labels: {kuma.io/mesh: default, kuma.io/zone: zone-1}
---
apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  name: backend
  namespace: bc
  labels: {kuma.io/mesh: default, kuma.io/zone: zone-1a}
`)
	snis := writeFile(t, dir, "snis.yaml", `apiVersion: configuration.konghq.com/v1alpha1
kind: KongCertificate
metadata: {name: cert.gw1.443.https, namespace: default}
spec: {type: secretRef, controlPlaneRef: {type: konnectNamespacedRef, konnectNamespacedRef: {name: cp-a}}}
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongSNI
metadata: {name: cert.gw1.443.https, namespace: default}
spec: {name: "*", certificateRef: {name: cert.gw1.443.https}}
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongCertificate
metadata: {name: cert.gw1.8443.https-alt, namespace: default}
spec: {type: secretRef, controlPlaneRef: {type: konnectNamespacedRef, konnectNamespacedRef: {name: cp-a}}}
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongSNI
metadata: {name: cert.gw1.8443.https-alt, namespace: default}
spec: {name: "*", certificateRef: {name: cert.gw1.8443.https-alt}}
`)
	universal := writeFile(t, dir, "universal.yaml", `type: MeshService
mesh: default
name: backend
labels: {kuma.io/zone: zone-1, k8s.kuma.io/namespace: abc}
spec: {}
---
type: MeshService
mesh: default
name: backend
labels: {kuma.io/zone: zone-1a, k8s.kuma.io/namespace: bc}
spec: {}
`)
	routes := writeFile(t, dir, "routes.yaml", `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a-b, namespace: c}
spec: {parentRefs: [{name: gw, namespace: gws}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: b-c}
spec: {parentRefs: [{name: gw, namespace: gws}]}
`)
	for _, tt := range []struct {
		name, file string
		want       []string
	}{
		{"KDS copies", kds, []string{":11:3: MeshService bc/backend: metadata.name: Duplicate value: \"backend\": KDS gives it and MeshService abc/backend of zone zone-1 one copy name \"backend-z9vdzz8dx42ffz26\" on global"}},
		{"Universal KDS copies", universal, []string{":9:1: MeshService backend (mesh default): name: Duplicate value: \"backend\": KDS gives it and MeshService backend of mesh default of zone zone-1 one copy name \"backend-z9vdzz8dx42ffz26\" on global"}},
		{"Kuma's MeshHTTPRoutes of two routes on one Gateway (2.14)", routes, []string{":8:12: HTTPRoute b-c/a: spec.parentRefs[0]: Duplicate value: \"a-b-c-e1548f02\": Kuma names the MeshHTTPRoute of this parentRef \"a-b-c-e1548f02\", as it names one of HTTPRoute c/a-b"}},
		{"KongSNIs", snis, []string{":18:12: ", "KongSNI default/cert.gw1.8443.https-alt: spec.name: Duplicate value: \"*\": KongSNI default/cert.gw1.443.https has the same SNI"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", "check", tt.file)
			if r.code != ExitDenied || strings.Count(r.stdout, "\n") != 1 {
				t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d and one finding", r.code, r.stdout, r.stderr, ExitDenied)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout %q does not hold %q", r.stdout, w)
				}
			}
		})
	}
}

// TestCheckZones: manifests of two zones, as kept in a repository (no kuma.io/zone label: Kuma's
// webhook adds it in the zone), compared with --zone telling which files are of which zone.
func TestCheckZones(t *testing.T) {
	dir := t.TempDir()
	svc := func(ns string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshService\nmetadata:\n  name: backend\n  namespace: " + ns + "\n  labels: {kuma.io/mesh: default}\n"
	}
	writeFile(t, dir, "zone-1/backend.yaml", svc("abc"))
	writeFile(t, dir, "zone-1/zone-1a/backend.yaml", svc("bc"))
	const want = `MeshService bc/backend: metadata.name: Duplicate value: "backend": KDS gives it and MeshService abc/backend of zone zone-1 one copy name "backend-z9vdzz8dx42ffz26" on global`
	for _, tt := range []struct {
		name  string
		zones []string
		code  int
		want  string
	}{
		{"without zones: objects of global, not compared", nil, ExitOK, ""},
		{"one zone each, the longest path wins", []string{"--zone", "zone-1=" + dir + "/zone-1", "--zone", "zone-1a=" + dir + "/zone-1/zone-1a/"}, ExitDenied, want},
		{"one zone for both", []string{"--zone", "zone-1=" + dir}, ExitOK, ""},
		{"a zone Kuma refuses", []string{"--zone", "Zone_1=" + dir}, ExitError, ""},
		{"no path", []string{"--zone", "zone-1"}, ExitError, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", append([]string{"check"}, append(tt.zones, dir)...)...)
			if r.code != tt.code || !strings.Contains(r.stdout, tt.want) || tt.want == "" && r.stdout != "" {
				t.Errorf("exit %d (want %d), stdout:\n%s\nstderr:\n%s\nwant %q", r.code, tt.code, r.stdout, r.stderr, tt.want)
			}
			if tt.want != "" && strings.Count(r.stdout, "\n") != 1 {
				t.Errorf("want one finding:\n%s", r.stdout)
			}
		})
	}
}
