package testenv

import (
	"strconv"
	"strings"
	"testing"
)

func FuzzParseMinimalFields(f *testing.F) {
	f.Add(objectsYAML)
	f.Add([]byte("- {group: g, kind: K, fields: {spec: {port: 80, ratio: 0.5, on: true, list: [1, a]}}}\n"))
	f.Add([]byte("- kind: K\n  fields: {metadata: {}}\n"))
	f.Add([]byte("{}"))
	f.Add([]byte("- [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseMinimalFields(data)
		if err != nil {
			return
		}
		for gk, fields := range m {
			if gk.Kind == "" || len(fields) == 0 {
				t.Errorf("accepted entry %s with fields %v", gk, fields)
			}
			// What NewObject copies must be JSON-shaped, or runtime.DeepCopyJSON panics.
			obj := NewObject(Kind{Group: gk.Group, Version: "v1", Kind: gk.Kind}, "ns", "n")
			if obj.GetKind() != gk.Kind {
				t.Errorf("NewObject kind %q, want %q", obj.GetKind(), gk.Kind)
			}
		}
	})
}

func FuzzParseOwner(f *testing.F) {
	f.Add("123.4567-890")
	f.Add("1.0-")
	f.Add("lost+found")
	f.Add("9999999999999999999999.1-x")
	f.Fuzz(func(t *testing.T, name string) {
		pid, start, ok := parseOwner(name)
		if !ok {
			return
		}
		if pid <= 0 || strings.Contains(start, "-") {
			t.Fatalf("parseOwner(%q) = %d, %q", name, pid, start)
		}
		// What newWorkDir writes reads back the same.
		again, start2, ok := parseOwner(strconv.Itoa(pid) + "." + start + "-rest")
		if !ok || again != pid || start2 != start {
			t.Errorf("round trip of %d.%s: %d, %q, %t", pid, start, again, start2, ok)
		}
	})
}

func FuzzModuleOf(f *testing.F) {
	f.Add([]byte("module github.com/kriguard/kriguard\n\ngo 1.26.0\n"))
	f.Add([]byte("module \"x\" // c\n"))
	f.Add([]byte("module\n"))
	f.Fuzz(func(t *testing.T, gomod []byte) {
		if m := moduleOf(gomod); strings.ContainsAny(m, "\n") {
			t.Errorf("moduleOf returned %q", m)
		}
	})
}
