package rules

import (
	"bytes"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/jsonscan"
)

// readKinds are kinds ReadObject is tried with: a Kuma kind whose spec is scanned for references,
// one whose spec the rules decode whole, a Kong kind, and one no configuration guards.
var readKinds = []schema.GroupKind{
	meshTimeoutGK,
	{Group: KumaGroup, Kind: "MeshProxyPatch"},
	{Group: KongGroup, Kind: "KongPlugin"},
	{Group: "example.com", Kind: "Other"},
}

// FuzzReadObject holds Config.ReadObject, the object read in the pass of a scanner over the
// document holding it, to decodePartial of the bytes it spans: the same span as Value's, the same
// object read, or, when decodePartial is unsure, nothing read and the scanner where it was.
func FuzzReadObject(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.raw))
	}
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"a","labels":{"kuma.io/mesh":"m"}},"spec":{"targetRef":{"kind":"MeshService","name":"x","sectionName":"Bad!"}},"status":{"origin":{"kri":"x"}}}`))
	f.Add([]byte(` {"kind":"KongPlugin","apiVersion":"configuration.konghq.com/v1","metadata":{"name":"p"},"plugin":"x","spec":{"a":[1,2]}} `))
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshProxyPatch","metadata":{"name":"a"},"spec":{"default":{"appendModifications":[]}}}`))
	f.Add([]byte(`{"kind":"MeshTimeout","kind":"MeshTimeout"}`))
	f.Add([]byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout"} x`))
	f.Add([]byte(`[1]`))
	c := DefaultConfig()
	f.Fuzz(func(t *testing.T, obj []byte) {
		for _, gk := range readKinds {
			for _, phase := range []Phase{Validate, Mutate} {
				checkReadObject(t, c, obj, gk, phase)
			}
		}
	})
}

func checkReadObject(t *testing.T, c *Config, obj []byte, gk schema.GroupKind, phase Phase) {
	t.Helper()
	doc := append(append([]byte(`{"a":[1,{"b":"c"}],"object": `), obj...), `,"z":true}`...)
	// As the webhook read it before: the object's bytes by Value.
	var want []byte
	var plain jsonscan.Scanner
	plain.Reset(doc)
	plainOK := plain.Object(false, func(key []byte) bool {
		v, ok := plain.Value()
		if string(key) == `"object"` {
			want = v
		}
		return ok
	}) && plain.End()

	var got []byte
	var read *Read
	var s jsonscan.Scanner
	s.Reset(doc)
	readOK := s.Object(false, func(key []byte) bool {
		if string(key) != `"object"` {
			_, ok := s.Value()
			return ok
		}
		at := s.Pos()
		var r Read
		raw, ok := c.ReadObject(&s, doc, gk, phase, &r)
		if ok {
			got, read = raw, &r
			return true
		}
		if r != (Read{}) {
			t.Fatalf("%v: ReadObject refused the object and read %+v", gk, r)
		}
		if s.Pos() != at {
			t.Fatalf("%v: ReadObject refused the object and moved the scanner from %d to %d", gk, at, s.Pos())
		}
		v, ok := s.Value()
		got = v
		return ok
	}) && s.End()
	if readOK != plainOK {
		t.Fatalf("%v: the document read with ReadObject: %v, with Value: %v", gk, readOK, plainOK)
	}
	if !readOK {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%v: ReadObject spans %q, Value %q", gk, got, want)
	}
	want = bytes.Clone(want)
	g, guarded := c.guardFor(gk)
	wantObj, err := decodePartialRefs(want, gk, guarded && g.wholeSpec, phase == Validate && specInDecode)
	if !guarded || err != nil {
		if read != nil {
			t.Fatalf("%v: ReadObject read an object decodePartial does not (%v): %q", gk, err, want)
		}
		return
	}
	if read == nil {
		t.Fatalf("%v: ReadObject did not read an object decodePartial reads: %q", gk, want)
	}
	if read.gk != gk || read.wholeSpec != g.wholeSpec || read.refs != (phase == Validate && specInDecode) {
		t.Fatalf("%v: read for %v, wholeSpec %v, refs %v", gk, read.gk, read.wholeSpec, read.refs)
	}
	// What was read must not be the document's bytes, which the webhook reuses.
	clear(doc)
	if !reflect.DeepEqual(read.obj, wantObj) {
		t.Fatalf("%v: ReadObject read\n%#v\ndecodePartial\n%#v", gk, read.obj, wantObj)
	}
}
