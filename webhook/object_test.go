package webhook

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

var meshTimeoutGK = schema.GroupKind{Group: "kuma.io", Kind: "MeshTimeout"}

const fastHead = `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout",`

// decodeCases are objects for both decoders; fast says whether decodeFast must take them.
var decodeCases = []struct {
	name string
	raw  string
	fast bool
}{
	{"plain", fastHead + `"metadata":{"name":"t","namespace":"ns","labels":{"kuma.io/mesh":"m"},"annotations":{}},"spec":{"targetRef":{"kind":"Mesh"}}}`, true},
	{"valid section", fastHead + `"metadata":{"name":"t"},"spec":{"to":[{"targetRef":{"kind":"MeshService","sectionName":"http"}}]}}`, true},
	{"invalid section", fastHead + `"metadata":{"name":"t"},"spec":{"to":[{"targetRef":{"kind":"MeshService","sectionName":"Http_1"}}]}}`, true},
	{"backendRefs", fastHead + `"metadata":{"name":"t"},"spec":{"rules":[{"default":{"backendRefs":[{"sectionName":7},{"sectionName":null}]}}]}}`, true},
	{"origin kri", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{},"status":{"origin":{"kri":"kri_x"}}}`, true},
	{"escaped string", fastHead + `"metadata":{"name":"a\"b","labels":{"k":"v\n"}}}`, true},
	{"invalid UTF-8", fastHead + "\"metadata\":{\"name\":\"a\xffb\",\"labels\":{\"k\":\"\xfe\"}}}", true},
	{"null metadata", fastHead + `"metadata":null}`, true},
	{"white space", "{ \"apiVersion\" : \"kuma.io/v1alpha1\" ,\n\t\"kind\":\"MeshTimeout\", \"metadata\" : { \"name\" : \"t\" , \"labels\" : { \"a\" : \"b\" } } ,\r\n \"spec\" : { \"targetRef\" : { \"sectionName\" : \"http\" } } }", true},
	{"escaped label keys", fastHead + `"metadata":{"labels":{"a\"b":"c","a\/b":"d","a\u0062":"e","\ud800":"f"}}}`, true},
	{"escaped label keys without \\u", fastHead + `"metadata":{"labels":{"a\"b":"c","a\/b":"d","\t":""}}}`, true},
	{"repeated label key", fastHead + `"metadata":{"labels":{"a":"b","a":"c"}}}`, true},
	{"repeated sectionName", fastHead + `"metadata":{},"spec":{"targetRef":{"sectionName":"Bad_","sectionName":"http"}}}`, true},
	{"nested references", fastHead + `"metadata":{},"spec":{"to":[{"targetRef":{"targetRef":{"sectionName":"X_"}}}],"x":{"backendRefs":[[{"sectionName":"Y_"}],{"sectionName":true}]}}}`, true},
	{"references outside spec", fastHead + `"metadata":{"x":{"targetRef":{"sectionName":"X_"}}},"other":{"targetRef":{"sectionName":"X_"}}}`, true},
	{"repeated name", fastHead + `"metadata":{"name":"a","name":"b"}}`, false},
	{"repeated kind", fastHead + `"kind":"MeshTimeout","metadata":{}}`, false},
	{"trailing garbage", fastHead + `"metadata":{}} x`, false},
	{"no kind", `{"apiVersion":"kuma.io/v1alpha1","metadata":{"name":"t"}}`, false},
	{"other kind", `{"apiVersion":"kuma.io/v1alpha1","kind":"MeshRetry","metadata":{"name":"t"}}`, false},
	{"null name", fastHead + `"metadata":{"name":null}}`, false},
	{"number name", fastHead + `"metadata":{"name":7}}`, false},
	{"null labels", fastHead + `"metadata":{"labels":null}}`, false},
	{"null label value", fastHead + `"metadata":{"labels":{"a":null}}}`, false},
	{"list metadata", fastHead + `"metadata":[]}`, false},
	{"repeated metadata", fastHead + `"metadata":{"labels":{"a":"b"}},"metadata":{"name":"t"}}`, false},
	{"repeated labels", fastHead + `"metadata":{"labels":{"a":"b"},"labels":{"c":"d"}}}`, false},
	{"repeated spec", fastHead + `"metadata":{},"spec":{"targetRef":{"sectionName":"X_"}},"spec":{}}`, false},
	{"escaped key", fastHead + `"metadata":{},"spec":{"targetRef":{"section\u004eame":"X_"}}}`, true},
	{"escaped metadata key", fastHead + `"m\u0065tadata":{"name":"a"},"metadata":{"name":"b"}}`, false},
	{"escaped origin kri", fastHead + `"metadata":{},"status":{"origin":{"k\u0072i":7}}}`, true},
	{"missing comma", fastHead + `"metadata":{} "spec":{}}`, false},
	{"trailing comma", fastHead + `"metadata":{"labels":{"a":"b",}}}`, false},
	{"trailing comma in list", fastHead + `"metadata":{},"spec":{"to":[1,]}}`, false},
	{"bad literal", fastHead + `"metadata":{},"spec":{"a":nul}}`, false},
	{"leading zero", fastHead + `"metadata":{},"spec":{"a":01}}`, false},
	{"numbers", fastHead + `"metadata":{},"spec":{"a":[-0,1.5e+10,2E-3,-12.25,0.0]}}`, true},
	{"control character", fastHead + "\"metadata\":{\"name\":\"a\tb\"}}", false},
	{"bad escape", fastHead + `"metadata":{"name":"a\xb"}}`, false},
	{"short unicode escape", fastHead + `"metadata":{"name":"a\u12"}}`, false},
	{"deep", fastHead + `"metadata":{},"spec":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`, false},
	{"huge number", fastHead + `"metadata":{},"other":1e999}`, false},
	{"long number", fastHead + `"metadata":{},"other":1` + strings.Repeat("0", 400) + `}`, false},
	{"top-level mesh", fastHead + `"mesh":"custom-mesh","metadata":{"name":"dp"}}`, true},
	{"null mesh", fastHead + `"mesh":null,"metadata":{"name":"dp"}}`, false},
	{"repeated mesh", fastHead + `"mesh":"a","mesh":"b","metadata":{"name":"dp"}}`, false},
	{"not an object", `[1]`, false},
	{"null", `null`, false},
}

func TestDecodeFast(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			_, ok := decodeFast([]byte(tc.raw), meshTimeoutGK)
			if ok != tc.fast {
				t.Errorf("decodeFast took the object: %v, want %v", ok, tc.fast)
			}
			compareDecoders(t, []byte(tc.raw))
		})
	}
}

// FuzzDecodeObject checks that decodeFast, whenever it takes an object, reads it as decodeFull
// does, and that the checks then find the same problems.
func FuzzDecodeObject(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		compareDecoders(t, raw)
	})
}

func compareDecoders(t *testing.T, raw []byte) {
	t.Helper()
	fast, ok := decodeFast(raw, meshTimeoutGK)
	if !ok {
		return
	}
	full, err := decodeFull(raw, "object", meshTimeoutGK)
	if err != nil {
		t.Fatalf("decodeFast took an object decodeFull refuses: %v", err)
	}
	for _, f := range []struct {
		name       string
		fast, full any
	}{
		{"name", fast.name, full.name},
		{"generateName", fast.generateName, full.generateName},
		{"namespace", fast.namespace, full.namespace},
		{"mesh", fast.mesh, full.mesh},
		{"hasLabels", fast.hasLabels, full.hasLabels},
		{"hasAnnotations", fast.hasAnnotations, full.hasAnnotations},
		{"hasOriginKRI", fast.hasOriginKRI, full.hasOriginKRI},
		{"originKRI", fast.originKRI, full.originKRI},
	} {
		if !reflect.DeepEqual(f.fast, f.full) {
			t.Errorf("%s: fast %#v, full %#v", f.name, f.fast, f.full)
		}
	}
	if !maps.Equal(fast.labels, full.labels) || (fast.labels == nil) != (full.labels == nil) {
		t.Errorf("labels: fast %#v, full %#v", fast.labels, full.labels)
	}
	if !maps.Equal(fast.annotations, full.annotations) || (fast.annotations == nil) != (full.annotations == nil) {
		t.Errorf("annotations: fast %#v, full %#v", fast.annotations, full.annotations)
	}
	fastErrs, fullErrs := walkRefs(fast.spec, specPath, nil), walkRefs(full.spec, specPath, nil)
	if !reflect.DeepEqual(fastErrs, fullErrs) {
		t.Errorf("target reference problems: fast %v, full %v", fastErrs, fullErrs)
	}
}
