package naming

import (
	"strings"
	"testing"
	"time"
)

// benchInputs are realistic KRIs of the lengths Kuma produces.
var benchInputs = []string{
	"kri_msvc_mesh-1_us-east-2_kuma-demo_backend_httpport",
	"kri_mt_mesh-1__kuma-system_global-timeouts_",
	"kri_dp_default_zone-1_kuma-demo_demo-app-7d9c4b6f5-x2x7k_8080",
	"kri_m____default_",
}

var (
	sinkKRI   KRI
	sinkErr   error
	sinkParts []string
	sinkStr   string
)

func BenchmarkParse(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkKRI, sinkErr = Parse(in)
			}
			if sinkErr != nil {
				b.Fatal(sinkErr)
			}
		})
	}
}

// BenchmarkSplit is the yardstick of the issue: a bare strings.Split of the same inputs, which
// validates nothing.
func BenchmarkSplit(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkParts = strings.Split(in, "_")
			}
		})
	}
}

// BenchmarkParseVsSplit runs both over all inputs in the same run and reports their ratio
// (parse-ns/split-ns below 1 means Parse, validation included, is the faster of the two).
func BenchmarkParseVsSplit(b *testing.B) {
	b.ReportAllocs()
	var parse, split time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, in := range benchInputs {
			sinkKRI, sinkErr = Parse(in)
		}
		t1 := time.Now()
		for _, in := range benchInputs {
			sinkParts = strings.Split(in, "_")
		}
		split += time.Since(t1)
		parse += t1.Sub(t0)
	}
	n := float64(b.N * len(benchInputs))
	b.ReportMetric(float64(parse.Nanoseconds())/n, "parse-ns/kri")
	b.ReportMetric(float64(split.Nanoseconds())/n, "split-ns/kri")
	b.ReportMetric(float64(parse)/float64(split), "parse/split")
}

func BenchmarkParseInvalid(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkKRI, sinkErr = Parse("kri_mt_Mesh-1___n_")
	}
}

func BenchmarkString(b *testing.B) {
	k, err := Parse(benchInputs[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sinkStr = k.String()
	}
}

func BenchmarkValidate(b *testing.B) {
	k, err := Parse(benchInputs[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sinkErr = k.Validate()
	}
}

// BenchmarkForObject builds the KRI of valid objects of each rule's shape; it must not allocate.
func BenchmarkForObject(b *testing.B) {
	cases := []struct {
		name, kind string
		obj        *obj
	}{
		{"labels", "MeshService", &obj{name: "backend", namespace: "kuma-demo",
			labels: map[string]string{LabelMesh: "mesh-1", LabelZone: "east", LabelNamespace: "kuma-demo"}}},
		{"kds-copy", "MeshTimeout", &obj{name: "timeout-1-zv8cd84664fc74w4", namespace: "kuma-system",
			labels:      map[string]string{LabelMesh: "default", LabelZone: "zone-1", LabelNamespace: "kuma-demo", "kuma.io/origin": "zone"},
			annotations: map[string]string{AnnotationDisplayName: "timeout-1"}}},
		{"legacy", "Dataplane", &obj{name: "backend-7d9f", namespace: "kuma-demo", mesh: "custom-mesh"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if _, errs := ForObject(c.obj, c.kind); len(errs) > 0 {
				b.Fatal(errs)
			}
			b.ReportAllocs()
			for b.Loop() {
				sinkKRI, _ = ForObject(c.obj, c.kind)
			}
		})
	}
}

var sinkLookups [5]string

// BenchmarkForObjectVsLookups reports ForObject's time over a baseline of the bare work any
// implementation must do, in the same run: the five map lookups that fetch the KRI's parts of a
// KDS-synced copy, with no validation. forobject/lookups is the cost of checking every field and
// resolving the type, as a multiple of that floor.
func BenchmarkForObjectVsLookups(b *testing.B) {
	o := &obj{name: "timeout-1-zv8cd84664fc74w4", namespace: "kuma-system",
		labels:      map[string]string{LabelMesh: "default", LabelZone: "zone-1", LabelNamespace: "kuma-demo", "kuma.io/origin": "zone"},
		annotations: map[string]string{AnnotationDisplayName: "timeout-1"}}
	const rounds = 64
	b.ReportAllocs()
	var forObject, lookups time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range rounds {
			sinkKRI, _ = ForObject(o, "MeshTimeout")
		}
		t1 := time.Now()
		for range rounds {
			l := o.GetLabels()
			sinkLookups = [5]string{l[LabelMesh], l[LabelZone], l[LabelNamespace], o.GetAnnotations()[AnnotationDisplayName], o.GetName()}
		}
		lookups += time.Since(t1)
		forObject += t1.Sub(t0)
	}
	n := float64(b.N * rounds)
	b.ReportMetric(float64(forObject.Nanoseconds())/n, "forobject-ns")
	b.ReportMetric(float64(lookups.Nanoseconds())/n, "lookups-ns")
	b.ReportMetric(float64(forObject)/float64(lookups), "forobject/lookups")
}
