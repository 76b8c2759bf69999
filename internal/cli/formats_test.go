package cli

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/internal/envoydump"
	"github.com/kriguard/kriguard/internal/envoydump/dumptest"
	"github.com/kriguard/kriguard/rules"
)

// pinnedTool returns a validator hack/tools.sh installs into bin/ (pinned, from npm).
func pinnedTool(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing (%v): run ./hack/tools.sh install (or make test) to install the pinned validators", name, err)
	}
	return p
}

// A manifest with a finding of each level: a denied object, a note, and an object its
// enforcement would admit (see warnConfig).
const levelsManifest = `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: t1
  namespace: kuma-demo
  labels:
    kuma.io/mesh: Mesh_1
---
apiVersion: kuma.io/v1alpha1
kind: MeshProxyPatch
metadata:
  name: patch
  namespace: kuma-system
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: Mesh
  default:
    appendModifications:
      - cluster:
          operation: Patch
          match:
            name: "outbound:backend%1"
          value: "{}"
---
apiVersion: configuration.konghq.com/v1alpha1
kind: KongRoute
metadata:
  name: Bad_Route
  namespace: kong
`

// sarifLog is what the tests read of a SARIF log.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name, Version, SemanticVersion, InformationURI string
				Rules                                          []struct {
					ID                                string
					Name                              string
					ShortDescription, FullDescription struct{ Text string }
					HelpURI                           string `json:"helpUri"`
					DefaultConfiguration              struct{ Level string }
				}
			}
		}
		Results []sarifResult
	}
}

type sarifResult struct {
	RuleID              string
	RuleIndex           int
	Level               string
	Message             struct{ Text string }
	PartialFingerprints map[string]string
	Locations           []struct {
		PhysicalLocation struct {
			ArtifactLocation struct{ URI string }
			Region           *struct{ StartLine, StartColumn int }
		}
		LogicalLocations []struct{ FullyQualifiedName string }
	}
}

func readSARIF(t *testing.T, p string) sarifLog {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var l sarifLog
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("%s is not JSON: %v", p, err)
	}
	if len(l.Runs) != 1 {
		t.Fatalf("%s has %d runs, want one", p, len(l.Runs))
	}
	return l
}

// validateSARIF runs Microsoft's SARIF multitool over p with its SARIF rules and GitHub's (what
// code scanning's ingestion demands) and fails on every error it reports.
func validateSARIF(t *testing.T, p string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "validation.sarif")
	cmd := exec.Command(pinnedTool(t, "sarif-multitool"), "validate", "--rule-kind", "Sarif;Gh", "--output", out, p)
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sarif-multitool validate: %v\n%s", err, b)
	}
	v := readSARIF(t, out)
	var warnings []string
	for _, r := range v.Runs[0].Results {
		// The multitool's own default level is warning.
		if r.Level == "error" {
			t.Errorf("SARIF validation error %s: %s", r.RuleID, r.Message.Text)
			continue
		}
		warnings = append(warnings, r.RuleID)
	}
	t.Logf("SARIF validation of %s: 0 errors, %d warnings or notes (%s)", filepath.Base(p), len(warnings), strings.Join(slices.Compact(slices.Sorted(slices.Values(warnings))), ", "))
}

