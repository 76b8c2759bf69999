package naming

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The KRI of a Universal resource, per release, as each release's code computes it (the cases of
// rules/testdata/universal, which a real kuma-cp of each release gave): the display-name label
// when not empty (2.14) or name (3.0, which overwrites the label), zone and namespace from labels
// only, no mesh for global types.
func TestForUniversal(t *testing.T) {
	for _, tt := range []struct {
		name    string
		rel     Release
		u       Universal
		want    string
		invalid string // the field of the first problem, "" for a valid KRI
	}{
		{"policy", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "timeout-1"}, "kri_mt_default___timeout-1_", ""},
		{"display-name label 2.14", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "timeout-3", Labels: map[string]string{LabelDisplayName: "shown-name"}}, "kri_mt_default___shown-name_", ""},
		{"display-name label 3.0", Kuma3_0, Universal{Type: "MeshTimeout", Mesh: "default", Name: "timeout-3", Labels: map[string]string{LabelDisplayName: "shown-name"}}, "kri_mt_default___timeout-3_", ""},
		// global's copy of zone-1's MeshTimeout backend keeps the label it was sent with, and Kuma
		// its KRI (rules/testdata/universal/kds-copies.jsonl)
		{"KDS copy 3.0", Kuma3_0, Universal{Type: "MeshTimeout", Mesh: "default", Name: "backend-d8466458x7574b7b", Labels: map[string]string{LabelDisplayName: "backend", LabelZone: "zone-1", LabelOrigin: "zone"}}, "kri_mt_default_zone-1__backend_", ""},
		{"KDS copy of another mesh 3.0", Kuma3_0, Universal{Type: "MeshTimeout", Mesh: "mesh-2", Name: "backend-d8466458x7574b7b", Labels: map[string]string{LabelDisplayName: "backend", LabelZone: "zone-1", LabelOrigin: "zone"}}, "kri_mt_mesh-2_zone-1__backend-d8466458x7574b7b_", ""},
		{"KDS copy of a global type 3.0", Kuma3_0, Universal{Type: "HostnameGenerator", Name: "hg-866685vw295v46f4", Labels: map[string]string{LabelDisplayName: "hg", LabelZone: "zone-1", LabelOrigin: "zone"}}, "kri_hg__zone-1__hg_", ""},
		{"empty display-name label", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "timeout-4", Labels: map[string]string{LabelDisplayName: ""}}, "kri_mt_default___timeout-4_", ""},
		{"display-name label with '_'", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "t", Labels: map[string]string{LabelDisplayName: "shown_name"}}, "kri_mt_default___shown_name_", "labels[kuma.io/display-name]"},
		{"zone and namespace labels", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "t", Labels: map[string]string{LabelZone: "default", LabelNamespace: "kuma-demo"}}, "kri_mt_default_default_kuma-demo_t_", ""},
		{"namespace label uppercase", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "t", Labels: map[string]string{LabelNamespace: "Kuma"}}, "kri_mt_default__Kuma_t_", "labels[k8s.kuma.io/namespace]"},
		{"mesh with '_' (Kuma admits it)", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "mesh_1", Name: "t"}, "kri_mt_mesh_1___t_", "mesh"},
		{"mesh with dots", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "mesh.a", Name: "t"}, "kri_mt_mesh.a___t_", "mesh"},
		{"Mesh", Kuma2_14, Universal{Type: "Mesh", Name: "mesh.a"}, "kri_m____mesh.a_", ""},
		{"global type ignores mesh", Kuma3_0, Universal{Type: "HostnameGenerator", Mesh: "x", Name: "hg-one"}, "kri_hg____hg-one_", ""},
		{"Dataplane", Kuma3_0, Universal{Type: "Dataplane", Mesh: "default", Name: "dp-1"}, "kri_dp_default___dp-1_", ""},
		{"removed kind", Kuma3_0, Universal{Type: "ZoneEgress", Name: "ze-1"}, "kri_____ze-1_", "type"},
		{"no mesh", Kuma2_14, Universal{Type: "MeshTimeout", Name: "t"}, "kri_mt____t_", "mesh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k, errs := tt.rel.ForUniversal(tt.u)
			if got := k.String(); got != tt.want {
				t.Errorf("KRI %q, want %q", got, tt.want)
			}
			switch {
			case tt.invalid == "" && len(errs) > 0:
				t.Errorf("problems %v, want none", errs)
			case tt.invalid != "" && (len(errs) == 0 || errs[0].Field != tt.invalid):
				t.Errorf("problems %v, want the first at %s", errs, tt.invalid)
			}
		})
	}
}

