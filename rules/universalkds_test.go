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
}

func readUniversalCopies(t *testing.T) []universalCopy {
	t.Helper()
	f, err := os.Open("testdata/universal/kds-copies.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []universalCopy
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var v universalCopy
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
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
		for _, r := range []struct {
			what string
			u    universalResource
			zone string
		}{{"sent", sent, zone}, {"stored", stored, ""}} {
			nu := naming.Universal{Type: r.u.Type, Mesh: r.u.Mesh, Name: r.u.Name, Labels: r.u.Labels}
			kri, _ := rel.ForUniversal(nu)
			kri = rel.StoredUniversal(kri, nu, r.zone)
			obj := &admitted{name: r.u.Name, mesh: r.u.Mesh, labels: r.u.Labels}
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
	if perRelease["2.14"] < 46 || perRelease["3.0"] < 46 {
		t.Errorf("read %v", perRelease)
	}
}
