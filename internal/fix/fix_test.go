package fix

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

func rewrite(t testing.TB, src string) Result {
	t.Helper()
	res, err := Rewrite([]byte(src), Options{Release: naming.Kuma3_0})
	if err != nil {
		t.Fatalf("Rewrite: %v", err)
	}
	return res
}

// TestRewritePolicies rewrites a file of several documents with comments: the edited documents
// are as the golden file says, every other document is byte for byte the same, and a second run
// changes nothing.
func TestRewritePolicies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := rewrite(t, string(src))

	goldenPath := filepath.Join("testdata", "policies.3.0.yaml")
	if *update {
		if err := os.WriteFile(goldenPath, res.Output, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Output, want) {
		t.Errorf("output differs from %s (run with -update after checking):\n%s", goldenPath, UnifiedDiff("want", want, res.Output))
	}

	// Documents without an edit come out byte for byte.
	in, out := splitDocuments(src), splitDocuments(res.Output)
	if len(in) != len(out) {
		t.Fatalf("%d documents in, %d out", len(in), len(out))
	}
	edited := map[int]bool{}
	for _, c := range res.Changes {
		for i := len(in) - 1; i >= 0; i-- {
			if in[i].line <= c.Line {
				edited[i] = true
				break
			}
		}
	}
	if len(edited) == 0 || len(edited) == len(in) {
		t.Fatalf("the test file must have documents with and without edits; edited %v of %d", edited, len(in))
	}
	for i := range in {
		if !edited[i] && !bytes.Equal(in[i].text, out[i].text) {
			t.Errorf("document %d (line %d) has no edit but changed:\n%s", i, in[i].line, UnifiedDiff("doc", in[i].text, out[i].text))
		}
		if edited[i] && bytes.Equal(in[i].text, out[i].text) {
			t.Errorf("document %d (line %d) has an edit but did not change", i, in[i].line)
		}
	}

	// Within an edited document, only the lines of the edited fields change: every line of the
	// input that is not one of theirs is still there, in order.
	removed := map[string]bool{}
	for _, l := range strings.Split(UnifiedDiff("x", src, res.Output), "\n") {
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") {
			removed[strings.TrimSpace(l[1:])] = true
		}
	}
	for l := range removed {
		switch f := strings.Fields(l); {
		case len(f) > 0 && (f[0] == "name:" || f[0] == "namespace:" || f[0] == "-" && len(f) > 1 && f[1] == "name:"),
			len(f) > 0 && (f[0] == "kuma.io/mesh:" || f[0] == "annotations:"):
		default:
			t.Errorf("line %q was removed; only name, namespace and mesh annotation lines may be", l)
		}
	}

	// A second run changes nothing.
	again := rewrite(t, string(res.Output))
	if len(again.Changes) != 0 || !bytes.Equal(again.Output, res.Output) {
		t.Errorf("second run made %d changes: %+v", len(again.Changes), again.Changes)
	}
	if len(again.Findings) != len(res.Findings) {
		t.Errorf("second run has %d findings, first %d", len(again.Findings), len(res.Findings))
	}

	// What needs a human, at the line of the field at fault.
	wantFindings := []struct {
		line         int
		kind, field  string
		messageStart string
	}{
		{117, "MeshService", "metadata.name", "Kuma 3.0 names a MeshService with an RFC 1035 label: must start with a lowercase letter"},
		{124, "MeshGateway", "kind", "MeshGateway is removed in Kuma 3.0"},
	}
	if len(res.Findings) != len(wantFindings) {
		t.Fatalf("findings: got %+v, want %d", res.Findings, len(wantFindings))
	}
	for i, w := range wantFindings {
		f := res.Findings[i]
		if f.Line != w.line || f.Object.Kind != w.kind || f.Field != w.field || !strings.HasPrefix(f.Message, w.messageStart) {
			t.Errorf("finding %d: got %d %s %s %q, want %d %s %s %q…", i, f.Line, f.Object.Kind, f.Field, f.Message, w.line, w.kind, w.field, w.messageStart)
		}
	}
	if got := len(res.Changes); got != 8 {
		t.Errorf("got %d changes, want 8: %+v", got, res.Changes)
	}
}

