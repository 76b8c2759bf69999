package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crdYAML is a minimal valid CRD for kind in group, with a marker in its description so a test can tell
// which file it came from.
func crdYAML(group, kind, plural, marker string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + plural + `.` + group + `
spec:
  group: ` + group + `
  names:
    kind: ` + kind + `
    listKind: ` + kind + `List
    plural: ` + plural + `
    singular: ` + strings.ToLower(kind) + `
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: ` + marker + `
`
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadCRDs(t *testing.T) {
	kuma := writeFiles(t, map[string]string{
		"crds/a.yaml": crdYAML("kuma.io", "MeshTimeout", "meshtimeouts", "upstream") + "---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n---\n" +
			crdYAML("kuma.io", "MeshRetry", "meshretries", "upstream"),
		"README.md": "not a CRD",
	})
	extra := writeFiles(t, map[string]string{"widgets.yaml": crdYAML("example.com", "Widget", "widgets", "extra")})
	got, err := loadCRDs([]string{kuma}, []string{extra})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // name → marker
		"meshtimeouts.kuma.io": "upstream",
		"meshretries.kuma.io":  "upstream",
		"widgets.example.com":  "extra",
	}
	if len(got) != len(want) {
		t.Fatalf("loaded %d CRDs, want %d", len(got), len(want))
	}
	for _, c := range got {
		marker := c.crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Description
		if want[c.crd.Name] != marker {
			t.Errorf("%s came from the %s file, want %s", c.crd.Name, marker, want[c.crd.Name])
		}
		if c.upstream != (marker == "upstream") {
			t.Errorf("%s: upstream = %t", c.crd.Name, c.upstream)
		}
	}

	kinds := kindsOf(got)
	var names []string
	for _, k := range kinds {
		names = append(names, k.Group+"/"+k.Kind)
	}
	if strings.Join(names, " ") != "example.com/Widget kuma.io/MeshRetry kuma.io/MeshTimeout" {
		t.Errorf("kinds in order %v", names)
	}
	if k := kinds[2]; k.Version != "v1alpha1" || !k.Namespaced || k.Plural != "meshtimeouts" || !k.Upstream ||
		k.GroupVersionResource().Resource != "meshtimeouts" || k.CRDName() != "meshtimeouts.kuma.io" {
		t.Errorf("MeshTimeout kind %+v", k)
	}
	if kinds[0].Upstream {
		t.Errorf("Widget, from an extra folder, is marked upstream")
	}
}

