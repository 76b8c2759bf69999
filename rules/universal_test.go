package rules

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"

	"github.com/kriguard/kriguard/naming"
)

// universalVector is what a real kuma-cp of one release did with one Universal resource PUT through
// its REST API (a zone control plane named "default", in-memory store): testdata/universal/README.md.
type universalVector struct {
	Release  string         `json:"release"`
	Case     string         `json:"case"`
	Resource map[string]any `json:"resource"`
	Status   int            `json:"status"`
	Admitted bool           `json:"admitted"`
	// Zone is the zone control plane's name, "" for a global control plane.
	Zone string `json:"zone"`
	// KRI and StoredLabels are what the control plane lists for the admitted resource.
	KRI          string            `json:"kri"`
	StoredLabels map[string]string `json:"stored_labels"`
	// Message and Causes are its answer to a refused one.
	Message string `json:"message"`
	Causes  []struct {
		Field  string `json:"field"`
		Reason string `json:"reason"`
	} `json:"causes"`
}

func readUniversalVectors(t *testing.T) []universalVector {
	t.Helper()
	files, err := filepath.Glob("testdata/universal/vectors-*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	var out []universalVector
	out = append(out, sharedUniversalVectors(t)...)
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var v universalVector
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, v)
		}
		fh.Close()
	}
	return out
}

// namingCause reports whether Kuma refused for a reason about a name: the name, the mesh, a label
// (but for the zone, origin and mesh labels a zone control plane holds to its own values), or a
// target reference's form.
func namingCause(fld, reason string) bool {
	switch {
	case fld == "name" || fld == "mesh":
		return true
	case strings.HasPrefix(fld, "labels["):
		return !strings.Contains(reason, "should have") && !strings.Contains(reason, "must not differ") && !strings.Contains(reason, "origin")
	case strings.HasPrefix(fld, "spec."):
		return strings.Contains(fld, "targetRef") || strings.Contains(fld, "backendRef")
	}
	return false
}

// TestUniversalVectors: each resource a release's REST API admits is admitted, with the KRI that
// release stores, unless that KRI is invalid; each it refuses for a naming reason is denied at the
// field Kuma names.
func TestUniversalVectors(t *testing.T) {
	c := DefaultConfig()
	counts := map[string]int{}
	for _, v := range readUniversalVectors(t) {
		cp := "zone"
		if v.Zone == "" {
			cp = "global"
		}
		t.Run(v.Release+"/"+cp+"/"+v.Case, func(t *testing.T) {
			rel, err := naming.ParseRelease(v.Release)
			if err != nil {
				t.Fatal(err)
			}
			typ, _ := v.Resource["type"].(string)
			gk := schema.GroupKind{Group: KumaGroup, Kind: typ}
			if !c.Judges(gk, rel) {
				// A kind the configuration does not guard: a legacy policy (no KRI), or one the
				// default configuration leaves out as on Kubernetes (ZoneEgress on 2.14).
				return
			}
			counts[v.Release]++
			raw, _ := json.Marshal(v.Resource)
			d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: raw, Release: rel, Universal: true})
			if err != nil {
				t.Fatal(err)
			}
			ruleOf := map[string]Rule{}
			for _, f := range d.Findings() {
				if f.Level == LevelError {
					ruleOf[f.Problem.Field] = f.Rule
				}
			}
			switch {
			case v.Admitted:
				stored := maps.Clone(v.Resource)
				stored["labels"] = v.StoredLabels
				rawStored, _ := json.Marshal(stored)
				ds, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: rawStored, Release: rel, Universal: true})
				if err != nil {
					t.Fatal(err)
				}
				if got := ds.KRI(); got != v.KRI {
					t.Errorf("KRI of the stored resource %q, Kuma's %q", got, v.KRI)
				}
				// The resource as submitted, created on the control plane the vector was taken
				// on, gets the KRI that control plane stored.
				dz, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: raw, Release: rel, Universal: true, Zone: v.Zone})
				if err != nil {
					t.Fatal(err)
				}
				if got := dz.KRI(); got != v.KRI {
					t.Errorf("KRI on zone default %q, Kuma's %q", got, v.KRI)
				}
				if _, perr := naming.Parse(v.KRI); perr == nil {
					// Denied only where a name Kuma derives from the KRI cannot be one: a
					// section name, or a port's SNI (as for the same object on Kubernetes).
					for fld, r := range ruleOf {
						if r != RuleSectionName && r != RuleSNI {
							t.Errorf("Kuma %s admits it with the valid KRI %s; denied at %s by %s: %v", v.Release, v.KRI, fld, r, d.Errors())
						}
					}
					return
				}
				if d.Allowed || !containsRule(ruleOf, RuleKRI) {
					t.Errorf("Kuma %s admits it with the invalid KRI %q: want a %s denial, got %v", v.Release, v.KRI, RuleKRI, d.Errors())
				}
			case v.Status == 404 && v.Message == "no such type in /_resources":
				if d.Allowed || !containsRule(ruleOf, RuleRemovedKind) {
					t.Errorf("Kuma %s has no type %s: want a %s denial, got %v", v.Release, typ, RuleRemovedKind, d.Errors())
				}
			default:
				naming := false
				for _, kc := range v.Causes {
					if !namingCause(kc.Field, kc.Reason) {
						continue
					}
					naming = true
					if !hasCauseAt(ruleOf, kc.Field) {
						t.Errorf("Kuma refuses %s (%s); kriguard's causes are %v", kc.Field, kc.Reason, d.Errors())
					}
				}
				if naming && d.Allowed {
					t.Errorf("Kuma %s refuses it for its name (%s); admitted", v.Release, v.Message)
				}
				// Refused for another reason (a mesh that does not exist, a zone label of
				// another zone): kriguard may deny it or not.
			}
		})
	}
	t.Logf("vectors judged per release: %v", counts)
}

