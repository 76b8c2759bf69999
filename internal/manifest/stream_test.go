package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// tricky are documents the streaming reader must read as sigs.k8s.io/yaml does, or leave to it.
var tricky = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: b\n",
	"a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: ~\nh: null\ni: Null\nj: true\nk: False\n",
	"a: 0777\nb: 0x1F\nc: 0o17\nd: 0b101\ne: -0b101\nf: 1_000\ng: +12\nh: -0\ni: 017_7\n",
	"a: 9223372036854775807\nb: 9223372036854775808\nc: 18446744073709551615\nd: 18446744073709551616\ne: -9223372036854775809\n",
	"a: 1.5\nb: .5\nc: 1e3\nd: 1E-7\ne: 1.\nf: -.5e+3\ng: 1e400\nh: 1_0.5\ni: 0.1e-6\nj: 1e21\nk: 123456789012345678901234567890\n",
	"a: .inf\n", "a: -.Inf\n", "a: .NaN\n", "a: .nan_\n", "a: .5_\n",
	"a: 2001-12-14\nb: 2001-12-14T21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10\nd: 2001-1-2\ne: 20011-12-14\nf: 2001-13-14\n",
	"1: a\n2: b\ntrue: c\nno: d\n0x10: e\n",
	"~: a\n", "null: a\n", "18446744073709551615: a\n", "1.5: a\n",
	"a: 1\na: 2\n", "a: 1\nb: {a: 1, a: 2}\n", "1: a\n01: b\n", "yes: a\non: b\n", "1: a\n\"1\": b\n",
	"a: 'it''s'\nb: \"\\x41\\u00e9\\U0001F600\\t\\n\\\\\\\"\\/\"\nc: \"\\N\\_\\L\\P\\e\\0\\a\\b\\v\\f\\r\\ \"\n",
	"a: \"\\uD800\"\n", "a: \"\\x4\"\n", "a: \"\\q\"\n",
	"a: |\n  line 1\n  line 2\n\n\nb: >\n  folded\n  text\n\n  para\n   indented\n  back\nc: |-\n  strip\n\nd: |+\n  keep\n\n\ne: >-\n  x\n",
	"a: |2\n   two extra\n  base\nb: |1-\n  x\n",
	"a: |\n\n    leading\n  less\n",
	"a: |\n      \n    x\n",
	"a: |\nb: 1\n",
	"a: >\n\n  x\n\n\n  y\n  z\n",
	"a: | # comment\n  x\n  # not a comment\n",
	"a: plain\n  continued\n\n  and more\n    deeper\nb: x\n",
	"a: plain # comment\n  not continued\n",
	"a: b\n  c: d\n",
	"a: b: c\n",
	"a: x #y\nb: x#y\nc: 'q' #c\nd: [1, 2] # c\n",
	"a:\n- 1\n- 2\nb:\n  - x\n  -\n  - - y\n    - z\n  - k: v\n    l: w\n",
	"a:\n  b:\n    c:\n      d: [1, [2, {e: f}], {}, []]\n",
	"a: [a b, 'c d', \"e\", -1, -x, a:b, {x: 1, 'y': [2]}]\n",
	"a: {\"k\":1, 'j': x}\n", "a: [a, b,]\n", "a: {a, b: 1}\n", "a: [a: b]\n", "a: {a:1}\n",
	"a: [1,\n  2]\n", "a: 'x\n  y'\n", "a: \"x\\\n  y\"\n", "a: 'x  \n\n\n   y  z '\nb: \"\\\n\n  x\\t \\\n y\"\n",
	"a: 'x\ny'\n", "a: 'x\n---\n'\n", "a: 'x\n", "'a\n b': 1\n", "a: ['x\n y']\n", "a:\n  'x\n  y'\n  b: 1\n",
	"a: &x 1\nb: *x\n", "a: !!str 1\n", "? a\n: b\n", "<<: {a: 1}\nb: 2\n", "'<<': 1\n",
	"a:\tb\n", "a: b\r\nc: d\r\n", "a: |\n  \tx\n  y\t\n  \t\n\tz\n", "a: |\n\tx\n", "a: >\n  x\n  \ty\n  z\n", "a: b\tc\n", "a: 'x\ty'\n", "a: | \t\n  x\n", "a:\n\t- x\n", "%YAML 1.1\n---\na: 1\n", "a: 1\n...\nb: 2\n", "--- a: 1\n",
	"  a: 1\n  b: 2\n", "  a: 1\nb: 2\n", "a: 1\n  b: 2\n", "- a\n- b\n", "just a scalar\n", "[1, 2]\n", "{a: 1}\n",
	"# only a comment\n", "", "\n\n",
	"a:\n", "a:\nb:\n", "a: []\nb: {}\nc: ''\nd: \"\"\n",
	"a: -\n", "a: - b\n", "- a: 1\n", "a:\n  - b\n c: 1\n",
	"key with spaces: v\n\"quoted key\": v\n'single': v\n",
	"a: \"\u00e9\u4e16\"\nb: \u00e9\n\u00e9: 1\n",
	"a: x\u0085y\n", "a: \ufeffx\n",
	"a: 'a\\b'\n", "a: \"a'b\"\n",
	"a: -1\nb: +.inf\nc: -.inf\nd: +1.5\ne: .\nf: -\ng: +\nh: 0\ni: 00\nj: 08\nk: 0b2\nl: 0x\n",
	"a: 1:20\nb: 190:20:30\n",
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: A\n- apiVersion: v1\n  kind: B\n  spec: {x: [1]}\nmetadata: {}\n",
	"items: [{kind: A}, {kind: B}]\nkind: List\n",
	"a: '\" : #'\nb: \"# x\"\n",
	"a: [\"a,b\", 'c]d']\n",
	"a: b   \nc: d \n",
	"a: x\n\n\n  y\n",
	"a:\n  x\n  y\n",
	"a:\n  'x'\n",
	"a:\n  - x\n  - y\n b: 1\n",
	"a: 1 # c\n# c\n  # indented comment\nb: 2\n",
	"a:\n  # c\n  b: 1\n",
	"a: |\n  x\n # less\n  y\n",
	"a: >+\n\n",
	"a: |-\n",
	"a: |\n  x\n\n\n",
	"a: >\n  a\n   b\n  c\n\n   d\n  e\n",
	"a: >\n   a\n  b\n",
	"a: |0\n  x\n", "a: |10\n  x\n", "a: |+-\n  x\n", "a: |x\n", "a: |#c\n  x\n",
	"a: x\n- y\n",
	"a:\n- x\n- y\nb: 1\n",
	"a:\n - x\n - y\n",
	"a: {b: [c, {d: e}]}\n",
	"a: [[[[[]]]]]\n",
	"a: {b: }\n", "a: {b: , c: 1}\n", "a: {'b': 1,}\n", "a: [,]\n", "a: [ ]\n", "a: { }\n",
	"a: [x #c\n  ]\n",
	"a: b #c\n  d\n",
	"? \n", ": a\n", "a : 1\nb  :   2\n", "a:1\n", "a: 1:\n", "a: :x\n", "a: ?x\n",
	"a: '''\n", "a: 'x'y\n", "a: \"x\"y\n", "a: [x]y\n", "a: [x] y\n", "a: [x]#c\n", "a: 'x'#c\n",
}

