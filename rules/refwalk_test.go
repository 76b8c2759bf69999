package rules

import (
	"context"
	stdjson "encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// FuzzRefWalk walks any spec, with the same spec as the old object's or without one, and holds
// the walk to its bounds: no panic, memory linear in the input whatever its shape (long keys, deep
// nesting, empty containers, many problems), and every problem of an unchanged spec pre-existing.
func FuzzRefWalk(f *testing.F) {
	f.Add([]byte(`{"to":[{"targetRef":{"kind":"MeshService","sectionName":"Bad_1"}}]}`), true)
	f.Add([]byte(`{"rules":[{"default":{"backendRefs":[{"sectionName":7},{"sectionName":null},{"sectionName":{"a":[1]}}]}}]}`), false)
	f.Add([]byte(`{"a\u002eb":{"targetRef":{"section\u004eame":"B_"}},"":{"targetRef":{"sectionName":""}}}`), true)
	f.Add([]byte(`{"`+strings.Repeat("k", 20_000)+`":{"backendRefs":[`+strings.Repeat(`{"sectionName":"B_"},`, 2_000)+`{}]}}`), false)
	f.Add([]byte(strings.Repeat(`{"a":`, 5_000)+`{"backendRefs":[`+strings.Repeat(`{"sectionName":"B_"},`, 500)+`{}]}`+strings.Repeat(`}`, 5_000)), true)
	f.Add([]byte(`{"ports":[`+strings.Repeat(`{},[],`, 20_000)+`{}]}`), false)
	f.Fuzz(func(t *testing.T, spec []byte, unchanged bool) {
		if !stdjson.Valid(spec) {
			return // the walk reads what the decoder has read first
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		w := &refWalk{ctx: context.Background(), limit: 100, keepLimit: 20}
		if unchanged {
			w.setOld(spec)
		}
		w.walkSpec(spec)
		runtime.ReadMemStats(&after)
		if w.err != nil {
			t.Fatalf("walk of valid JSON stopped: %v", w.err)
		}
		// The problems built (at most the 100 causes and 20 warnings of an answer, each with a path of at most
		// MaxFieldBytes), the stack of a walk at most 10,000 deep (the decoder's limit), and a few
		// bytes per input byte for the old object's problems.
		bound := 8*uint64(len(spec)) + 4<<20
		if got := after.TotalAlloc - before.TotalAlloc; got > bound {
			t.Errorf("walk of %d bytes allocated %d bytes (%.1f per byte), more than %d", len(spec), got, float64(got)/float64(len(spec)), bound)
		}
		if unchanged && len(w.errs) > 0 {
			t.Errorf("%d problems of an unchanged spec are new: %v", len(w.errs), w.errs[0])
		}
		for _, fe := range slices.Concat(w.errs, w.kept) {
			if len(fe.Field) > MaxFieldBytes {
				t.Errorf("field path of %d bytes", len(fe.Field))
			}
		}
	})
}
