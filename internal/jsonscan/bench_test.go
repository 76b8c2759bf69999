package jsonscan

import (
	"strconv"
	"strings"
	"testing"
)

// The inputs of the benchmarks, as kriguard's readers meet them: the review of a MeshTimeout's CREATE
// as webhook's BenchmarkStages sends it, a page of 100 resources of Kuma's REST API as
// kumaapitest.Timeouts serves them (the audit's --kuma-api), and a page of 100 objects of a
// Kubernetes LIST as the API server writes them, managedFields included (the audit of a cluster).
var (
	benchReview   = []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"uid-1","kind":{"group":"kuma.io","version":"v1alpha1","kind":"MeshTimeout"},"resource":{"group":"","version":"","resource":""},"name":"timeout-backend","namespace":"kuma-system","operation":"CREATE","userInfo":{},"object":{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"labels":{"kuma.io/mesh":"mesh-1"},"name":"timeout-backend","namespace":"kuma-system"},"spec":{"targetRef":{"kind":"Mesh"},"to":[{"default":{"connectionTimeout":"5s","http":{"requestTimeout":"15s"},"idleTimeout":"1h"},"targetRef":{"kind":"MeshService","sectionName":"http"}}]}},"oldObject":null,"options":null}}`)
	benchKumaPage = func() []byte {
		var b strings.Builder
		b.WriteString(`{"total":10000,"items":[`)
		for i := range 100 {
			if i > 0 {
				b.WriteByte(',')
			}
			n, label := strconv.Itoa(i), ""
			if i%10 == 0 {
				label = `,"kuma.io/display-name":"Timeout_` + n + `"`
			}
			b.WriteString(`{"type":"MeshTimeout","mesh":"default","name":"timeout-` + n + `",` +
				`"creationTime":"2026-11-25T20:19:30.436334032Z","modificationTime":"2026-11-25T20:19:30.436334032Z",` +
				`"labels":{"kuma.io/env":"universal","kuma.io/mesh":"default","kuma.io/origin":"zone","kuma.io/zone":"default"` + label + `},` +
				`"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","labels":{"kuma.io/display-name":"backend-` + n + `"},"sectionName":"http"},` +
				`"default":{"idleTimeout":"20s","connectionTimeout":"2s","http":{"requestTimeout":"5s"}}}]},` +
				`"kri":"kri_mt_default_default__timeout-` + n + `_"}`)
		}
		b.WriteString(`],"next":"http://127.0.0.1:5681/meshtimeouts?offset=100\u0026size=100"}`)
		return []byte(b.String())
	}()
	benchListPage = func() []byte {
		var b strings.Builder
		b.WriteString(`{"apiVersion":"kuma.io/v1alpha1","items":[`)
		for i := range 100 {
			if i > 0 {
				b.WriteByte(',')
			}
			n := strconv.Itoa(i)
			b.WriteString(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"creationTimestamp":"2026-11-25T23:21:57Z","generation":1,` +
				`"labels":{"kuma.io/mesh":"default"},"managedFields":[{"apiVersion":"kuma.io/v1alpha1","fieldsType":"FieldsV1",` +
				`"fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:kuma.io/mesh":{}}},"f:spec":{".":{},"f:targetRef":{".":{},"f:kind":{}},"f:to":{}}},` +
				`"manager":"kubectl-client-side-apply","operation":"Update","time":"2026-11-25T23:21:57Z"}],` +
				`"name":"obj-` + n + `","namespace":"bench-` + strconv.Itoa(i%5) + `","resourceVersion":"` + strconv.Itoa(41700+i) + `","uid":"46ab4601-ee29-4734-9d62-3c4d25433dc3"},` +
				`"spec":{"targetRef":{"kind":"Mesh"},"to":[{"targetRef":{"kind":"MeshService","name":"backend"},"default":{"idleTimeout":"20s","connectionTimeout":1.5e3}}]}}`)
		}
		b.WriteString(`],"kind":"MeshTimeoutList","metadata":{"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTk5fQ","resourceVersion":"99999"}}`)
		return []byte(b.String())
	}()
)

var benchInputs = []struct {
	name string
	data []byte
}{{"review", benchReview}, {"kuma-page", benchKumaPage}, {"list-page", benchListPage}}

