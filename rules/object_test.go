package rules

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/naming"
)

var meshTimeoutGK = schema.GroupKind{Group: "kuma.io", Kind: "MeshTimeout"}

const fastHead = `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout",`

// decodeCases are objects for both decoders; partial says whether decodePartial must take them.
var decodeCases = []struct {
	name    string
	raw     string
	partial bool
}{
	{"plain", fastHead + `"metadata":{"name":"t","namespace":"ns","labels":{"kuma.io/mesh":"m"},"annotations":{}},"spec":{"targetRef":{"kind":"Mesh"}}}`, true},
	{"valid section", fastHead + `"metadata":{"name":"t"},"spec":{"to":[{"targetRef":{"kind":"MeshService","sectionName":"http"}}]}}`, true},
	{"invalid section", fastHead + `"metadata":{"name":"t"},"spec":{"to":[{"targetRef":{"kind":"MeshService","sectionName":"Http_1"}}]}}`, true},
	{"backendRefs", fastHead + `"metadata":{"name":"t"},"spec":{"rules":[{"default":{"backendRefs":[{"sectionName":7},{"sectionName":null}]}}]}}`, true},
	{"origin kri", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{},"status":{"origin":{"kri":"kri_x"}}}`, true},
	{"escaped string", fastHead + `"metadata":{"name":"a\"b","labels":{"k":"v\n"}}}`, true},
	{"invalid UTF-8", fastHead + "\"metadata\":{\"name\":\"a\xffb\",\"labels\":{\"k\":\"\xfe\"}}}", true},
	{"null metadata", fastHead + `"metadata":null}`, true},
	{"owner Mesh", fastHead + `"metadata":{"name":"t","ownerReferences":[{"apiVersion":"kuma.io/v1alpha1","kind":"Mesh","name":"m2","uid":"u"}]}}`, true},
	{"ownerReferences outside metadata", fastHead + `"metadata":{"name":"t"},"spec":{"ownerReferences":[{"apiVersion":"kuma.io/v1alpha1","kind":"Mesh","name":"m2"}]}}`, true},
	{"repeated metadata, owner Mesh first", fastHead + `"metadata":{"ownerReferences":[{"apiVersion":"kuma.io/v1alpha1","kind":"Mesh","name":"m2"}]},"metadata":{"name":"t"}}`, false},
	{"white space", "{ \"apiVersion\" : \"kuma.io/v1alpha1\" ,\n\t\"kind\":\"MeshTimeout\", \"metadata\" : { \"name\" : \"t\" , \"labels\" : { \"a\" : \"b\" } } ,\r\n \"spec\" : { \"targetRef\" : { \"sectionName\" : \"http\" } } }", true},
	{"escaped label keys", fastHead + `"metadata":{"labels":{"a\"b":"c","a\/b":"d","a\u0062":"e","\ud800":"f"}}}`, true},
	{"escaped label keys without \\u", fastHead + `"metadata":{"labels":{"a\"b":"c","a\/b":"d","\t":""}}}`, true},
	{"repeated label key", fastHead + `"metadata":{"labels":{"a":"b","a":"c"}}}`, true},
	{"noted labels", fastHead + `"metadata":{"labels":{"k8s.kuma.io/namespace":"ns","kuma.io/display-name":"d","kuma.io/mesh":"","kuma.io/origin":"global","kuma.io/zone":"z","team":"a"}}}`, true},
	{"noted labels out of order and repeated", fastHead + `"metadata":{"labels":{"kuma.io/zone":"z","kuma.io/mesh":"m","kuma.io/zone":"y","a":"b","kuma.io/mesh":"n"}}}`, true},
	{"escaped noted label keys", fastHead + `"metadata":{"labels":{"kuma.io\/mesh":"m","kuma.io/zon\u0065":"z","kuma.io/origin":"zone"}}}`, true},
	{"many labels out of order", fastHead + `"metadata":{"labels":{` + manyLabels + `}}}`, true},
	{"repeated sectionName", fastHead + `"metadata":{},"spec":{"targetRef":{"sectionName":"Bad_","sectionName":"http"}}}`, true},
	{"nested references", fastHead + `"metadata":{},"spec":{"to":[{"targetRef":{"targetRef":{"sectionName":"X_"}}}],"x":{"backendRefs":[[{"sectionName":"Y_"}],{"sectionName":true}]}}}`, true},
	{"references outside spec", fastHead + `"metadata":{"x":{"targetRef":{"sectionName":"X_"}}},"other":{"targetRef":{"sectionName":"X_"}}}`, true},
	{"repeated name", fastHead + `"metadata":{"name":"a","name":"b"}}`, false},
	{"repeated kind", fastHead + `"kind":"MeshTimeout","metadata":{}}`, false},
	{"trailing garbage", fastHead + `"metadata":{}} x`, false},
	{"no kind", `{"apiVersion":"kuma.io/v1alpha1","metadata":{"name":"t"}}`, false},
	{"other kind", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshRetry","metadata":{"name":"t"}}`, false},
	{"null name", fastHead + `"metadata":{"name":null}}`, false},
	{"number name", fastHead + `"metadata":{"name":7}}`, false},
	{"null labels", fastHead + `"metadata":{"labels":null}}`, false},
	{"null label value", fastHead + `"metadata":{"labels":{"a":null}}}`, false},
	{"list metadata", fastHead + `"metadata":[]}`, false},
	{"repeated metadata", fastHead + `"metadata":{"labels":{"a":"b"}},"metadata":{"name":"t"}}`, false},
	{"repeated labels", fastHead + `"metadata":{"labels":{"a":"b"},"labels":{"c":"d"}}}`, false},
	{"repeated spec", fastHead + `"metadata":{},"spec":{"targetRef":{"sectionName":"X_"}},"spec":{}}`, false},
	{"escaped key", fastHead + `"metadata":{},"spec":{"targetRef":{"section\u004eame":"X_"}}}`, true},
	{"escaped metadata key", fastHead + `"m\u0065tadata":{"name":"a"},"metadata":{"name":"b"}}`, false},
	{"escaped origin kri", fastHead + `"metadata":{},"status":{"origin":{"k\u0072i":7}}}`, true},
	{"missing comma", fastHead + `"metadata":{} "spec":{}}`, false},
	{"trailing comma", fastHead + `"metadata":{"labels":{"a":"b",}}}`, false},
	{"trailing comma in list", fastHead + `"metadata":{},"spec":{"to":[1,]}}`, false},
	{"bad literal", fastHead + `"metadata":{},"spec":{"a":nul}}`, false},
	{"leading zero", fastHead + `"metadata":{},"spec":{"a":01}}`, false},
	{"numbers", fastHead + `"metadata":{},"spec":{"a":[-0,1.5e+10,2E-3,-12.25,0.0]}}`, true},
	{"control character", fastHead + "\"metadata\":{\"name\":\"a\tb\"}}", false},
	{"bad escape", fastHead + `"metadata":{"name":"a\xb"}}`, false},
	{"short unicode escape", fastHead + `"metadata":{"name":"a\u12"}}`, false},
	{"deep", fastHead + `"metadata":{},"spec":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, true},
	{"huge number", fastHead + `"metadata":{},"other":1e999}`, true},
	{"long number", fastHead + `"metadata":{},"other":1` + strings.Repeat("0", 400) + `}`, true},
	{"top-level mesh", fastHead + `"mesh":"custom-mesh","metadata":{"name":"dp"}}`, true},
	{"null mesh", fastHead + `"mesh":null,"metadata":{"name":"dp"}}`, true},
	{"repeated mesh", fastHead + `"mesh":"a","mesh":"b","metadata":{"name":"dp"}}`, false},
	{"NUL then garbage", fastHead + "\"metadata\":{}}\x00garbage", false},
	{"trailing NUL", fastHead + "\"metadata\":{}}\x00", false},
	{"NUL inside", fastHead + "\"metadata\":{}\x00}", false},
	{"second document", fastHead + `"metadata":{}}{}`, false},
	{"trailing white space", fastHead + "\"metadata\":{}} \n\t", true},
	{"case-different keys", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","Kind":"MeshRetry","Metadata":{"name":"x"},"metadata":{"name":"t","Labels":{"a":"b"}}}`, true},
	{"whole spec unread", fastHead + `"metadata":{},"spec":{"ports":[{"name":"Http_1","port":80}],"n":1.5}}`, true},
	{"sectionName as a value", fastHead + `"metadata":{},"spec":{"x":"sectionName","y":["sectionName"],"targetRef":{"sectionName":"Bad_"}}}`, true},
	{"sectionName ending a key", fastHead + `"metadata":{},"spec":{"a\"sectionName":"Bad_","targetRef":{"sectionName" : "http"}}}`, true},
	{"escaped section", fastHead + `"metadata":{},"spec":{"targetRef":{"sectionName":"a\/b"}}}`, true},
	{"empty and null sections", fastHead + `"metadata":{},"spec":{"targetRef":{"sectionName":""},"backendRefs":[{"sectionName":null}]}}`, true},
	{"annotations not read", fastHead + `"metadata":{"annotations":{"a":"b\"c","kuma.io/display-name":"d","e":"\u00e9"}}}`, true},
	{"escaped read annotation", fastHead + `"metadata":{"annotations":{"kriguard.io\/kri":"x","kriguard.io/kri":"y","kuma.io\/display-name":"z"}}}`, true},
	{"only annotations not read", fastHead + `"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"a\":1}\n"}}}`, true},
	{"number annotation", fastHead + `"metadata":{"annotations":{"a":1}}}`, false},
	{"null annotation", fastHead + `"metadata":{"annotations":{"a":null}}}`, false},
	{"bad annotation escape", fastHead + `"metadata":{"annotations":{"a":"\x"}}}`, false},
	{"bad annotation escape, members after", fastHead + `"metadata":{"annotations":{"a":"\x","b":"c"}}}`, false},
	{"bad read annotation escape, members after", fastHead + `"metadata":{"annotations":{"kuma.io/display-name":"\x","b":"c"}}}`, false},
	{"not an object", `[1]`, false},
	{"null", `null`, false},
}

