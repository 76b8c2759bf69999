package rules

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// TestLabelSet builds label sets as the decode does, in order, out of order, with keys sent again
// and with more keys than it walks, and holds each to the map of the same labels.
func TestLabelSet(t *testing.T) {
	type pair struct{ k, v string }
	many := func(n, repeat int) []pair {
		var ps []pair
		for r := range repeat {
			for i := n; i > 0; i-- {
				ps = append(ps, pair{fmt.Sprintf("k%d", i%(n/2+1)), fmt.Sprintf("v%d-%d", i, r)})
			}
		}
		return ps
	}
	for _, tc := range []struct {
		name  string
		pairs []pair
	}{
		{"none", nil},
		{"mesh", []pair{{naming.LabelMesh, "m"}}},
		{"empty mesh", []pair{{naming.LabelMesh, ""}}},
		{"sorted", []pair{{naming.LabelNamespace, "ns"}, {"a", "b"}, {naming.LabelDisplayName, "d"}, {naming.LabelMesh, "m"}, {naming.LabelOrigin, "zone"}, {naming.LabelZone, "z"}}},
		{"out of order", []pair{{naming.LabelZone, "z"}, {naming.LabelMesh, "m"}, {"a", "b"}}},
		{"sent again", []pair{{naming.LabelZone, "z"}, {naming.LabelMesh, "m"}, {naming.LabelZone, "y"}, {"a", "b"}, {naming.LabelMesh, "n"}, {"a", "c"}}},
		{"sent again in order", []pair{{"a", "1"}, {"a", "2"}, {"b", "3"}, {"a", "4"}}},
		{"many", many(40, 1)},
		{"many sent again", append(many(60, 3), pair{naming.LabelOrigin, "global"}, pair{"k1", "last"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l labelSet
			want := map[string]string{}
			for _, p := range tc.pairs {
				l.set(p.k, p.v)
				want[p.k] = p.v
			}
			if len(want) == 0 {
				want = nil
			}
			checkLabelSet(t, "built", &l, want)
			if got := l.asMap(); !maps.Equal(got, want) || (got == nil) != (want == nil) {
				t.Errorf("asMap() = %v, want %v", got, want)
			}
			from := labelsOf(want)
			checkLabelSet(t, "labelsOf", &from, want)
			// with changes a copy, never l: copies of an admitted object share their labels.
			before := l.asMap()
			for _, k := range []string{naming.LabelOrigin, "k1", "new"} {
				w := l.with(k, "with")
				changed := maps.Clone(want)
				if changed == nil {
					changed = map[string]string{}
				}
				changed[k] = "with"
				checkLabelSet(t, "with "+k, &w, changed)
				checkLabelSet(t, "after with", &l, want)
			}
			if got := l.asMap(); !maps.Equal(got, before) {
				t.Errorf("with changed the set: %v, was %v", got, before)
			}
		})
	}
}

// TestKnownString finds every known string, as the same string, and no other.
func TestKnownString(t *testing.T) {
	n := 0
	for _, bucket := range knownStrings {
		for _, s := range bucket {
			n++
			if got, ok := knownString([]byte(s)); !ok || got != s {
				t.Errorf("knownString(%q) = %q, %v", s, got, ok)
			}
			for _, other := range []string{s + "x", s[:len(s)-1], strings.ToUpper(s), "x" + s[1:]} {
				if got, ok := knownString([]byte(other)); ok && got != other {
					t.Errorf("knownString(%q) = %q", other, got)
				}
			}
		}
	}
	for _, s := range []string{naming.LabelMesh, naming.LabelZone, naming.LabelNamespace, naming.LabelOrigin, DefaultSystemNamespace, "MeshTimeout", naming.DefaultMesh, "app.kubernetes.io/part-of", "app.kubernetes.io/managed-by", "helm.sh/chart"} {
		if _, ok := knownString([]byte(s)); !ok {
			t.Errorf("%q is not known", s)
		}
	}
	for _, s := range []string{"", "timeout-backend", "mesh-1", "kuma.io/mes", "kuma.io/meshx"} {
		if _, ok := knownString([]byte(s)); ok {
			t.Errorf("%q is known", s)
		}
	}
	if n < 40 {
		t.Errorf("only %d known strings", n)
	}
}

// TestNotedIndex finds each noted key at its index, by string and by bytes, and nothing else.
func TestNotedIndex(t *testing.T) {
	for n, k := range notedKeys {
		if got, gotBytes := notedIndex(k), notedIndexBytes([]byte(k)); got != n || gotBytes != n {
			t.Errorf("notedIndex(%q) = %d, notedIndexBytes = %d, want %d", k, got, gotBytes, n)
		}
	}
	for _, k := range []string{"", "kuma.io/mes", "kuma.io/meshx", "Kuma.io/mesh", "kuma.io/env", "team"} {
		if got, gotBytes := notedIndex(k), notedIndexBytes([]byte(k)); got != -1 || gotBytes != -1 {
			t.Errorf("notedIndex(%q) = %d, notedIndexBytes = %d, want -1", k, got, gotBytes)
		}
	}
}