// TestSARIF: -o sarif of check and envoy is a SARIF 2.1.0 log the multitool finds no error in (its
// SARIF and GitHub rules), with one run, the tool and every rule, and one result per finding at
// the finding's file, line and column.
func TestSARIF(t *testing.T) {
	dir := t.TempDir()
	manifest := writeFile(t, dir, "levels.yaml", levelsManifest)
	dump := writeFile(t, dir, "config_dump.json", string(dumptest.KumaSidecar(true)))
	tests := []struct {
		name string
		args []string
	}{
		{"check", []string{"check", examplesDir, manifest}},
		{"check warn", []string{"check", "--config", writeFile(t, dir, "warn.yaml", warnConfig), manifest}},
		{"envoy", []string{"envoy", "--strict", dump}},
		{"envoy stdin", []string{"envoy", "-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.sarif")
			r := run(t, string(dumptest.KumaSidecar(true)), append(tt.args, "-o", "json", "-o", "sarif="+out)...)
			if r.code == ExitError {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			validateSARIF(t, out)
			l := readSARIF(t, out)
			if l.Version != "2.1.0" || !strings.Contains(l.Schema, "sarif-schema-2.1.0") {
				t.Errorf("version %q, schema %q", l.Version, l.Schema)
			}
			d := l.Runs[0].Tool.Driver
			if d.Name != "kriguard" || d.Version != "0.0.0-test" || d.SemanticVersion != "0.0.0-test" {
				t.Errorf("tool %q version %q semanticVersion %q", d.Name, d.Version, d.SemanticVersion)
			}
			var ids []rules.Rule
			for i, rule := range d.Rules {
				ids = append(ids, rules.Rule(rule.ID))
				info, _ := rules.Describe(rules.Rule(rule.ID))
				if rule.ShortDescription.Text == "" || rule.FullDescription.Text != info.Description || rule.DefaultConfiguration.Level != string(info.Level) ||
					rule.HelpURI != ruleHelpURI(rules.Rule(rule.ID)) || rule.Name == "" {
					t.Errorf("rule %d: %+v", i, rule)
				}
			}
			if !slices.Equal(ids, rules.Rules()) {
				t.Errorf("rules %v, want every rule %v", ids, rules.Rules())
			}
			want := expectedResults(t, tt.name, r.stdout)
			got := l.Runs[0].Results
			if len(got) != len(want) {
				t.Fatalf("%d results, want one per finding: %d", len(got), len(want))
			}
			for i, res := range got {
				w := want[i]
				loc := res.Locations[0].PhysicalLocation
				line, col := 0, 0
				if loc.Region != nil {
					line, col = loc.Region.StartLine, loc.Region.StartColumn
				}
				g := fmt.Sprintf("%s %s %s %d:%d", res.RuleID, res.Level, loc.ArtifactLocation.URI, line, col)
				if wl := fmt.Sprintf("%s %s %s %d:%d", w.rule, w.level, artifactURI(w.source), w.line, w.column); g != wl {
					t.Errorf("result %d: %s, want %s", i, g, wl)
				}
				if d.Rules[res.RuleIndex].ID != res.RuleID {
					t.Errorf("result %d: ruleIndex %d is %s, not %s", i, res.RuleIndex, d.Rules[res.RuleIndex].ID, res.RuleID)
				}
				if !strings.Contains(res.Message.Text, w.message) || res.PartialFingerprints[fingerprintKey] == "" {
					t.Errorf("result %d: message %q lacks %q, or no fingerprint (%v)", i, res.Message.Text, w.message, res.PartialFingerprints)
				}
				if w.path != "" && (len(res.Locations[0].LogicalLocations) != 1 || res.Locations[0].LogicalLocations[0].FullyQualifiedName != w.path) {
					t.Errorf("result %d: logical locations %+v, want the JSON path %s", i, res.Locations[0].LogicalLocations, w.path)
				}
			}
		})
	}
}

// warnConfig only warns of MeshTimeouts: levelsManifest's bad one is admitted, its KongRoute not.
const warnConfig = `apiVersion: kriguard.io/v1alpha1
kind: Configuration
kinds:
  - group: kuma.io
    version: v1alpha1
    kind: MeshTimeout
    enforcement: warn
`

// expected is a finding as -o json printed it, with the level a SARIF result or a GitHub
// annotation gives it.
type expected struct {
	source, path, rule, level, field, message string
	line, column                              int
	object                                    string
}

// expectedResults reads the findings of -o json: the objects of check, the names of envoy.
func expectedResults(t *testing.T, name, stdout string) []expected {
	t.Helper()
	var out []expected
	if strings.HasPrefix(name, "envoy") {
		var names []struct {
			Source, Path, What, Name string
			Problems                 []jsonFinding
		}
		if err := json.Unmarshal([]byte(stdout), &names); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, n := range names {
			for _, p := range n.Problems {
				out = append(out, expected{source: n.Source, path: n.Path, rule: string(p.Rule), level: string(p.Level), field: p.Field,
					message: p.Message, line: p.Line, column: p.Column, object: n.What + " " + strconv.Quote(n.Name) + " at " + n.Path})
				paths = append(paths, n.Path)
			}
		}
		// The formats that show lines place a dump's findings (envoydump.Locate, tested on its own).
		if len(out) > 0 && out[0].source != "-" {
			f, err := os.Open(out[0].source)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			pos, err := envoydump.Locate(f, paths)
			if err != nil {
				t.Fatal(err)
			}
			for i := range out {
				out[i].line, out[i].column = pos[out[i].path].Line, pos[out[i].path].Column
			}
		}
		return out
	}
	for _, r := range decodeResults(t, stdout) {
		for _, c := range slices.Concat(r.Causes, r.Warnings) {
			if c.Rule == "" {
				continue
			}
			level := string(c.Level)
			if r.Allowed && c.Level == rules.LevelError {
				level = "warning"
			}
			out = append(out, expected{source: r.Source, rule: string(c.Rule), level: level, field: c.Field, message: c.Message,
				line: c.Line, column: c.Column, object: objectRef(r.Kind, r.Namespace, r.Name)})
		}
	}
	return out
}

