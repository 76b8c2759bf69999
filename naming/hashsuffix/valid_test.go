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
	for _, s := range []string{"a", "a.b-c", "kuma.io/mesh", "k8s.kuma.io/service-name", "Obj_1", "-", "a/", "/a", "a..b", "x.-y", "ſ", "a\x00"} {
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
