package naming

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// problem is the part of a *field.Error a test pins down: where, what kind, and a piece of the
// detail.
type problem struct {
	path   string
	typ    field.ErrorType
	detail string // substring of Detail; "" matches any
}

func checkProblems(t *testing.T, got field.ErrorList, want []problem) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Field != w.path || g.Type != w.typ || !strings.Contains(g.Detail, w.detail) {
			t.Errorf("problem %d = %s (%s, detail %q), want %s %s containing %q", i, g.Field, g.Type, g.Detail, w.path, w.typ, w.detail)
		}
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want KRI
	}{
		// Kuma's published examples (seed 001).
		{"inbound listener", "kri_dp_mesh-1_us-east-2_kuma-demo_backend-app_8080",
			KRI{"dp", "mesh-1", "us-east-2", "kuma-demo", "backend-app", "8080"}},
		{"mesh service port", "kri_msvc_mesh-1_us-east-2_kuma-demo_backend_httpport",
			KRI{"msvc", "mesh-1", "us-east-2", "kuma-demo", "backend", "httpport"}},
		{"route", "kri_mhttpr_mesh-1_us-east-2_kuma-demo_route-1_",
			KRI{"mhttpr", "mesh-1", "us-east-2", "kuma-demo", "route-1", ""}},
		{"gateway", "kri_mgw_mesh-1_us-east-2__gw-1_", KRI{"mgw", "mesh-1", "us-east-2", "", "gw-1", ""}},
		{"zone ingress", "kri_zi__us-east-2_kuma-system_zi1_", KRI{"zi", "", "us-east-2", "kuma-system", "zi1", ""}},
		{"zone egress", "kri_ze__us-east-2_kuma-system_ze1_", KRI{"ze", "", "us-east-2", "kuma-system", "ze1", ""}},
		{"external service", "kri_extsvc_mesh-1__kuma-system_es1_", KRI{"extsvc", "mesh-1", "", "kuma-system", "es1", ""}},
		{"no zone", "kri_msvc_mesh-1_us-east-2_kuma-demo_backend_", KRI{"msvc", "mesh-1", "us-east-2", "kuma-demo", "backend", ""}},
		{"section", "kri_msvc_mesh-1_us-east-2_kuma-demo_backend_http-port",
			KRI{"msvc", "mesh-1", "us-east-2", "kuma-demo", "backend", "http-port"}},
		{"global timeouts", "kri_mt_mesh-1__kuma-system_global-timeouts_",
			KRI{"mt", "mesh-1", "", "kuma-system", "global-timeouts", ""}},
		// Boundaries.
		{"global mesh", "kri_m____default_", KRI{Type: "m", Name: "default"}},
		{"only required fields", "kri_mt_a___b_", KRI{Type: "mt", Mesh: "a", Name: "b"}},
		{"dots in name", "kri_mt_a___b.c..d_", KRI{Type: "mt", Mesh: "a", Name: "b.c..d"}},
		{"digits at edges", "kri_mt_a1__0ns9_0name9_0s9", KRI{"mt", "a1", "", "0ns9", "0name9", "0s9"}},
		{"63-byte mesh", "kri_mt_" + "m" + strings.Repeat("1", 62) + "___n_", KRI{Type: "mt", Mesh: "m" + strings.Repeat("1", 62), Name: "n"}},
		{"63-byte zone, namespace, section",
			"kri_mt_m_z" + strings.Repeat("-", 61) + "z_" + strings.Repeat("n", 63) + "_x_" + strings.Repeat("s", 63),
			KRI{"mt", "m", "z" + strings.Repeat("-", 61) + "z", strings.Repeat("n", 63), "x", strings.Repeat("s", 63)}},
		{"253-byte name", "kri_mt_m___" + strings.Repeat("a.", 126) + "a_", KRI{Type: "mt", Mesh: "m", Name: strings.Repeat("a.", 126) + "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Fatalf("String() = %q, want %q", s, tt.in)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if !IsURLQuerySafe(tt.in) {
				t.Fatalf("accepted KRI %q is not URL-query safe", tt.in)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	tests := []struct {
		name string
		in   string
		want []problem
	}{
		{"empty", "", []problem{{"kri", field.ErrorTypeInvalid, `must start with "kri_"`}, {"kri", field.ErrorTypeInvalid, "found 1"}}},
		{"wrong prefix", "kru_mt_m___n_", []problem{{"kri", field.ErrorTypeInvalid, `must start with "kri_"`}}},
		{"upper-case prefix", "KRI_mt_m___n_", []problem{{"kri", field.ErrorTypeInvalid, `must start with "kri_"`}}},
		{"six segments", "kri_mt_m__n_", []problem{{"kri", field.ErrorTypeInvalid, "found 6"}}},
		{"eight segments (Kuma glues these into the section)", "kri_mt_m___n_rule_0", []problem{{"kri", field.ErrorTypeInvalid, "found 8"}}},
		{"many segments", strings.Repeat("kri_", 40), []problem{{"kri", field.ErrorTypeInvalid, "found 41"}}},
		{"tilde delimiter", "kri~mt~m~~~n~", []problem{{"kri", field.ErrorTypeInvalid, `must start with "kri_"`}, {"kri", field.ErrorTypeInvalid, "found 1"}}},
		{"empty type", "kri__m___n_", []problem{{"kri.type", field.ErrorTypeRequired, ""}}},
		{"unknown type", "kri_nope_m___n_", []problem{{"kri.type", field.ErrorTypeNotSupported, ""}}},
		{"upper-case type", "kri_MT_m___n_", []problem{{"kri.type", field.ErrorTypeInvalid, "must start with a lowercase letter"}}},
		{"digit in type", "kri_m2_m___n_", []problem{{"kri.type", field.ErrorTypeInvalid, "must end with a lowercase letter"}}},
		{"missing mesh for mesh-scoped type", "kri_mt____n_", []problem{{"kri.mesh", field.ErrorTypeRequired, "MeshTimeout"}}},
		{"mesh on global type", "kri_m_default___default_", []problem{{"kri.mesh", field.ErrorTypeForbidden, "global-scoped"}}},
		{"mesh upper case", "kri_mt_Mesh-1___n_", []problem{{"kri.mesh", field.ErrorTypeInvalid, "must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M')"}}},
		{"mesh starts with digit", "kri_mt_1mesh___n_", []problem{{"kri.mesh", field.ErrorTypeInvalid, "must start with a lowercase letter"}}},
		{"mesh ends with dash", "kri_mt_mesh-___n_", []problem{{"kri.mesh", field.ErrorTypeInvalid, "must end with a lowercase letter or digit"}}},
		{"mesh 64 bytes", "kri_mt_" + long63 + "a___n_", []problem{{"kri.mesh", field.ErrorTypeTooLong, "63"}}},
		{"zone with dot", "kri_mt_m_us.east__n_", []problem{{"kri.zone", field.ErrorTypeInvalid, "(found '.')"}}},
		{"zone starts with digit", "kri_mt_m_1zone__n_", []problem{{"kri.zone", field.ErrorTypeInvalid, "must start with a lowercase letter"}}},
		{"namespace 64 bytes", "kri_mt_m__" + long63 + "a_n_", []problem{{"kri.namespace", field.ErrorTypeTooLong, ""}}},
		{"namespace starts with dash", "kri_mt_m__-ns_n_", []problem{{"kri.namespace", field.ErrorTypeInvalid, "must start with a lowercase letter or digit"}}},
		{"empty name", "kri_mt_m____", []problem{{"kri.name", field.ErrorTypeRequired, ""}}},
		{"name 254 bytes", "kri_mt_m___" + strings.Repeat("a", 254) + "_", []problem{{"kri.name", field.ErrorTypeTooLong, "253"}}},
		{"name ends with dot", "kri_mt_m___name._", []problem{{"kri.name", field.ErrorTypeInvalid, "must end with a lowercase letter or digit"}}},
		{"name with colon", "kri_mt_m___a:b_", []problem{{"kri.name", field.ErrorTypeInvalid, "(found ':')"}}},
		{"name with space", "kri_mt_m___a b_", []problem{{"kri.name", field.ErrorTypeInvalid, "(found ' ')"}}},
		{"name with tilde", "kri_mt_m___a~b_", []problem{{"kri.name", field.ErrorTypeInvalid, "(found '~')"}}},
		{"name non-ASCII", "kri_mt_m___caf\u00e9_", []problem{{"kri.name", field.ErrorTypeInvalid, `(found "\xc3", "\xa9")`}}},
		{"name not UTF-8", "kri_mt_m___a\xffb_", []problem{{"kri.name", field.ErrorTypeInvalid, `(found "\xff")`}}},
		{"section with dot", "kri_mt_m___n_http.1", []problem{{"kri.section", field.ErrorTypeInvalid, "(found '.')"}}},
		{"section 64 bytes", "kri_mt_m___n_" + long63 + "a", []problem{{"kri.section", field.ErrorTypeTooLong, ""}}},
		{"every field wrong", "kri_X_M_Z_N_:_S", []problem{
			{"kri.type", field.ErrorTypeInvalid, ""},
			{"kri.mesh", field.ErrorTypeInvalid, ""},
			{"kri.zone", field.ErrorTypeInvalid, ""},
			{"kri.namespace", field.ErrorTypeInvalid, ""},
			{"kri.name", field.ErrorTypeInvalid, ""},
			{"kri.section", field.ErrorTypeInvalid, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.in, k)
			}
			if k != (KRI{}) {
				t.Errorf("Parse returned %+v with an error, want the zero KRI", k)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			if pe.Input != tt.in {
				t.Errorf("Input = %q, want %q", pe.Input, tt.in)
			}
			checkProblems(t, pe.Errs, tt.want)
			if !strings.HasPrefix(err.Error(), "invalid KRI ") {
				t.Errorf("error %q does not say what it is about", err)
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("kri_mt_Mesh_1___n_")
	// Mesh_1 splits the string into 8 segments; the user learns that first.
	if err == nil || !strings.Contains(err.Error(), "found 8") {
		t.Fatalf("Parse = %v", err)
	}
	_, err = Parse("kri_mt_Mesh-1___n_")
	want := `invalid KRI "kri_mt_Mesh-1___n_": kri.mesh: Invalid value: "Mesh-1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M')`
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error =\n%v\nwant\n%s", err, want)
	}
}

func TestValidateBuiltInCode(t *testing.T) {
	tests := []struct {
		name string
		k    KRI
		want []problem
	}{
		{"valid", KRI{Type: "msvc", Mesh: "default", Name: "backend", Section: "http"}, nil},
		{"separator inside a field", KRI{Type: "msvc", Mesh: "default", Name: "a_b"}, []problem{{"kri.name", field.ErrorTypeInvalid, "(found '_')"}}},
		{"zero value", KRI{}, []problem{{"kri.type", field.ErrorTypeRequired, ""}, {"kri.name", field.ErrorTypeRequired, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.k.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate() = %v, want a *ParseError", err)
			}
			checkProblems(t, pe.Errs, tt.want)
			var fe *field.Error
			if !errors.As(err, &fe) || fe.Field != tt.want[0].path {
				t.Errorf("errors.As(*field.Error) = %v, want the first problem", fe)
			}
		})
	}
}

func TestRegistryScopesParse(t *testing.T) {
	r := defaultRegistry().Clone()
	if _, err := r.Parse("kri_mw_m___n_"); err == nil {
		t.Fatal("unknown type accepted before registration")
	}
	if err := r.Register(ResourceType{Kind: "MeshWidget", ShortName: "mw", Scope: ScopeMesh}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Parse("kri_mw_m___n_"); err != nil {
		t.Fatalf("registered type refused: %v", err)
	}
	if _, err := Parse("kri_mw_m___n_"); err == nil {
		t.Fatal("registering in a clone leaked into the default registry")
	}
}
