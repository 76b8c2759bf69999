package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/rules"
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

// BenchmarkCheck compares check on 10,000 objects with the floor of merely decoding the same YAML:
// splitting the stream with apimachinery's YAML reader and decoding each document with
// sigs.k8s.io/yaml, what any tool that reads manifests does. The two alternate within each -count
// round, so that a busy machine slows both.
func BenchmarkCheck(b *testing.B) {
	const n = 10000
	corpus := corpus(b, n)
	b.Run("decode-floor", func(b *testing.B) {
		b.SetBytes(int64(len(corpus)))
		b.ReportAllocs()
		for b.Loop() {
			r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(corpus)))
			objects := 0
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
					objects++
				}
			}
			if objects != n {
				b.Fatalf("decoded %d objects", objects)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(corpus)))
		b.ReportAllocs()
		for b.Loop() {
			var errOut bytes.Buffer
			code := Main(b.Context(), []string{"check", "-o", "json", "-"}, Streams{In: bytes.NewReader(corpus), Out: io.Discard, Err: &errOut})
			if code != ExitDenied || errOut.Len() > 0 {
				b.Fatalf("exit %d: %s", code, errOut.String())
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
	})
}

// BenchmarkAudit compares audit with a bare paginated LIST of the same objects, in the same run
// over the same control plane: "list" is what a tool does with client-go's dynamic client (pages
// into unstructured lists), "pages" the same requests as audit without judging anything, "audit"
// the whole audit, results written as JSON.
func BenchmarkAudit(b *testing.B) {
	env := testenv.StartForTest(b, testenv.Options{})
	const n = 5000
	seed(b, env, n, 0)
	cfg := rest.CopyConfig(env.Config)
	cfg.QPS, cfg.Burst = 50, 100
	au := &auditor{rest: cfg, rules: rules.DefaultConfig(), chunk: 500}
	kinds, err := au.discover(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	perSecond := func(b *testing.B, objects int) {
		if objects != n*b.N {
			b.Fatalf("%d objects per run, want %d", objects/b.N, n)
		}
		b.ReportMetric(float64(objects)/b.Elapsed().Seconds(), "objects/s")
	}
	b.Run("list", func(b *testing.B) {
		dc, err := dynamic.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		objects := 0
		for b.Loop() {
			for _, k := range kinds {
				token := ""
				for {
					l, err := dc.Resource(k.GVR).List(b.Context(), metav1.ListOptions{Limit: 500, Continue: token})
					if err != nil {
						b.Fatal(err)
					}
					objects += len(l.Items)
					if token = l.GetContinue(); token == "" {
						break
					}
				}
			}
		}
		perSecond(b, objects)
	})
	b.Run("pages", func(b *testing.B) {
		client, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(cfg))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		objects := 0
		for b.Loop() {
			for _, k := range kinds {
				err := au.listKind(b.Context(), client, k, func([]byte) error { objects++; return nil }, func() error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		perSecond(b, objects)
	})
	b.Run("audit", func(b *testing.B) {
		b.ReportAllocs()
		objects := 0
		for b.Loop() {
			w := newJSONWriter(stdout{&streams{out: bufio.NewWriter(io.Discard), err: io.Discard}}, objectJSON)
			var t tally
			err := au.run(b.Context(), &t, w.write, func(err error) { b.Fatal(err) }, func() error { return nil })
			if err != nil {
				b.Fatal(err)
			}
			objects += t.objects
		}
		perSecond(b, objects)
	})
}

// BenchmarkOutputs compares check on 10,000 objects writing JSON (the baseline) with each other
// format and with every format from one run (all but one into files), to show what a format and
// several outputs add to a run.
func BenchmarkOutputs(b *testing.B) {
	const n = 10000
	corpus := corpus(b, n)
	dir := b.TempDir()
	for _, tt := range []struct {
		name    string
		outputs []string
	}{
		{"json", []string{"json"}},
		{"text", []string{"text"}},
		{"sarif", []string{"sarif"}},
		{"junit", []string{"junit"}},
		{"github", []string{"github"}},
		{"all", []string{"text", "json=" + filepath.Join(dir, "out.json"), "sarif=" + filepath.Join(dir, "out.sarif"),
			"junit=" + filepath.Join(dir, "out.xml"), "github=" + filepath.Join(dir, "out.github")}},
	} {
		args := []string{"check"}
		for _, o := range tt.outputs {
			args = append(args, "-o", o)
		}
		args = append(args, "-")
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(corpus)))
			b.ReportAllocs()
			for b.Loop() {
				var errOut bytes.Buffer
				code := Main(b.Context(), args, Streams{In: bytes.NewReader(corpus), Out: io.Discard, Err: &errOut})
				if code != ExitDenied || errOut.Len() > 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