func TestLoadCRDsErrors(t *testing.T) {
	good := crdYAML("kuma.io", "MeshTimeout", "meshtimeouts", "x")
	tests := []struct {
		name     string
		upstream map[string]string
		extra    []map[string]string
		want     string
	}{
		{
			name:     "same name twice in an upstream folder",
			upstream: map[string]string{"a.yaml": good, "b.yaml": good},
			want:     `CRD "meshtimeouts.kuma.io" defined twice`,
		},
		{
			name:     "same name upstream and in an extra folder",
			upstream: map[string]string{"a.yaml": good},
			extra:    []map[string]string{{"b.yaml": good}},
			want:     `CRD "meshtimeouts.kuma.io" defined twice`,
		},
		{
			name:     "same name in two extra folders",
			upstream: map[string]string{"a.yaml": crdYAML("kuma.io", "MeshRetry", "meshretries", "x")},
			extra:    []map[string]string{{"a.yaml": good}, {"b.yaml": good}},
			want:     `CRD "meshtimeouts.kuma.io" defined twice`,
		},
		{
			name:     "no CRDs in an upstream folder",
			upstream: map[string]string{"a.txt": good},
			want:     "no CRDs in",
		},
		{
			name:     "extra folder without CRDs",
			upstream: map[string]string{"a.yaml": good},
			extra:    []map[string]string{{"a.yaml": "apiVersion: v1\nkind: ConfigMap\n"}},
			want:     "no CRDs in",
		},
		{
			name:     "malformed YAML",
			upstream: map[string]string{"a.yaml": "apiVersion: [\n"},
			want:     "a.yaml: ",
		},
		{
			name:     "v1beta1 CRD",
			upstream: map[string]string{"a.yaml": strings.Replace(good, "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1)},
			want:     `apiVersion "apiextensions.k8s.io/v1beta1", want apiextensions.k8s.io/v1`,
		},
		{
			name:     "name not plural.group",
			upstream: map[string]string{"a.yaml": strings.Replace(good, "name: meshtimeouts.kuma.io", "name: timeouts.kuma.io", 1)},
			want:     "name must be meshtimeouts.kuma.io",
		},
		{
			name:     "no storage version",
			upstream: map[string]string{"a.yaml": strings.Replace(good, "storage: true", "storage: false", 1)},
			want:     "no storage version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []string
			for _, files := range tt.extra {
				extra = append(extra, writeFiles(t, files))
			}
			_, err := loadCRDs([]string{writeFiles(t, tt.upstream)}, extra)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	t.Run("missing extra folder", func(t *testing.T) {
		_, err := loadCRDs([]string{writeFiles(t, map[string]string{"a.yaml": good})}, []string{filepath.Join(t.TempDir(), "nope")})
		if err == nil || !strings.Contains(err.Error(), "nope") {
			t.Errorf("error %v, want one naming the folder", err)
		}
	})
}

func TestUpstreamCRDDirs(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	kumaDir := filepath.Join(root, "shared", "upstream", "kuma", "v9.9.9", "crds")
	kongDir := filepath.Join(root, "shared", "upstream", "kong-operator", KongOperator, "crds")
	if _, err := upstreamCRDDirs(repo, "v9.9.9", ""); err == nil || !strings.Contains(err.Error(), "upstream CRDs are missing") ||
		!strings.Contains(err.Error(), kumaDir) {
		t.Errorf("without ../shared: error %v, want one naming the missing folder", err)
	}
	for _, d := range []string{repo, kumaDir, kongDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := upstreamCRDDirs(repo, "v9.9.9", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{kumaDir, kongDir}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := upstreamCRDDirs(repo, "v1.0.0", ""); err == nil || !strings.Contains(err.Error(), filepath.Join("kuma", "v1.0.0", "crds")) {
		t.Errorf("a version without a folder: error %v, want one naming its folder", err)
	}
	for _, bad := range []string{"", ".", "..", "../v9.9.9", "v9.9.9/crds"} {
		if _, err := upstreamCRDDirs(repo, bad, ""); err == nil || !strings.Contains(err.Error(), "must name one folder") {
			t.Errorf("version %q: error %v, want one saying it must name one folder", bad, err)
		}
		if _, err := upstreamCRDDirs(repo, "v9.9.9", bad+"/"); err == nil || !strings.Contains(err.Error(), "OpenReports version") {
			t.Errorf("OpenReports version %q: error %v, want one saying it must name one folder", bad+"/", err)
		}
	}

	reportsDir := filepath.Join(root, "shared", "upstream", "openreports", "v0.0.1", "crds")
	if _, err := upstreamCRDDirs(repo, "v9.9.9", "v0.0.1"); err == nil || !strings.Contains(err.Error(), reportsDir) {
		t.Errorf("OpenReports without a folder: error %v, want one naming %s", err, reportsDir)
	}
	if err := os.MkdirAll(reportsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err = upstreamCRDDirs(repo, "v9.9.9", "v0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{kumaDir, kongDir, reportsDir}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("with OpenReports: got %q, want %q", got, want)
	}
}

func TestExtraCRDDirs(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got, err := extraCRDDirs("/abs/kuma::rel/kong:/abs/kuma", []string{"testdata/crds"}, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/abs/kuma", "/repo/rel/kong", filepath.Join(wd, "testdata/crds")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFindBinaries(t *testing.T) {
	exe := func(dir, name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("assets folder complete", func(t *testing.T) {
		dir := t.TempDir()
		exe(dir, "kube-apiserver", 0o755)
		exe(dir, "etcd", 0o755)
		t.Setenv(AssetsEnv, dir)
		b, err := findBinaries("/nonexistent")
		if err != nil {
			t.Fatal(err)
		}
		if b.apiServer != filepath.Join(dir, "kube-apiserver") || b.etcd != filepath.Join(dir, "etcd") || b.kubectl != "" {
			t.Errorf("got %+v", b)
		}
	})
	t.Run("not executable", func(t *testing.T) {
		dir := t.TempDir()
		exe(dir, "kube-apiserver", 0o755)
		exe(dir, "etcd", 0o644)
		t.Setenv(AssetsEnv, dir)
		_, err := findBinaries("")
		if err == nil || !strings.Contains(err.Error(), "etcd") || !strings.Contains(err.Error(), "./hack/tools.sh install") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("dangling link into a deleted cache", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "kube-apiserver")); err != nil {
			t.Fatal(err)
		}
		t.Setenv(AssetsEnv, dir)
		if _, err := findBinaries(""); err == nil || !strings.Contains(err.Error(), "make test") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("unset falls back to the repository's bin", func(t *testing.T) {
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(AssetsEnv, "")
		if _, err := findBinaries(root); err == nil || !strings.Contains(err.Error(), "KUBEBUILDER_ASSETS is not set") {
			t.Errorf("error %v", err)
		}
		exe(filepath.Join(root, "bin"), "kube-apiserver", 0o755)
		exe(filepath.Join(root, "bin"), "etcd", 0o755)
		exe(filepath.Join(root, "bin"), "kubectl", 0o755)
		b, err := findBinaries(root)
		if err != nil || b.kubectl != filepath.Join(root, "bin", "kubectl") {
			t.Errorf("got %+v, %v", b, err)
		}
	})
}

func TestModuleOf(t *testing.T) {
	tests := map[string]string{
		"module github.com/kriguard/kriguard\n\ngo 1.26\n": "github.com/kriguard/kriguard",
		"// c\nmodule \"example.com/x\" // trailing\n":     "example.com/x",
		"modulex foo\n": "",
		"go 1.26\n":     "",
		"\tmodule\tgithub.com/kriguard/kriguard/test/tools/etcd": "github.com/kriguard/kriguard/test/tools/etcd",
	}
	for in, want := range tests {
		if got := moduleOf([]byte(in)); got != want {
			t.Errorf("moduleOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMinimalFields(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "- group: g\n  kind: K\n  feilds: {spec: {}}\n", "unknown field"},
		{"no kind", "- group: g\n  fields: {spec: {}}\n", "kind is required"},
		{"no fields", "- group: g\n  kind: K\n", "fields is required"},
		{"twice", "- {group: g, kind: K, fields: {a: 1}}\n- {group: g, kind: K, fields: {a: 2}}\n", "listed twice"},
		{"metadata", "- {group: g, kind: K, fields: {metadata: {}}}\n", "metadata is set by NewObject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseMinimalFields([]byte(tt.yaml)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	m, err := parseMinimalFields([]byte("- {group: g, kind: K, fields: {spec: {port: 80}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for gk, fields := range m {
		if port := fields["spec"].(map[string]any)["port"]; port != int64(80) {
			t.Errorf("%s: port decoded as %T %v, want int64 80 like the apiserver's answers", gk, port, port)
		}
	}
}

func TestNewObject(t *testing.T) {
	ns := Kind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshZoneAddress", Namespaced: true}
	a := NewObject(ns, "demo", "a")
	b := NewObject(ns, "demo", "b")
	if a.GetNamespace() != "demo" || a.GetName() != "a" || a.GetAPIVersion() != "kuma.io/v1alpha1" || a.GetKind() != "MeshZoneAddress" {
		t.Errorf("object %v", a.Object)
	}
	if a.Object["spec"].(map[string]any)["port"] != int64(10001) {
		t.Errorf("spec %v", a.Object["spec"])
	}
	a.Object["spec"].(map[string]any)["port"] = int64(1)
	if b.Object["spec"].(map[string]any)["port"] != int64(10001) {
		t.Error("objects share their spec")
	}
	cluster := NewObject(Kind{Group: "kuma.io", Version: "v1alpha1", Kind: "Mesh"}, "demo", "m")
	if cluster.GetNamespace() != "" || len(cluster.Object) != 3 {
		t.Errorf("cluster-scoped object without a spec in its schema %v", cluster.Object)
	}
	withSpec := NewObject(Kind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout", Namespaced: true, HasSpec: true}, "demo", "t")
	if spec, ok := withSpec.Object["spec"].(map[string]any); !ok || len(spec) != 0 {
		t.Errorf("kind with a spec and no entry in objects.yaml: %v", withSpec.Object)
	}
}

// FuzzReadCRDFile feeds any file to the reader: it never panics, and what it returns passes
// checkCRD.
func FuzzReadCRDFile(f *testing.F) {
	f.Add([]byte(crdYAML("kuma.io", "MeshTimeout", "meshtimeouts", "x")))
	f.Add([]byte(crdYAML("a.io", "A", "as", "x") + "---\n" + crdYAML("b.io", "B", "bs", "y")))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"as.a.io"}}`))
	f.Add([]byte("---\n---\napiVersion: v1\nkind: ConfigMap\n"))
	f.Add([]byte("kind: CustomResourceDefinition\nspec: [\n"))
	f.Add([]byte("\xff\x00"))
	if real, err := os.ReadFile("../../" + UpstreamCRDDirs(DefaultKuma)[1] + "/configuration.konghq.com_kongplugins.yaml"); err == nil {
		f.Add(real)
	}
	path := filepath.Join(f.TempDir(), "crds.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		crds, err := readCRDFile(path)
		if err != nil {
			return
		}
		for _, c := range crds {
			if checkCRD(c) != nil {
				t.Errorf("readCRDFile returned a CRD that fails checkCRD: %+v", c)
			}
		}
	})
}