// Zone control planes store the KRI with their zone, unless the resource says it came from Global.
func TestStoredUniversal(t *testing.T) {
	u := Universal{Type: "MeshTimeout", Mesh: "default", Name: "t"}
	k, _ := Kuma2_14.ForUniversal(u)
	if got := Kuma2_14.StoredUniversal(k, u, "default").String(); got != "kri_mt_default_default__t_" {
		t.Errorf("zone: %s", got)
	}
	if got := Kuma2_14.StoredUniversal(k, u, "").String(); got != "kri_mt_default___t_" {
		t.Errorf("global: %s", got)
	}
	u.Labels = map[string]string{LabelOrigin: "global"}
	if got := Kuma2_14.StoredUniversal(k, u, "default").String(); got != "kri_mt_default___t_" {
		t.Errorf("origin global on 2.14: %s", got)
	}
	if got := Kuma3_0.StoredUniversal(k, u, "default").String(); got != "kri_mt_default_default__t_" {
		t.Errorf("origin global on 3.0: %s", got)
	}
}

// What each release's REST API refuses, at the field it names.
func TestValidateUniversal(t *testing.T) {
	long := func(c byte, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = c
		}
		return string(b)
	}
	for _, tt := range []struct {
		name string
		rel  Release
		u    Universal
		want []string // fields
	}{
		{"valid", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "timeout.v1.web"}, nil},
		{"double dot", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "a..b"}, []string{"name"}},
		{"ends with dash", Kuma3_0, Universal{Type: "MeshTimeout", Mesh: "default", Name: "timeout-"}, []string{"name"}},
		{"254 characters", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: long('a', 254)}, []string{"name"}},
		{"mesh uppercase", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "MyMesh", Name: "t"}, []string{"mesh"}},
		{"mesh with '_' is Kuma's", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "mesh_1", Name: "t"}, nil},
		{"Mesh of 64", Kuma2_14, Universal{Type: "Mesh", Name: long('m', 64)}, []string{"name"}},
		{"MeshService of 64 on 2.14", Kuma2_14, Universal{Type: "MeshService", Mesh: "default", Name: long('s', 64)}, []string{"name"}},
		{"MeshTimeout of 64", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: long('t', 64)}, nil},
		{"label value of 64", Kuma3_0, Universal{Type: "MeshTimeout", Mesh: "default", Name: "t", Labels: map[string]string{LabelDisplayName: long('d', 64)}}, []string{"labels[kuma.io/display-name]"}},
		{"label key", Kuma2_14, Universal{Type: "MeshTimeout", Mesh: "default", Name: "t", Labels: map[string]string{"bad key": "v", "ok": "v"}}, []string{"labels[bad key]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.rel.ValidateUniversal(tt.u)
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if len(got) != len(tt.want) || len(got) > 0 && got[0] != tt.want[0] {
				t.Errorf("fields %v, want %v (%v)", got, tt.want, errs)
			}
		})
	}
}

// The charset checks agree with apimachinery's, which Kuma calls.
func FuzzUniversalCharsets(f *testing.F) {
	for _, s := range []string{"a", "a.b", "a..b", "-a", "a-", "Ab", "kuma.io/display-name", "a/b/c", "/a", "a/", "x_y", "1.2", "", "k8s.kuma.io/namespace"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isSubdomain(%q) = %v, apimachinery %v", s, got, want)
		}
		if got, want := isLabelValue(s), len(validation.IsValidLabelValue(s)) == 0; got != want {
			t.Errorf("isLabelValue(%q) = %v, apimachinery %v", s, got, want)
		}
		if got, want := isQualifiedName(s), len(validation.IsQualifiedName(s)) == 0; got != want {
			t.Errorf("isQualifiedName(%q) = %v, apimachinery %v", s, got, want)
		}
	})
}
