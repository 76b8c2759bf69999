package rules

import (
	"bufio"
	"context"
	stdjson "encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/naming"
)

// The differential test of the decision's one pass over the object (specScan, docs/performance.md):
// every object of the package's test data and fuzz corpora, and the webhook's, is decided both ways,
// the object read in one pass (specInDecode) and as before (decodePartial, then specHolds at the
// first refSpecs), under every release, phase, operation and mode; the decisions must be the same,
// finding for finding and patch for patch.

// samePathSpecs are specs for the kinds specKinds, besides those of the corpora: every shape of
// target reference and section name the walk and refsFor look at.
var samePathSpecs = []string{
	`{"targetRef":{"kind":"Mesh"}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":"Bad_Port"}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":"http"}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":""}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":null}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":8080}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":{"a":"http"}}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":["http"]}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":"http\u005f"}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":"ht\/tp"}}`,
	`{"targetRef":{"kind":"MeshService","section\u004eame":"X_"}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":"` + strings.Repeat("a", 64) + `"}}`,
	`{"to":[{"targetRef":{"kind":"MeshService","name":"backend","namespace":"ns","sectionName":"http"}}]}`,
	`{"to":[{"targetRef":{"kind":"MeshServiceSubset","tags":{"a":"b"}}}]}`,
	`{"from":[{"targetRef":{"kind":"MeshSubset","tags":{"kuma.io/zone":"z"}}}],"to":[{"targetRef":{"kind":"MeshGateway","name":"gw"}}]}`,
	`{"rules":[{"default":{"backendRefs":[{"kind":"MeshService","name":"b","sectionName":"_"},{"sectionName":null},{"sectionName":7}]}}]}`,
	`{"rules":[{"default":{"backendRefs":[{"kind":"MeshService","labels":{"a":"b"},"sectionName":"grpc"}]}}]}`,
	`{"a":"\"sectionName\"","targetRef":{"name":"x"}}`,
	`{"sectionName":"Bad_","x":{"sectionName":"Also_Bad"}}`,
	`{"targetRef":{"kind":"MeshService","sectionName":"Bad_","sectionName":"http"}}`,
	`{"ports":[{"port":80,"name":"http","appProtocol":"http"},{"port":8080,"name":"Bad_"}]}`,
	`{"default":{"appendModifications":[{"cluster":{"operation":"Add","match":{"name":"outbound:backend"}}}]}}`,
	`null`, `[]`, `"name"`, `{}`,
}

// specKinds are the kinds the specs are decided for: a policy, a route, a kind with ports and a
// whole-spec kind.
var specKinds = []string{"MeshTimeout", "MeshHTTPRoute", "MeshService", "MeshProxyPatch"}

