package naming

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// obj is a test Object.
type obj struct {
	name, namespace     string
	labels, annotations map[string]string
	mesh                string
}

func (o *obj) GetName() string                   { return o.name }
func (o *obj) GetNamespace() string              { return o.namespace }
func (o *obj) GetLabels() map[string]string      { return o.labels }
func (o *obj) GetAnnotations() map[string]string { return o.annotations }
func (o *obj) GetMesh() string                   { return o.mesh }

// noted is obj read as rules' admitted objects are: its KRI labels from KRILabels, not its map.
type noted struct{ *obj }

func (o noted) GetLabels() map[string]string {
	panic("GetLabels of an object that notes its KRI labels")
}

func (o noted) KRILabels() (mesh string, hasMesh bool, zone, namespace string) {
	mesh, hasMesh = o.labels[LabelMesh]
	return mesh, hasMesh, o.labels[LabelZone], o.labels[LabelNamespace]
}

// unlabelled is obj read with its KRI labels given apart (ForObjectLabelled): neither its map of
// labels nor a KRILabels of its own is read.
type unlabelled struct{ *obj }

func (o unlabelled) GetLabels() map[string]string {
	panic("GetLabels of an object whose KRI labels are given")
}

func l(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// TestForObjectRules has one case per rule of docs/kri.md ("How kriguard computes an object's KRI"),
// quirks included.
func TestForObjectRules(t *testing.T) {
	tests := []struct {
		name string
		kind string
		obj  *obj
		want string // the KRI string, even when invalid
		errs []problem
	}{
		// type
		{"type is the kind's short name", "MeshTrafficPermission", &obj{name: "p", namespace: "ns"},
			"kri_mtp_default___p_", nil},
		{"kind with no short name", "Pod", &obj{name: "p", namespace: "ns"}, "kri_____p_",
			[]problem{{"kind", field.ErrorTypeInvalid, "not a registered"}}},

		// mesh, new-style kinds
		{"mesh label", "MeshTimeout", &obj{name: "t", namespace: "ns", labels: l(LabelMesh, "mesh-1")},
			"kri_mt_mesh-1___t_", nil},
		{"no mesh label: default", "MeshService", &obj{name: "s", namespace: "ns"}, "kri_msvc_default___s_", nil},
		{"empty mesh label: empty mesh, denied", "MeshTimeout", &obj{name: "t", namespace: "ns", labels: l(LabelMesh, "")},
			"kri_mt____t_", []problem{{"metadata.labels[kuma.io/mesh]", field.ErrorTypeRequired, "mesh-scoped"}}},
		{"mesh annotation ignored", "MeshTimeout", &obj{name: "t", namespace: "ns", annotations: l(LabelMesh, "other")},
			"kri_mt_default___t_", nil},
		{"top-level mesh ignored for new-style kinds", "MeshTimeout", &obj{name: "t", namespace: "ns", mesh: "other"},
			"kri_mt_default___t_", nil},
		{"bad mesh label", "MeshTimeout", &obj{name: "t1", namespace: "ns", labels: l(LabelMesh, "Mesh_1")},
			"kri_mt_Mesh_1___t1_", []problem{{"metadata.labels[kuma.io/mesh]", field.ErrorTypeInvalid, "must start with a lowercase letter"}}},
		{"HostnameGenerator: always empty, label ignored", "HostnameGenerator",
			&obj{name: "hg", namespace: "kuma-system", labels: l(LabelMesh, "default")}, "kri_hg____hg_", nil},

		// mesh, legacy kinds
		{"Dataplane: top-level mesh", "Dataplane", &obj{name: "dp-1", namespace: "ns", mesh: "custom-mesh"},
			"kri_dp_custom-mesh___dp-1_", nil},
		{"Dataplane: field wins over label", "Dataplane",
			&obj{name: "dp-1", namespace: "ns", mesh: "custom-mesh", labels: l(LabelMesh, "label-mesh")},
			"kri_dp_custom-mesh___dp-1_", nil},
		{"Dataplane: label but no field, empty mesh, denied", "Dataplane",
			&obj{name: "dp-1", namespace: "ns", labels: l(LabelMesh, "label-mesh")},
			"kri_dp____dp-1_", []problem{{"mesh", field.ErrorTypeRequired, "mesh-scoped"}}},
		{"Dataplane: no default mesh", "Dataplane", &obj{name: "dp-1", namespace: "ns"},
			"kri_dp____dp-1_", []problem{{"mesh", field.ErrorTypeRequired, "mesh-scoped"}}},
		{"Dataplane: bad top-level mesh", "Dataplane", &obj{name: "dp-1", namespace: "ns", mesh: "Bad"},
			"kri_dp_Bad___dp-1_", []problem{{"mesh", field.ErrorTypeInvalid, "lowercase"}}},
		{"MeshGateway: top-level mesh", "MeshGateway", &obj{name: "gw", mesh: "default"}, "kri_mgw_default___gw_", nil},
		{"Mesh: global, empty", "Mesh", &obj{name: "default"}, "kri_m____default_", nil},
		{"Mesh: mesh label ignored", "Mesh", &obj{name: "default", labels: l(LabelMesh, "x")}, "kri_m____default_", nil},
		{"Mesh: top-level mesh forbidden", "Mesh", &obj{name: "default", mesh: "x"}, "kri_m_x___default_",
			[]problem{{"mesh", field.ErrorTypeForbidden, "global-scoped"}}},
		{"Zone", "Zone", &obj{name: "zone-1"}, "kri_z____zone-1_", nil},
		{"ZoneEgress", "ZoneEgress", &obj{name: "ze", namespace: "kuma-system", labels: l(LabelZone, "zone-1")},
			"kri_ze__zone-1__ze_", nil},

		// zone
		{"zone label", "MeshTimeout", &obj{name: "t", namespace: "ns", labels: l(LabelZone, "east")}, "kri_mt_default_east__t_", nil},
		{"origin does not change the KRI", "MeshTimeout",
			&obj{name: "t", namespace: "kuma-system", labels: l("kuma.io/origin", "global", LabelZone, "zone-1")},
			"kri_mt_default_zone-1__t_", nil},
		{"bad zone label (Kuma only warns)", "MeshTimeout", &obj{name: "t", namespace: "ns", labels: l(LabelZone, "east.1")},
			"kri_mt_default_east.1__t_", []problem{{"metadata.labels[kuma.io/zone]", field.ErrorTypeInvalid, "found '.'"}}},

		// namespace
		{"namespace label", "MeshTimeout", &obj{name: "t", namespace: "ns-a", labels: l(LabelNamespace, "ns-b")},
			"kri_mt_default__ns-b_t_", nil},
		{"no namespace label: empty, never metadata.namespace", "MeshTimeout", &obj{name: "t", namespace: "ns-a"},
			"kri_mt_default___t_", nil},
		{"bad namespace label", "MeshTimeout", &obj{name: "t", namespace: "ns", labels: l(LabelNamespace, "NS")},
			"kri_mt_default__NS_t_", []problem{{"metadata.labels[k8s.kuma.io/namespace]", field.ErrorTypeInvalid, ""}}},

		// name
		{"display-name annotation", "MeshTimeout",
			&obj{name: "t-4zc974b7955445f5", namespace: "kuma-system", annotations: l(AnnotationDisplayName, "t")},
			"kri_mt_default___t_", nil},
		{"empty display-name annotation: name.namespace", "MeshTimeout",
			&obj{name: "t", namespace: "kuma-demo", annotations: l(AnnotationDisplayName, "")},
			"kri_mt_default___t.kuma-demo_", nil},
		{"empty display-name annotation, cluster-scoped: name", "MeshGateway",
			&obj{name: "gw", mesh: "default", annotations: l(AnnotationDisplayName, "")},
			"kri_mgw_default___gw_", nil},
		{"empty display-name annotation, bad name", "MeshTimeout",
			&obj{name: "T", namespace: "kuma-demo", annotations: l(AnnotationDisplayName, "")},
			"kri_mt_default___T.kuma-demo_",
			[]problem{{"metadata.annotations[kuma.io/display-name]", field.ErrorTypeInvalid, "<metadata.name>.<metadata.namespace>"}}},
		{"display-name label ignored", "MeshTimeout",
			&obj{name: "t", namespace: "ns", labels: l(LabelDisplayName, "pretty")}, "kri_mt_default___t_", nil},
		{"bad display-name annotation", "MeshTimeout",
			&obj{name: "t", namespace: "ns", annotations: l(AnnotationDisplayName, "a_b")}, "kri_mt_default___a_b_",
			[]problem{{"metadata.annotations[kuma.io/display-name]", field.ErrorTypeInvalid, "'_'"}}},
		{"dotted name", "MeshTimeout", &obj{name: "my.timeout.v1", namespace: "ns"}, "kri_mt_default___my.timeout.v1_", nil},
		{"no name", "MeshTimeout", &obj{namespace: "ns"}, "kri_mt_default____",
			[]problem{{"metadata.name", field.ErrorTypeRequired, "MeshTimeout"}}},
		{"bad name", "MeshTimeout", &obj{name: "Timeouts", namespace: "ns"}, "kri_mt_default___Timeouts_",
			[]problem{{"metadata.name", field.ErrorTypeInvalid, "must start with a lowercase letter or digit"}}},

		// everything at once: every problem, each at its field
		{"every problem", "Dataplane",
			&obj{name: "x", namespace: "ns", mesh: "M", labels: l(LabelZone, "Z", LabelNamespace, "-"), annotations: l(AnnotationDisplayName, "_")},
			"kri_dp_M_Z_-___",
			[]problem{
				{"mesh", field.ErrorTypeInvalid, ""},
				{"metadata.labels[kuma.io/zone]", field.ErrorTypeInvalid, ""},
				{"metadata.labels[k8s.kuma.io/namespace]", field.ErrorTypeInvalid, ""},
				{"metadata.annotations[kuma.io/display-name]", field.ErrorTypeInvalid, ""},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ForObject(tt.obj, tt.kind)
			if got.String() != tt.want {
				t.Errorf("KRI = %s, want %s", got, tt.want)
			}
			checkProblems(t, errs, tt.errs)
			if ngot, nerrs := ForObject(noted{tt.obj}, tt.kind); ngot != got || !reflect.DeepEqual(nerrs, errs) {
				t.Errorf("ForObject of the object's KRILabels = %s, %v; of its labels %s, %v", ngot, nerrs, got, errs)
			}
			if _, err := Parse(got.String()); (err == nil) != (len(errs) == 0) && tt.kind != "Pod" {
				t.Errorf("Parse(%s) = %v, but ForObject reported %v", got, err, errs)
			}
		})
	}
}

// vectorsFile holds objects with the KRI Kuma v2.14.3's own code gives them. It is shared reference
// data beside the repository (as CI has it), not a copy in it.
const vectorsFile = "../../shared/kuma-kri/vectors.jsonl"

// TestKumaVectors checks ForObject against every public vector: each object's KRI must equal
// Kuma's byte for byte, and be reported invalid exactly when Kuma's string does not parse.
func TestKumaVectors(t *testing.T) {
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		abs, _ := filepath.Abs(vectorsFile)
		t.Fatalf("the Kuma KRI vectors are missing (%v): the tests read them from %s, the shared reference data "+
			"beside the checkout (../shared/kuma-kri/vectors.jsonl from the repository root), as CI has it", err, abs)
	}
	n, kds := 0, 0
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		line := bytes.TrimSpace(s.Bytes())
		if len(line) == 0 {
			continue
		}
		var v struct {
			Case   string         `json:"case"`
			Object map[string]any `json:"object"`
			KRI    string         `json:"kri"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s line %d: %v", vectorsFile, n+1, err)
		}
		n++
		t.Run(v.Case, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: v.Object}
			mesh, _, err := unstructured.NestedString(v.Object, "mesh")
			if err != nil {
				t.Fatal(err)
			}
			got, errs := ForObject(WithMesh(u, mesh), u.GetKind())
			if got.String() != v.KRI {
				t.Errorf("KRI = %s, Kuma's = %s", got, v.KRI)
			}
			_, perr := Parse(v.KRI)
			if (perr == nil) != (len(errs) == 0) {
				t.Errorf("Kuma's KRI parses: %v; ForObject's problems: %v", perr == nil, errs)
			}
			// A KDS copy is named with the hash of its KRI's mesh and name and its zone and
			// namespace labels: the name Kuma gave it must be the one kriguard computes.
			_, synced := u.GetLabels()["kuma.io/origin"]
			if dn, ok := u.GetAnnotations()[AnnotationDisplayName]; ok && synced && dn != "" && dn != u.GetName() {
				var extra []string
				for _, key := range []string{LabelZone, LabelNamespace} {
					if v, ok := u.GetLabels()[key]; ok {
						extra = append(extra, v)
					}
				}
				kds++
				if want := hashsuffix.Name(got.Mesh, got.Name, extra...); u.GetName() != want {
					t.Errorf("KDS named the copy %s, hashsuffix.Name gives %s", u.GetName(), want)
				}
			}
		})
	}
	if kds < 2 {
		t.Errorf("%d KDS copies among the vectors, want at least 2", kds)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 24 {
		t.Fatalf("%s has %d vectors, want at least 24", vectorsFile, n)
	}
}

func TestWithMesh(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetName("dp-1")
	u.SetNamespace("ns")
	k, errs := ForObject(WithMesh(u, "custom-mesh"), "Dataplane")
	if len(errs) > 0 || k.String() != "kri_dp_custom-mesh___dp-1_" {
		t.Fatalf("ForObject = %s, %v", k, errs)
	}
}

// FuzzForObject: ForObject never panics; the KRI it builds parses exactly when it reports no
// problem, and every problem names a field of the object.
func FuzzForObject(f *testing.F) {
	f.Add("MeshTimeout", "t", "ns", "", "mesh-1", true, "", "", true, "", false, "")
	f.Add("Dataplane", "dp", "ns", "custom-mesh", "", false, "east", "ns", true, "", false, "")
	f.Add("MeshService", "s", "ns", "", "", true, "", "", false, "", true, "")
	f.Add("Mesh", "default", "", "x", "", false, "", "", false, "", true, "a_b")
	f.Add("HostnameGenerator", "h", "kuma-system", "", "m", true, "east.1", "", false, "", false, "")
	f.Add("Pod", "", "", "", "", false, "", "", false, "", false, "")
	f.Fuzz(func(t *testing.T, kind, name, namespace, meshField, meshLabel string, hasMeshLabel bool,
		zone, ns string, hasNS bool, display string, hasDisplay bool, displayLabel string) {
		o := &obj{name: name, namespace: namespace, mesh: meshField, labels: map[string]string{}, annotations: map[string]string{}}
		if hasMeshLabel {
			o.labels[LabelMesh] = meshLabel
		}
		if zone != "" {
			o.labels[LabelZone] = zone
		}
		if hasNS {
			o.labels[LabelNamespace] = ns
		}
		if hasDisplay {
			o.annotations[AnnotationDisplayName] = display
		}
		if displayLabel != "" {
			o.labels[LabelDisplayName] = displayLabel
		}
		k, errs := ForObject(o, kind)
		if nk, nerrs := ForObject(noted{o}, kind); nk != k || !reflect.DeepEqual(nerrs, errs) {
			t.Fatalf("ForObject of the object's KRILabels = %s, %v; of its labels %s, %v", nk, nerrs, k, errs)
		}
		if rt, ok := defaultRegistry().ByKind(kind); ok {
			m, from := MeshOf(o, rt)
			if nm, nfrom := MeshOf(noted{o}, rt); nm != m || nfrom != from {
				t.Fatalf("MeshOf of the object's KRILabels = %q %v; of its labels %q %v", nm, nfrom, m, from)
			}
			var kl KRILabels
			kl.Mesh, kl.HasMesh = o.labels[LabelMesh]
			kl.Zone, kl.Namespace = o.labels[LabelZone], o.labels[LabelNamespace]
			if lk, lerrs := ForObjectLabelled(unlabelled{o}, rt, kl); lk != k || !reflect.DeepEqual(lerrs, errs) {
				t.Fatalf("ForObjectLabelled = %s, %v; ForObject %s, %v", lk, lerrs, k, errs)
			}
		}
		_, perr := Parse(k.String())
		if len(errs) == 0 && perr != nil {
			t.Fatalf("no problem reported, but %s does not parse: %v", k, perr)
		}
		if len(errs) > 0 && perr == nil && k.String() != "" {
			// Only a field outside the KRI can be wrong while the KRI parses: an unknown kind
			// whose short name is empty never parses, so this is a bug.
			t.Fatalf("problems %v reported, but %s parses", errs, k)
		}
		for _, e := range errs {
			p := e.Field
			if p != "kind" && p != "mesh" && !strings.HasPrefix(p, "metadata.") {
				t.Fatalf("problem at %q, not a field of the object", p)
			}
		}
		var pe *ParseError
		if perr != nil && !errors.As(perr, &pe) {
			t.Fatalf("Parse error %v is not a *ParseError", perr)
		}
	})
}

// TestForObjectAllocs holds ForObject to no allocation for valid objects of every mesh source.
func TestForObjectAllocs(t *testing.T) {
	for _, c := range []struct {
		kind string
		o    *obj
	}{
		{"MeshService", &obj{name: "backend", namespace: "kuma-demo", labels: l(LabelMesh, "m", LabelZone, "east", LabelNamespace, "kuma-demo")}},
		{"MeshTimeout", &obj{name: "t-x", namespace: "kuma-system", annotations: l(AnnotationDisplayName, "t")}},
		{"Dataplane", &obj{name: "dp", namespace: "ns", mesh: "custom-mesh"}},
		{"HostnameGenerator", &obj{name: "hg", namespace: "kuma-system"}},
	} {
		if n := testing.AllocsPerRun(100, func() { sinkKRI, _ = ForObject(c.o, c.kind) }); n != 0 {
			t.Errorf("%s: %v allocations per ForObject, want 0", c.kind, n)
		}
		if n := testing.AllocsPerRun(100, func() { sinkKRI, _ = ForObject(noted{c.o}, c.kind) }); n != 0 {
			t.Errorf("%s: %v allocations per ForObject of KRILabels, want 0", c.kind, n)
		}
	}
}
