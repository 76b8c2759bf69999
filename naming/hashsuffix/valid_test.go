package hashsuffix

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestValidChecks(t *testing.T) {
	for _, tt := range []struct {
		s                     string
		subdomain, key, value bool
	}{
		{"a", true, true, true},
		{"backend-8a7f.default", true, true, true},
		{"", false, false, true},
		{"A", false, true, true},
		{"a_b", false, true, true},
		{"-a", false, false, false},
		{"a.", false, false, false},
		{"a..b", false, true, true},
		{"kuma.io/zone", false, true, false},
		{"Kuma.io/zone", false, false, false},
		{"/zone", false, false, false},
		{"a/b/c", false, false, false},
		{strings.Repeat("a", 63), true, true, true},
		{strings.Repeat("a", 64), true, false, false},
		{strings.Repeat("a", 253), true, false, false},
		{strings.Repeat("a", 254), false, false, false},
		{"é", false, false, false},
	} {
		if got := IsDNS1123Subdomain(tt.s); got != tt.subdomain {
			t.Errorf("IsDNS1123Subdomain(%q) = %v", tt.s, got)
		}
		if got := IsQualifiedName(tt.s); got != tt.key {
			t.Errorf("IsQualifiedName(%q) = %v", tt.s, got)
		}
		if got := IsLabelValue(tt.s); got != tt.value {
			t.Errorf("IsLabelValue(%q) = %v", tt.s, got)
		}
	}
}

// FuzzValidChecks holds the checks to apimachinery's validation: the same answer for every string.
func FuzzValidChecks(f *testing.F) {
	for _, s := range []string{"a", "a.b-c", "kuma.io/mesh", "k8s.kuma.io/service-name", "Obj_1", "-", "a/", "/a", "a..b", "x.-y", "ſ", "a\x00",
		// recommendedPrefix and its edges
		"app.kubernetes.io/name", "app.kubernetes.io/part-of", "app.kubernetes.io/", "app.kubernetes.io//x",
		"app.kubernetes.io/-x", "app.kubernetes.io/x-", "app.kubernetes.io/a_b.c", "app.kubernetes.io/x/y",
		"app.kubernetes.io/" + strings.Repeat("n", 63), "app.kubernetes.io/" + strings.Repeat("n", 64),
		"app.kubernetes.io", "app.kubernetes.ioo/x", "APP.kubernetes.io/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsDNS1123Subdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("IsDNS1123Subdomain(%q) = %v, apimachinery %v", s, got, want)
		}
		if got, want := IsQualifiedName(s), len(validation.IsQualifiedName(s)) == 0; got != want {
			t.Errorf("IsQualifiedName(%q) = %v, apimachinery %v", s, got, want)
		}
		if got, want := IsLabelValue(s), len(validation.IsValidLabelValue(s)) == 0; got != want {
			t.Errorf("IsLabelValue(%q) = %v, apimachinery %v", s, got, want)
		}
	})
}

// chainSubdomain, chainBase, chainLabelName and chainQualified are IsDNS1123Subdomain, ValidBase,
// labelName and IsQualifiedName as they were before charClass: comparisons with the ranges'
// bounds.
func chainSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if c := s[i]; c != '-' && !alnum(c, false) {
				return false
			}
			continue
		}
		if i == start || !alnum(s[start], false) || !alnum(s[i-1], false) {
			return false
		}
		start = i + 1
	}
	return true
}

func chainBase(name string) bool {
	if len(name) > MaxBaseLen {
		name = name[:MaxBaseLen]
	}
	if len(name) == 0 || name[len(name)-1] == '.' {
		return false
	}
	start := 0
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '.' {
			if c != '-' && !alnum(c, false) {
				return false
			}
			continue
		}
		if i == start || !alnum(name[start], false) || !alnum(name[i-1], false) {
			return false
		}
		start = i + 1
	}
	return alnum(name[start], false)
}

func chainLabelName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !alnum(s[0], true) || !alnum(s[len(s)-1], true) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && c != '_' && c != '.' && !alnum(c, true) {
			return false
		}
	}
	return true
}

func chainQualified(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return chainSubdomain(s[:i]) && chainLabelName(s[i+1:])
		}
	}
	return chainLabelName(s)
}

// TestCharClassAgrees holds IsDNS1123Subdomain, ValidBase, IsQualifiedName and IsLabelValue, which
// look bytes up in charClass, to the comparisons they replaced: every string of one or two bytes,
// every string of up to four bytes of the bytes at the classes' edges, and those strings at the
// length limits.
func TestCharClassAgrees(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := IsDNS1123Subdomain(s), chainSubdomain(s); got != want {
			t.Fatalf("IsDNS1123Subdomain(%q) = %v, the comparisons %v", s, got, want)
		}
		if got, want := ValidBase(s), chainBase(s); got != want {
			t.Fatalf("ValidBase(%q) = %v, the comparisons %v", s, got, want)
		}
		if got, want := IsQualifiedName(s), chainQualified(s); got != want {
			t.Fatalf("IsQualifiedName(%q) = %v, the comparisons %v", s, got, want)
		}
		if got, want := IsLabelValue(s), s == "" || chainLabelName(s); got != want {
			t.Fatalf("IsLabelValue(%q) = %v, the comparisons %v", s, got, want)
		}
	}
	check("")
	for a := range 256 {
		check(string([]byte{byte(a)}))
		for b := range 256 {
			check(string([]byte{byte(a), byte(b)}))
		}
	}
	edges := []byte{'a', 'z', '0', '9', '-', '.', '`', '{', '/', ':', '@', 'A', 'Z', '[', '_', 0, 0xff}
	var all func(prefix []byte, n int)
	all = func(prefix []byte, n int) {
		s := string(prefix)
		check(s)
		check(strings.Repeat("a", MaxBaseLen-1) + s)
		check(strings.Repeat("a", 253-len(s)) + s)
		check(strings.Repeat("a", 254-len(s)) + s)
		check(strings.Repeat("B", 62-len(s)) + s)
		check(strings.Repeat("B", 63-len(s)) + s)
		check("kuma.io/" + s)
		check(s + "/x")
		if n == 0 {
			return
		}
		for _, c := range edges {
			all(append(prefix, c), n-1)
		}
	}
	all(nil, 4)
}