func TestRewriteReferences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" when the input must come out unchanged
		// finding is a substring of the only finding, "" for none.
		finding string
	}{{
		name: "name and namespace",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: app}
spec:
  to:
  - targetRef:
      kind: MeshService
      name: backend
      namespace: other
      sectionName: http
`,
		want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: t, namespace: app}
spec:
  to:
  - targetRef:
      kind: MeshService
      labels:
        kuma.io/display-name: backend
        k8s.kuma.io/namespace: other
      sectionName: http
`,
	}, {
		name: "a name without namespace is looked up in the policy's namespace",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
spec:
  to:
  - targetRef:
      name: backend
      kind: MeshMultiZoneService
`,
		want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
spec:
  to:
  - targetRef:
      labels:
        kuma.io/display-name: backend
        k8s.kuma.io/namespace: app
      kind: MeshMultiZoneService
`,
	}, {
		name: "the policy's namespace label wins over metadata.namespace, as in Kuma",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
  labels:
    k8s.kuma.io/namespace: kuma-system
spec:
  targetRef:
    kind: Dataplane
    name: pod-1
`,
		want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
  labels:
    k8s.kuma.io/namespace: kuma-system
spec:
  targetRef:
    kind: Dataplane
    labels:
      kuma.io/display-name: pod-1
      k8s.kuma.io/namespace: kuma-system
`,
	}, {
		name: "a to[] name without any namespace needs a human",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  to:
  - targetRef:
      kind: MeshService
      name: backend
`,
		finding: "set metadata.namespace",
	}, {
		name: "a backendRef name without any namespace: 3.0 adds the policy's",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTCPRoute
metadata:
  name: r
spec:
  to:
  - targetRef: {kind: Mesh}
    rules:
    - default:
        backendRefs:
        - kind: MeshService
          name: backend   # v1
          port: 8080
`,
		want: `apiVersion: kuma.io/v1alpha1
kind: MeshTCPRoute
metadata:
  name: r
spec:
  to:
  - targetRef: {kind: Mesh}
    rules:
    - default:
        backendRefs:
        - kind: MeshService
          labels:
            kuma.io/display-name: backend # v1
          port: 8080
`,
	}, {
		name: "quoted values stay strings",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Dataplane
    name: '0123'
    namespace: "true"
`,
		want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Dataplane
    labels:
      kuma.io/display-name: '0123'
      k8s.kuma.io/namespace: "true"
`,
	}, {
		name: "kind Mesh is left alone",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Mesh
  to:
  - targetRef:
      kind: Mesh
`,
	}, {
		name: "labels already",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Dataplane
    labels:
      app: web
`,
	}, {
		name: "name and labels",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
spec:
  targetRef:
    kind: Dataplane
    name: web
    labels:
      app: web
`,
		finding: "by name or namespace and by labels",
	}, {
		name: "namespace without a name",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Dataplane
    namespace: app
`,
		finding: "has no name to translate",
	}, {
		name: "a kuma.io/service value as a MeshService name",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
spec:
  to:
  - targetRef:
      kind: MeshService
      name: backend_app_svc_8080
`,
		finding: "is a kuma.io/service value",
	}, {
		name: "top-level MeshService",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  namespace: app
spec:
  targetRef:
    kind: MeshService
    name: backend
`,
		finding: "does not accept kind MeshService in a top-level targetRef",
	}, {
		name: "MeshSubset in to[]",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  to:
  - targetRef:
      kind: MeshSubset
      tags: {version: v1}
`,
		finding: "does not accept kind MeshSubset in a to[].targetRef",
	}, {
		name: "MeshServiceSubset backendRef",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshHTTPRoute
metadata:
  name: r
spec:
  to:
  - targetRef: {kind: Mesh}
    rules:
    - default:
        backendRefs:
        - kind: MeshServiceSubset
          name: backend
          tags: {version: v1}
`,
		finding: "does not accept kind MeshServiceSubset in a backendRef",
	}, {
		name: "proxyTypes",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Mesh
    proxyTypes: [Sidecar]
`,
		finding: "proxyTypes is removed in Kuma 3.0",
	}, {
		name: "from",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: p
  namespace: app
spec:
  targetRef: {kind: Mesh}
  from:
  - targetRef:
      kind: Mesh
    default: {action: Allow}
`,
		finding: "spec.from is removed in Kuma 3.0",
	}, {
		name: "a Dataplane's outbound backendRef keeps its name",
		in: `apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: default
metadata:
  name: dp
spec:
  networking:
    outbound:
    - port: 3000
      backendRef:
        kind: MeshService
        name: postgres
`,
	}, {
		name: "not Kuma",
		in: `apiVersion: example.com/v1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef:
    kind: Dataplane
    name: web
    namespace: app
`,
	}, {
		name: "flow style is written from the tree",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef: {kind: Dataplane, name: web, namespace: app}
`,
		want: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
spec:
  targetRef: {kind: Dataplane, labels: {kuma.io/display-name: web, k8s.kuma.io/namespace: app}}
`,
	}, {
		name: "CRLF line endings",
		in:   "apiVersion: kuma.io/v1alpha1\r\nkind: MeshTimeout\r\nmetadata:\r\n  name: t\r\nspec:\r\n  targetRef:\r\n    kind: Dataplane\r\n    name: web\r\n    namespace: app\r\n",
		want: "apiVersion: kuma.io/v1alpha1\r\nkind: MeshTimeout\r\nmetadata:\r\n  name: t\r\nspec:\r\n  targetRef:\r\n    kind: Dataplane\r\n    labels:\r\n      kuma.io/display-name: web\r\n      k8s.kuma.io/namespace: app\r\n",
	}, {
		name: "no final newline",
		in:   "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\nspec:\n  targetRef:\n    kind: Dataplane\n    namespace: app\n    name: web",
		want: "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\nspec:\n  targetRef:\n    kind: Dataplane\n    labels:\n      kuma.io/display-name: web\n      k8s.kuma.io/namespace: app\n",
	}, {
		name: "the items of a List",
		in: `apiVersion: v1
kind: List
items:
- apiVersion: kuma.io/v1alpha1
  kind: MeshTimeout
  metadata:
    name: t
    namespace: app
  spec:
    targetRef:
      kind: Dataplane
      name: web
`,
		want: `apiVersion: v1
kind: List
items:
- apiVersion: kuma.io/v1alpha1
  kind: MeshTimeout
  metadata:
    name: t
    namespace: app
  spec:
    targetRef:
      kind: Dataplane
      labels:
        kuma.io/display-name: web
        k8s.kuma.io/namespace: app
`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, tt.in, tt.want, tt.finding)
		})
	}
}

