package rules

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// universalCopy is one line of testdata/universal/kds-copies.jsonl (testdata/universal/README.md).
type universalCopy struct {
	Release, Case, Side string
	Resource            universalResource
	StoredLabels        map[string]string `json:"stored_labels"`
	KRI                 string
	Copy                string
	CopyLabels          map[string]string `json:"copy_labels"`
	CopyKRI             string            `json:"copy_kri"`
	// Sent is false for a zone's resource its zone sends to no one (absent: sent).
	Sent *bool
}

func readUniversalCopies(t *testing.T) []universalCopy {
	return readJSONLines[universalCopy](t, "testdata/universal/kds-copies.jsonl")
}

// readJSONLines reads path, one JSON value of type T a line (lines up to 1 MiB).
func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var v T
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The copy name of each Universal resource of testdata/universal/kds-copies.jsonl is the one its
// release's REST API and KDS mappers gave it: as kuma/kds-copy judges the resource as sent (on the
// zone zone-1 or on global) and as stored (an audit), and as kuma/kds-collision compares a zone's
// resource and global's copy of it.
func TestUniversalKDSCopyVectors(t *testing.T) {
	perRelease := map[string]int{}
	for _, v := range readUniversalCopies(t) {
		rel, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatal(err)
		}
		perRelease[v.Release]++
		c := DefaultConfig().forRelease(rel)
		zone := ""
		if v.Side == "zone" {
			zone = "zone-1"
		}
		sent := v.Resource
		stored := v.Resource
		stored.Labels = v.StoredLabels
		kind := sent.Type
		// A resource listed is taken to be of the zone its label names; only a resource written
		// with kuma.io/origin: global keeps another zone's label, and 3.0's zone sends it under
		// its own (docs/universal.md, "kuma.io/origin").
		listedZoneKnown := v.Side != "zone" || v.StoredLabels[naming.LabelZone] == zone
		if v.Sent != nil && !*v.Sent {
			checkUnsent(t, rel, v, zone)
			continue
		}
		for _, r := range []struct {
			what string
			u    universalResource
			zone string
		}{{"sent", sent, zone}, {"stored", stored, ""}} {
			if r.zone == "" && !listedZoneKnown {
				continue
			}
			nu := naming.Universal{Type: r.u.Type, Mesh: r.u.Mesh, Name: r.u.Name, Labels: r.u.Labels}
			kri, _ := rel.ForUniversal(nu)
			kri = rel.StoredUniversal(kri, nu, r.zone)
			if got := kri.String(); got != v.KRI {
				t.Errorf("%s %s, as %s: KRI %s, Kuma stores %s", rel, v.Case, r.what, got, v.KRI)
			}
			obj := &admitted{name: r.u.Name, mesh: r.u.Mesh, labels: labelsOf(r.u.Labels)}
			obj, kri = universalSent(rel, obj, nu, kri, r.zone)
			if obj.labels.notedValue(notedOrigin) == originGlobal && r.zone != "" {
				t.Errorf("%s %s, as %s: taken for a copy from global, Kuma's zone sends it as %q", rel, v.Case, r.what, v.Copy)
			}
			if got, ok := c.kdsCopy(kind, obj, kri, true); !ok || got != v.Copy {
				t.Errorf("%s %s, as %s: copy %q (%v), Kuma's is %q", rel, v.Case, r.what, got, ok, v.Copy)
			}
		}
		// The receiver stores the copy under its name with the labels it was sent with; the KRI of
		// each, as an audit lists them, is the one Kuma gives it.
		copied := universalResource{Type: kind, Mesh: sent.Mesh, Name: v.Copy, Labels: v.CopyLabels}
		for _, r := range []struct {
			what string
			u    universalResource
			want string
		}{{"stored", stored, v.KRI}, {"copied", copied, v.CopyKRI}} {
			k, _ := rel.ForUniversal(naming.Universal{Type: r.u.Type, Mesh: r.u.Mesh, Name: r.u.Name, Labels: r.u.Labels})
			if got := k.String(); got != r.want {
				t.Errorf("%s %s, as %s: KRI %s, Kuma's is %s", rel, v.Case, r.what, got, r.want)
			}
		}
		if v.Side != "zone" || !kdsToGlobal[kind] {
			continue
		}
		onGlobal := copied
		for _, r := range []struct {
			what string
			u    universalResource
			zone string
		}{{"sent", sent, zone}, {"stored", stored, ""}, {"global's copy", onGlobal, ""}} {
			if r.what == "stored" && !listedZoneKnown {
				continue
			}
			raw, err := json.Marshal(map[string]any{"type": r.u.Type, "mesh": r.u.Mesh, "name": r.u.Name, "labels": r.u.Labels})
			if err != nil {
				t.Fatal(err)
			}
			u := DefaultConfig().NewUnique(rel)
			if _, err := u.AddUniversal(r.zone, schema.GroupKind{Group: KumaGroup, Kind: kind}, raw); err != nil {
				t.Fatal(err)
			}
			if len(u.kuma) != 1 || u.kuma[0].copy != v.Copy {
				t.Errorf("%s %s, as %s: Unique holds %+v, Kuma's copy is %q", rel, v.Case, r.what, u.kuma, v.Copy)
			}
		}
	}
	if perRelease["2.14"] < 52 || perRelease["3.0"] < 52 {
		t.Errorf("read %v", perRelease)
	}
}

// checkUnsent holds kriguard to v, a resource its zone stores with kuma.io/origin: global and
// sends to no one (2.14): its KRI is the one Kuma stores, and kuma/kds-collision keeps no copy of it,
// as created on the zone or as listed.
func checkUnsent(t *testing.T, rel naming.Release, v universalCopy, zone string) {
	t.Helper()
	nu := naming.Universal{Type: v.Resource.Type, Mesh: v.Resource.Mesh, Name: v.Resource.Name, Labels: v.Resource.Labels}
	k, _ := rel.ForUniversal(nu)
	if got := rel.StoredUniversal(k, nu, zone).String(); got != v.KRI {
		t.Errorf("%s %s: KRI on %s %s, Kuma's is %s", rel, v.Case, zone, got, v.KRI)
	}
	if !rel.KeepsGlobalOrigin(nu, zone) {
		t.Errorf("%s %s: Kuma keeps kuma.io/origin: global and sends it nowhere; kriguard takes it for the zone's own", rel, v.Case)
	}
	stored := v.Resource
	stored.Labels = v.StoredLabels
	for _, r := range []struct {
		u    universalResource
		zone string
	}{{v.Resource, zone}, {stored, ""}} {
		raw, err := json.Marshal(map[string]any{"type": r.u.Type, "mesh": r.u.Mesh, "name": r.u.Name, "labels": r.u.Labels})
		if err != nil {
			t.Fatal(err)
		}
		u := DefaultConfig().NewUnique(rel)
		if _, err := u.AddUniversal(r.zone, schema.GroupKind{Group: KumaGroup, Kind: r.u.Type}, raw); err != nil {
			t.Fatal(err)
		}
		if len(u.kuma) != 0 {
			t.Errorf("%s %s (zone %q): Unique holds %+v, Kuma sends no copy", rel, v.Case, r.zone, u.kuma)
		}
	}
}
