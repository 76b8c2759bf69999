package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// got is a Document as the tests compare it.
type got struct {
	Line int
	Kind string
	Name string
	Err  string
}

func readAll(t testing.TB, source, input string, o Options) []got {
	t.Helper()
	var out []got
	err := Read(source, strings.NewReader(input), o, func(d Document) error {
		g := got{Line: d.Line, Kind: d.Kind}
		if d.Err != nil {
			g.Err = d.Err.Error()
		} else {
			var m struct {
				Metadata struct{ Name string }
			}
			if err := json.Unmarshal(d.Object, &m); err != nil {
				t.Fatalf("document at line %d: object is not JSON: %v", d.Line, err)
			}
			g.Name = m.Metadata.Name
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return out
}

func TestRead(t *testing.T) {
	tests := []struct {
		name  string
		input string
		o     Options
		want  []got
	}{
		{
			name:  "one document",
			input: "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: a\n",
			want:  []got{{Line: 1, Kind: "MeshTimeout", Name: "a"}},
		},
		{
			name: "documents, comments, empty documents and a leading separator",
			input: "# header comment\n---\n# about a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\n\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n--- \n# only a comment\n",
			want: []got{{Line: 4, Kind: "ConfigMap", Name: "a"}, {Line: 11, Kind: "ConfigMap", Name: "b"}},
		},
		{
			name:  "a broken document does not stop the next",
			input: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
			want: []got{
				{Line: 1, Kind: "ConfigMap", Name: "a"},
				{Line: 9, Err: "invalid YAML: line 9: did not find expected ',' or ']'"},
				{Line: 11, Kind: "ConfigMap", Name: "c"},
			},
		},
		{
			name:  "a repeated key is an error at its line",
			input: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n",
			want:  []got{{Line: 5, Err: `invalid YAML: unmarshal errors:` + "\n" + `  line 5: key "name" already set in map`}},
		},
		{
			name:  "no kind",
			input: "apiVersion: v1\nmetadata:\n  name: a\n",
			want:  []got{{Line: 1, Err: "not a Kubernetes object: kind is missing"}},
		},
		{
			name:  "not a mapping",
			input: "- a\n- b\n",
			want:  []got{{Line: 1, Err: "not a Kubernetes object: want a mapping with apiVersion and kind"}},
		},
		{
			name:  "a YAML List, each item at its line",
			input: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: kuma.io/v1alpha1\n  kind: MeshTimeout\n  metadata:\n    name: b\n",
			want:  []got{{Line: 4, Kind: "ConfigMap", Name: "a"}, {Line: 8, Kind: "MeshTimeout", Name: "b"}},
		},
		{
			name:  "a typed list",
			input: "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeoutList\nitems:\n  - apiVersion: kuma.io/v1alpha1\n    kind: MeshTimeout\n    metadata: {name: a}\n",
			want:  []got{{Line: 4, Kind: "MeshTimeout", Name: "a"}},
		},
		{
			name:  "a JSON stream",
			input: "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}\n\n{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"b\"}\n}\n",
			want:  []got{{Line: 1, Kind: "ConfigMap", Name: "a"}, {Line: 3, Kind: "ConfigMap", Name: "b"}},
		},
		{
			name:  "a JSON List",
			input: "{\n \"apiVersion\": \"v1\",\n \"kind\": \"List\",\n \"items\": [\n  {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}},\n\n  {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}\n ]\n}\n",
			want:  []got{{Line: 5, Kind: "ConfigMap", Name: "a"}, {Line: 7, Kind: "ConfigMap", Name: "b"}},
		},
		{
			name:  "invalid JSON ends the source",
			input: "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}\n{\"apiVersion\": \n\"v1\",, }\n{\"kind\": \"x\"}",
			want: []got{{Line: 1, Kind: "ConfigMap", Name: "a"},
				{Line: 3, Err: "invalid JSON: invalid character ',' looking for beginning of object key string"}},
		},
		{
			name:  "binary data",
			input: "apiVersion: v1\nkind: ConfigMap\n---\n\x7fELF\x02\x01\x01\x00\x00\n",
			want:  []got{{Line: 1, Kind: "ConfigMap"}, {Line: 4, Err: "binary data: the file is not a text manifest"}},
		},
		{
			name:  "invalid UTF-8",
			input: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \xff\xfe\n",
			want:  []got{{Line: 4, Err: "invalid UTF-8: the file is not a text manifest"}},
		},
		{
			name:  "a document over the limit is skipped, the next is read",
			input: "apiVersion: v1\nkind: ConfigMap\ndata:\n  big: " + strings.Repeat("x", 300) + "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
			o:     Options{MaxDocumentBytes: 200},
			want:  []got{{Line: 1, Err: "document is larger than 200 bytes"}, {Line: 6, Kind: "ConfigMap", Name: "b"}},
		},
		{
			name:  "a JSON value over the limit",
			input: `{"apiVersion": "v1", "kind": "ConfigMap", "data": {"big": "` + strings.Repeat("x", 70000) + `"}}`,
			o:     Options{MaxDocumentBytes: 1000},
			want:  []got{{Line: 1, Err: "document is larger than 1000 bytes"}},
		},
		{
			name:  "a separator line with spaces, CRLF line ends",
			input: "apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n---  \r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: b\r\n",
			want:  []got{{Line: 1, Kind: "ConfigMap", Name: "a"}, {Line: 6, Kind: "ConfigMap", Name: "b"}},
		},
		{
			name:  "empty input",
			input: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := readAll(t, "in.yaml", tt.input, tt.o)
			if fmt.Sprint(g) != fmt.Sprint(tt.want) {
				t.Errorf("got\n%+v\nwant\n%+v", g, tt.want)
			}
		})
	}
}

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	}
	write("b.yaml", cm("b"))
	write("a.yml", cm("a"))
	write("sub/c.json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`)
	write("sub/README.md", "# not a manifest\n")
	write(".git/d.yaml", cm("hidden"))
	unreadable := filepath.Join(dir, "missing.yaml")

	var seen []string
	err := Walk([]string{dir, "-", unreadable}, Options{Stdin: strings.NewReader(cm("stdin"))}, func(d Document) error {
		rel, _ := filepath.Rel(dir, d.Source)
		if d.Source == Stdin {
			rel = "-"
		}
		if d.Err != nil {
			seen = append(seen, rel+": "+d.Err.Error())
			return nil
		}
		var m struct{ Metadata struct{ Name string } }
		_ = json.Unmarshal(d.Object, &m)
		seen = append(seen, fmt.Sprintf("%s:%d %s", rel, d.Line, m.Metadata.Name))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.yml:1 a", "b.yaml:1 b", "sub/c.json:1 c", "-:1 stdin", "missing.yaml: reading: no such file or directory"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", seen, want)
	}
}

// The line reader keeps memory bounded by the document limit, not by the size of a line or a
// file: a 64 MiB line is skipped with an error and the document after it is read.
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	huge := bytes.Repeat([]byte("x"), 64<<20)
	input := bytes.NewReader(append(append([]byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: "), huge...), []byte("\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")...))
	var docs []got
	err := Read("big.yaml", input, Options{MaxDocumentBytes: 1 << 20}, func(d Document) error {
		g := got{Line: d.Line, Kind: d.Kind}
		if d.Err != nil {
			g.Err = d.Err.Error()
		}
		docs = append(docs, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []got{{Line: 1, Err: "document is larger than 1048576 bytes"}, {Line: 6, Kind: "ConfigMap"}}
	if fmt.Sprint(docs) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", docs, want)
	}
}