// samePathObject wraps spec as the spec of an object of kind.
func samePathObject(kind, spec string) []byte {
	return []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"name":"backend","namespace":"kuma-demo",` +
		`"labels":{"kuma.io/mesh":"default"}},"spec":` + spec + `}`)
}

// samePathInputs returns the objects of the differential test: the decode cases, the KDS vectors,
// the objects of the webhook's review corpus, and every spec (the specs above, the corpora's) as the
// spec of each of specKinds.
func samePathInputs(t testing.TB) [][]byte {
	t.Helper()
	var objects [][]byte
	for _, c := range decodeCases {
		objects = append(objects, []byte(c.raw))
	}
	// The name KDS gives a global object's copy (kuma/kds-squat), in the system namespace and not,
	// copied from global and not.
	for _, ns := range []string{"kuma-system", "kuma-demo"} {
		for _, labels := range []string{"", `,"kuma.io/origin":"global"`} {
			objects = append(objects, []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"mesh-timeout-all-default-w4dzbd54v9x64485","namespace":"`+ns+`","labels":{"kuma.io/mesh":"default"`+labels+`}}}`))
		}
	}
	f, err := os.Open("testdata/kds-copies.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v struct {
			Object stdjson.RawMessage `json:"object"`
		}
		if err := stdjson.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, v.Object)
	}
	specs := append([]string(nil), samePathSpecs...)
	for _, dir := range []string{"FuzzDecodeObject", "FuzzRefWalk", "FuzzSpecHolds", "FuzzDecideSameAsBefore"} {
		for _, in := range corpusBytes(t, filepath.Join("testdata", "fuzz", dir)) {
			if kindOf(in) != "" {
				objects = append(objects, in)
			} else if stdjson.Valid(in) {
				specs = append(specs, string(in))
			}
		}
	}
	for _, in := range corpusBytes(t, filepath.Join("..", "webhook", "testdata", "fuzz", "FuzzDecodeReview")) {
		var review struct {
			Request *struct {
				Object, OldObject stdjson.RawMessage
			}
		}
		if stdjson.Unmarshal(in, &review) == nil && review.Request != nil {
			for _, o := range []stdjson.RawMessage{review.Request.Object, review.Request.OldObject} {
				if len(o) > 0 {
					objects = append(objects, o)
				}
			}
		}
	}
	for _, s := range specs {
		for _, k := range specKinds {
			objects = append(objects, samePathObject(k, s))
		}
	}
	return objects
}

// corpusBytes returns the first []byte value of each file of a fuzz corpus directory, none when
// there is no such directory.
func corpusBytes(t testing.TB, dir string) [][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			lit, ok := strings.CutPrefix(line, "[]byte(")
			if !ok {
				continue
			}
			s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
			if err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			out = append(out, []byte(s))
			break
		}
	}
	return out
}

// kindOf is the kind an object says it is, "" when it is not an object with one.
func kindOf(raw []byte) string {
	var v struct {
		Kind string `json:"kind"`
	}
	if stdjson.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v.Kind
}

// groupOf is the group of a kind the default configuration guards, Kuma's for any other.
func groupOf(c *Config, kind string) string {
	if gs := c.guards[kind]; len(gs) > 0 {
		return gs[0].gk.Group
	}
	return KumaGroup
}

// decideBoth decides r with the object read in one pass and as before, and reports the first
// difference.
func decideBoth(t *testing.T, c *Config, r Request) {
	t.Helper()
	defer func() { specInDecode, skipUnfound = true, true }()
	specInDecode, skipUnfound = false, false
	before, beforeErr := c.Decide(context.Background(), r)
	specInDecode, skipUnfound = true, true
	now, nowErr := c.Decide(context.Background(), r)
	if (beforeErr == nil) != (nowErr == nil) || beforeErr != nil && beforeErr.Error() != nowErr.Error() {
		t.Fatalf("%s: error %v, before %v", describeRequest(r), nowErr, beforeErr)
	}
	for _, d := range []struct {
		what        string
		now, before any
	}{
		{"guarded", now.Guarded, before.Guarded},
		{"outcome", now.Outcome, before.Outcome},
		{"allowed", now.Allowed, before.Allowed},
		{"enforcement", now.Enforcement, before.Enforcement},
		{"override", now.Override, before.Override},
		{"object", now.Object, before.Object},
		{"KRI", now.KRI(), before.KRI()},
		{"KRI valid", now.KRIValid, before.KRIValid},
		{"patch", now.Patch, before.Patch},
		{"errors", now.Errors(), before.Errors()},
		{"pre-existing", now.PreExisting(), before.PreExisting()},
		{"notes", now.Notes(), before.Notes()},
		{"findings", now.Findings(), before.Findings()},
	} {
		if !reflect.DeepEqual(d.now, d.before) {
			t.Fatalf("%s: %s\n now    %#v\n before %#v", describeRequest(r), d.what, d.now, d.before)
		}
	}
}