// tokens counts the tokens of data: its values, keys, colons, commas and closing brackets, each
// one, which the benchmarks report a pass's cost per.
func tokens(data []byte) int {
	var s Scanner
	s.Reset(data)
	n := 0
	var walk func() bool
	walk = func() bool {
		n++
		switch c, _ := s.Peek(); c {
		case '{':
			return s.Object(true, func([]byte) bool { n += 3; return walk() }) // key, colon, comma or end
		case '[':
			return s.Array(func() bool { n++; return walk() }) // comma or end
		}
		_, ok := s.Value()
		return ok
	}
	if !walk() {
		panic("not JSON")
	}
	return n
}

// BenchmarkScan is one pass over each input: Count (a Value), and a read as kriguard's readers read
// (benchRead). It reports the tokens of each input, to divide the instructions of a pass by.
func BenchmarkScan(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name+"/count", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			for b.Loop() {
				if _, ok := Count(in.data); !ok {
					b.Fatal("not valid")
				}
			}
			b.ReportMetric(float64(tokens(in.data)), "tokens")
		})
		b.Run(in.name+"/read", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.data)))
			var s Scanner
			for b.Loop() {
				s.Reset(in.data)
				if !benchRead(&s) || !s.End() {
					b.Fatal("not read")
				}
			}
		})
	}
}

// benchSpecStrings is a set of strings as a reader of spec asks ValueStrings for.
var benchSpecStrings = func() *Strings {
	t := &Strings{}
	for _, s := range []string{"sectionName", "targetRef", "backendRefs", "backendRef", "name", "namespace", "MeshServiceSubset", "MeshSubset"} {
		t.Add(s)
	}
	return t
}()

// benchRead reads the value at s as kriguard's readers do: each object's members by key, through
// Object; a few scalars by String and Literal; labels as a map; "spec" and "object" through
// ValueStrings with a set, "status", "managedFields" and the rest through Value; arrays through
// Array.
func benchRead(s *Scanner) bool {
	var walk func() bool
	walk = func() bool {
		switch c, _ := s.Peek(); c {
		case '{':
			return s.Object(true, func(lit []byte) bool {
				switch string(lit[1 : len(lit)-1]) {
				case "items", "request", "metadata":
					return walk()
				case "name", "namespace", "uid", "kind", "type", "mesh", "apiVersion", "operation":
					switch c, _ := s.Peek(); c {
					case 'n':
						return s.Literal("null")
					case '"':
						_, ok := s.String()
						return ok
					}
					return walk()
				case "labels":
					m := map[string]string{}
					return s.Object(true, func(lit []byte) bool {
						k, ok := s.Unquote(lit)
						v, ok2 := s.String()
						m[k] = v
						return ok && ok2
					})
				case "spec", "object":
					_, ok := s.ValueStrings(benchSpecStrings, func([]byte, bool) bool { return true })
					return ok
				}
				_, ok := s.Value()
				return ok
			})
		case '[':
			return s.Array(walk)
		}
		_, ok := s.Value()
		return ok
	}
	return walk()
}

// benchSpec is the spec of webhook's benchmark MeshTimeout, as the API server writes it.
var benchSpec = []byte(`{"targetRef":{"kind":"Mesh"},"to":[{"default":{"connectionTimeout":"5s","http":` +
	`{"requestTimeout":"15s"},"idleTimeout":"1h"},"targetRef":{"kind":"MeshService","sectionName":"http"}}]}`)

// BenchmarkSpec is one pass over benchSpec: by Value; by ValueStrings with a set none of its
// strings may be in (the loop alone); and with benchSpecStrings, of which it holds three, each
// passed to a callback that does nothing (docs/performance.md, "Change 17").
func BenchmarkSpec(b *testing.B) {
	var none Strings
	for _, c := range []struct {
		name string
		want *Strings
	}{{"value", nil}, {"strings-none", &none}, {"strings", benchSpecStrings}} {
		b.Run(c.name, func(b *testing.B) {
			var s Scanner
			n := 0
			each := func([]byte, bool) bool { n++; return true }
			b.ReportAllocs()
			for b.Loop() {
				s.Reset(benchSpec)
				var ok bool
				if c.want == nil {
					_, ok = s.Value()
				} else {
					_, ok = s.ValueStrings(c.want, each)
				}
				if !ok {
					b.Fatal("not read")
				}
			}
			if c.want == benchSpecStrings && n != 3*b.N {
				b.Fatalf("%d strings passed in %d passes, want 3 each", n, b.N)
			}
		})
	}
}
