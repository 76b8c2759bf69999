package naming_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
)

// TestKindListDrift holds each release's kinds to that release's own CRDs
// (../shared/upstream/kuma/<Upstream>/crds): a Kuma CRD with kubectl short names is a kind with a KRI,
// which the release's registry must know under the first of them; a kind the registry knows has a
// CRD; and a kind whose CRD the previous release ships and this one does not is a removed kind.
func TestKindListDrift(t *testing.T) {
	var prev map[string]bool
	for i, r := range naming.Releases() {
		t.Run(r.String(), func(t *testing.T) {
			kinds, err := testenv.LoadKinds(testenv.Options{Kuma: r.Upstream()})
			if err != nil {
				t.Fatal(err)
			}
			crds := map[string]bool{}
			withShort := map[string]string{}
			for _, k := range kinds {
				if k.Group != "kuma.io" {
					continue
				}
				crds[k.Kind] = true
				if len(k.ShortNames) > 0 {
					withShort[k.Kind] = k.ShortNames[0]
				}
			}
			registered := map[string]string{}
			for _, rt := range r.Registry().Types() {
				registered[rt.Kind] = rt.ShortName
				if !rt.CRD {
					t.Errorf("%s: the registry says it has no CRD", rt.Kind)
				}
			}
			if !maps.Equal(registered, withShort) {
				t.Errorf("kinds and short names of the registry\n%v\nof the CRDs\n%v", registered, withShort)
			}
			if i == 0 {
				prev = crds
				return
			}
			var gone []string
			for k := range prev {
				if !crds[k] {
					gone = append(gone, k)
				}
			}
			slices.Sort(gone)
			if removed := r.RemovedKinds(); !slices.Equal(gone, removed) {
				t.Errorf("CRDs gone since the previous release %q, kinds the release says it removed %q", gone, removed)
			}
			for _, k := range r.RemovedKinds() {
				if note, ok := r.Removed(k); !ok || note == "" {
					t.Errorf("%s: listed as removed, but Removed says %q, %t", k, note, ok)
				}
			}
			for k := range crds {
				if _, ok := r.Removed(k); ok {
					t.Errorf("%s: said removed, but the release ships its CRD", k)
				}
			}
			prev = crds
		})
	}
}

func TestReleaseFacts(t *testing.T) {
	for _, r := range naming.Releases() {
		for _, kind := range []string{"Mesh", "Zone", "MeshService", "MeshExternalService", "MeshMultiZoneService"} {
			if _, ok := r.Registry().ByKind(kind); !ok {
				t.Errorf("%s: %s is not a kind of the release", r, kind)
			}
			if got, want := r.RFC1035Name(kind), r == naming.Kuma3_0; got != want {
				t.Errorf("%s: RFC1035Name(%s) = %t, want %t", r, kind, got, want)
			}
		}
		if r.RFC1035Name("MeshTimeout") || r.RFC1035Name("Workload") {
			t.Errorf("%s: policies and Workload are not held to RFC 1035", r)
		}
		_, removed := r.RemovedTargetRefKind("MeshSubset")
		if r.RefsByLabelsOnly() != removed || r.ChecksMeshOwnerReference() != removed {
			t.Errorf("%s: refs by labels only %t, MeshSubset removed %t, Mesh ownerReference checked %t",
				r, r.RefsByLabelsOnly(), removed, r.ChecksMeshOwnerReference())
		}
	}
	if got := naming.Kuma3_0.Overwritten(); !slices.Equal(got, []string{naming.AnnotationDisplayName, naming.LabelOrigin}) {
		t.Errorf("3.0 overwrites %q", got)
	}
	if got := naming.Kuma2_14.Overwritten(); len(got) != 0 {
		t.Errorf("2.14 overwrites %q", got)
	}
}