// TestSARIFFingerprints: a finding keeps its fingerprint when unrelated lines move (a document
// added above, comments, indentation of other documents), and distinct findings have distinct
// fingerprints, the same object written twice included.
func TestSARIFFingerprints(t *testing.T) {
	dir := t.TempDir() // the same file in every run: the artifact URI is part of the fingerprint
	fingerprints := func(content string) (map[string]string, map[string]int) {
		t.Helper()
		out := filepath.Join(dir, "out.sarif")
		r := run(t, "", "check", "-o", "sarif="+out, writeFile(t, dir, "m.yaml", content))
		if r.code != ExitDenied {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		fps, lines := map[string]string{}, map[string]int{}
		for _, res := range readSARIF(t, out).Runs[0].Results {
			fp := res.PartialFingerprints[fingerprintKey]
			if _, dup := fps[fp]; dup {
				t.Errorf("two results with fingerprint %s: %q and %q", fp, fps[fp], res.Message.Text)
			}
			fps[fp] = res.Message.Text
			lines[fp] = res.Locations[0].PhysicalLocation.Region.StartLine
		}
		return fps, lines
	}
	before, beforeLines := fingerprints(levelsManifest)
	moved := "# a comment\n\n# another\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unrelated\ndata:\n  a: b\n---\n" + levelsManifest
	after, afterLines := fingerprints(moved)
	if len(before) != 3 {
		t.Fatalf("%d fingerprints, want 3: %v", len(before), before)
	}
	for fp, msg := range before {
		if after[fp] != msg {
			t.Errorf("finding %q lost its fingerprint %s when lines above it moved", msg, fp)
		}
		if afterLines[fp] == beforeLines[fp] {
			t.Errorf("finding %q at line %d in both runs: the test moved nothing", msg, beforeLines[fp])
		}
	}
	// The same object twice: its findings stay distinct.
	twice, _ := fingerprints(levelsManifest + "---\n" + strings.SplitN(levelsManifest, "---\n", 2)[0])
	if len(twice) != 4 {
		t.Errorf("%d fingerprints for 4 findings, 2 of them of one object: %v", len(twice), twice)
	}
	// Another value at the same field of the same object is the same finding, another field not.
	changed, _ := fingerprints(strings.Replace(levelsManifest, "Mesh_1", "Mesh_2", 1))
	renamed, _ := fingerprints(strings.Replace(levelsManifest, "name: t1", "name: t2", 1))
	common := func(a, b map[string]string) (n int) {
		for fp := range a {
			if _, ok := b[fp]; ok {
				n++
			}
		}
		return n
	}
	if n := common(before, changed); n != 3 {
		t.Errorf("a new value at the same field changed %d of 3 fingerprints, want none", 3-n)
	}
	if n := common(before, renamed); n != 2 {
		t.Errorf("renaming one object changed %d of 3 fingerprints, want 1", 3-n)
	}
}

// TestJUnit: -o junit is valid against the JUnit XSD (testdata/junit/junit.xsd, validated by
// libxml2's xmllint), one test case per judged object, a failure for each denied one with its
// findings as text.
func TestJUnit(t *testing.T) {
	dir := t.TempDir()
	dump := writeFile(t, dir, "config_dump.json", string(dumptest.KumaSidecar(true)))
	for _, args := range [][]string{{"check", examplesDir}, {"envoy", dump}, {"check", writeFile(t, dir, "empty.yaml", "# nothing\n")}} {
		t.Run(args[0]+" "+filepath.Base(args[1]), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.xml")
			r := run(t, "", append(args, "-o", "json", "-o", "junit="+out)...)
			if r.code == ExitError {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			cmd := exec.Command(pinnedTool(t, "xsd-validate"), filepath.Join("testdata", "junit", "junit.xsd"), out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the JUnit XML is not valid against the XSD: %v\n%s", err, b)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var doc junitSuites
			if err := xml.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			// The objects and their outcome, from the JSON of the same run.
			type object struct {
				name    string
				allowed bool
				fields  []string
			}
			var want []object
			if args[0] == "envoy" {
				var names []struct {
					Path, What, Name string
					Allowed          bool
					Problems         []jsonFinding
				}
				if err := json.Unmarshal([]byte(r.stdout), &names); err != nil {
					t.Fatal(err)
				}
				for _, n := range names {
					o := object{name: n.What + " " + strconv.Quote(n.Name) + " at " + n.Path, allowed: n.Allowed}
					for _, p := range n.Problems {
						o.fields = append(o.fields, p.Field+": "+p.Message)
					}
					want = append(want, o)
				}
			} else {
				for _, res := range decodeResults(t, r.stdout) {
					o := object{name: objectRef(res.Kind, res.Namespace, res.Name), allowed: res.Allowed}
					for _, c := range res.Causes {
						o.fields = append(o.fields, c.Field+": "+c.Message)
					}
					want = append(want, o)
				}
			}
			var got []junitCase
			tests, failures := 0, 0
			for _, s := range doc.Suites {
				got = append(got, s.Cases...)
				tests += s.Tests
				failures += s.Failures
			}
			if len(got) != len(want) || doc.Tests != len(want) || tests != len(want) {
				t.Fatalf("%d test cases (tests=%d, suites' %d), want one per judged object: %d", len(got), doc.Tests, tests, len(want))
			}
			denied := 0
			for i, c := range got {
				w := want[i]
				if c.Name != w.name || (c.Failure == nil) != w.allowed {
					t.Errorf("case %d: %q failure=%v, want %q allowed=%v", i, c.Name, c.Failure != nil, w.name, w.allowed)
					continue
				}
				if w.allowed {
					continue
				}
				denied++
				for _, f := range w.fields {
					if !strings.Contains(c.Failure.Text, f) {
						t.Errorf("case %q: failure text lacks %q:\n%s", c.Name, f, c.Failure.Text)
					}
				}
			}
			if doc.Failures != denied || failures != denied {
				t.Errorf("failures %d (suites' %d), want the %d denied", doc.Failures, failures, denied)
			}
		})
	}
}

// githubCommand is a workflow command as the Actions runner parses it: `::NAME k=v,k=v::DATA`,
// values and data unescaped.
type githubCommand struct {
	name  string
	props map[string]string
	data  string
}

var githubLine = regexp.MustCompile(`^::([a-z]+)(?: ([^:]*))?::(.*)$`)

func parseGitHubCommand(line string) (githubCommand, error) {
	m := githubLine.FindStringSubmatch(line)
	if m == nil {
		return githubCommand{}, fmt.Errorf("not a workflow command: %q", line)
	}
	unescapeData := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	unescapeProp := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	c := githubCommand{name: m[1], props: map[string]string{}, data: unescapeData.Replace(m[3])}
	if m[2] != "" {
		for _, kv := range strings.Split(m[2], ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return c, fmt.Errorf("property %q without '=' in %q", kv, line)
			}
			c.props[k] = unescapeProp.Replace(v)
		}
	}
	return c, nil
}

// TestGitHubAnnotations: -o github prints one workflow command per finding that the runner reads
// back as written: the command of its level, its file, line, column and rule, its message, with
// '%', ',', ':' and line breaks escaped.
func TestGitHubAnnotations(t *testing.T) {
	dir := t.TempDir()
	manifest := writeFile(t, dir, "odd, name: 100%.yaml", levelsManifest)
	dump := writeFile(t, dir, "config_dump.json", string(dumptest.KumaSidecar(true)))
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"check", []string{"check", manifest}},
		{"check warn", []string{"check", "--config", writeFile(t, dir, "warn.yaml", warnConfig), manifest}},
		{"envoy", []string{"envoy", "--strict", dump}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			r := run(t, "", append(tt.args, "-o", "github", "-o", "json="+out)...)
			if r.code == ExitError {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want := expectedResults(t, tt.name, string(b))
			var got []githubCommand
			sc := bufio.NewScanner(strings.NewReader(r.stdout))
			for sc.Scan() {
				c, err := parseGitHubCommand(sc.Text())
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, c)
			}
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%d commands, want one per finding: %d\n%s", len(got), len(want), r.stdout)
			}
			names := map[string]string{"error": "error", "warning": "warning", "note": "notice"}
			for i, c := range got {
				w := want[i]
				line, col := "", ""
				if w.line > 0 {
					line, col = strconv.Itoa(w.line), strconv.Itoa(w.column)
				}
				g := fmt.Sprintf("%s file=%s line=%s col=%s title=%s", c.name, c.props["file"], c.props["line"], c.props["col"], c.props["title"])
				wl := fmt.Sprintf("%s file=%s line=%s col=%s title=kriguard %s", names[w.level], w.source, line, col, w.rule)
				if g != wl {
					t.Errorf("command %d: %s\nwant       %s", i, g, wl)
				}
				if !strings.HasPrefix(c.data, w.object+": ") || !strings.HasSuffix(c.data, w.message) {
					t.Errorf("command %d: message %q, want %q's finding %q", i, c.data, w.object, w.message)
				}
			}
		})
	}
	if c, err := parseGitHubCommand("::error file=a%2Cb%3Ac%25,line=3::x%0Ay%25"); err != nil || c.props["file"] != "a,b:c%" || c.data != "x\ny%" {
		t.Errorf("the parser itself: %+v, %v", c, err)
	}
	if got := escapeData("50% done\r\nnext"); got != "50%25 done%0D%0Anext" {
		t.Errorf("escapeData: %q", got)
	}
}

