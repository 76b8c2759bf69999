package rules

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// originVector is one line of testdata/universal/origin.jsonl (testdata/universal/README.md).
type originVector struct {
	Release, Case string
	// CP is the control plane the resource was PUT to: "zone-federated" (zone-1, connected to
	// a global), "zone" (non-federated, named default) or "global".
	CP, Zone     string
	Resource     map[string]any
	Status       int
	Admitted     bool
	KRI          string
	StoredLabels map[string]string `json:"stored_labels"`
	Causes       []struct{ Field, Reason string }
	// GlobalCopies are the copies of an admitted resource of the federated zone on its global,
	// read there after the sync: none for one the zone sends to no one.
	GlobalCopies *[]struct {
		Name   string
		Labels map[string]string
		KRI    string
	} `json:"global_copies"`
}

func readOriginVectors(t *testing.T) []originVector {
	return readJSONLines[originVector](t, "testdata/universal/origin.jsonl")
}

// What a real control plane of each release did with a resource labelled kuma.io/origin (or
// without it) PUT to a federated zone, a zone that is not federated and global: kriguard, in the
// kuma mode of that control plane (as detected: Request.Mode), admits what Kuma stored with the KRI Kuma stored, refuses at
// Kuma's field what Kuma refused for its origin, zone or mesh label or because a federated zone
// does not create the type, and holds the zone's resource to the copy global got of it, or to
// none. In kuma.mode auto (a zone that may or may not be federated) it denies nothing that a
// zone that is not federated admits: what only a federated zone refuses is a note.
func TestUniversalOriginVectors(t *testing.T) {
	modeOf := map[string]Mode{"zone-federated": ModeZone, "zone": ModeStandalone, "global": ModeGlobal}
	counts := map[string]int{}
	for _, v := range readOriginVectors(t) {
		t.Run(v.Release+"/"+v.CP+"/"+v.Case, func(t *testing.T) {
			rel, err := naming.ParseRelease(v.Release)
			if err != nil {
				t.Fatal(err)
			}
			typ, _ := v.Resource["type"].(string)
			gk := schema.GroupKind{Group: KumaGroup, Kind: typ}
			raw, _ := json.Marshal(v.Resource)
			decide := func(mode Mode, raw []byte, zone string) Decision {
				t.Helper()
				c := DefaultConfig()
				if !c.Judges(gk, rel) {
					t.Skipf("%s is not judged under %s", typ, rel)
				}
				d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: gk, Object: raw, Release: rel, Universal: true, Zone: zone, Mode: mode})
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			counts[v.Release]++
			d := decide(modeOf[v.CP], raw, v.Zone)
			auto := decide(ModeAuto, raw, v.Zone)
			errAt, noteAt := map[string]Rule{}, map[string]Rule{}
			for _, f := range d.Findings() {
				if f.Level == LevelError {
					errAt[f.Problem.Field] = f.Rule
				}
			}
			for _, f := range auto.Findings() {
				if f.Level == LevelNote {
					noteAt[f.Problem.Field] = f.Rule
				}
			}
			switch {
			case v.Admitted:
				if !d.Allowed || !auto.Allowed {
					t.Errorf("Kuma %s admits it; denied: %v; in auto mode: %v", v.Release, d.Errors(), auto.Errors())
				}
				if got := d.KRI(); got != v.KRI {
					t.Errorf("KRI %s, Kuma stores %s", got, v.KRI)
				}
				checkCopies(t, rel, v, gk, raw)
			case v.Status == 404:
				if d.Allowed || !containsRule(errAt, RuleRemovedKind) {
					t.Errorf("Kuma %s has no type %s: want a %s denial, got %v", v.Release, typ, RuleRemovedKind, d.Errors())
				}
			case v.Status == 405 && v.CP == "zone-federated":
				if errAt["type"] != RuleUniversalName {
					t.Errorf("a federated zone of Kuma %s does not create a %s: want a %s denial at type, got %v", v.Release, typ, RuleUniversalName, d.Errors())
				}
				if noteAt["type"] != RuleUniversalName || !auto.Allowed {
					t.Errorf("in auto mode, want a note at type and no denial, got %v", auto.Findings())
				}
			case v.Status == 405:
				// global's read-only types (Dataplane, MeshService): not a naming matter.
			default:
				for _, kc := range v.Causes {
					if errAt[kc.Field] != RuleUniversalName {
						t.Errorf("Kuma %s refuses %s (%s); kriguard's causes are %v", v.Release, kc.Field, kc.Reason, d.Errors())
					}
				}
				if d.Allowed {
					t.Errorf("Kuma %s refuses it (%v); admitted", v.Release, v.Causes)
				}
			}
		})
	}
	t.Logf("vectors judged per release: %v", counts)
	if counts["2.14"] < 50 || counts["3.0"] < 50 {
		t.Errorf("judged %v", counts)
	}
}

