package rules

import (
	"encoding/json"
	"testing"
)

// TestValuesAt: paths that print alike (a key with a dot) never count as the same value.
func TestValuesAt(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"spec":{"a.b":{"x":1},"a":{"b":{"x":1}},"l":[{"x":2}]},"metadata":{"labels":{"k.io/m":"v"}}}`), &v); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		n    int
	}{
		{"spec.a.b.x", 2}, {"spec.l[0].x", 1}, {"spec.l[1].x", 0}, {"spec.l[x]", 0},
		{"metadata.labels[k.io/m]", 1}, {"metadata.labels[k.io/n]", 0}, {"spec", 1},
	} {
		if _, n := valuesAt(v, tt.path, true); n != tt.n {
			t.Errorf("valuesAt(%s) names %d places, want %d", tt.path, n, tt.n)
		}
	}
}

// FuzzValuesAt reads field paths, as the ratchet does, in arbitrary documents: it never panics,
// names at most "two" places, and an unambiguous path holds the same value as itself.
func FuzzValuesAt(f *testing.F) {
	f.Add([]byte(`{"spec":{"a.b":{"x":1},"a":{"b":{"x":1}},"l":[{"x":2}]}}`), "spec.a.b.x")
	f.Add([]byte(`{"metadata":{"labels":{"k.io/m":"v","k]":"w"}}}`), "metadata.labels[k]]")
	f.Add([]byte(`{"spec":{"l":[[1,[2]]]}}`), "spec.l[0][1][0]")
	f.Add([]byte(`{"":{"":[]}}`), ".[0]")
	f.Fuzz(func(t *testing.T, doc []byte, path string) {
		var v any
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		_, n := valuesAt(v, path, true)
		if n < 0 || n > 2 {
			t.Fatalf("valuesAt(%s) names %d places", path, n)
		}
		if n <= 1 && !sameValueAt(v, v, path) {
			t.Fatalf("the value at %s differs from itself", path)
		}
	})
}
