package naming

import (
	"fmt"
	"strings"
)

// Release is a Kuma release whose naming facts kriguard knows: which kinds exist, how their KRIs
// and SNIs are built. The rules judge an object against one release (docs/architecture.md). The
// zero Release is DefaultRelease.
//
// A Release is comparable and cheap to copy; its facts are reached through its methods, so that a
// release can be added without changing the callers.
type Release struct {
	version string
}

// The releases kriguard knows; docs/releases.md has their facts, each with its source.
var (
	// Kuma2_14 is Kuma v2.14, the release the naming core was first written against.
	Kuma2_14 = Release{version: "2.14"}
	// Kuma3_0 is Kuma 3.0 as its development line has it (master @348b6528bc).
	Kuma3_0 = Release{version: "3.0"}
)

// DefaultRelease is the release a caller that names none is judged against.
var DefaultRelease = Kuma2_14

var releases = []Release{Kuma2_14, Kuma3_0}

// Releases returns every known release, oldest first.
func Releases() []Release { return append([]Release(nil), releases...) }

// ParseRelease returns the release named by s, a minor version with or without a leading "v" and
// a patch number ("2.14", "v2.14.3").
func ParseRelease(s string) (Release, error) {
	v := strings.TrimPrefix(s, "v")
	if major, rest, ok := strings.Cut(v, "."); ok {
		minor, _, _ := strings.Cut(rest, ".")
		v = major + "." + minor
	}
	for _, r := range releases {
		if r.version == v {
			return r, nil
		}
	}
	known := make([]string, len(releases))
	for i, r := range releases {
		known[i] = r.version
	}
	return Release{}, fmt.Errorf("unknown Kuma release %q: known releases are %s", s, strings.Join(known, ", "))
}

// String returns the release's minor version, "2.14".
func (r Release) String() string { return r.orDefault().version }

// orDefault returns r, or DefaultRelease for the zero Release.
func (r Release) orDefault() Release {
	if r.version == "" {
		return DefaultRelease
	}
	return r
}
