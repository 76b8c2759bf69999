package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mechanical is a policy with only mechanical edits to make.
const mechanical = `# routes of the demo
apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: split
  namespace: kuma-demo
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: MeshService
      name: backend   # the API
    rules:
    - default:
        backendRefs:
        - kind: MeshService
          name: backend-v2
          port: 8080
`

const mechanicalFixed = `# routes of the demo
apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: split
  namespace: kuma-demo
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: MeshService
      labels:
        kuma.io/display-name: backend # the API
        k8s.kuma.io/namespace: kuma-demo
    rules:
    - default:
        backendRefs:
        - kind: MeshService
          labels:
            kuma.io/display-name: backend-v2
            k8s.kuma.io/namespace: kuma-demo
          port: 8080
`

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFixMechanical(t *testing.T) {
	p := writeFile(t, t.TempDir(), "route.yaml", mechanical)

	r := run(t, "", "fix", "--kuma-version", "3.0", p)
	if r.code != ExitOK || r.stdout != "" {
		t.Fatalf("first run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		p + ":12: MeshHTTPRoute kuma-demo/split: spec.to[0].targetRef: fixed: selects by the labels",
		p + ":17: MeshHTTPRoute kuma-demo/split: spec.to[0].rules[0].default.backendRefs[0]: fixed: selects by the labels",
		"kriguard fix: 2 edits made in 1 file; 0 findings for a human\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if got := readFile(t, p); got != mechanicalFixed {
		t.Errorf("file after fix:\n%s\nwant:\n%s", got, mechanicalFixed)
	}

	r = run(t, "", "fix", "--kuma-version", "3.0", p)
	if r.code != ExitOK || r.stdout != "" || r.stderr != "" {
		t.Errorf("second run: exit %d, stdout %q, stderr %q; want 0 and nothing", r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, p); got != mechanicalFixed {
		t.Errorf("the second run changed the file:\n%s", got)
	}
}

func TestFixNeedsAHuman(t *testing.T) {
	src := readFile(t, filepath.Join("..", "fix", "testdata", "policies.yaml"))
	want := readFile(t, filepath.Join("..", "fix", "testdata", "policies.3.0.yaml"))
	p := writeFile(t, t.TempDir(), "policies.yaml", src)

	// The second run reads the fixed file, 8 lines longer above the objects at fault.
	for i, lines := range [][2]int{{117, 124}, {125, 132}} {
		r := run(t, "", "fix", "--kuma-version", "3.0", p)
		if r.code != ExitDenied {
			t.Errorf("run %d: exit %d, want 1 while objects need a rename; stderr:\n%s", i, r.code, r.stderr)
		}
		for _, w := range []string{
			fmt.Sprintf("%s:%d: MeshService kuma-demo/1st.backend: metadata.name: needs a human: Kuma 3.0 names a MeshService with an RFC 1035 label", p, lines[0]),
			fmt.Sprintf("%s:%d: MeshGateway edge: kind: needs a human: MeshGateway is removed in Kuma 3.0", p, lines[1]),
		} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("run %d: stderr lacks %q:\n%s", i, w, r.stderr)
			}
		}
		if fixed := strings.Count(r.stderr, ": fixed: "); i == 0 && fixed != 8 || i == 1 && fixed != 0 {
			t.Errorf("run %d: %d edits reported:\n%s", i, fixed, r.stderr)
		}
		if got := readFile(t, p); got != want {
			t.Errorf("run %d: the file differs from ../fix/testdata/policies.3.0.yaml:\n%s", i, got)
		}
	}
}

func TestFixDiff(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "route.yaml", mechanical)
	r := run(t, "", "fix", "--kuma-version", "3.0", "--diff", p)
	if r.code != ExitDenied {
		t.Errorf("exit %d, want 1 while an edit is to be made", r.code)
	}
	if got := readFile(t, p); got != mechanical {
		t.Errorf("--diff wrote the file:\n%s", got)
	}
	golden(t, "fix.diff", strings.ReplaceAll(r.stdout, dir+string(filepath.Separator), ""))
	if !strings.Contains(r.stderr, ": to fix: ") || !strings.Contains(r.stderr, "2 edits to make in 1 file") {
		t.Errorf("stderr:\n%s", r.stderr)
	}

	// The diff applies: what fix writes is what the diff says.
	if r := run(t, "", "fix", "--kuma-version", "3.0", p); r.code != ExitOK {
		t.Fatalf("fix: exit %d: %s", r.code, r.stderr)
	}
	if r := run(t, "", "fix", "--kuma-version", "3.0", "--diff", p); r.code != ExitOK || r.stdout != "" {
		t.Errorf("--diff after fix: exit %d, stdout %q; want 0 and no diff", r.code, r.stdout)
	}
}

