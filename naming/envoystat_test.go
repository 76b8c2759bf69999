package naming_test

import (
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// Kuma's metric sanitizer, pkg/util/xds/metric_sanitizer_test.go at v2.14.3, and the names Kuma's
// AltStatNameConfigurer derives from cluster names.
func TestSanitizeStatName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"some metric with chars :/_-0123{version=3.0}", "some_metric_with_chars____-0123_version_3_0_"}, // Kuma's own vector
		{"kri_extsvc_default__kuma-system_httpbin.org_443", "kri_extsvc_default__kuma-system_httpbin_org_443"},
		{"outbound:10.0.0.1:8080", "outbound_10_0_0_1_8080"},
		{"backend_kuma-demo_svc_8080", "backend_kuma-demo_svc_8080"},
		{"é.x", "__x"},    // one '_' per character, as a regexp over runes replaces
		{"a\xffb", "a_b"}, // an invalid byte is one character
		{"", ""},
	} {
		if got := naming.SanitizeStatName(tt.in); got != tt.want {
			t.Errorf("SanitizeStatName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := naming.SanitizeStatName(tt.in); !naming.StatSafe(got) {
			t.Errorf("SanitizeStatName(%q) = %q is not stat-safe", tt.in, got)
		}
	}
}

func TestIsSanitizedAltStatName(t *testing.T) {
	for _, tt := range []struct {
		alt, cluster string
		want         bool
	}{
		{"kri_extsvc_default__kuma-system_httpbin_org_443", "kri_extsvc_default__kuma-system_httpbin.org_443", true},
		{"outbound_10_0_0_1_8080", "outbound:10.0.0.1:8080", true},
		{"kri_extsvc_default__kuma-system_httpbin_org_443", "kri_extsvc_default__kuma-system_other.org_443", false},
		{"kri_bogus", "kri_bogus", false}, // nothing sanitized: the name is the cluster's own
		{"backend", "backend", false},
		{"", "a.b", false},
	} {
		if got := naming.IsSanitizedAltStatName(tt.alt, tt.cluster); got != tt.want {
			t.Errorf("IsSanitizedAltStatName(%q, %q) = %v, want %v", tt.alt, tt.cluster, got, tt.want)
		}
	}
}

func TestCheckStatName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string // a piece of the message; "" for no problem
	}{
		{"backend_kuma-demo_svc_8080", ""},
		{"kri_msvc_default_zone-1_kuma-demo_backend_http", ""},
		{"inbound:backend:8080", ""}, // ':' is the colon rule's
		{"kri_extsvc_default__kuma-system_httpbin.org_443", `holds '.', outside Envoy's stat-safe set [a-zA-Z0-9_-]: '.' splits`},
		{"a/b c", `holds '/', ' ', outside`},
		{"a.b:c.d", `holds '.',`},
	} {
		p := naming.CheckStatName(tt.name)
		switch {
		case tt.want == "" && p != nil:
			t.Errorf("CheckStatName(%q) = %q, want nothing", tt.name, p.Message)
		case tt.want != "" && p == nil:
			t.Errorf("CheckStatName(%q) = nothing, want %q", tt.name, tt.want)
		case p != nil && (!strings.Contains(p.Message, tt.want) || p.Rule != naming.EnvoyStatUnsafe || p.Rule.Level() != "warning"):
			t.Errorf("CheckStatName(%q) = %v %q (%s), want %q", tt.name, p.Rule, p.Message, p.Rule.Level(), tt.want)
		}
	}
}

func TestCheckStatPattern(t *testing.T) {
	hole := naming.HolePart()
	if p := naming.CheckStatPattern([]naming.PatternPart{naming.Lit("outbound_"), hole}); p != nil {
		t.Errorf("a hole is taken to be safe, got %q", p.Message)
	}
	if p := naming.CheckStatPattern([]naming.PatternPart{hole, naming.Lit(".svc_"), hole}); p == nil {
		t.Error("a '.' in a literal part: want a problem")
	}
}

func TestEnvoyRuleLevel(t *testing.T) {
	for r, want := range map[naming.EnvoyRule]string{
		naming.EnvoyColon: "error", naming.EnvoyNotKRI: "error", naming.EnvoyLegacy: "error", naming.EnvoyStatUnsafe: "warning",
	} {
		if got := r.Level(); got != want {
			t.Errorf("%v.Level() = %q, want %q", r, got, want)
		}
	}
	if naming.EnvoyStatUnsafe.String() != "stat-unsafe" {
		t.Errorf("EnvoyStatUnsafe.String() = %q", naming.EnvoyStatUnsafe.String())
	}
}

func FuzzSanitizeStatName(f *testing.F) {
	for _, s := range []string{"a.b", "kri_x_y.z", "é:x", "a\xffb", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := naming.SanitizeStatName(s)
		if !naming.StatSafe(got) {
			t.Fatalf("SanitizeStatName(%q) = %q: not stat-safe", s, got)
		}
		if naming.SanitizeStatName(got) != got {
			t.Fatalf("SanitizeStatName is not idempotent on %q", s)
		}
		if naming.StatSafe(s) != (got == s) {
			t.Fatalf("StatSafe(%q) = %v but sanitized %q", s, naming.StatSafe(s), got)
		}
		if naming.CheckStatName(got) != nil {
			t.Fatalf("CheckStatName(%q) reports a sanitized name", got)
		}
	})
}

// The alt_stat_name Kuma writes for a MeshExternalService cluster breaks the KRI rule; that is why
// it must be recognised instead of checked.
func TestKumaAltStatNameIsNoKRI(t *testing.T) {
	cluster := "kri_extsvc_default__kuma-system_httpbin.org_443"
	if p := naming.CheckEnvoyName(cluster, naming.EnvoyNameOptions{}); p != nil {
		t.Fatalf("cluster %q: %v", cluster, p)
	}
	alt := naming.SanitizeStatName(cluster)
	p := naming.CheckEnvoyName(alt, naming.EnvoyNameOptions{})
	if len(p) != 1 || p[0].Rule != naming.EnvoyNotKRI {
		t.Fatalf("alt_stat_name %q: %v, want not-kri", alt, p)
	}
}
