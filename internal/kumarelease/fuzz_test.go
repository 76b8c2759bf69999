package kumarelease

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kriguard/kriguard/naming"
)

// FuzzImageTag: any image reference gives a tag that is the text after a ':' of its last path
// element and before any digest, and a release or an error, never a panic.
func FuzzImageTag(f *testing.F) {
	for _, s := range []string{"docker.io/kumahq/kuma-cp:2.14.3", "host:5000/kuma-cp", "kuma-cp@sha256:ab", "kuma-cp:3.0.0@sha256:ab", ":", "/:/", "v2.14.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, image string) {
		tag := ImageTag(image)
		if tag == "" {
			return
		}
		if strings.ContainsAny(tag, "/@") || !strings.Contains(image, ":"+tag) {
			t.Fatalf("ImageTag(%q) = %q", image, tag)
		}
		if rel, err := naming.ParseRelease(tag); err == nil && rel == (naming.Release{}) {
			t.Fatalf("ParseRelease(%q) gave the zero release and no error", tag)
		}
	})
}

// FuzzModeOf: any environment gives one of Kuma's modes or an error, never a panic, and a mode
// only when KUMA_MODE names it.
func FuzzModeOf(f *testing.F) {
	f.Add("global", "", "")
	f.Add("zone", "grpcs://global:5685", "zone-1")
	f.Add("zone", "", "zone-1")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, mode, address, zone string) {
		d := deploymentWithEnv(containerName,
			corev1.EnvVar{Name: envMode, Value: mode}, corev1.EnvVar{Name: envGlobalAddress, Value: address}, corev1.EnvVar{Name: envZoneName, Value: zone})
		got, err := ModeOf(d)
		switch {
		case err != nil && got != "":
			t.Fatalf("ModeOf gave %q and the error %v", got, err)
		case err == nil && got != ModeGlobal && got != ModeZone && got != ModeStandalone:
			t.Fatalf("ModeOf gave %q", got)
		case err == nil && got != mode && !(mode == ModeZone && got == ModeStandalone):
			t.Fatalf("KUMA_MODE %q gave %q", mode, got)
		}
	})
}