func checkAgainstSigs(t *testing.T, data []byte) {
	t.Helper()
	j, _, err := yamlToJSON(data)
	if errors.Is(err, errUnsupported) {
		return
	}
	want, wantErr := yaml.YAMLToJSONStrict(data)
	switch {
	case err != nil && wantErr != nil:
		return
	case err == nil && wantErr != nil:
		t.Fatalf("%q: read as %s, sigs.k8s.io/yaml refuses it: %v", data, j, wantErr)
	case err != nil && wantErr == nil:
		if strings.Contains(err.Error(), "already set in map") {
			// A number key and a quoted one of the same text: sigs.k8s.io/yaml keeps one of them
			// at random (a map's order); the reader refuses them as a repeated key.
			return
		}
		t.Fatalf("%q: refused (%v), sigs.k8s.io/yaml reads %s", data, err, want)
	}
	var got, exp any
	dg := json.NewDecoder(bytes.NewReader(j))
	dg.UseNumber()
	if err := dg.Decode(&got); err != nil {
		t.Fatalf("%q: invalid JSON %s: %v", data, j, err)
	}
	de := json.NewDecoder(bytes.NewReader(want))
	de.UseNumber()
	if err := de.Decode(&exp); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("%q:\n got %s\nwant %s", data, j, want)
	}
}