func describeRequest(r Request) string {
	return r.Kind.Kind + " " + string(r.Operation) + " phase " + strconv.Itoa(int(r.Phase)) + " release " + r.Release.String() +
		" mode " + string(r.Mode) + " max " + strconv.Itoa(r.MaxErrors) + ": " + boundForLog(r.Object) + " old " + boundForLog(r.OldObject)
}

func boundForLog(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// decideAllWays decides obj, against old on UPDATE, under every release, phase, operation, mode,
// requester and cap on built problems, both ways.
func decideAllWays(t *testing.T, c *Config, obj, old []byte) {
	t.Helper()
	kind := kindOf(obj)
	if kind == "" {
		kind = "MeshTimeout"
	}
	gk := schema.GroupKind{Group: groupOf(c, kind), Kind: kind}
	for _, rel := range naming.Releases() {
		decideBoth(t, c, Request{Phase: Mutate, Kind: gk, Operation: admissionv1.Create, Object: obj, Release: rel})
		decideBoth(t, c, Request{Phase: Admit, Kind: gk, Operation: admissionv1.Create, Object: obj, Release: rel})
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
			// The mode and the requester change what the rules after the walk look at; the cap
			// changes how many of the walk's problems are built.
			for _, v := range []struct {
				mode      Mode
				user      string
				maxErrors int
			}{{"", "alice", 0}, {ModeGlobal, "alice", 1}, {ModeZone, KumaControlPlaneUser, 0}} {
				r := Request{Phase: Validate, Kind: gk, Operation: op, Object: obj, User: v.user,
					Release: rel, Mode: v.mode, MaxErrors: v.maxErrors, MaxWarnings: v.maxErrors}
				if op == admissionv1.Update {
					r.OldObject = old
				}
				decideBoth(t, c, r)
			}
		}
	}
}

// TestDecideSameAsBefore decides every object of the test data and corpora both ways, each as a
// CREATE and as an UPDATE of itself and of the object before it.
func TestDecideSameAsBefore(t *testing.T) {
	c := DefaultConfig()
	objects := samePathInputs(t)
	if len(objects) < 100 {
		t.Fatalf("only %d objects: the test data is missing", len(objects))
	}
	for i, obj := range objects {
		decideAllWays(t, c, obj, obj)
		if i > 0 {
			decideAllWays(t, c, obj, objects[i-1])
		}
	}
}

// FuzzDecideSameAsBefore decides any object both ways, as a CREATE and as an UPDATE of itself and
// of an object with a section-name problem; input that is not an object with a kind is taken as a
// spec of each of specKinds.
func FuzzDecideSameAsBefore(f *testing.F) {
	// The test data and corpora are TestDecideSameAsBefore's; these seed the fuzzer.
	for _, s := range samePathSpecs[:8] {
		f.Add(samePathObject("MeshTimeout", s))
	}
	f.Add([]byte(`{"to":[{"targetRef":{"kind":"MeshService","name":"b","sectionName":"x_"}}]}`))
	c := DefaultConfig()
	bad := samePathObject("MeshTimeout", `{"targetRef":{"kind":"MeshService","sectionName":"Bad_Port"}}`)
	f.Fuzz(func(t *testing.T, in []byte) {
		objects := [][]byte{in}
		if kindOf(in) == "" {
			if !stdjson.Valid(in) {
				return
			}
			objects = objects[:0]
			for _, k := range specKinds {
				objects = append(objects, samePathObject(k, string(in)))
			}
		}
		for _, obj := range objects {
			decideAllWays(t, c, obj, obj)
			decideAllWays(t, c, obj, bad)
		}
	})
}

