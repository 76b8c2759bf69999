package kumarelease

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kriguard/kriguard/naming"
)

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"docker.io/kumahq/kuma-cp:2.14.3":               "2.14.3",
		"kumahq/kuma-cp:3.0.0":                          "3.0.0",
		"kuma-cp:v2.14.3":                               "v2.14.3",
		"registry.local:5000/kumahq/kuma-cp:2.14.3":     "2.14.3",
		"registry.local:5000/kumahq/kuma-cp":            "",
		"kumahq/kuma-cp@sha256:0123456789abcdef":        "",
		"kumahq/kuma-cp:2.14.3@sha256:0123456789abcdef": "2.14.3",
		"kumahq/kuma-cp:0.0.0-preview.v348b6528b":       "0.0.0-preview.v348b6528b",
		"":         "",
		":":        "",
		"kuma-cp:": "",
	} {
		if got := ImageTag(image); got != want {
			t.Errorf("ImageTag(%q) = %q, want %q", image, got, want)
		}
	}
}

// deployment is the control plane's Deployment as Kuma's chart renders it: the control-plane
// container (cp-deployment.yaml) and the app.kubernetes.io/version label (_helpers.tpl, kuma.labels).
func deployment(image, label string) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultNamespace, Name: DefaultDeployment}}
	if label != "" {
		d.Labels = map[string]string{versionLabel: label}
	}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar", Image: "busybox:1.36"}, {Name: containerName, Image: image}}
	return d
}

func TestVersionOf(t *testing.T) {
	for _, tt := range []struct {
		name, image, label string
		version, source    string
		release            naming.Release
		known              bool
	}{
		{"2.14 image", "docker.io/kumahq/kuma-cp:2.14.3", "2.14.3", "2.14.3", SourceImage, naming.Kuma2_14, true},
		{"3.0 image, older label", "docker.io/kumahq/kuma-cp:3.0.0", "2.14.3", "3.0.0", SourceImage, naming.Kuma3_0, true},
		{"digest only: the label", "docker.io/kumahq/kuma-cp@sha256:00", "2.14.3", "2.14.3", SourceLabel, naming.Kuma2_14, true},
		{"latest: the label", "kumahq/kuma-cp:latest", "3.0.1", "3.0.1", SourceLabel, naming.Kuma3_0, true},
		{"a preview build", "kumahq/kuma-cp:0.0.0-preview.v348b6528b", "", "0.0.0-preview.v348b6528b", SourceImage, naming.DefaultRelease, false},
		{"an older release", "kumahq/kuma-cp:2.13.2", "", "2.13.2", SourceImage, naming.DefaultRelease, false},
		{"nothing", "kumahq/kuma-cp", "", "", "", naming.DefaultRelease, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, src := VersionOf(deployment(tt.image, tt.label))
			if v != tt.version || src != tt.source {
				t.Errorf("VersionOf = %q, %q; want %q, %q", v, src, tt.version, tt.source)
			}
			rel, err := naming.ParseRelease(v)
			if known := err == nil; known != tt.known || known && rel != tt.release {
				t.Errorf("ParseRelease(%q) = %s, %v; want %s (known %v)", v, rel, err, tt.release, tt.known)
			}
		})
	}
}

// TestCrossCheck: each release's own kinds agree with it; 2.14's kinds under a 3.0 control plane
// (CRDs an upgrade left) say which removed kinds are still served.
func TestCrossCheck(t *testing.T) {
	kinds := func(r naming.Release) []string {
		var out []string
		for _, t := range r.Registry().Types() {
			out = append(out, t.Kind)
		}
		slices.Sort(out) // as Detect reads them
		return out
	}
	for _, r := range naming.Releases() {
		if got := crossCheck(r, kinds(r)); got != "" {
			t.Errorf("Kuma %s on its own kinds: %s", r, got)
		}
		if got := matching(kinds(r)); got != r {
			t.Errorf("matching(kinds of %s) = %s", r, got)
		}
	}
	got := crossCheck(naming.Kuma3_0, kinds(naming.Kuma2_14))
	for _, want := range []string{"MeshGateway, ZoneEgress, ZoneIngress", "removed are still served"} {
		if !strings.Contains(got, want) {
			t.Errorf("3.0 on 2.14's kinds: %q lacks %q", got, want)
		}
	}
	if got := crossCheck(naming.Kuma2_14, kinds(naming.Kuma3_0)); !strings.Contains(got, "are not served") {
		t.Errorf("2.14 on 3.0's kinds: %q", got)
	}
	if got := matching(nil); got != (naming.Release{}) {
		t.Errorf("matching(no kinds) = %s", got)
	}
}