func TestDecodePartial(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodePartial([]byte(tc.raw), meshTimeoutGK, false)
			if (err == nil) != tc.partial {
				t.Errorf("decodePartial took the object: %v (%v), want %v", err == nil, err, tc.partial)
			}
			compareDecoders(t, []byte(tc.raw))
		})
	}
}

// TestDecodeObjectTrailingBytes checks that an object followed by anything but white space is a
// bad request, whichever decoder reads it: a NUL byte does not end the input.
func TestDecodeObjectTrailingBytes(t *testing.T) {
	valid := fastHead + `"metadata":{"name":"t","labels":{"kuma.io/mesh":"m"}},"spec":{"targetRef":{"kind":"Mesh"}}}`
	for _, tail := range []string{"\x00garbage", "\x00", " x", "{}", ",", "\x00" + valid} {
		for _, wholeSpec := range []bool{false, true} {
			raw := runtime.RawExtension{Raw: []byte(valid + tail)}
			if o, err := decodeObject(raw, "object", meshTimeoutGK, wholeSpec); err == nil {
				t.Errorf("%q (wholeSpec %v): decoded as %+v, want an error", tail, wholeSpec, o)
			}
		}
	}
	if _, err := decodeObject(runtime.RawExtension{Raw: []byte(valid + " \n")}, "object", meshTimeoutGK, false); err != nil {
		t.Errorf("trailing white space: %v", err)
	}
}

