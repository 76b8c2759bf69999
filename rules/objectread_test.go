package rules

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/naming"
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
	if read.g.gk != gk || read.g.wholeSpec != g.wholeSpec || read.refs != (phase == Validate && specInDecode) {
		t.Fatalf("%v: read for %v, wholeSpec %v, refs %v", gk, read.g.gk, read.g.wholeSpec, read.refs)
	}
	// Read into a space expecting a name and namespace, the object's or others, it reads the same.
	var in []*admitted
	for _, expect := range []expected{{wantObj.name, wantObj.namespace}, {wantObj.name + "x", ""}, {"a", "kuma-system"}} {
		var space ReadSpace
		space.Expect(expect.name, expect.namespace)
		var r Read
		at := doc[len(`{"a":[1,{"b":"c"}],"object":`):]
		s.Reset(at)
		if _, ok := c.ReadObjectIn(&s, at, gk, phase, &r, &space); !ok {
			t.Fatalf("%v: ReadObjectIn expecting %q did not read the object ReadObject reads", gk, expect)
		}
		in = append(in, r.obj)
	}
	// What was read must not be the document's bytes, which the webhook reuses.
	clear(doc)
	if !reflect.DeepEqual(read.obj, wantObj) {
		t.Fatalf("%v: ReadObject read\n%#v\ndecodePartial\n%#v", gk, read.obj, wantObj)
	}
	for _, o := range in {
		if !reflect.DeepEqual(o, wantObj) {
			t.Fatalf("%v: ReadObjectIn expecting a name read\n%#v\ndecodePartial\n%#v", gk, o, wantObj)
		}
	}
}

// readIn reads obj as the webhook does, in a pass over a review holding it, for a decision of
// phase, and returns the bytes the review's object spans, with what ReadObject read of them (nil:
// it left them to the decision); ok is false when the review is not JSON.
func readIn(t *testing.T, c *Config, obj []byte, gk schema.GroupKind, phase Phase) (raw []byte, read *Read, ok bool) {
	t.Helper()
	doc := append(append([]byte(`{"request":{"object":`), obj...), `}}`...)
	var s jsonscan.Scanner
	s.Reset(doc)
	ok = s.Object(false, func([]byte) bool {
		return s.Object(false, func([]byte) bool {
			var r Read
			v, ok := c.ReadObject(&s, doc, gk, phase, &r)
			if !ok {
				raw, ok = s.Value()
				return ok
			}
			raw, read = v, &r
			return true
		})
	}) && s.End()
	return raw, read, ok
}

// TestDecideWithObjectsRead decides every object of TestDecideSameAsBefore's data, as a CREATE and
// as an UPDATE, under every release and the modes, with its objects read by ReadObject and from
// their bytes: the decisions are the same.
func TestDecideWithObjectsRead(t *testing.T) {
	c := DefaultConfig()
	objects := samePathInputs(t)
	read := 0
	for i, obj := range objects {
		old := obj
		if i > 0 {
			old = objects[i-1]
		}
		kind := kindOf(obj)
		if kind == "" {
			kind = "MeshTimeout"
		}
		gk := schema.GroupKind{Group: groupOf(c, kind), Kind: kind}
		for _, rel := range naming.Releases() {
			for _, r := range []Request{
				{Phase: Mutate, Kind: gk, Operation: admissionv1.Create, Object: obj, Release: rel, RecordKRI: RecordKRIAdmission},
				{Phase: Validate, Kind: gk, Operation: admissionv1.Create, Object: obj, Release: rel},
				{Phase: Validate, Kind: gk, Operation: admissionv1.Update, Object: obj, OldObject: old, Release: rel, Mode: ModeGlobal, MaxErrors: 1},
			} {
				var ok, oldOK bool
				var objRead, oldRead *Read
				r.Object, objRead, ok = readIn(t, c, obj, gk, r.Phase)
				if r.OldObject != nil {
					r.OldObject, oldRead, oldOK = readIn(t, c, old, gk, r.Phase)
					ok = ok && oldOK
				}
				if !ok {
					continue // no review holds it
				}
				want, wantErr := c.Decide(context.Background(), r)
				r.ObjectRead, r.OldObjectRead = objRead, oldRead
				if objRead != nil {
					read++
				}
				got, gotErr := c.Decide(context.Background(), r)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: with the objects read: %v\n%#v\nfrom their bytes: %v\n%#v", describeRequest(r), gotErr, got, wantErr, want)
				}
			}
		}
	}
	if read < len(objects) {
		t.Errorf("only %d objects read of %d decided three ways", read, len(objects))
	}
}