func containsRule(m map[string]Rule, r Rule) bool {
	for _, got := range m {
		if got == r {
			return true
		}
	}
	return false
}

// hasCauseAt reports whether kriguard has a cause at Kuma's field: the same field; for Kuma's
// "name", which 3.0 reports for the display name it checks, the display-name label too; for a
// target reference, the reference or any field in it.
func hasCauseAt(causes map[string]Rule, kumaField string) bool {
	for fld := range causes {
		switch {
		case fld == kumaField:
			return true
		case kumaField == "name" && fld == "labels[kuma.io/display-name]":
			return true
		case strings.HasPrefix(kumaField, "spec.") && (strings.HasPrefix(kumaField, fld) || strings.HasPrefix(fld, kumaField)):
			return true
		}
	}
	return false
}

// sharedUniversalVectors reads the public vectors of ../shared/kuma-kri/universal.sample.jsonl (its
// README), as a zone control plane decided them.
func sharedUniversalVectors(t *testing.T) []universalVector {
	t.Helper()
	b, err := os.ReadFile("../../shared/kuma-kri/universal.sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []universalVector
	for line := range strings.Lines(string(b)) {
		var s struct {
			Case     string         `json:"case"`
			Version  string         `json:"version"`
			Resource map[string]any `json:"resource"`
			Setups   map[string]struct {
				Valid      bool              `json:"valid"`
				HTTPStatus int               `json:"http_status"`
				Validation string            `json:"validation"`
				KRI        string            `json:"kri"`
				Labels     map[string]string `json:"labels"`
			} `json:"setups"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		z := s.Setups["zone"]
		v := universalVector{Release: "2.14", Case: "shared: " + s.Case, Resource: s.Resource, Status: z.HTTPStatus,
			Admitted: z.Valid, KRI: z.KRI, StoredLabels: z.Labels, Zone: "default"}
		if strings.HasPrefix(s.Version, "master") {
			v.Release = "3.0"
		}
		if strings.Contains(z.Validation, "invalid resource type") {
			v.Message = "no such type in /_resources"
		}
		// "Could not process a resource: name: invalid …; labels["k"]: …"
		_, causes, _ := strings.Cut(z.Validation, ": ")
		for c := range strings.SplitSeq(causes, "; ") {
			if fld, reason, ok := strings.Cut(c, ": "); ok {
				v.Causes = append(v.Causes, struct {
					Field  string `json:"field"`
					Reason string `json:"reason"`
				}{strings.ReplaceAll(fld, `"`, ""), reason})
			}
		}
		out = append(out, v)
	}
	return out
}