// checkRewrite rewrites in and compares the output with want ("" for in itself) and the findings
// with finding (a substring of the only one; "" for none). The output rewritten again must not
// change.
func checkRewrite(t *testing.T, in, want, finding string) {
	t.Helper()
	res := rewrite(t, in)
	if want == "" {
		want = in
		if len(res.Changes) != 0 {
			t.Errorf("changes %+v, want none", res.Changes)
		}
	} else if len(res.Changes) == 0 {
		t.Errorf("no change recorded")
	}
	if got := string(res.Output); got != want {
		t.Errorf("output:\n%s\nwant:\n%s\ndiff:\n%s", got, want, UnifiedDiff("want", []byte(want), res.Output))
	}
	switch {
	case finding == "" && len(res.Findings) > 0:
		t.Errorf("findings %+v, want none", res.Findings)
	case finding != "" && (len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, finding)):
		t.Errorf("findings %+v, want one with %q", res.Findings, finding)
	}
	again := rewrite(t, string(res.Output))
	if len(again.Changes) > 0 || !bytes.Equal(again.Output, res.Output) {
		t.Errorf("a second run changes %+v", again.Changes)
	}
}

func TestRewriteMeshAnnotation(t *testing.T) {
	tests := []struct {
		name, in, want, finding string
	}{{
		name: "the only annotation, no labels: annotations becomes labels",
		in: `apiVersion: v1
kind: Namespace
metadata:
  name: app
  annotations:
    kuma.io/mesh: demo
`,
		want: `apiVersion: v1
kind: Namespace
metadata:
  name: app
  labels:
    kuma.io/mesh: demo
`,
	}, {
		name: "other annotations, no labels",
		in: `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    kuma.io/mesh: demo
    kuma.io/sidecar-injection: enabled
spec: {}
`,
		want: `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    kuma.io/mesh: demo
  annotations:
    kuma.io/sidecar-injection: enabled
spec: {}
`,
	}, {
		name: "the only annotation, labels present",
		in: `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  labels:
    app: web
  # the mesh
  annotations:
    kuma.io/mesh: demo
`,
		want: `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  labels:
    kuma.io/mesh: demo
    app: web
  # the mesh
`,
	}, {
		name: "a CronJob's pod template",
		in: `apiVersion: batch/v1
kind: CronJob
metadata:
  name: c
spec:
  jobTemplate:
    spec:
      template:
        metadata:
          annotations:
            kuma.io/mesh: "demo"
            other: x
`,
		want: `apiVersion: batch/v1
kind: CronJob
metadata:
  name: c
spec:
  jobTemplate:
    spec:
      template:
        metadata:
          labels:
            kuma.io/mesh: "demo"
          annotations:
            other: x
`,
	}, {
		name: "the label is there: Kuma reads it and not the annotation",
		in: `apiVersion: v1
kind: Service
metadata:
  name: s
  labels:
    kuma.io/mesh: a
  annotations:
    kuma.io/mesh: b
`,
	}, {
		name: "an empty annotation was ignored already",
		in: `apiVersion: v1
kind: Service
metadata:
  name: s
  annotations:
    kuma.io/mesh: ""
`,
	}, {
		name: "a kind whose annotation Kuma never read",
		in: `apiVersion: v1
kind: ConfigMap
metadata:
  name: s
  annotations:
    kuma.io/mesh: demo
`,
	}, {
		name: "a Kuma policy: the annotation was never read, moving it changes the mesh",
		in: `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t
  annotations:
    kuma.io/mesh: demo
spec:
  targetRef: {kind: Mesh}
`,
		finding: `the object is in the mesh "default", not "demo"`,
	}, {
		name: "flow style metadata is written from the tree",
		in: `apiVersion: v1
kind: Service
metadata: {name: s, annotations: {kuma.io/mesh: demo, a: b}}
`,
		want: `apiVersion: v1
kind: Service
metadata: {name: s, labels: {kuma.io/mesh: demo}, annotations: {a: b}}
`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, tt.in, tt.want, tt.finding)
		})
	}
}

