package kumarelease

import (
	"strings"
	"testing"

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
