package rules

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/jsonscan"
)

// TestReadObjectIn reads every object of TestDecideSameAsBefore's data into one ReadSpace, one
// after the other, as the webhook reuses none but could: each reads as ReadObject reads it into an
// allocation of its own, with nothing left of the object the space held before.
func TestReadObjectIn(t *testing.T) {
	c := DefaultConfig()
	var space ReadSpace
	read := 0
	for _, obj := range samePathInputs(t) {
		kind := kindOf(obj)
		if kind == "" {
			kind = "MeshTimeout"
		}
		gk := schema.GroupKind{Group: groupOf(c, kind), Kind: kind}
		for _, phase := range []Phase{Validate, Mutate} {
			var want, got Read
			wantRaw, wantOK := readOnce(c, obj, gk, phase, &want, nil)
			gotRaw, gotOK := readOnce(c, obj, gk, phase, &got, &space)
			if gotOK != wantOK || string(gotRaw) != string(wantRaw) {
				t.Fatalf("%v %v: ReadObjectIn: %v %q, ReadObject: %v %q", gk, phase, gotOK, gotRaw, wantOK, wantRaw)
			}
			if !wantOK {
				continue
			}
			read++
			if got.obj != &space.obj {
				t.Fatalf("%v %v: the object was not read into the space", gk, phase)
			}
			w, g := want, got
			w.obj, g.obj = nil, nil
			if g != w || !reflect.DeepEqual(got.obj, want.obj) {
				t.Fatalf("%v %v: ReadObjectIn read\n%#v\n%#v\nReadObject\n%#v\n%#v", gk, phase, g, got.obj, w, want.obj)
			}
		}
	}
	if read == 0 {
		t.Fatal("no object read")
	}
}

// readOnce reads obj, the whole document, with ReadObjectIn.
func readOnce(c *Config, obj []byte, gk schema.GroupKind, phase Phase, read *Read, space *ReadSpace) ([]byte, bool) {
	var s jsonscan.Scanner
	s.Reset(obj)
	raw, ok := c.ReadObjectIn(&s, obj, gk, phase, read, space)
	return raw, ok && s.End()
}