func TestFixStdin(t *testing.T) {
	r := run(t, mechanical, "fix", "--kuma-version", "3.0", "-")
	if r.code != ExitOK || r.stdout != mechanicalFixed {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", r.code, r.stdout, mechanicalFixed, r.stderr)
	}
	if !strings.Contains(r.stderr, "-:12: MeshHTTPRoute kuma-demo/split: spec.to[0].targetRef: fixed:") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	r = run(t, mechanicalFixed, "fix", "--kuma-version", "3.0", "-")
	if r.code != ExitOK || r.stdout != mechanicalFixed || r.stderr != "" {
		t.Errorf("fixed input: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestFixFolders(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", mechanical)
	b := writeFile(t, dir, "sub/b.yml", mechanical)
	other := []string{
		writeFile(t, dir, "c.json", mechanical),
		writeFile(t, dir, ".hidden/d.yaml", mechanical),
		writeFile(t, dir, "e.txt", mechanical),
	}
	r := run(t, "", "fix", "--kuma-version", "3.0", dir)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, p := range []string{a, b} {
		if readFile(t, p) != mechanicalFixed {
			t.Errorf("%s was not fixed", p)
		}
	}
	for _, p := range other {
		if readFile(t, p) != mechanical {
			t.Errorf("%s was changed", p)
		}
	}
	// A file named on the command line is read whatever its name.
	if r := run(t, "", "fix", "--kuma-version", "3.0", other[2]); r.code != ExitOK || readFile(t, other[2]) != mechanicalFixed {
		t.Errorf("a named .txt file: exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestFixErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", mechanical)
	bad := writeFile(t, dir, "bad.yaml", mechanical+"---\nkind: [\n")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no release", []string{"fix", good}, "--kuma-version is required"},
		{"an unknown release", []string{"fix", "--kuma-version", "2.14", good}, `--kuma-version "2.14": fix rewrites for 3.0 only`},
		{"no path", []string{"fix", "--kuma-version", "3.0"}, "no PATH given"},
		{"a missing path", []string{"fix", "--kuma-version", "3.0", filepath.Join(dir, "nope.yaml")}, "nope.yaml: no such file or directory"},
		{"an unknown flag", []string{"fix", "--kuma-version", "3.0", "--write", good}, "unknown flag: --write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", tt.args...)
			if r.code != ExitError || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tt.stderr)
			}
			if readFile(t, good) != mechanical {
				t.Error("a usage error wrote a file")
			}
		})
	}

	// A file that cannot be read is left alone and the others are still fixed; the exit status
	// says so.
	r := run(t, "", "fix", "--kuma-version", "3.0", bad, good)
	if r.code != ExitError || !strings.Contains(r.stderr, bad+": error: line 20: ") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if readFile(t, bad) != mechanical+"---\nkind: [\n" {
		t.Error("the unreadable file was written")
	}
	if readFile(t, good) != mechanicalFixed {
		t.Error("the readable file was not fixed")
	}
}

// TestFixWorkedExample runs the worked example of docs/upgrade-3.0.md: its input, its diff and its
// standard error are what the command prints.
func TestFixWorkedExample(t *testing.T) {
	doc := readFile(t, filepath.Join("..", "..", "docs", "upgrade-3.0.md"))
	_, example, ok := strings.Cut(doc, "\n## Worked example\n")
	if !ok {
		t.Fatal("docs/upgrade-3.0.md has no worked example")
	}
	block := func(fence string) string {
		_, rest, ok := strings.Cut(example, "\n"+fence+"\n")
		if !ok {
			t.Fatalf("the worked example has no %s block", fence)
		}
		body, rest, ok := strings.Cut(rest, "\n```\n")
		if !ok {
			t.Fatalf("the %s block is not closed", fence)
		}
		example = rest
		return body + "\n"
	}
	input, diff, stderr := block("```yaml"), block("```diff"), block("```")

	t.Chdir(t.TempDir())
	writeFile(t, ".", "policies.yaml", input)
	r := run(t, "", "fix", "--kuma-version", "3.0", "--diff", "policies.yaml")
	if r.code != ExitDenied || r.stdout != diff || r.stderr != stderr {
		t.Errorf("exit %d (the example says 1)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