// TestSpecWord holds specScan.str to the strings it is read for: a key or a value that is one sets
// what it says, any other string sets nothing. The strings are each word, and every string of its
// length or one more or less whose first or last byte is another printable one, or whose one byte
// is (the strings jsonscan.Strings may pass it).
func TestSpecWord(t *testing.T) {
	check := func(w string) {
		for _, key := range []bool{true, false} {
			doc := `["` + w + `"]`
			if key {
				doc = `{"` + w + `":1}`
			}
			var s jsonscan.Scanner
			s.Reset([]byte(doc))
			h := specScan{s: &s}
			if _, ok := s.ValueStrings(nil, h.str); !ok {
				t.Fatalf("%s: not read", doc)
			}
			want := specFound{
				refKey: w == "targetRef" || w == "backendRefs" || w == "backendRef",
				byName: w == "name" || w == "namespace" || removedRefKinds[w],
				// sectionName's value 1 is a problem: not a string
				sectionProblem: key && w == "sectionName",
			}
			if h.specFound != want {
				t.Errorf("%s: found %+v; want %+v", doc, h.specFound, want)
			}
		}
	}
	check("")
	for _, w := range append([]string{"sectionName", "targetRef", "backendRefs", "backendRef", "name", "namespace"}, removedRefKindList...) {
		for _, v := range []string{w, w[1:], w + "s", w[:len(w)-1]} {
			check(v)
			for c := byte(' '); c <= '~'; c++ {
				if c == '"' || c == '\\' {
					continue
				}
				check(string([]byte{c}) + v[min(1, len(v)):])
				check(v[:max(len(v)-1, 0)] + string([]byte{c}))
				check(string([]byte{c}))
			}
		}
	}
}

// TestIsKind holds isKind, which reads apiVersion and kind from their literals, to the strings they
// hold and schema.ParseGroupVersion.
func TestIsKind(t *testing.T) {
	gk := schema.GroupKind{Group: "kuma.io", Kind: "MeshTimeout"}
	core := schema.GroupKind{Kind: "ConfigMap"}
	for _, c := range []struct {
		kind, apiVersion string
		gk               schema.GroupKind
		want             bool
	}{
		{`"MeshTimeout"`, `"kuma.io/v1alpha1"`, gk, true},
		{`"Mesh\u0054imeout"`, `"kuma.io\/v1alpha1"`, gk, true},
		{`"MeshTimeout"`, `"kuma.io"`, gk, false},
		{`"MeshTimeout"`, `"kuma.io/v1/x"`, gk, false},
		{`"MeshTimeout"`, `""`, gk, false},
		{`"MeshTimeout"`, `"/"`, gk, false},
		{`"MeshTimeouts"`, `"kuma.io/v1alpha1"`, gk, false},
		{`"meshtimeout"`, `"kuma.io/v1alpha1"`, gk, false},
		{`"MeshTimeout"`, `"other.io/v1alpha1"`, gk, false},
		{`"ConfigMap"`, `"v1"`, core, true},
		{`"ConfigMap"`, `"/"`, core, true},
		{`"ConfigMap"`, `"/v1"`, core, true},
		{`"ConfigMap"`, `"\u00ff/v1"`, core, false},
		{"\"Mesh\xffTimeout\"", `"kuma.io/v1"`, gk, false},
		{`"MeshTimeout"`, `"kuma.io/v1é"`, gk, true},
		{`"MeshTimeout"`, "\"kuma.io/v\xff\"", gk, true},
		{`"MeshTimeout"`, "\"kum\xff.io/v1\"", gk, false},
		{`"MeshTimeout"`, `"kuma.io/v1/é"`, gk, false},
		{``, `"kuma.io/v1alpha1"`, gk, false},
		{`"MeshTimeout"`, ``, gk, false},
		{`null`, `"kuma.io/v1alpha1"`, gk, false},
		{`"MeshTimeout"`, `null`, gk, false},
		{`""`, `"v1"`, schema.GroupKind{}, true},
		{`""`, `null`, schema.GroupKind{}, false},
	} {
		var kind, apiVersion []byte
		if c.kind != "" {
			kind = []byte(c.kind)
		}
		if c.apiVersion != "" {
			apiVersion = []byte(c.apiVersion)
		}
		// What decodePartial read before: the strings, then ParseGroupVersion.
		var ks, vs string
		_ = stdjson.Unmarshal(kind, &ks)
		_ = stdjson.Unmarshal(apiVersion, &vs)
		gv, err := schema.ParseGroupVersion(vs)
		before := ks == c.gk.Kind && vs != "" && err == nil && gv.Group == c.gk.Group
		if got := readsAsKind(t, kind, apiVersion, c.gk); got != c.want || got != before {
			t.Errorf("isKind(%s, %s, %v) = %v, want %v (the strings: %v)", c.kind, c.apiVersion, c.gk, got, c.want, before)
		}
	}
}

