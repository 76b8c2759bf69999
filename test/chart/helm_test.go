package chart

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// releaseNamespace is where the tests install the chart unless a test needs its own.
const releaseNamespace = "kriguard-system"

// root is the repository root, found from the package folder `go test` runs in.
func root(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "charts", "kriguard", "Chart.yaml")); err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return dir
}

// chartDir is the chart under test.
func chartDir(t testing.TB) string { return filepath.Join(root(t), "charts", "kriguard") }

// helmBinary returns the pinned helm that hack/tools.sh links into bin/. A helm found elsewhere on PATH
// may be another major version with other rendering rules, so it is not used.
func helmBinary(t testing.TB) string {
	t.Helper()
	path := filepath.Join(root(t), "bin", "helm")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("helm is missing (%v): run ./hack/tools.sh install (or make test) to build the pinned helm v4", err)
	}
	return path
}

// helm runs the pinned helm with private configuration, cache and data folders, so the tests neither
// read nor change the developer's helm set-up. kubeconfig may be empty for commands that need no cluster.
func helm(t testing.TB, kubeconfig string, args ...string) (stdout string, err error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helmBinary(t), args...)
	cmd.Env = append(os.Environ(),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
		"KUBECONFIG="+kubeconfig,
	)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), &helmError{args: args, err: err, stderr: errOut.String() + out.String()}
	}
	return out.String(), nil
}

// helmError keeps what helm printed, which is what a test wants to match against.
type helmError struct {
	args   []string
	err    error
	stderr string
}

func (e *helmError) Error() string {
	return "helm " + strings.Join(e.args, " ") + ": " + e.err.Error() + ": " + e.stderr
}

func (e *helmError) Unwrap() error { return e.err }

// valuesFile writes a values document for -f and returns its path; "" gives no file.
func valuesFile(t testing.TB, values string) []string {
	t.Helper()
	if values == "" {
		return nil
	}
	// Not t.TempDir: its name comes from the test's, and helm splits -f on commas.
	dir, err := os.MkdirTemp("", "kriguard-values-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(path, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"-f", path}
}

// templateArgs are the arguments of `helm template` for the chart with the given values.
func templateArgs(t testing.TB, release, namespace, values string) []string {
	args := []string{"template", release, chartDir(t), "--namespace", namespace}
	return append(args, valuesFile(t, values)...)
}

// render runs `helm template` and returns the rendered objects in order.
func render(t testing.TB, release, namespace, values string) manifest {
	t.Helper()
	out, err := helm(t, "", templateArgs(t, release, namespace, values)...)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeObjects(out)
	if err != nil {
		t.Fatalf("decoding helm template output: %v\n%s", err, out)
	}
	return objs
}

// decodeObjects splits a multi-document YAML stream into objects, dropping empty documents.
func decodeObjects(stream string) (manifest, error) {
	var objs manifest
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(stream)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

// manifest is a rendered chart.
type manifest []*unstructured.Unstructured

// get returns the object of the kind and name, failing the test when it is missing.
func (m manifest) get(t testing.TB, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range m {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("rendered chart has no %s %q; it has %v", kind, name, m.names())
	return nil
}

// ofKind returns the objects of one kind.
func (m manifest) ofKind(kind string) manifest {
	var out manifest
	for _, o := range m {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

func (m manifest) names() []string {
	var out []string
	for _, o := range m {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

// field reads a nested field of any type, failing the test when it is absent.
func field(t testing.TB, o *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(o.Object, path...)
	if err != nil || !ok {
		t.Fatalf("%s/%s: no field %s (%v)", o.GetKind(), o.GetName(), strings.Join(path, "."), err)
	}
	return v
}

// slice reads a nested list of objects.
func slice(t testing.TB, o *unstructured.Unstructured, path ...string) []map[string]any {
	t.Helper()
	raw, ok := field(t, o, path...).([]any)
	if !ok {
		t.Fatalf("%s/%s: %s is not a list", o.GetKind(), o.GetName(), strings.Join(path, "."))
	}
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s/%s: %s[%d] is not an object", o.GetKind(), o.GetName(), strings.Join(path, "."), i)
		}
		out[i] = m
	}
	return out
}