// TestForObjectRemovedKind: 2.14 names a MeshGateway; 3.0 says the kind is gone and why.
func TestForObjectRemovedKind(t *testing.T) {
	u := &unstructured.Unstructured{}
	u.SetName("edge")
	obj := naming.WithMesh(u, "default")
	k, errs := naming.Kuma2_14.ForObject(obj, "MeshGateway")
	if len(errs) != 0 || k.String() != "kri_mgw_default___edge_" {
		t.Errorf("2.14: %s, %v", k, errs)
	}
	_, errs = naming.Kuma3_0.ForObject(obj, "MeshGateway")
	if len(errs) != 1 || errs[0].Field != "kind" || !strings.Contains(errs[0].Detail, "removed in Kuma 3.0: the built-in gateway is gone") {
		t.Errorf("3.0: %v", errs)
	}
	_, errs = naming.Kuma3_0.ForObject(obj, "MeshGadget")
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "not a registered KRI resource type") {
		t.Errorf("3.0, a kind no release has: %v", errs)
	}
}

func TestValidateName(t *testing.T) {
	p := field.NewPath("metadata", "name")
	for _, tc := range []struct {
		release naming.Release
		kind    string
		name    string
		want    string // substring of the one error; "" = valid
	}{
		{naming.Kuma3_0, "MeshService", "redis", ""},
		{naming.Kuma3_0, "MeshService", "9redis", `metadata.name: Invalid value: "9redis": Kuma 3.0 names a MeshService with an RFC 1035 label: must start with a lowercase letter`},
		{naming.Kuma3_0, "Mesh", strings.Repeat("b", 64), "Kuma 3.0 names a Mesh with an RFC 1035 label: may not be more than 63 bytes"},
		{naming.Kuma3_0, "Zone", "zone.east", "must contain only"},
		{naming.Kuma3_0, "MeshExternalService", "httpbin-", "must end with"},
		{naming.Kuma3_0, "MeshMultiZoneService", "", ""},
		{naming.Kuma3_0, "MeshTimeout", "1timeout", ""},
		{naming.Kuma3_0, "Workload", "1backend", ""},
		{naming.Kuma2_14, "MeshService", "9redis", ""},
		{naming.Kuma2_14, "MeshService", strings.Repeat("b", 64), "Kuma 2.14 names a MeshService with at most 63 characters"},
		{naming.Kuma2_14, "MeshExternalService", strings.Repeat("b", 63), ""},
		{naming.Kuma2_14, "MeshMultiZoneService", strings.Repeat("b", 64), ""},
		{naming.Kuma2_14, "Mesh", "mesh.v2", ""},
	} {
		errs := tc.release.ValidateName(tc.kind, tc.name, p)
		switch {
		case tc.want == "" && len(errs) != 0:
			t.Errorf("%s %s %q: %v, want valid", tc.release, tc.kind, tc.name, errs)
		case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want)):
			t.Errorf("%s %s %q: %v, want one error with %q", tc.release, tc.kind, tc.name, errs, tc.want)
		}
	}
}

