package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kongBench are Kong objects as Kong's operator names them, and a binding and a target whose
// names break their relation.
var kongBench = []struct{ kind, raw string }{
	{"KongRoute", `{"metadata":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00"}}`},
	{"KongService", `{"metadata":{"name":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"},"spec":{"host":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}`},
	{"KongUpstream", `{"metadata":{"name":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}`},
	{"KongTarget", `{"metadata":{"name":"http.default-echo-8080.1.cp1fbfa93f.29652d0c.bb0118c8"},"spec":{"upstreamRef":{"name":"http.default-echo-8080.1.cp1fbfa93f.29652d0c"}}}`},
	{"KongTarget", `{"metadata":{"name":"http.default-echo-8080.1.cp1fbfa93f.29652d0c.bb0118c8"},"spec":{"upstreamRef":{"name":"http.default-other-8080.1.cp1fbfa93f.29652d0c"}}}`},
	{"KongPlugin", `{"metadata":{"name":"default.request-transformer.5c69e6e8"}}`},
	{"KongPluginBinding", `{"metadata":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00.default.request-transformer.5c69e6e8"},"spec":{"pluginRef":{"name":"default.request-transformer.5c69e6e8"},"targets":{"routeRef":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00"}}}}`},
	{"KongPluginBinding", `{"metadata":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00.default.request-transformer.5c69e6e8"},"spec":{"pluginRef":{"name":"other"},"targets":{"routeRef":{"name":"http.default-echo.cp1fbfa93f.5cff32e8.m00"}}}}`},
}

// BenchmarkKongJudge judges each object of kongBench once per iteration, decoded beforehand: the
// judgement alone.
func BenchmarkKongJudge(b *testing.B) {
	type decoded struct {
		kind string
		obj  *admitted
	}
	var objs []decoded
	for _, o := range kongBench {
		gk := schema.GroupKind{Group: KongGroup, Kind: o.kind}
		raw := `{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"` + o.kind + `",` + o.raw[1:]
		obj, err := decodeObject(runtime.RawExtension{Raw: []byte(raw)}, "object", gk, true)
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, decoded{o.kind, obj})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range objs {
			kongErrors(o.kind, o.obj)
		}
	}
}