// Any bytes given as a Universal resource are decided or refused with an error, never a panic,
// under every release.
func FuzzDecideUniversal(f *testing.F) {
	for _, s := range []string{
		`{"type":"MeshTimeout","mesh":"default","name":"t","labels":{"kuma.io/display-name":"X_y"},"spec":{"to":[{"targetRef":{"kind":"MeshService","name":"b","sectionName":"HTTP"}}]}}`,
		`{"type":"MeshService","mesh":"default","name":"a.b","spec":{"ports":[{"name":"http_1","port":80}]}}`,
		`{"type":"MeshProxyPatch","mesh":"m","name":"p","spec":{"default":{"appendModifications":[{"cluster":{"match":{"name":"kri_x"}}}]}}}`,
		`{"type":"ZoneEgress","name":"z"}`, `{"type":"MeshTimeout","labels":null,"spec":null}`, `[]`, `{"type":1}`,
	} {
		f.Add([]byte(s))
	}
	c := DefaultConfig()
	f.Fuzz(func(t *testing.T, raw []byte) {
		var head struct {
			Type any `json:"type"`
		}
		_ = json.Unmarshal(raw, &head)
		kind, _ := head.Type.(string)
		if kind == "" {
			kind = "MeshTimeout"
		}
		for _, rel := range naming.Releases() {
			gk := schema.GroupKind{Group: KumaGroup, Kind: kind}
			if !c.Judges(gk, rel) {
				continue
			}
			d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: raw, Release: rel, Universal: true})
			if err == nil && d.Allowed && len(d.Errors()) > 0 {
				t.Errorf("allowed with errors: %v", d.Errors())
			}
		}
	})
}

// The fast decode reads what the full decode reads, whenever it is sure.
func FuzzDecodeUniversal(f *testing.F) {
	for _, s := range []string{
		`{"type":"MeshTimeout","mesh":"default","name":"t","labels":{"a":"b","a":"c"},"spec":{"x":1},"creationTime":"2026","kri":"kri_mt_default___t_"}`,
		`{"type":"MeshTimeout","Type":"X","name":"t\u00e9","labels":null,"spec":null}`,
		`{"type":"a","type":"b"}`, `{"name":1}`, `{"labels":{"k":1}}`, `{"na\u006de":"x"}`, `[1]`, ` {"type" : "T" , "spec" : [ ] } `,
		"{\"name\":\"\xff\"}", `{"labels":[]}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var holds specScan
		fast, ok := decodeUniversalTop(raw, &holds)
		if !ok {
			return
		}
		var full universalResource
		if err := json.Unmarshal(raw, &full); err != nil {
			// The rules' full decode is sigs.k8s.io/json's; encoding/json agrees on valid input.
			t.Fatalf("fast decode sure of %q, which is not JSON: %v", raw, err)
		}
		var ref universalResource
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &ref); err != nil {
			t.Fatalf("fast decode sure of %q, the full decode fails: %v", raw, err)
		}
		if fast.Type != ref.Type || fast.Mesh != ref.Mesh || fast.Name != ref.Name || !maps.Equal(fast.Labels, ref.Labels) ||
			!bytes.Equal(bytes.TrimSpace(fast.Spec), bytes.TrimSpace(ref.Spec)) {
			t.Errorf("%q: fast %+v, full %+v", raw, fast, ref)
		}
	})
}