func TestRewriteNamesAndKinds(t *testing.T) {
	tests := []struct {
		name, in, finding string
	}{
		{"Mesh with a dot", "apiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata:\n  name: prod.eu\n", "names a Mesh with an RFC 1035 label"},
		{"Zone starting with a digit", "apiVersion: kuma.io/v1alpha1\nkind: Zone\nmetadata:\n  name: 1-east\n", "names a Zone with an RFC 1035 label"},
		{"MeshExternalService with a dot", "apiVersion: kuma.io/v1alpha1\nkind: MeshExternalService\nmetadata:\n  name: api.example.com\n  namespace: kuma-system\n", "names a MeshExternalService with an RFC 1035 label"},
		{"MeshMultiZoneService of 64 characters", "apiVersion: kuma.io/v1alpha1\nkind: MeshMultiZoneService\nmetadata:\n  name: " + strings.Repeat("a", 64) + "\n", "names a MeshMultiZoneService with an RFC 1035 label"},
		{"MeshService", "apiVersion: kuma.io/v1alpha1\nkind: MeshService\nmetadata:\n  name: backend\n  namespace: app\n", ""},
		{"a MeshTimeout may have a dot", "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t.1\n", ""},
		{"ZoneIngress", "apiVersion: kuma.io/v1alpha1\nkind: ZoneIngress\nmetadata:\n  name: zi\n", "ZoneIngress is removed in Kuma 3.0"},
		{"ZoneEgress", "apiVersion: kuma.io/v1alpha1\nkind: ZoneEgress\nmetadata:\n  name: ze\n", "ZoneEgress is removed in Kuma 3.0"},
		{"MeshGatewayInstance", "apiVersion: kuma.io/v1alpha1\nkind: MeshGatewayInstance\nmetadata:\n  name: gw\n", "MeshGatewayInstance is removed in Kuma 3.0"},
		{"TrafficPermission", "apiVersion: kuma.io/v1alpha1\nkind: TrafficPermission\nmesh: default\nmetadata:\n  name: allow-all\n", "TrafficPermission is removed in Kuma 3.0 (superseded by the Mesh* policies)"},
		{"ProxyTemplate", "apiVersion: kuma.io/v1alpha1\nkind: ProxyTemplate\nmetadata:\n  name: p\n", "ProxyTemplate is removed in Kuma 3.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, tt.in, "", tt.finding)
		})
	}
}

