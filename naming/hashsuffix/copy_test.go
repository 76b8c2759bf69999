package hashsuffix

import (
	"strings"
	"testing"
)

// kdsVectors were computed by running Kuma's own KDS code, v2.14.3 and master @348b6528bc alike:
// pkg/kds/context.HashSuffixMapper (as the zone and the global control plane configure it) over a
// MeshTimeout with these mesh, name and kuma.io/zone and k8s.kuma.io/namespace labels, checked
// against pkg/kds/hash.HashedName. Each name is the inputs' base (cut to 236) and this suffix.
var kdsVectors = []struct {
	mesh, name string
	extra      []string // the zone, then the namespace, when the labels hold them
	suffix     string
}{
	{"default", "x", []string{"zone-1", "kuma-demo"}, "58wz6c65ww4z95fx"},
	{"default", "x", []string{"kuma-system"}, "5cdf4v92wb6542cv"},
	{"default", "x", nil, "fdz94w892fv4v6w6"},
	{"default", "x" + strings.Repeat("a", 46), []string{"zone-1", "kuma-demo"}, "2w87256479747vw2"},
	{"default", "x" + strings.Repeat("a", 46), []string{"kuma-system"}, "6x62c78747wd64b8"},
	{"default", "x" + strings.Repeat("a", 46), nil, "vcc5dz7zwf6v9x2x"},
	{"default", "x" + strings.Repeat("a", 47), []string{"zone-1", "kuma-demo"}, "zbff64d44z6fc624"},
	{"default", "x" + strings.Repeat("a", 47), []string{"kuma-system"}, "74758867wb5f48wz"},
	{"default", "x" + strings.Repeat("a", 47), nil, "w484dx25v64w87fc"},
	{"default", "x" + strings.Repeat("a", 62), []string{"zone-1", "kuma-demo"}, "4vx45v2499x4zvv2"},
	{"default", "x" + strings.Repeat("a", 62), []string{"kuma-system"}, "7d6v849445w54d58"},
	{"default", "x" + strings.Repeat("a", 62), nil, "v4dz2w85x52xvd9x"},
	{"default", "x" + strings.Repeat("a", 63), []string{"zone-1", "kuma-demo"}, "97457xfv82zdb7c4"},
	{"default", "x" + strings.Repeat("a", 63), []string{"kuma-system"}, "2574b628c55dfc8z"},
	{"default", "x" + strings.Repeat("a", 63), nil, "7vx24zwxd965z4vc"},
	{"default", "x" + strings.Repeat("a", 235), []string{"zone-1", "kuma-demo"}, "d2752b6fw2c9z52w"},
	{"default", "x" + strings.Repeat("a", 235), []string{"kuma-system"}, "4v844bc724x49855"},
	{"default", "x" + strings.Repeat("a", 235), nil, "f4899v2ccbc7v4x7"},
	{"default", "x" + strings.Repeat("a", 236), []string{"zone-1", "kuma-demo"}, "56c5bf6wbz647w74"},
	{"default", "x" + strings.Repeat("a", 236), []string{"kuma-system"}, "vxv5wc57w8d65cdb"},
	{"default", "x" + strings.Repeat("a", 236), nil, "ffdf5f828bf7c48b"},
	{"default", "x" + strings.Repeat("a", 252), []string{"zone-1", "kuma-demo"}, "86cb55bbwb66ffb4"},
	{"default", "x" + strings.Repeat("a", 252), []string{"kuma-system"}, "ddcwzd7v44zw8vcb"},
	{"default", "x" + strings.Repeat("a", 252), nil, "44bbw6w957c7554b"},
	{"default", dot236, []string{"kuma-system"}, "d862f2x447b4795f"},
	{"default", "backend", []string{"zone-1", "abc"}, "z9vdzz8dx42ffz26"},
	{"default", "backend", []string{"zone-1a", "bc"}, "z9vdzz8dx42ffz26"},
	{"default", "mesh-timeout-all-default", []string{"kuma-system"}, "w4dzbd54v9x64485"},
	{"", "hg", []string{"kuma-system"}, "4426v4wc75469vc4"},
}