// FuzzDecodeObject checks that decodePartial, whenever it takes an object, reads it as decodeFull
// does, and that the checks then find the same problems.
func FuzzDecodeObject(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		compareDecoders(t, raw)
	})
}

func compareDecoders(t *testing.T, raw []byte) {
	t.Helper()
	part, err := decodePartial(raw, meshTimeoutGK, false)
	if err != nil {
		return
	}
	if !stdjson.Valid(raw) {
		t.Fatalf("decodePartial took input that is not one JSON value: %q", raw)
	}
	whole, err := decodePartial(raw, meshTimeoutGK, true)
	if err != nil {
		t.Fatalf("decodePartial took the object for target references but not whole: %v", err)
	}
	full, err := decodeFull(raw, "object", meshTimeoutGK, true)
	if err != nil {
		if beyondFloat64(t, raw) {
			return // documented: the API server never sends such a number
		}
		t.Fatalf("decodePartial took an object decodeFull refuses: %v", err)
	}
	for _, f := range []struct {
		name       string
		part, full any
	}{
		{"name", part.name, full.name},
		{"generateName", part.generateName, full.generateName},
		{"namespace", part.namespace, full.namespace},
		{"mesh", part.mesh, full.mesh},
		{"hasLabels", part.hasLabels, full.hasLabels},
		{"hasAnnotations", part.hasAnnotations, full.hasAnnotations},
		{"hasOriginKRI", part.hasOriginKRI, full.hasOriginKRI},
		{"originKRI", part.originKRI, full.originKRI},
		{"whole spec", whole.spec, full.spec},
	} {
		if !reflect.DeepEqual(f.part, f.full) {
			t.Errorf("%s: partial %#v, full %#v", f.name, f.part, f.full)
		}
	}
	if pl, fl := part.GetLabels(), full.GetLabels(); !maps.Equal(pl, fl) || (pl == nil) != (fl == nil) {
		t.Errorf("labels: partial %#v, full %#v", pl, fl)
	}
	labels := labelsOfJSON(t, raw)
	checkLabelSet(t, "partial", &part.labels, labels)
	checkLabelSet(t, "full", &full.labels, labels)
	if !maps.Equal(part.annotations, full.annotations) || (part.annotations == nil) != (full.annotations == nil) {
		t.Errorf("annotations: partial %#v, full %#v", part.annotations, full.annotations)
	}
	partSections, _ := part.refSpecs()
	fullSections, _ := full.refSpecs()
	partErrs, fullErrs := refProblems(partSections), refProblems(fullSections)
	if !reflect.DeepEqual(partErrs, fullErrs) {
		t.Errorf("target reference problems: partial %v, full %v", partErrs, fullErrs)
	}
	for _, o := range []*admitted{part, full} {
		checkSkipped(t, raw, o)
	}
}