func TestStreamAgreesWithSigs(t *testing.T) {
	streamed := 0
	for _, s := range tricky {
		checkAgainstSigs(t, []byte(s))
		if _, _, err := yamlToJSON([]byte(s)); !errors.Is(err, errUnsupported) {
			streamed++
		}
	}
	t.Logf("%d of %d documents streamed", streamed, len(tricky))
}

// TestStreamReadsRealManifests holds the streaming reader to sigs.k8s.io/yaml on every YAML
// document of the upstream CRDs and the examples, and to reading all of them itself.
func TestStreamReadsRealManifests(t *testing.T) {
	var files []string
	for _, root := range []string{"../../../shared/upstream", "../../examples", "../../charts"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) && !strings.Contains(p, "templates") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no manifests found")
	}
	docs, unsupportedDocs := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(bytes.TrimPrefix(b, []byte("---\n")), []byte("\n---\n")) {
			docs++
			if _, _, err := yamlToJSON(doc); errors.Is(err, errUnsupported) {
				unsupportedDocs++
				t.Logf("%s: %v", f, err)
				continue
			}
			checkAgainstSigs(t, doc)
		}
	}
	t.Logf("%d files, %d documents, %d left to go-yaml", len(files), docs, unsupportedDocs)
}

// FuzzStreamAgreesWithSigs holds the streaming reader to sigs.k8s.io/yaml on any input: it
// reads a document as sigs.k8s.io/yaml converts it, refuses what it refuses, or leaves it to it.
func FuzzStreamAgreesWithSigs(f *testing.F) {
	for _, s := range tricky {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstSigs(t, data)
	})
}

// paths lists the field paths of every node of v as the rules print them.
func paths(prefix string, v any, out *[]string) {
	*out = append(*out, prefix)
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := prefix + "." + k
			if prefix == "" {
				p = k
			}
			if strings.ContainsAny(k, ".[]") || prefix == "" && k == "" {
				p = prefix + "[" + k + "]"
			}
			paths(p, e, out)
		}
	case []any:
		for i, e := range v {
			paths(prefix+"["+strconv.Itoa(i)+"]", e, out)
		}
	}
}

// TestStreamPositionsAgreeWithNodes holds the places the streaming reader finds (YAML and JSON)
// to those of go-yaml's nodes, for every field of every document it reads.
func TestStreamPositionsAgreeWithNodes(t *testing.T) {
	docs := append([]string{}, tricky...)
	docs = append(docs,
		"apiVersion: v1\nkind: A\nmetadata:\n  labels: {a.b: c, 'x': y}\nspec:\n  to:\n  - targetRef:\n      kind: MeshService\n      sectionName: Bad\n  -\n    x: 1\n  - - a\n    - b\n",
		"apiVersion: v1\nkind: A\nspec:\n  a.b:\n    c: 1\n  a:\n    b.c: 2\n  \u00e9\u00e9: {\u00e9: [1, {k: v}]}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: A\n  metadata: {name: a}\n  spec:\n    x: [1, {y: 2}]\n-\n  apiVersion: v1\n  kind: B\n  spec: {x: [3]}\n- {apiVersion: v1, kind: C, spec: {x: [4]}}\n",
		"kind: AList\napiVersion: v1\nitems:\n  - apiVersion: v1\n    kind: A\n    metadata:\n      name: \u00e9\n",
	)
	n := 0
	for _, s := range docs {
		n += checkPositions(t, []byte(s))
	}
	t.Logf("%d paths placed", n)
}