func TestRewriteInputs(t *testing.T) {
	for _, in := range []string{"", "\n", "# only a comment\n", "---\n", "---\n---\n", "just a string\n", "- a list\n", "kind: X\n"} {
		res := rewrite(t, in)
		if string(res.Output) != in || len(res.Changes)+len(res.Findings) > 0 {
			t.Errorf("%q: got %q, %+v, %+v", in, res.Output, res.Changes, res.Findings)
		}
	}

	_, err := Rewrite([]byte("a: 1\n---\nb: [\n"), Options{Release: naming.Kuma3_0})
	var de *DocumentError
	if !errors.As(err, &de) || de.Line != 2 {
		t.Errorf("invalid YAML in the second document: got %v, want a DocumentError at line 2", err)
	}
	if _, err := Rewrite(nil, Options{Release: naming.Kuma2_14}); err == nil {
		t.Error("release 2.14: no error")
	}
}

func TestSplitDocuments(t *testing.T) {
	src := "a: 1\n---\nb: 2\n--- \n# c\n---x\nc: 3\n---"
	var got []string
	var lines []int
	for _, c := range splitDocuments([]byte(src)) {
		got = append(got, string(c.text))
		lines = append(lines, c.line)
	}
	want := []string{"a: 1\n", "---\nb: 2\n", "--- \n# c\n---x\nc: 3\n", "---"}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(lines) != 4 || lines[1] != 2 || lines[2] != 4 || lines[3] != 8 {
		t.Errorf("got %q at %v, want %q at [1 2 4 8]", got, lines, want)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink("real.yaml", link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	b, err := os.ReadFile(target)
	if err != nil || string(b) != "new\n" {
		t.Errorf("target: %q, %v", b, err)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left behind: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing.yaml"), nil); err == nil {
		t.Error("a missing file: no error")
	}
}

// TestRewriteFollowsTheReleaseFacts: every kind naming.Kuma3_0 reports removed is named for a
// human, and so is a bad name of every kind whose name it holds to RFC 1035.
func TestRewriteFollowsTheReleaseFacts(t *testing.T) {
	types := naming.Kuma2_14.Registry().Types()
	if len(types) < 30 {
		t.Fatalf("naming.Kuma2_14 has %d kinds", len(types))
	}
	for _, r := range types {
		_, removed := naming.Kuma3_0.Removed(r.Kind)
		in := "apiVersion: kuma.io/v1alpha1\nkind: " + r.Kind + "\nmetadata:\n  name: 1.bad\n"
		res := rewrite(t, in)
		wantFinding := removed || naming.Kuma3_0.RFC1035Name(r.Kind)
		if got := len(res.Findings) > 0; got != wantFinding {
			t.Errorf("%s (removed %v, RFC 1035 %v): findings %+v", r.Kind, removed, naming.Kuma3_0.RFC1035Name(r.Kind), res.Findings)
		}
	}
}

// Kuma Universal resources (kumactl YAML) are rewritten as the Kubernetes objects of the same kind:
// their references select by labels; what needs a human is named at the resource's own fields.
func TestRewriteUniversal(t *testing.T) {
	tests := []struct {
		name, in, want, finding string
	}{{
		name: "to[].targetRef by name, comments kept",
		in: `# kumactl apply -f
type: MeshTimeout
mesh: default
name: timeout-1
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: backend # the service
      default:
        idleTimeout: 20s
`,
		want: `# kumactl apply -f
type: MeshTimeout
mesh: default
name: timeout-1
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        labels:
          kuma.io/display-name: backend # the service
      default:
        idleTimeout: 20s
`,
	}, {
		name: "backendRef with the resource's namespace label",
		in: `type: MeshHTTPRoute
mesh: default
name: route-1
labels:
  k8s.kuma.io/namespace: app
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        labels:
          kuma.io/display-name: backend
      rules:
        - default:
            backendRefs:
              - kind: MeshService
                name: backend-v2
                port: 80
`,
		want: `type: MeshHTTPRoute
mesh: default
name: route-1
labels:
  k8s.kuma.io/namespace: app
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        labels:
          kuma.io/display-name: backend
      rules:
        - default:
            backendRefs:
              - kind: MeshService
                labels:
                  kuma.io/display-name: backend-v2
                  k8s.kuma.io/namespace: app
                port: 80
`,
	}, {
		name:    "Mesh with a dot",
		in:      "type: Mesh\nname: prod.eu\n",
		finding: "names a Mesh with an RFC 1035 label",
	}, {
		name:    "MeshService whose display-name label 3.0 refuses",
		in:      "type: MeshService\nmesh: default\nname: backend\nlabels:\n  kuma.io/display-name: backend.v1\n",
		finding: "names a MeshService with an RFC 1035 label",
	}, {
		name:    "display-name label 3.0 overwrites",
		in:      "type: MeshTimeout\nmesh: default\nname: timeout-1\nlabels:\n  kuma.io/display-name: shown\n",
		finding: `the resource's KRI and display name become "timeout-1" instead of "shown"`,
	}, {
		name:    "removed type",
		in:      "type: ZoneEgress\nname: ze-1\nnetworking:\n  address: 10.0.0.1\n  port: 10002\n",
		finding: "ZoneEgress is removed in Kuma 3.0",
	}, {
		name: "a listing of kumactl get -o yaml",
		in: `items:
- type: MeshTimeout
  mesh: default
  name: timeout-1
  spec:
    targetRef:
      kind: Dataplane
      name: dp-1
    to:
    - targetRef:
        kind: MeshService
        name: backend
total: 1
next: null
`,
		want: `items:
- type: MeshTimeout
  mesh: default
  name: timeout-1
  spec:
    targetRef:
      kind: Dataplane
      labels:
        kuma.io/display-name: dp-1
    to:
    - targetRef:
        kind: MeshService
        labels:
          kuma.io/display-name: backend
total: 1
next: null
`,
	}, {
		name: "a Helm values file is left alone",
		in:   "name: my-release\ntype: application\nspec:\n  to:\n    - targetRef:\n        kind: MeshService\n        name: x\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRewrite(t, tt.in, tt.want, tt.finding)
		})
	}
}