var skipConfig = sync.OnceValue(DefaultConfig)

// checkSkipped holds what the rules skip for obj, read from raw, by what it read, to what they find
// when they do not skip it: meshOwnerReferences, which decodes raw again only when the read met
// ownerReferences, and kriValueErrors, which checkWith runs only for an object with a value for it
// (docs/performance.md, "Change 21").
func checkSkipped(t *testing.T, raw []byte, obj *admitted) {
	t.Helper()
	c := skipConfig().forRelease(naming.Kuma3_0)
	g, _ := c.guardFor(meshTimeoutGK)
	kri := naming.KRI{Type: "mtimeout", Mesh: "m1", Name: "n"}
	got := c.meshOwnerReferences(g, &kri, obj, raw, nil)
	all := *obj
	all.ownerRefs = true
	if want := c.meshOwnerReferences(g, &kri, &all, raw, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("meshOwnerReferences: %v with the read's ownerRefs %v, %v without", got, obj.ownerRefs, want)
	}
	if g.kriValues || obj.annotations != nil || obj.hasOriginKRI {
		return
	}
	for _, valid := range []bool{false, true} {
		ck := checked{kri: kri, valid: valid}
		c.kriValueErrors(g, obj, &ck)
		if ck.after != nil || ck.notes != nil {
			t.Errorf("kriValueErrors of an object it is skipped for: %v, %v", ck.after, ck.notes)
		}
	}
}

// manyLabels are more labels than a labelSet walks before it indexes them, out of order and each
// twice.
var manyLabels = func() string {
	var b strings.Builder
	for round := range 2 {
		for i := 40; i > 0; i-- {
			fmt.Fprintf(&b, `"k%d":"v%d-%d",`, i%23, i, round)
		}
	}
	return b.String() + `"kuma.io/mesh":"m"`
}()