// checkPositions compares, for every field of src when the streaming reader reads it, the place
// it finds with go-yaml's nodes', in the YAML and in the object written as JSON. It returns how
// many fields it compared.
func checkPositions(t *testing.T, src []byte) int {
	t.Helper()
	j, _, err := yamlToJSON(src)
	if err != nil {
		return 0
	}
	var v any
	if json.Unmarshal(j, &v) != nil {
		return 0
	}
	if _, ok := v.(map[string]any); !ok {
		return 0
	}
	var ps []string
	paths("", v, &ps)
	ps = append(ps, "nope", "spec[99]", "spec.nope.deeper")
	old := &locator{t: &tree{text: src, line: 1, col: 1}, item: -1, line: 1}
	streamed := &streamPositioner{src: src, startLine: 1, fallbackLine: 1}
	jsonText, _ := json.MarshalIndent(v, "", " ")
	oldJSON := &locator{t: &tree{text: jsonText, line: 1, col: 1}, item: -1, line: 1}
	inJSON := &jsonPositioner{text: jsonText, line: 1, col: 1}
	// go-yaml v3, whose nodes place fields, refuses some text v2 reads (a \u0000 escape): no
	// places to compare with then.
	yamlNodes, jsonNodes := old.t.node() != nil, oldJSON.t.node() != nil
	for _, p := range ps {
		wl, wc := old.locate(p)
		if gl, gc := streamed.locate(p); yamlNodes && (gl != wl || gc != wc) {
			t.Errorf("%q, %q: streamed %d:%d, nodes %d:%d", src, p, gl, gc, wl, wc)
		}
		wl, wc = oldJSON.locate(p)
		if gl, gc := inJSON.locate(p); jsonNodes && (gl != wl || gc != wc) {
			t.Errorf("%s, %q: JSON %d:%d, nodes %d:%d", jsonText, p, gl, gc, wl, wc)
		}
	}
	return len(ps) + checkItemPositions(t, src, ps) + checkItemPositions(t, jsonText, ps)
}