// TestSeveralOutputs: one run writes every format asked for, each as a run with only that
// format writes it; at most one goes to standard output.
func TestSeveralOutputs(t *testing.T) {
	dir := t.TempDir()
	jsonFile, junitFile := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.xml")
	both := run(t, "", "check", examplesDir, "-o", "text", "--output=json="+jsonFile, "-o", "junit="+junitFile)
	text := run(t, "", "check", examplesDir)
	js := run(t, "", "check", "-o", "json", examplesDir)
	junit := run(t, "", "check", "-o", "junit", examplesDir)
	if both.code != ExitDenied || both.stdout != text.stdout {
		t.Errorf("exit %d, stdout differs from -o text's:\n%s", both.code, both.stdout)
	}
	for _, f := range []struct{ file, want string }{{jsonFile, js.stdout}, {junitFile, junit.stdout}} {
		if b, err := os.ReadFile(f.file); err != nil || string(b) != f.want {
			t.Errorf("%s differs from the same format on standard output (%v):\n%s", f.file, err, b)
		}
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"check", "-o", "json", "-o", "sarif", examplesDir}, "json and sarif both write to standard output"},
		{[]string{"check", "-o", "sarif=", examplesDir}, "no file after ="},
		{[]string{"check", "-o", "sarif=" + filepath.Join(dir, "missing", "x.sarif"), examplesDir}, "no such file or directory"},
		{[]string{"audit", "-o", "sarif=x.sarif"}, `unknown format "sarif"`},
		{[]string{"kri", "of", "-o", "json=x.json", examplesDir}, "writes one format"},
	} {
		r := run(t, "", tt.args...)
		if r.code != ExitError || !strings.Contains(r.stderr, tt.stderr) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.stderr)
		}
	}
}

// TestRuleHelpURIs: each rule's help is the section of docs/rules.md on it, as GitHub anchors its
// heading.
func TestRuleHelpURIs(t *testing.T) {
	b, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			// GitHub's anchor of a heading: lower case, spaces to '-', other punctuation dropped.
			a := strings.Map(func(r rune) rune {
				switch {
				case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
					return r
				case r == ' ':
					return '-'
				}
				return -1
			}, strings.ToLower(strings.TrimSpace(h)))
			anchors[a] = true
		}
	}
	for _, r := range rules.Rules() {
		u := ruleHelpURI(r)
		doc, anchor, _ := strings.Cut(u, "#")
		if doc != rulesDoc || !anchors[anchor] {
			t.Errorf("%s: help %s is no section of docs/rules.md", r, u)
		}
	}
}