// labelsOfJSON returns metadata.labels of raw, an object both decoders took, decoded as the API
// server decodes it: a repeated key keeps its last value.
func labelsOfJSON(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var top map[string]any
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, &top); err != nil {
		t.Fatalf("decoding %q: %v", raw, err)
	}
	md, _ := top["metadata"].(map[string]any)
	l, ok := md["labels"].(map[string]any)
	if !ok {
		return nil
	}
	m := make(map[string]string, len(l))
	for k, v := range l {
		m[k], _ = v.(string)
	}
	return m
}

// checkLabelSet checks that l holds the labels want, each once, and that each label's look-up,
// the noted ones' included, finds what a look-up in want finds.
func checkLabelSet(t *testing.T, which string, l *labelSet, want map[string]string) {
	t.Helper()
	if l.len() != len(want) {
		t.Errorf("%s labels: %d pairs %v, want %d: %v", which, l.len(), l.pairs, len(want), want)
	}
	for _, p := range l.pairs {
		if v, ok := want[p.key]; !ok || v != p.value {
			t.Errorf("%s labels: pair %q=%q, want %q (%v)", which, p.key, p.value, v, ok)
		}
	}
	for n, k := range notedKeys {
		wv, wok := want[k]
		if v, ok := l.noted(n); v != wv || ok != wok {
			t.Errorf("%s labels: noted(%q) = %q, %v; want %q, %v", which, k, v, ok, wv, wok)
		}
	}
	for _, k := range append(slices.Collect(maps.Keys(want)), append(notedKeys[:], "absent", "")...) {
		wv, wok := want[k]
		if v, ok := l.get(k); v != wv || ok != wok {
			t.Errorf("%s labels: get(%q) = %q, %v; want %q, %v", which, k, v, ok, wv, wok)
		}
	}
}

// beyondFloat64 reports whether raw is valid JSON holding a number that does not fit a float64.
func beyondFloat64(t *testing.T, raw []byte) bool {
	t.Helper()
	d := stdjson.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return false
	}
	var huge func(v any) bool
	huge = func(v any) bool {
		switch v := v.(type) {
		case stdjson.Number:
			_, err := strconv.ParseFloat(string(v), 64)
			return err != nil
		case map[string]any:
			for _, c := range v {
				if huge(c) {
					return true
				}
			}
		case []any:
			for _, c := range v {
				if huge(c) {
					return true
				}
			}
		}
		return false
	}
	return huge(v)
}

