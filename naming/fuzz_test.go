package naming

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics; every accepted string round-trips, validates and is URL-query
// safe; every rejected one gets a *ParseError with at least one problem.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"kri_msvc_mesh-1_us-east-2_kuma-demo_backend_httpport",
		"kri_m____default_", "kri_mt_m___n_rule_0", "kri_", "", "_______", "kri_mt_M___n_",
		"kri_zi__us-east-2_kuma-system_zi1_", "kri_mt_m___a\xffb_", strings.Repeat("_", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errs) == 0 {
				t.Fatalf("Parse(%q) error %v is not a *ParseError with problems", s, err)
			}
			return
		}
		if k.String() != s {
			t.Fatalf("Parse(%q).String() = %q", s, k.String())
		}
		if err := k.Validate(); err != nil {
			t.Fatalf("Parse accepted %q but Validate says %v", s, err)
		}
		if !IsURLQuerySafe(s) {
			t.Fatalf("accepted %q is not URL-query safe", s)
		}
	})
}

// FuzzValidate: a KRI built in code validates exactly when its string form parses back to it.
func FuzzValidate(f *testing.F) {
	f.Add("msvc", "default", "", "ns", "backend", "http")
	f.Add("m", "", "", "", "default", "")
	f.Add("mt", "a_b", "", "", "n", "")
	f.Fuzz(func(t *testing.T, typ, mesh, zone, ns, name, section string) {
		k := KRI{typ, mesh, zone, ns, name, section}
		verr := k.Validate()
		got, perr := Parse(k.String())
		if (verr == nil) != (perr == nil) {
			t.Fatalf("%+v: Validate = %v, Parse(String) = %v", k, verr, perr)
		}
		if verr == nil && got != k {
			t.Fatalf("%+v round-tripped to %+v", k, got)
		}
	})
}
