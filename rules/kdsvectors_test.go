package rules

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// The copy name of each object of testdata/kds-copies.jsonl is the one the KDS mappers of its
// release gave it (testdata/README.md): the name kuma/kds-copy judges, and for a zone's object the
// one kuma/kds-collision compares.
func TestKDSCopyVectors(t *testing.T) {
	f, err := os.Open("testdata/kds-copies.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perRelease := map[string]int{}
	for s := bufio.NewScanner(f); s.Scan(); {
		var v struct {
			Release, Case, Side, Copy string
			Object                    json.RawMessage
		}
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		rel, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatal(err)
		}
		perRelease[v.Release]++
		var head struct{ Kind string }
		if err := json.Unmarshal(v.Object, &head); err != nil {
			t.Fatal(err)
		}
		gk := schema.GroupKind{Group: KumaGroup, Kind: head.Kind}
		c := DefaultConfig().forRelease(rel)
		obj, err := decodeObject(runtime.RawExtension{Raw: v.Object}, "object", gk, false)
		if err != nil {
			t.Fatalf("%s %s: %v", rel, v.Case, err)
		}
		kri, _ := c.registry.ForObject(obj, head.Kind)
		if got, ok := c.kdsCopy(head.Kind, obj, kri, false); !ok || got != v.Copy {
			t.Errorf("%s %s: copy %q (%v), Kuma's is %q", rel, v.Case, got, ok, v.Copy)
		}
		if v.Side != "zone" || !kdsToGlobal[head.Kind] {
			continue
		}
		u := DefaultConfig().NewUnique(rel)
		if _, err := u.Add("zone-1", gk, v.Object); err != nil {
			t.Fatal(err)
		}
		if len(u.kuma) != 1 || u.kuma[0].copy != v.Copy {
			t.Errorf("%s %s: Unique holds %+v, Kuma's copy is %q", rel, v.Case, u.kuma, v.Copy)
		}
	}
	if perRelease["2.14"] < 70 || perRelease["3.0"] < 48 {
		t.Errorf("read %v", perRelease)
	}
}