// checkCopies holds the copy names kriguard compares (kuma/kds-collision) for v, admitted on a
// federated zone, to the copies its global got: the resource as created on the zone, and as the
// zone lists it when its kuma.io/zone label is the zone's (a resource that kept another zone's
// label is sent under its zone's name, which the listing does not give).
func checkCopies(t *testing.T, rel naming.Release, v originVector, gk schema.GroupKind, raw []byte) {
	t.Helper()
	if v.GlobalCopies == nil || !kdsToGlobal[gk.Kind] {
		return
	}
	want := map[string]bool{}
	for _, c := range *v.GlobalCopies {
		want[c.Name] = true
	}
	stored := maps.Clone(v.Resource)
	stored["labels"] = v.StoredLabels
	rawStored, _ := json.Marshal(stored)
	for _, r := range []struct {
		what string
		raw  []byte
		zone string
	}{{"created", raw, v.Zone}, {"listed", rawStored, ""}} {
		if r.zone == "" && v.StoredLabels[naming.LabelZone] != v.Zone && len(want) > 0 {
			continue
		}
		u := DefaultConfig().NewUnique(rel)
		if _, err := u.AddUniversal(r.zone, gk, r.raw); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, e := range u.kuma {
			got[e.copy] = true
		}
		if !maps.Equal(got, want) {
			t.Errorf("as %s: Unique holds the copies %v, global got %v", r.what, got, want)
		}
	}
}

// A resource written for a zone control plane (kuma.io/origin: zone, no kuma.io/zone label) judged
// without a zone: its zone is unknown, so its KDS copy is not named, and a note says why; global,
// which refuses it, makes the note an error. The name's cut at 236 bytes ends in '.', which makes
// the copy of the same resource on global unstorable.
func TestUniversalUnzoned(t *testing.T) {
	name := strings.Repeat("a", 235) + "." + strings.Repeat("b", 17)
	for _, tt := range []struct {
		labels  map[string]string
		zone    string
		mode    Mode
		allowed bool
		origin  Level // the finding at labels[kuma.io/origin], "" for none
		copy    bool  // a kuma/kds-copy finding
	}{
		{map[string]string{"kuma.io/origin": "zone"}, "", ModeAuto, true, LevelNote, false},
		{map[string]string{"kuma.io/origin": "zone"}, "", ModeZone, true, LevelNote, false},
		{map[string]string{"kuma.io/origin": "zone"}, "", ModeGlobal, false, LevelError, false},
		// The zone named, or in its label: the copy is named and checked.
		{map[string]string{"kuma.io/origin": "zone"}, "zone-1", ModeZone, false, "", true},
		{map[string]string{"kuma.io/origin": "zone", "kuma.io/zone": "zone-1"}, "", ModeZone, false, "", true},
		// Written for global.
		{nil, "", ModeGlobal, false, "", true},
	} {
		raw, _ := json.Marshal(map[string]any{"type": "MeshTimeout", "mesh": "default", "name": name, "labels": tt.labels,
			"spec": map[string]any{"targetRef": map[string]any{"kind": "Mesh"}}})
		for _, rel := range naming.Releases() {
			d, err := DefaultConfig().Decide(context.Background(), Request{Phase: Admit, Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"},
				Object: raw, Release: rel, Universal: true, Zone: tt.zone, Mode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			var origin Level
			copied := false
			for _, f := range d.Findings() {
				if f.Problem.Field == "labels[kuma.io/origin]" {
					origin = f.Level
				}
				copied = copied || f.Rule == RuleKDSCopy
			}
			if d.Allowed != tt.allowed || origin != tt.origin || copied != tt.copy {
				t.Errorf("%s %v on %q, mode %s: allowed %v, origin %q, kds-copy %v; want %v, %q, %v: %v",
					rel, tt.labels, tt.zone, tt.mode, d.Allowed, origin, copied, tt.allowed, tt.origin, tt.copy, d.Findings())
			}
		}
	}
}
