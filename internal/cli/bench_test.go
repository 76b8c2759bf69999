package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// corpus builds n guarded objects as one multi-document YAML stream, the way helm template
// prints a chart: Kuma policies with target references (one in ten with a bad mesh label, one in
// ten with a bad section name), MeshServices with ports and Kong objects.
func corpus(tb testing.TB, n int) []byte {
	tb.Helper()
	var b bytes.Buffer
	for i := range n {
		b.WriteString("---\n")
		switch i % 4 {
		case 0, 1:
			mesh := "default"
			if i%10 == 0 {
				mesh = "Mesh_1"
			}
			section := "http"
			if i%10 == 1 {
				section = "HTTP_8080"
			}
			fmt.Fprintf(&b, `# Source: app/templates/timeout-%[1]d.yaml
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: timeout-%[1]d
  namespace: app-%[2]d
  labels:
    kuma.io/mesh: %[3]s
    app.kubernetes.io/managed-by: Helm
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: backend-%[1]d
        namespace: app-%[2]d
        sectionName: %[4]s
      default:
        idleTimeout: 20s
        connectionTimeout: 2s
        http:
          requestTimeout: 5s
          streamIdleTimeout: 1h
`, i, i%7, mesh, section)
		case 2:
			fmt.Fprintf(&b, `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  name: backend-%[1]d
  namespace: app-%[2]d
  labels:
    kuma.io/mesh: default
    app: backend
spec:
  selector:
    dataplaneTags:
      app: backend
      k8s.kuma.io/namespace: app-%[2]d
  ports:
    - port: 8080
      targetPort: 8080
      appProtocol: http
      name: http
`, i, i%7)
		case 3:
			fmt.Fprintf(&b, `apiVersion: configuration.konghq.com/v1alpha1
kind: KongService
metadata:
  name: service-%[1]d
  namespace: kong
spec:
  host: backend-%[1]d.app.svc
  port: 8080
  controlPlaneRef:
    type: konnectNamespacedRef
    konnectNamespacedRef:
      name: kong-cp
`, i)
		}
	}
	return b.Bytes()
}

// BenchmarkDecodeFloor is the floor check is measured against: splitting the same stream with
// apimachinery's YAML reader and decoding each document with sigs.k8s.io/yaml, what any tool that
// reads manifests does.
func BenchmarkDecodeFloor(b *testing.B) {
	corpus := corpus(b, 10000)
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(corpus)))
		n := 0
		for {
			doc, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			var obj map[string]any
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				b.Fatal(err)
			}
			if obj != nil {
				n++
			}
		}
		if n != 10000 {
			b.Fatalf("decoded %d objects", n)
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "objects/s")
}
