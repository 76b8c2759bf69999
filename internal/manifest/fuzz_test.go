package manifest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRead holds the reader to its contract on any input: no panic; every document either has an
// error or is a JSON object with apiVersion and kind; lines lie within the input and never go
// back.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n",
		"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}]}\n{\"kind\":\"x\"}",
		"---\n--- \n...\n",
		"a: &a [*a, *a]\nb: *a\n",
		"apiVersion: v1\nkind: ConfigMap\ndata: {a: 1, a: 2}\n",
		"\xff\x00",
		"[1, 2]",
		"kind: List\napiVersion: v1\nitems: [1, {kind: A, apiVersion: v1}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		last := 0
		err := Read("f", bytes.NewReader(data), Options{MaxDocumentBytes: 4096}, func(d Document) error {
			if d.Line < 1 || d.Line > lines {
				t.Fatalf("line %d outside the input's %d lines (err %v)", d.Line, lines, d.Err)
			}
			if d.Line < last {
				t.Fatalf("line %d after line %d", d.Line, last)
			}
			last = d.Line
			if d.Err != nil {
				if d.Object != nil {
					t.Fatalf("document with an error has an object")
				}
				return nil
			}
			var tm header
			if !json.Valid(d.Object) || json.Unmarshal(d.Object, &tm) != nil || tm.Kind == "" || tm.APIVersion == "" {
				t.Fatalf("document without error is not an object with apiVersion and kind: %q", d.Object)
			}
			if tm.Kind != d.Kind || tm.APIVersion != d.APIVersion {
				t.Fatalf("document says %s %s, object %s %s", d.APIVersion, d.Kind, tm.APIVersion, tm.Kind)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Read returned %v", err)
		}
	})
}

// FuzzPosition holds Position to its contract on any input and any path: no panic, and a line
// and column within the input.
func FuzzPosition(f *testing.F) {
	for _, s := range []struct{ data, path string }{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {a.b: c}\n", "metadata.labels[a.b]"},
		{"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: A\n  spec: [[1], {x: 2}]\n", "spec[1].x"},
		{"{\"apiVersion\": \"v1\", \"kind\": \"A\", \"spec\": {\"a.b\": {\"c\": [0]}}}", "spec.a.b.c[0]"},
		{"apiVersion: v1\nkind: A\nspec: &x {a: *x}\n", "spec.a.a.a[-1]"},
		{"apiVersion: v1\nkind: A\n", "metadata.name... (5000 bytes in all)"},
	} {
		f.Add([]byte(s.data), s.path)
	}
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		// YAML breaks lines at "\r" too, and so does the position of a node.
		lines := bytes.Split(bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n")), []byte("\n"))
		err := Read("f", bytes.NewReader(data), Options{MaxDocumentBytes: 4096}, func(d Document) error {
			if d.Err != nil {
				return nil
			}
			for _, p := range []string{path, ""} {
				line, col := d.Position(p)
				if line < 1 || line > len(lines) {
					t.Fatalf("%q: line %d outside the input's %d lines", p, line, len(lines))
				}
				if col < 0 || col > len(lines[line-1])+1 {
					t.Fatalf("%q: column %d outside line %d of %d bytes", p, col, line, len(lines[line-1]))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Read returned %v", err)
		}
	})
}