// TestValidateNameAgreesWithKuma30 replays the RFC 1035 cases of Kuma's 3.0 sample
// (../shared/kuma-kri/master-348b652.sample.jsonl): where master's own webhooks refused the object
// for its name, ValidateName refuses metadata.name; where either set-up admitted it, ValidateName
// does too. Cases refused for other reasons (origin, namespace) say nothing about names.
func TestValidateNameAgreesWithKuma30(t *testing.T) {
	data, err := os.ReadFile("../../shared/kuma-kri/master-348b652.sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type decision struct {
		Allowed bool   `json:"allowed"`
		Message string `json:"message"`
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c struct {
			Case   string         `json:"case"`
			Object map[string]any `json:"object"`
			Zone   decision       `json:"zone"`
			Global decision       `json:"global"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(c.Case, "RFC1035") {
			continue
		}
		n++
		u := &unstructured.Unstructured{Object: c.Object}
		errs := naming.Kuma3_0.ValidateName(u.GetKind(), naming.Kuma3_0.ValidatedName(u), field.NewPath("metadata", "name"))
		byName := func(d decision) bool {
			return !d.Allowed && (strings.Contains(d.Message, "DNS-1035") || strings.Contains(d.Message, "no more than 63 characters"))
		}
		switch {
		case (byName(c.Zone) || byName(c.Global)) && len(errs) == 0:
			t.Errorf("%s: Kuma 3.0 refuses the name (%q / %q), ValidateName admits it", c.Case, c.Zone.Message, c.Global.Message)
		case (c.Zone.Allowed || c.Global.Allowed) && len(errs) != 0:
			t.Errorf("%s: Kuma 3.0 admits it, ValidateName says %v", c.Case, errs)
		}
	}
	if n == 0 {
		t.Fatal("no RFC 1035 case in the sample")
	}
}

// TestValidateNameVectors: on objects of the kinds the name rules are about and of kinds they are
// not, ValidateName refuses the ValidatedName exactly where each release's own validators report a
// violation at the name (testdata/kuma-names.jsonl, computed by running each release's
// validator.Validate on the object as its defaulting webhook leaves the display name).
func TestValidateNameVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/kuma-names.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var v struct {
			Release    string         `json:"release"`
			Rule       string         `json:"rule"`
			Object     map[string]any `json:"object"`
			Violations []string       `json:"name_violations"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		r, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: v.Object}
		errs := r.ValidateName(u.GetKind(), r.ValidatedName(u), field.NewPath("metadata", "name"))
		if (len(errs) != 0) != (len(v.Violations) != 0) {
			t.Errorf("line %d, Kuma %s, %s %q (%s): ours %v, Kuma's %q", i+1, r, u.GetKind(), u.GetName(), v.Rule, errs, v.Violations)
		}
		count[r.String()]++
	}
	for _, r := range naming.Releases() {
		if count[r.String()] == 0 {
			t.Errorf("no vectors for Kuma %s", r)
		}
		t.Logf("%d vectors for Kuma %s", count[r.String()], r)
	}
}

// refSchemas collects, over every CRD of a Kuma version, the schemas of its targetRefs and
// backendRefs (objects with kind and sectionName properties): the union of their properties and of
// their kind enums.
func refSchemas(t *testing.T, upstream string) (props, kinds map[string]bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("../../shared/upstream/kuma", upstream, "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs of Kuma %s: %v", upstream, err)
	}
	props, kinds = map[string]bool{}, map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if p, ok := v["properties"].(map[string]any); ok && p["kind"] != nil && p["sectionName"] != nil {
				for k := range p {
					props[k] = true
				}
				if enum, ok := p["kind"].(map[string]any)["enum"].([]any); ok {
					for _, e := range enum {
						kinds[e.(string)] = true
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd map[string]any
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(crd)
	}
	if len(props) == 0 {
		t.Fatalf("Kuma %s: no targetRef schema found", upstream)
	}
	return props, kinds
}

// TestRefFactsMatchCRDs holds the ref facts of each release to its CRDs' schemas: a release whose
// refs select by labels only has no name or namespace in any targetRef or backendRef, and the
// targetRef kinds it removed are in the previous release's enums and in none of its own.
func TestRefFactsMatchCRDs(t *testing.T) {
	var prevKinds map[string]bool
	for _, r := range naming.Releases() {
		props, kinds := refSchemas(t, r.Upstream())
		if byName := props["name"] || props["namespace"]; byName == r.RefsByLabelsOnly() {
			t.Errorf("Kuma %s: refs by labels only %t, but its ref schemas have name or namespace: %t (%v)", r, r.RefsByLabelsOnly(), byName, props)
		}
		if !props["labels"] {
			t.Errorf("Kuma %s: no labels in its ref schemas", r)
		}
		var gone []string
		for k := range prevKinds {
			_, removed := r.RemovedTargetRefKind(k)
			if removed == kinds[k] {
				t.Errorf("Kuma %s: targetRef kind %s removed %t, in its enums %t", r, k, removed, kinds[k])
			}
			if !kinds[k] {
				gone = append(gone, k)
			}
		}
		slices.Sort(gone)
		if got := r.RemovedTargetRefKinds(); !slices.Equal(got, gone) {
			t.Errorf("Kuma %s: removed targetRef kinds %q, gone from its enums %q", r, got, gone)
		}
		prevKinds = kinds
	}
}