// BenchmarkDecodeObject decodes the benchmark MeshTimeout (a valid section name in spec) both ways in
// turn and reports the full decode's time over the partial one's: what decodePartial saves per object.
func BenchmarkDecodeObject(b *testing.B) {
	raw := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"timeout-backend",` +
		`"namespace":"kuma-system","labels":{"kuma.io/mesh":"mesh-1"}},"spec":{"targetRef":{"kind":"Mesh"},` +
		`"to":[{"targetRef":{"kind":"MeshService","sectionName":"http"},"default":{"connectionTimeout":"5s",` +
		`"idleTimeout":"1h","http":{"requestTimeout":"15s"}}}]}}`)
	var partial, full time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := decodePartial(raw, meshTimeoutGK, false); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := decodeFull(raw, "object", meshTimeoutGK, false); err != nil {
			b.Fatal(err)
		}
		partial, full = partial+mid.Sub(start), full+time.Since(mid)
	}
	b.ReportMetric(full.Seconds()/partial.Seconds(), "full/partial")
}

// BenchmarkDecodePartial is the partial decode of webhook's benchmark MeshTimeout (one label, a
// valid section name in spec) as the validating webhook asks it: what hack/bench-stages.sh's judge
// stage spends on the object, counted alone (docs/performance.md); then the same object as
// kubectl apply sends it, with its last-applied-configuration annotation.
func BenchmarkDecodePartial(b *testing.B) {
	object := `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{%s"labels":{"kuma.io/mesh":"mesh-1"},` +
		`"name":"timeout-backend","namespace":"kuma-system"},"spec":{"targetRef":{"kind":"Mesh"},"to":[{"default":` +
		`{"connectionTimeout":"5s","http":{"requestTimeout":"15s"},"idleTimeout":"1h"},"targetRef":{"kind":"MeshService",` +
		`"sectionName":"http"}}]}}`
	applied, err := stdjson.Marshal(fmt.Sprintf(object, "") + "\n")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, metadata string }{
		{"plain", ""},
		{"kubectl-applied", `"annotations":{"kubectl.kubernetes.io/last-applied-configuration":` + string(applied) + `},`},
	} {
		raw := []byte(fmt.Sprintf(object, c.metadata))
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodePartialRefs(raw, meshTimeoutGK, false, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadObjectIn is the read of BenchmarkDecodePartial's object as the validating webhook
// reads it, in the review's pass into its ReadSpace, expecting the request's name and namespace or
// not; then the same object in the namespace kuma-demo, which is no known string.
func BenchmarkReadObjectIn(b *testing.B) {
	object := `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"labels":{"kuma.io/mesh":"mesh-1"},` +
		`"name":"timeout-backend","namespace":"%s"},"spec":{"targetRef":{"kind":"Mesh"},"to":[{"default":` +
		`{"connectionTimeout":"5s","http":{"requestTimeout":"15s"},"idleTimeout":"1h"},"targetRef":{"kind":"MeshService",` +
		`"sectionName":"http"}}]}}`
	c := DefaultConfig()
	for _, namespace := range []string{DefaultSystemNamespace, "kuma-demo"} {
		raw := []byte(fmt.Sprintf(object, namespace))
		for _, expect := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/expect=%v", namespace, expect), func(b *testing.B) {
				b.ReportAllocs()
				var space ReadSpace
				var s jsonscan.Scanner
				var read Read
				name, ns := strings.Clone("timeout-backend"), strings.Clone(namespace)
				for b.Loop() {
					if expect {
						space.Expect(name, ns)
					}
					s.Reset(raw)
					if _, ok := c.ReadObjectIn(&s, raw, meshTimeoutGK, Validate, &read, &space); !ok {
						b.Fatal("not read")
					}
				}
			})
		}
	}
}

// refProblems is every target-reference problem of spec.
func refProblems(spec []byte) field.ErrorList {
	w := &refWalk{ctx: context.Background(), limit: -1}
	w.walkSpec(spec)
	return w.errs
}

// FuzzSpecHolds holds specHolds to what the reference checks find: a spec it does not return as
// sections has no section-name problem for refWalk, and one it does not return as refs no
// reference by name or of a removed kind for refsFor, under any release.
func FuzzSpecHolds(f *testing.F) {
	for _, s := range []string{
		`{"targetRef":{"kind":"MeshService","sectionName":"Bad_Port"}}`,
		`{"to":[{"targetRef":{"kind":"MeshService","name":"backend","namespace":"ns"}}]}`,
		`{"to":[{"targetRef":{"kind":"MeshServiceSubset","tags":{"a":"b"}}}]}`,
		`{"rules":[{"default":{"backendRefs":[{"kind":"MeshService","name":"b","sectionName":"_"}]}}]}`,
		`{"targetRef":{"kind":"Mesh","\u0073ectionName":"x_"}}`,
		`{"targetRef":{"kind":"Mesh","sectionName\\":"x_"}}`,
		`{"a":"\"sectionName\"","targetRef":{"name":"x"}}`,
		`null`, `[]`, `"name"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, spec []byte) {
		if !stdjson.Valid(spec) {
			return
		}
		sections, refs := specHolds(spec)
		if sections == nil {
			if errs := refProblems(spec); len(errs) > 0 {
				t.Errorf("specHolds(%s) returned no sections, but refWalk finds %v", spec, errs)
			}
		}
		if refs != nil {
			return
		}
		for _, rel := range naming.Releases() {
			if !rel.RefsByLabelsOnly() {
				continue
			}
			c := DefaultConfig().forRelease(rel)
			g := &guard{gk: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, kri: true}
			with := &admitted{rawSpec: spec, sections: spec, refs: spec, scanned: true}
			if errs, notes := c.refsFor(g, with); len(errs)+len(notes) > 0 {
				t.Errorf("specHolds(%s) returned no refs, but refsFor under %s finds %v %v", spec, rel, errs, notes)
			}
		}
	})
}