// dot236 is a valid 253-character name with '.' at position 236: its cut ends in '.'.
var dot236 = strings.Repeat("a", 235) + "." + strings.Repeat("b", 17)

func TestKDSVectors(t *testing.T) {
	for _, v := range kdsVectors {
		want := v.name[:min(len(v.name), MaxBaseLen)] + "-" + v.suffix
		got := Name(v.mesh, v.name, v.extra...)
		if got != want {
			t.Errorf("Name(%q, %d-char name, %q) = …%q, want …%q", v.mesh, len(v.name), v.extra, got[max(0, len(got)-20):], want[max(0, len(want)-20):])
		}
		// Only the cut at '.' leaves a copy the receiver cannot store.
		if IsDNS1123Subdomain(got) == (v.name == dot236) {
			t.Errorf("IsDNS1123Subdomain of the copy of a %d-char name = %v", len(v.name), v.name != dot236)
		}
	}
}

func TestCopyCollision(t *testing.T) {
	a, b := Name("default", "backend", "zone-1", "abc"), Name("default", "backend", "zone-1a", "bc")
	if a != b || a != "backend-z9vdzz8dx42ffz26" {
		t.Errorf("copies of backend/zone-1/abc and backend/zone-1a/bc = %q, %q; want both backend-z9vdzz8dx42ffz26", a, b)
	}
}

func TestSquats(t *testing.T) {
	// kds.sample.jsonl c43: a zone object named like the copy of the global MeshTimeout
	// mesh-timeout-all-default of the global's kuma-system namespace (Kuma #10212).
	if !Squats("mesh-timeout-all-default-w4dzbd54v9x64485", "default", "kuma-system") {
		t.Error("the copy name of mesh-timeout-all-default is not recognised as squatted")
	}
	for _, name := range []string{"mesh-timeout-all-default", "mesh-timeout-all-default-w4dzbd54v9x64484", "backend-z9vdzz8dx42ffz26"} {
		if Squats(name, "default", "kuma-system") {
			t.Errorf("Squats(%q) = true, want false", name)
		}
	}
	long := Name("default", "x"+strings.Repeat("a", 252), "kuma-system")
	if Squats(long, "default", "kuma-system") {
		t.Error("a cut copy name cannot be told from its prefix, yet Squats says so")
	}
}

func TestValidBase(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"x", true},
		{"a.b-", true}, // the "-" before the suffix makes "b--…"
		{"x" + strings.Repeat("a", 252), true},
		{dot236, false}, // the cut ends in '.'
		{"", false},
		{"a.", false},
		{"a..b", false},
		{"a-.b", false},
		{"-a", false},
		{"dp_backend_01", false},
		{"Backend", false},
	} {
		if got := ValidBase(tt.name); got != tt.want {
			t.Errorf("ValidBase(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzValidBase holds ValidBase to IsDNS1123Subdomain of the name Name builds, which
// FuzzValidChecks holds to apimachinery's.
func FuzzValidBase(f *testing.F) {
	f.Add("default", "backend", "zone-1", "kuma-system")
	f.Add("default", dot236, "", "")
	f.Add("m", "a.b-", "", "")
	f.Add("m", "dp_backend_01", "", "")
	f.Add("", "x"+strings.Repeat("a.", 130), "z", "n")
	f.Fuzz(func(t *testing.T, mesh, name, zone, namespace string) {
		copy := Name(mesh, name, zone, namespace)
		if got, want := ValidBase(name), IsDNS1123Subdomain(copy); got != want {
			t.Fatalf("ValidBase(%q) = %v, IsDNS1123Subdomain(%q) = %v", name, got, copy, want)
		}
	})
}