// checkItemPositions compares the places of the fields of each item of a List, read from src
// (YAML or JSON), with go-yaml's nodes'. It returns how many it compared.
func checkItemPositions(t *testing.T, src []byte, ps []string) int {
	t.Helper()
	if (&tree{text: src}).node() == nil {
		return 0 // go-yaml v3 does not read it: no places to compare with
	}
	item, n := 0, 0
	err := Read("f", bytes.NewReader(src), Options{}, func(d Document) error {
		if d.loc == nil {
			return nil
		}
		if _, ok := d.loc.(*jsonPositioner); !ok {
			if _, ok := d.loc.(*streamPositioner); !ok {
				return nil
			}
		}
		if sp, ok := d.loc.(*streamPositioner); ok && !sp.item {
			return nil
		}
		if jp, ok := d.loc.(*jsonPositioner); ok && len(jp.text) == len(src) {
			return nil
		}
		old := &locator{t: &tree{text: src, line: 1, col: 1}, item: item, line: d.Line}
		item++
		if d.Err != nil {
			return nil // an item that is not an object still counts
		}
		for _, p := range append(ps, "", "metadata.name", "spec.x[0]") {
			n++
			wl, wc := old.locate(p)
			if gl, gc := d.Position(p); gl != wl || gc != wc {
				t.Errorf("%q, item %d, %q: %d:%d, nodes %d:%d", src, item-1, p, gl, gc, wl, wc)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// FuzzStreamPositions holds the places the streaming reader finds to go-yaml's nodes' on any
// document it reads.
func FuzzStreamPositions(f *testing.F) {
	for _, s := range tricky {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPositions(t, data)
	})
}

// A document the streaming reader leaves to go-yaml is read up to maxGoYAMLBytes; a larger one is
// an error that says what it holds and where, and one without a kind (Helm values with anchors)
// is not a Kubernetes object, so that folders skip it.
func TestGoYAMLOnlyForSmallDocuments(t *testing.T) {
	pad := strings.Repeat("  k: v\n", maxGoYAMLBytes/7+1)
	for _, tt := range []struct {
		name, doc string
		notObject bool
	}{
		{"an object with an anchor", "apiVersion: v1\nkind: ConfigMap\ndata: &d\n" + pad, false},
		{"values with an anchor", "image: &i\n" + pad, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var docs []Document
			if err := Read("f", strings.NewReader(tt.doc), Options{}, func(d Document) error { docs = append(docs, d); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(docs) != 1 || docs[0].Err == nil || !strings.Contains(docs[0].Err.Error(), "starts with '&'") {
				t.Fatalf("got %+v, want one error naming what was found", docs)
			}
			if got := errors.Is(docs[0].Err, ErrNotObject); got != tt.notObject {
				t.Errorf("%v: not an object %v, want %v", docs[0].Err, got, tt.notObject)
			}
		})
	}
	// Small, it is read with go-yaml.
	var docs []Document
	Read("f", strings.NewReader("apiVersion: v1\nkind: ConfigMap\ndata: &d {a: b}\nmore: *d\n"), Options{}, func(d Document) error { docs = append(docs, d); return nil })
	if len(docs) != 1 || docs[0].Err != nil || !strings.Contains(string(docs[0].Object), `"more":{"a":"b"}`) {
		t.Errorf("got %+v, want the object with its alias", docs)
	}
}

// TestCRLF reads documents written with CR LF line breaks as their LF twins: the same objects
// (also past the size go-yaml is given), errors and positions, and as sigs.k8s.io/yaml reads the
// CR LF text; a document with a lone CR is still left to go-yaml.
func TestCRLF(t *testing.T) {
	small := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: 'y z'}\ndata:\n  q: \"a\\\n    b\"\n  l: |\n    one\n\n    two\n  f: >-\n    x\n    y\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n"
	large := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n" + strings.Repeat("  k: |\n    v\n", 1)
	for i := 0; len(large) <= maxGoYAMLBytes; i++ {
		large += fmt.Sprintf("  k%d: |\n    v\n", i)
	}
	for name, lf := range map[string]string{"small": small, "large": large} {
		t.Run(name, func(t *testing.T) {
			crlf := strings.ReplaceAll(lf, "\n", "\r\n")
			read := func(in string) (out []Document) {
				if err := Read("f", strings.NewReader(in), Options{}, func(d Document) error {
					if d.Err == nil {
						d.Object = bytes.Clone(d.Object)
						// Positions are read while the document's text is at hand.
						for _, p := range []string{"metadata.name", "data.l", "data.f", "data.q"} {
							l, c := d.Position(p)
							d.Object = append(d.Object, []byte(fmt.Sprintf(" %s@%d:%d", p, l, c))...)
						}
					}
					out = append(out, d)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return out
			}
			want, got := read(lf), read(crlf)
			if len(got) != len(want) {
				t.Fatalf("%d documents from CR LF, %d from LF", len(got), len(want))
			}
			for i := range want {
				if got[i].Err != nil || want[i].Err != nil {
					t.Fatalf("document %d: errors %v (CR LF), %v (LF)", i, got[i].Err, want[i].Err)
				}
				if got[i].Line != want[i].Line || !bytes.Equal(got[i].Object, want[i].Object) {
					t.Errorf("document %d: CR LF gives line %d %s\nLF gives line %d %s", i, got[i].Line, got[i].Object, want[i].Line, want[i].Object)
				}
			}
		})
	}
	// sigs.k8s.io/yaml reads the CR LF text of each small document as the streaming reader reads its LF twin.
	for _, doc := range strings.Split(small, "---\n") {
		j, _, err := yamlToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		s, err := yaml.YAMLToJSONStrict([]byte(strings.ReplaceAll(doc, "\n", "\r\n")))
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if json.Unmarshal(j, &a) != nil || json.Unmarshal(s, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("sigs.k8s.io/yaml reads the CR LF text as %s, the streaming reader the LF one as %s", s, j)
		}
	}
	if b := crlfToLF([]byte("a: b\rc: d\r\n")); !bytes.Contains(b, []byte("\r")) {
		t.Errorf("a lone CR was taken out: %q", b)
	}
}