// readsAsKind reports whether decodePartial reads the literals kind and apiVersion (nil: absent) as of
// the kind gk.
func readsAsKind(t *testing.T, kind, apiVersion []byte, gk schema.GroupKind) bool {
	t.Helper()
	raw := []byte(`{"metadata":{}`)
	if kind != nil {
		raw = append(append(raw, `,"kind":`...), kind...)
	}
	if apiVersion != nil {
		raw = append(append(raw, `,"apiVersion":`...), apiVersion...)
	}
	_, err := decodePartial(append(raw, '}'), gk, false)
	return err == nil
}

// samePathUniversal wraps spec as the spec of a Universal resource of type kind.
func samePathUniversal(kind, spec string) []byte {
	return []byte(`{"type":"` + kind + `","mesh":"default","name":"backend","labels":{"kuma.io/origin":"zone","kuma.io/zone":"zone-1"},` +
		`"creationTime":"2026-11-25T20:19:30Z","spec":` + spec + `,"kri":"kri_mt_default_zone-1__backend_"}`)
}

// samePathUniversalInputs returns the Universal resources of the differential test: the
// resources of the Universal vectors and KDS copies, and every spec of samePathInputs' sources as the
// spec of each of specKinds.
func samePathUniversalInputs(t testing.TB) [][]byte {
	t.Helper()
	var objects [][]byte
	files, err := filepath.Glob(filepath.Join("testdata", "universal", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Universal vectors: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var v struct {
				Resource stdjson.RawMessage `json:"resource"`
			}
			if err := stdjson.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			objects = append(objects, v.Resource)
		}
	}
	specs := append([]string(nil), samePathSpecs...)
	for _, dir := range []string{"FuzzRefWalk", "FuzzSpecHolds", "FuzzDecideSameAsBefore", "FuzzDecodeUniversal"} {
		for _, in := range corpusBytes(t, filepath.Join("testdata", "fuzz", dir)) {
			if stdjson.Valid(in) {
				specs = append(specs, string(in))
				objects = append(objects, in)
			}
		}
	}
	for _, s := range specs {
		for _, k := range specKinds {
			objects = append(objects, samePathUniversal(k, s))
		}
	}
	return objects
}

// TestDecideUniversalSameAsBefore decides every Universal resource of the test data and corpora
// both ways: what the reference checks read of spec found in the decode's pass (decodeUniversalTop
// with specScan), and as before (specHolds at the first refSpecs), under every release, on global
// and on a zone.
func TestDecideUniversalSameAsBefore(t *testing.T) {
	c := DefaultConfig()
	objects := samePathUniversalInputs(t)
	if len(objects) < 100 {
		t.Fatalf("only %d resources: the test data is missing", len(objects))
	}
	for _, obj := range objects {
		var v struct {
			Type string `json:"type"`
		}
		kind := "MeshTimeout"
		if stdjson.Unmarshal(obj, &v) == nil && v.Type != "" {
			kind = v.Type
		}
		for _, rel := range naming.Releases() {
			for _, zone := range []string{"", "zone-1"} {
				decideBoth(t, c, Request{Phase: Admit, Kind: schema.GroupKind{Group: KumaGroup, Kind: kind}, Object: obj,
					Release: rel, Universal: true, Zone: zone})
			}
		}
	}
}
