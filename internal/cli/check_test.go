package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const examplesDir = "../../examples"

// The examples, judged as the demo applies them: golden output in both formats, and exit 1
// because some of them are denied.
func TestCheckExamples(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			r := run(t, "", "check", "-o", format, examplesDir)
			if r.code != ExitDenied {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
			}
			if r.stderr != "" {
				t.Errorf("stderr should be empty, got:\n%s", r.stderr)
			}
			golden(t, "check-examples."+format, r.stdout)
		})
	}
}

// Every example says in its "# expect:" line whether the API server admits it; check agrees
// with each, and prints the name it would be created as.
func TestCheckExamplesExpectations(t *testing.T) {
	r := run(t, "", "check", "-o", "json", examplesDir)
	byFile := map[string]jsonResult{}
	for _, res := range decodeResults(t, r.stdout) {
		byFile[filepath.Base(res.Source)] = res
	}
	paths, _ := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if len(paths) == 0 {
		t.Fatal("no examples")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var expect string
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "# expect:"); ok {
				expect = strings.TrimSpace(rest)
			}
		}
		res, ok := byFile[filepath.Base(p)]
		switch {
		case !ok:
			t.Errorf("%s: not judged", p)
		case expect == "rejected" && res.Allowed, strings.HasPrefix(expect, "created") && !res.Allowed:
			t.Errorf("%s expects %q, check says allowed=%v (%v)", p, expect, res.Allowed, res.Causes)
		case strings.HasPrefix(expect, "created as "):
			if want := strings.TrimPrefix(expect, "created as "); res.Name != want {
				t.Errorf("%s expects to be created as %s, check names it %s", p, want, res.Name)
			}
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: good\n  namespace: ns\n"
	bad := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: bad\n  namespace: ns\n  labels:\n    kuma.io/mesh: Mesh_1\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
	goodFile := writeFile(t, dir, "good.yaml", good)
	badFile := writeFile(t, dir, "bad.yaml", bad)
	mixed := writeFile(t, dir, "mixed.yaml", cm+"---\n"+bad+"---\n"+"kind: [\n---\n"+good)
	binary := writeFile(t, dir, "bin.yaml", "\x7fELF\x02\x01\x01\x00\x00\x00")
	huge := writeFile(t, dir, "huge.yaml", good+"spec:\n  x: "+strings.Repeat("y", 2000)+"\n---\n"+bad)
	warn := writeFile(t, dir, "warn.yaml", "apiVersion: kriguard.io/v1alpha1\nkind: Configuration\ndefaultEnforcement: warn\n")
	list := writeFile(t, dir, "list.json", `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": {"name": "a", "namespace": "ns"}},
  {"apiVersion": "kuma.io/v1alpha1", "kind": "MeshRetry", "metadata": {"name": "B", "namespace": "ns"}}
]}`)
	labels := writeFile(t, dir, "labels.yaml", "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: x\n  labels:\n    kuma.io/mesh: [a]\n")
	patch := writeFile(t, dir, "patch.yaml", `apiVersion: kuma.io/v1alpha1
kind: MeshProxyPatch
metadata:
  name: patch
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  default:
    appendModifications:
      - listener:
          operation: Patch
          match:
            name: inbound:10.42.0.9:8080
          value: "{}"
`)
	statPatch := writeFile(t, dir, "stat-patch.yaml", `apiVersion: kuma.io/v1alpha1
kind: MeshProxyPatch
metadata:
  name: httpbin
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  default:
    appendModifications:
      - cluster:
          operation: Add
          value: |
            name: httpbin.org_443
            type: STRICT_DNS
`)
	_ = os.Chmod(writeFile(t, dir, "locked/secret.yaml", good), 0)
	locked := filepath.Join(dir, "locked", "secret.yaml")

	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "nothing denied", args: []string{goodFile}, code: ExitOK},
		{name: "a denied object", args: []string{badFile}, code: ExitDenied,
			stdout: badFile + `:7:5: MeshTimeout ns/bad: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')` + "\n"},
		{name: "warn enforcement allows, and says so", args: []string{"--config", warn, badFile}, code: ExitOK,
			stdout: badFile + `:7:5: MeshTimeout ns/bad: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_') (allowed: warn)` + "\n"},
		{name: "standard input", stdin: bad, args: []string{"-"}, code: ExitDenied,
			stdout: `-:7:5: MeshTimeout ns/bad: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')` + "\n"},
		{name: "a broken document is an input error, the others are judged", args: []string{mixed}, code: ExitError,
			stdout: mixed + `:12:5: MeshTimeout ns/bad: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')` + "\n",
			stderr: mixed + ":14: error: invalid YAML: line 14: did not find expected node content\n"},
		{name: "binary file", args: []string{binary, goodFile}, code: ExitError,
			stderr: binary + ":1: error: binary data: the file is not a text manifest\n"},
		{name: "huge document", args: []string{"--max-document-bytes", "1000", huge}, code: ExitError,
			stdout: huge + `:15:5: MeshTimeout ns/bad: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')` + "\n",
			stderr: huge + ":1: error: document is larger than 1000 bytes\n"},
		{name: "missing path", args: []string{filepath.Join(dir, "nope.yaml"), goodFile}, code: ExitError,
			stderr: filepath.Join(dir, "nope.yaml") + ": error: reading: no such file or directory\n"},
		{name: "a JSON List", args: []string{list}, code: ExitDenied,
			stdout: list + `:3:72: MeshRetry ns/B: metadata.name: Invalid value: "B": must start with a lowercase letter or digit; must end with a lowercase letter or digit; must contain only lowercase letters, digits, '-' or '.' (found 'B')` + "\n"},
		{name: "what the webhook admits with a warning", args: []string{patch}, code: ExitOK,
			stdout: patch + `:14:13: MeshProxyPatch kuma-system/patch: spec.default.appendModifications[0].listener.match.name: Invalid value: "inbound:10.42.0.9:8080": contains ':': a legacy Envoy name, which matches nothing on a mesh with unified naming (use the resource's KRI there) (warning)` + "\n"},
		{name: "a MeshProxyPatch value naming a cluster Envoy's stats split: a warning", args: []string{statPatch}, code: ExitOK,
			stdout: statPatch + `:13:11: MeshProxyPatch kuma-system/httpbin: spec.default.appendModifications[0].cluster.value: Invalid value: "httpbin.org_443": name (a cluster's name, with no alt_stat_name) holds '.', outside Envoy's stat-safe set [a-zA-Z0-9_-]: '.' splits the name in Envoy's stats, and the tag extractors keep only its first segment; alt_stat_name: "httpbin_org_443" keeps the stats whole, as Kuma writes it (warning)` + "\n"},
		{name: "an object the webhook cannot decode", args: []string{labels}, code: ExitError,
			stderr: labels + ":1: MeshTimeout: error: decoding object: metadata.labels: .metadata.labels accessor error: contains non-string value in the map under key \"kuma.io/mesh\": [a] is of the type []interface {}, expected string\n"},
	}
	if os.Geteuid() != 0 {
		tests = append(tests, struct {
			name   string
			stdin  string
			args   []string
			code   int
			stdout string
			stderr string
		}{name: "unreadable file", args: []string{locked}, code: ExitError, stderr: locked + ": error: reading: permission denied\n"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.stdin, append([]string{"check"}, tt.args...)...)
			if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
				t.Errorf("got exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// -o json prints one array, an element per guarded object, including the ones with no problem,
// and nothing for other kinds.
func TestCheckJSON(t *testing.T) {
	in := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n" +
		"apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  generateName: timeouts-\n  namespace: kuma-demo\n  labels:\n    kuma.io/zone: east\n---\n" +
		"apiVersion: configuration.konghq.com/v1alpha1\nkind: KongRoute\nmetadata:\n  generateName: route-\n  namespace: kong\n"
	r := run(t, in, "check", "-o", "json", "-")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := fmt.Sprintf("%+v", decodeResults(t, r.stdout))
	want := fmt.Sprintf("%+v", []jsonResult{
		{Source: "-", Line: 6, APIVersion: "kuma.io/v1alpha1", Kind: "MeshTimeout", Namespace: "kuma-demo",
			Name: "timeouts-2897w457x2z72z7c", KRI: "kri_mt_default_east__timeouts_", Allowed: true, Enforcement: "deny", Causes: []jsonFinding{}},
		{Source: "-", Line: 14, APIVersion: "configuration.konghq.com/v1alpha1", Kind: "KongRoute", Namespace: "kong",
			Name: "route-*", Allowed: true, Enforcement: "deny", Causes: []jsonFinding{}},
	})
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if r := run(t, "", "check", "-o", "json", "-"); r.stdout != "[]\n" || r.code != ExitOK {
		t.Errorf("no objects: got %q, exit %d; want an empty array", r.stdout, r.code)
	}
}

// What helm template prints reads without an error: the chart's own output ("# Source:"
// comments, documents of every shape) holds no guarded object, and one appended to it is judged.
func TestCheckHelmTemplate(t *testing.T) {
	out := string(helmTemplate(t, "--set", "audit.clusterRole.create=true"))
	if r := run(t, out, "check", "-"); r.code != ExitOK || r.stdout != "" || r.stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	lines := strings.Count(out, "\n")
	bad := "---\n# Source: app/templates/timeout.yaml\napiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: T\n"
	r := run(t, out+bad, "check", "-")
	if want := fmt.Sprintf("-:%d:3: MeshTimeout T: metadata.name: ", lines+6); r.code != ExitDenied || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("exit %d, stdout %q; want exit 1 and a line starting %q", r.code, r.stdout, want)
	}
}

// A chart or a repository folder holds files that are not manifests beside the ones that are:
// Helm values, Chart.yaml, tool configurations. check skips them with one note (--strict makes
// them errors); a file named on the command line is still an error.
func TestCheckFolderSkipsFilesThatAreNotManifests(t *testing.T) {
	dir := t.TempDir()
	bad := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: bad\n  namespace: ns\n  labels:\n    kuma.io/mesh: Mesh_1\n"
	writeFile(t, dir, "app/deploy.yaml", bad)
	values := writeFile(t, dir, "app/values.yaml", "replicaCount: 2\nimage:\n  repository: nginx\n")
	writeFile(t, dir, "app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n")
	writeFile(t, dir, "app/ci/list.yml", "- one\n- two\n")
	writeFile(t, dir, "app/package.json", `{"name": "tooling"}`)
	finding := "app/deploy.yaml:7:5: MeshTimeout ns/bad: metadata.labels[kuma.io/mesh]: Invalid value: \"Mesh_1\""
	note := "kriguard: note: skipped 4 files found in folders that are not Kubernetes manifests (no apiVersion or kind, such as Helm values); --strict makes them errors\n"

	r := run(t, "", "check", dir)
	if r.code != ExitDenied || !strings.Contains(r.stdout, finding) || r.stderr != note {
		t.Errorf("exit %d, want %d with the manifest's finding and one note\nstdout: %s\nstderr: %s", r.code, ExitDenied, r.stdout, r.stderr)
	}

	r = run(t, "", "check", "--strict", dir)
	if r.code != ExitError || !strings.Contains(r.stdout, finding) || strings.Count(r.stderr, ": error: not a Kubernetes object") != 4 {
		t.Errorf("--strict: exit %d, want %d with the finding and 4 errors\nstdout: %s\nstderr: %s", r.code, ExitError, r.stdout, r.stderr)
	}

	r = run(t, "", "check", values)
	if want := values + ":1: error: not a Kubernetes object: kind is missing"; r.code != ExitError || !strings.Contains(r.stderr, want) {
		t.Errorf("a file named itself: exit %d, stderr %q; want %d and %q", r.code, r.stderr, ExitError, want)
	}
}

// Each problem is reported where its field is written, line and column, in YAML of any style, in
// JSON, in the items of a List and in the later documents of a stream; a field the source does
// not hold is placed at the closest field above it.
func TestCheckPositions(t *testing.T) {
	head := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: ns\n"
	var deep strings.Builder
	deep.WriteString(head + "spec:\n")
	indent := "  "
	for i := range 60 {
		fmt.Fprintf(&deep, "%sl%d:\n", indent, i)
		indent += "  "
	}
	deep.WriteString(indent + "targetRef:\n" + indent + "  kind: MeshService\n" + indent + "  sectionName: BAD_DEEP\n")
	tests := []struct {
		name, input string
		markers     []string // where each problem is, in order: the first occurrence of each
	}{
		{name: "block YAML, second document",
			input:   head + "---\n" + head + "  labels:\n    kuma.io/mesh: Mesh_1\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        sectionName: BAD_1\n",
			markers: []string{"kuma.io/mesh: Mesh_1", "sectionName: BAD_1"}},
		{name: "deeply nested", input: deep.String(), markers: []string{"sectionName: BAD_DEEP"}},
		{name: "flow style",
			input:   "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t, namespace: ns, labels: {kuma.io/mesh: Mesh_1}}\nspec: {to: [{targetRef: {kind: MeshService, sectionName: BAD_2}}]}\n",
			markers: []string{"kuma.io/mesh: Mesh_1", "sectionName: BAD_2"}},
		{name: "JSON",
			input:   "{\n  \"apiVersion\": \"kuma.io/v1alpha1\", \"kind\": \"MeshTimeout\",\n  \"metadata\": {\"name\": \"t\", \"labels\": {\"kuma.io/mesh\": \"Mesh_1\"}},\n  \"spec\": {\"to\": [{\"targetRef\": {\"sectionName\": \"BAD_3\"}}]}\n}\n",
			markers: []string{`"kuma.io/mesh": "Mesh_1"`, `"sectionName": "BAD_3"`}},
		{name: "JSON after JSON",
			input:   `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}} {"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": {"name": "T"}}`,
			markers: []string{`"name": "T"`}},
		{name: "List items",
			input: "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: kuma.io/v1alpha1\n    kind: MeshTimeout\n    metadata:\n      name: ok\n" +
				"  - apiVersion: kuma.io/v1alpha1\n    kind: MeshTimeout\n    metadata:\n      name: t\n      labels: {kuma.io/mesh: Mesh_1}\n    spec:\n      to:\n        - targetRef: {sectionName: BAD_4}\n",
			markers: []string{"kuma.io/mesh: Mesh_1", "sectionName: BAD_4"}},
		{name: "a key with dots",
			input:   head + "spec:\n  a.b:\n    targetRef: {sectionName: BAD_5}\n  a:\n    c: {}\n",
			markers: []string{"sectionName: BAD_5"}},
		{name: "a field the source does not hold", // a Dataplane needs a mesh field: placed at the object
			input:   "apiVersion: kuma.io/v1alpha1\nkind: Dataplane\nmetadata:\n  name: dp\n  namespace: ns\n",
			markers: []string{"apiVersion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.input, "check", "-")
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if r.code != ExitDenied || len(lines) != len(tt.markers) {
				t.Fatalf("exit %d, stderr %q, %d lines, want %d:\n%s", r.code, r.stderr, len(lines), len(tt.markers), r.stdout)
			}
			for i, m := range tt.markers {
				i0 := strings.Index(tt.input, m)
				line := strings.Count(tt.input[:i0], "\n") + 1
				col := i0 - strings.LastIndexByte(tt.input[:i0], '\n')
				if want := fmt.Sprintf("-:%d:%d: ", line, col); !strings.HasPrefix(lines[i], want) {
					t.Errorf("problem %d: %s\nwant it at %s (%q)", i, lines[i], want, m)
				}
			}
			var rs []jsonResult
			if err := json.Unmarshal([]byte(run(t, tt.input, "check", "-o", "json", "-").stdout), &rs); err != nil {
				t.Fatal(err)
			}
			var pos []string
			for _, res := range rs {
				for _, c := range res.Causes {
					pos = append(pos, fmt.Sprintf("-:%d:%d: ", c.Line, c.Column))
				}
			}
			for i, l := range lines {
				if i >= len(pos) || !strings.HasPrefix(l, pos[i]) {
					t.Errorf("-o json places problem %d at %v, text at %s", i, pos, l)
				}
			}
		})
	}
}
