package envoydump

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
	"github.com/kriguard/kriguard/naming"
)

// at returns the text of data from line and column (in code points) to the end of that line.
func at(data []byte, p Position) string {
	lines := strings.Split(string(data), "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return ""
	}
	l := lines[p.Line-1]
	for i := 1; i < p.Column && l != ""; i++ {
		_, n := utf8.DecodeRuneInString(l)
		l = l[n:]
	}
	return l
}

// lastKey is the field a path ends in, and whether it ends in a list item.
func lastKey(path string) (string, bool) {
	item := strings.HasSuffix(path, "]")
	if item {
		path = path[:strings.LastIndexByte(path, '[')]
	}
	return path[strings.LastIndexByte(path, '.')+1:], item
}

// TestLocate: every name Read finds in a pretty-printed dump (Envoy's admin prints it so) is
// located at its key, on the line that holds its value; in a dump on one line, at its key too.
func TestLocate(t *testing.T) {
	pretty := dumptest.KumaSidecar(true)
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		t.Fatal(err)
	}
	// A non-ASCII value before the names: columns count code points, not bytes.
	wide := bytes.Replace(pretty, []byte(`"configs"`), []byte(`"note": "ünïcödé", "configs"`), 1)
	for name, data := range map[string][]byte{"pretty": pretty, "compact": compact.Bytes(), "wide": wide} {
		t.Run(name, func(t *testing.T) {
			d, err := Parse(data, naming.EnvoyNameOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, n := range d.Names {
				paths = append(paths, n.Path)
			}
			got, err := Locate(bytes.NewReader(data), append(paths, "configs[0].nope", "configs[9]"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(paths) {
				t.Errorf("%d of %d names located (and no more: the others are not in the dump)", len(got), len(paths))
			}
			for _, n := range d.Names {
				p, ok := got[n.Path]
				if !ok {
					t.Errorf("%s not located", n.Path)
					continue
				}
				text := at(data, p)
				key, item := lastKey(n.Path)
				value := strconv.Quote(n.Name)
				if item {
					if !strings.HasPrefix(text, value) {
						t.Errorf("%s at %d:%d: %q, want the item %s", n.Path, p.Line, p.Column, text, value)
					}
					continue
				}
				if !strings.HasPrefix(text, strconv.Quote(key)+":") || !strings.Contains(text, value) {
					t.Errorf("%s at %d:%d: %q, want its key %q and value %s", n.Path, p.Line, p.Column, text, key, value)
				}
			}
		})
	}
	if _, err := Locate(strings.NewReader(`{"configs": [`), []string{"configs[0]"}); err == nil {
		t.Error("a truncated document located without an error")
	}
	if got, err := Locate(strings.NewReader(`{"a": {"b": 1}, "m": {"k": "v"}, "l": [[1, "x"]]}`), []string{"a.b", "m[k]", "l[0][1]", "a"}); err != nil ||
		got["a.b"] != (Position{1, 8}) || got["m[k]"] != (Position{1, 23}) || got["l[0][1]"] != (Position{1, 44}) || got["a"] != (Position{1, 2}) {
		t.Errorf("Locate = %v, %v", got, err)
	}
}

// FuzzLocate: any input and paths give positions inside the input or an error, never a panic.
func FuzzLocate(f *testing.F) {
	f.Add(dumptest.KumaSidecar(false), "configs[0].dynamic_listeners[0].active_state.listener.name")
	f.Add([]byte(`{"a": [1, {"b": "c"}]}`), "a[1].b")
	f.Add([]byte(`[{"a": 1}]`), "[0].a")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		got, err := Locate(bytes.NewReader(data), []string{path, "a", "configs[0]"})
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for p, pos := range got {
			if pos.Line < 1 || pos.Line > lines || pos.Column < 1 || pos.Column > len(data)+1 {
				t.Fatalf("%s at %+v, outside the %d lines of %q", p, pos, lines, data)
			}
		}
	})
}
