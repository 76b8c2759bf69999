package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// fixture is test/envoyvet, relative to this package.
const fixture = "../envoyvet"

// finding is one expected or reported diagnostic: where, and which rule of the naming core.
type finding struct {
	File string // slash-separated, relative to the fixture
	Line int
	Rule string // "colon", "not-kri", "legacy"; empty when the output does not say
}

func (f finding) String() string {
	if f.Rule == "" {
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Rule)
}

// TestVetTool runs `go vet -vettool=krilint ./...` over the fixture, as CI does, and checks the reported
// lines against the markers.
func TestVetTool(t *testing.T) {
	krilint := buildKrilint(t)
	dir := fixtureDir(t)
	want := markers(t, dir)

	cmd := goCommand(dir, "vet", "-vettool="+krilint, "./...")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("go vet -vettool=krilint: want exit status 1 (findings), got %v\nstdout:\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	got := parseVetText(t, dir, stderr.Bytes())
	compare(t, "go vet -vettool=krilint", withoutRules(want), got)
}

// TestVetToolJSON runs the same with -json, which also carries each finding's rule as its category, and
// checks the fixes and the Envoy field each message names.
func TestVetToolJSON(t *testing.T) {
	dir := fixtureDir(t)
	fields := fieldsAt{}
	want := markersWithFields(t, dir, fields)
	diags := vetJSON(t, dir)
	compare(t, "go vet -json -vettool=krilint", want, findingsOf(diags))
	checkDetails(t, dir, diags)
	checkFields(t, diags, fields)
}

// TestRelatedPath checks the path that findings list as related information (issue 7): every finding
// whose value travels through functions of another package lists the steps, and each step points into
// the function it names.
func TestRelatedPath(t *testing.T) {
	dir := fixtureDir(t)
	checkRelated(t, dir, vetJSON(t, dir))
}

// vetJSON runs `go vet -json -vettool=krilint FLAGS ./...` in the fixture.
func vetJSON(t *testing.T, dir string, flags ...string) []diagnostic {
	t.Helper()
	krilint := buildKrilint(t)
	args := append(append([]string{"vet", "-json", "-vettool=" + krilint}, flags...), "./...")
	cmd := goCommand(dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go vet -json -vettool=krilint: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	// Go 1.26's go vet -json passes the tool's JSON through on stdout, one tree per package.
	return parseJSONTrees(t, dir, stdout.Bytes())
}

// TestConfiguredSinks passes -sinks through go vet, which asks the tool for its flags: calls of the
// configured function, and of a function that passes its parameter on to it, are checked.
func TestConfiguredSinks(t *testing.T) {
	dir := fixtureDir(t)
	want := markers(t, dir, "sinks")
	got := vetJSON(t, dir, "-sinks="+fixtureModule+"/registry.Register:1")
	compare(t, "go vet -json -vettool=krilint -sinks=…", want, findingsOf(got))
}

// TestStandalone runs krilint as its own driver, `krilint -json ./...`, which loads the packages with
// go/packages instead of being driven by go vet: the findings must be the same.
func TestStandalone(t *testing.T) {
	krilint := buildKrilint(t)
	dir := fixtureDir(t)
	want := markers(t, dir)

	got := runStandalone(t, krilint, dir, "./...")
	compare(t, "krilint -json ./...", want, findingsOf(got))
}

// TestStrict runs krilint -strict over the package that writes names directly: legacy names are reported
// too, and names under an accepted prefix are not.
func TestStrict(t *testing.T) {
	krilint := buildKrilint(t)
	dir := fixtureDir(t)
	var want []finding
	for _, f := range markers(t, dir, "strict") {
		if strings.HasPrefix(f.File, "direct/") {
			want = append(want, f)
		}
	}
	got := runStandalone(t, krilint, dir, "-strict", "./direct")
	compare(t, "krilint -json -strict ./direct", want, findingsOf(got))
}

// TestMarkers guards the test itself: the fixture must hold markers of every kind, so that a broken
// marker parser cannot make the comparisons above vacuous.
func TestMarkers(t *testing.T) {
	dir := fixtureDir(t)
	count := map[string]int{}
	for _, f := range markers(t, dir) {
		count[strings.SplitN(f.File, "/", 2)[0]+" "+f.Rule]++
	}
	for _, key := range []string{"direct colon", "direct not-kri", "generator colon", "generator not-kri"} {
		if count[key] == 0 {
			t.Errorf("fixture has no %q markers; markers found: %v", key, count)
		}
	}
	for _, mode := range []string{"strict", "sinks"} {
		if n := len(markers(t, dir, mode)) - len(markers(t, dir)); n < 3 {
			t.Errorf("fixture has %d %s-only markers, want at least 3", n, mode)
		}
	}
	marked := map[string]bool{}
	for _, f := range markers(t, dir, "strict", "sinks") {
		if strings.HasPrefix(f.File, "traps/") {
			t.Errorf("%s: package traps must stay quiet, it cannot carry a marker", f)
		}
		marked[pathpkg.Dir(f.File)] = true
	}
	// go vet (Go 1.26) would replay a dependency's empty cached result for a marked package: keep them
	// leaves (see test/envoyvet/doc.go).
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(p, fixtureModule+"/")
			if ok && marked[rel] {
				t.Errorf("%s imports %s, which carries markers; marked packages must stay leaves", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fixtureModule is the module path of test/envoyvet.
const fixtureModule = "github.com/kriguard/kriguard/test/envoyvet"

// markerRE matches "// krilint: colon", "// krilint(strict): legacy, colon", "// krilint(sinks): colon" and
// "// krilint: colon [Listener.Name]" (the Envoy field the message must name; alternatives split by '|').
var markerRE = regexp.MustCompile(`//\s*krilint(?:\((strict|sinks)\))?:\s*(` + markerItem + `(?:\s*,\s*` + markerItem + `)*)\s*$`)

const markerItem = `[a-z-]+(?:\s*\[[A-Za-z0-9_.|]+\])?`

// markerItemRE splits one item of a marker into its rule and its optional fields.
var markerItemRE = regexp.MustCompile(`^([a-z-]+)(?:\s*\[([A-Za-z0-9_.|]+)\])?$`)

// fieldsAt holds the Envoy fields a marker names, by finding.
type fieldsAt map[finding][]string

// markers reads the expected findings from the fixture's comments: those of every mode, and those of the
// modes named ("strict" for -strict, "sinks" for -sinks=…registry.Register:1).
func markers(t *testing.T, dir string, modes ...string) []finding {
	t.Helper()
	return markersWithFields(t, dir, nil, modes...)
}

// markersWithFields is markers that also fills fields with the Envoy fields the markers name.
func markersWithFields(t *testing.T, dir string, fields fieldsAt, modes ...string) []finding {
	t.Helper()
	var out []finding
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			m := markerRE.FindStringSubmatch(line)
			if m != nil && strings.HasPrefix(strings.TrimSpace(line), "//") {
				// A marker names the line it ends; on a line of its own it would name nothing.
				return fmt.Errorf("%s:%d: marker on a comment line, put it after the code it is about", rel, i+1)
			}
			if m == nil {
				trailing := !strings.HasPrefix(strings.TrimSpace(line), "//")
				if trailing && (strings.Contains(line, "// krilint:") || strings.Contains(line, "// krilint(")) {
					return fmt.Errorf("%s:%d: malformed marker %q", rel, i+1, strings.TrimSpace(line))
				}
				continue
			}
			if m[1] != "" && !slices.Contains(modes, m[1]) {
				continue
			}
			for _, item := range strings.Split(m[2], ",") {
				im := markerItemRE.FindStringSubmatch(strings.TrimSpace(item))
				f := finding{File: filepath.ToSlash(rel), Line: i + 1, Rule: im[1]}
				out = append(out, f)
				if im[2] != "" && fields != nil {
					fields[f] = strings.Split(im[2], "|")
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading markers: %v", err)
	}
	return out
}

// diagnostic is one entry of the JSON that analysis drivers print with -json.
type diagnostic struct {
	Category       string `json:"category"`
	Posn           string `json:"posn"`
	End            string `json:"end"`
	Message        string `json:"message"`
	SuggestedFixes []struct {
		Message string `json:"message"`
		Edits   []struct {
			Filename string `json:"filename"`
			Start    int    `json:"start"`
			End      int    `json:"end"`
			New      string `json:"new"`
		} `json:"edits"`
	} `json:"suggested_fixes"`
	Related []struct {
		Posn    string `json:"posn"`
		Message string `json:"message"`
	} `json:"related"`

	at finding // Posn resolved against the fixture, with Category as the rule
}

// parseJSONTrees decodes the JSON trees (package → analyzer → diagnostics or error) that go vet -json and
// krilint -json print, failing on any analyzer error.
func parseJSONTrees(t *testing.T, dir string, out []byte) []diagnostic {
	t.Helper()
	// go vet prints "# package" headers between the trees.
	var body bytes.Buffer
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("#")) {
			body.Write(line)
		}
	}
	var diags []diagnostic
	dec := json.NewDecoder(&body)
	for {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("decoding JSON output: %v\n%s", err, out)
		}
		for pkg, byAnalyzer := range tree {
			for name, raw := range byAnalyzer {
				if name != "krilint" {
					t.Fatalf("%s: unexpected analyzer %q in output", pkg, name)
				}
				var failure struct {
					Error string `json:"error"`
				}
				if json.Unmarshal(raw, &failure) == nil && failure.Error != "" {
					t.Fatalf("krilint failed on %s: %s", pkg, failure.Error)
				}
				var ds []diagnostic
				if err := json.Unmarshal(raw, &ds); err != nil {
					t.Fatalf("%s: decoding diagnostics: %v\n%s", pkg, err, raw)
				}
				for i := range ds {
					file, line := position(t, dir, ds[i].Posn)
					ds[i].at = finding{File: file, Line: line, Rule: ds[i].Category}
				}
				diags = append(diags, ds...)
			}
		}
	}
	return diags
}

func findingsOf(diags []diagnostic) []finding {
	out := make([]finding, len(diags))
	for i, d := range diags {
		out[i] = d.at
	}
	return out
}

// vetLineRE matches the text form go vet prints: "direct/direct.go:30:15: message".
var vetLineRE = regexp.MustCompile(`^(.+\.go):(\d+):(\d+): (.+)$`)

func parseVetText(t *testing.T, dir string, out []byte) []finding {
	t.Helper()
	var got []finding
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := vetLineRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("go vet printed a line that is not a finding: %q\nfull output:\n%s", line, out)
		}
		if strings.HasPrefix(m[4], "\t") {
			// Related information: go vet prints each step of the path under its finding, indented.
			if len(got) == 0 {
				t.Fatalf("go vet printed related information before any finding: %q", line)
			}
			continue
		}
		file, n := position(t, dir, m[1]+":"+m[2]+":"+m[3])
		got = append(got, finding{File: file, Line: n})
	}
	return got
}

// position turns "path/file.go:line:col" (absolute, or relative to the fixture) into a fixture-relative
// file and a line.
func position(t *testing.T, dir, posn string) (string, int) {
	t.Helper()
	parts := strings.Split(posn, ":")
	if len(parts) < 3 {
		t.Fatalf("position %q: want file:line:column", posn)
	}
	file := strings.Join(parts[:len(parts)-2], ":")
	line, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil {
		t.Fatalf("position %q: bad line: %v", posn, err)
	}
	if filepath.IsAbs(file) {
		rel, err := filepath.Rel(dir, file)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("position %q is outside the fixture %s", posn, dir)
		}
		file = rel
	}
	return filepath.ToSlash(file), line
}

func withoutRules(fs []finding) []finding {
	out := make([]finding, len(fs))
	for i, f := range fs {
		out[i] = finding{File: f.File, Line: f.Line}
	}
	return out
}

// compare reports every expected finding that is missing and every reported one that is not expected,
// counting duplicates (one report per site: two reports on one line need two markers).
func compare(t *testing.T, what string, want, got []finding) {
	t.Helper()
	count := map[finding]int{}
	for _, f := range want {
		count[f]++
	}
	for _, f := range got {
		count[f]--
	}
	var missing, extra []string
	for f, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, f.String())
		}
		for ; n < 0; n++ {
			extra = append(extra, f.String())
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s: %d marked findings not reported:\n\t%s", what, len(missing), strings.Join(missing, "\n\t"))
	}
	if len(extra) > 0 {
		t.Errorf("%s: %d findings reported without a marker (false positives, or a marker is missing):\n\t%s", what, len(extra), strings.Join(extra, "\n\t"))
	}
	if !t.Failed() && len(want) == 0 {
		t.Fatalf("%s: no findings expected, the fixture lost its markers", what)
	}
}

// checkDetails checks what a user reads beyond the position: a message, fixes that only turn ':' into
// '_', and such a fix on every finding that is a single string literal holding ':' (issue 5).
func checkDetails(t *testing.T, dir string, diags []diagnostic) {
	t.Helper()
	files := map[string][]byte{}
	source := func(file string) []byte {
		if b, ok := files[file]; ok {
			return b
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		files[file] = b
		return b
	}
	for _, d := range diags {
		if strings.TrimSpace(d.Message) == "" {
			t.Errorf("%s: empty message", d.at)
		}
		src := source(d.at.File)
		start := offset(t, src, d.Posn)
		end := start
		if d.End != "" {
			end = offset(t, src, d.End)
		}
		expr := string(src[start:end])
		for _, fix := range d.SuggestedFixes {
			if len(fix.Edits) == 0 {
				t.Errorf("%s: fix %q edits nothing", d.at, fix.Message)
			}
			for _, e := range fix.Edits {
				file, err := filepath.Rel(dir, e.Filename)
				if err != nil || strings.HasPrefix(file, "..") {
					t.Errorf("%s: fix edits %s, outside the fixture", d.at, e.Filename)
					continue
				}
				fsrc := source(filepath.ToSlash(file))
				if e.Start < 0 || e.End > len(fsrc) || e.Start > e.End {
					t.Errorf("%s: fix edit [%d,%d) out of range of %s", d.at, e.Start, e.End, file)
					continue
				}
				old := string(fsrc[e.Start:e.End])
				if !strings.Contains(old, ":") || e.New != strings.ReplaceAll(old, ":", "_") {
					t.Errorf("%s: fix %q replaces %q with %q; want only ':' turned into '_'", d.at, fix.Message, old, e.New)
				}
			}
		}
		if d.Category == "colon" && isStringLiteral(expr) && len(d.SuggestedFixes) == 0 {
			t.Errorf("%s: the literal %s holds ':' but carries no fix", d.at, expr)
		}
	}
}

func isStringLiteral(expr string) bool {
	s, err := strconv.Unquote(expr)
	return err == nil && strings.Contains(s, ":")
}

// offset turns "file:line:col" into a byte offset of src.
func offset(t *testing.T, src []byte, posn string) int {
	t.Helper()
	parts := strings.Split(posn, ":")
	if len(parts) < 3 {
		t.Fatalf("position %q: want file:line:column", posn)
	}
	line, err1 := strconv.Atoi(parts[len(parts)-2])
	col, err2 := strconv.Atoi(parts[len(parts)-1])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		t.Fatalf("position %q: bad line or column", posn)
	}
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			t.Fatalf("position %q: past the end of the file", posn)
		}
		off += i + 1
	}
	off += col - 1
	if off > len(src) {
		t.Fatalf("position %q: past the end of the file", posn)
	}
	return off
}

func TestMarkerSyntax(t *testing.T) {
	tests := []struct {
		line  string
		mode  string
		rules string // comma-separated, "" for no marker
	}{
		{`	Name: "a:b", // krilint: colon`, "", "colon"},
		{`	Name: "kri_x:y", // krilint: colon, not-kri`, "", "colon, not-kri"},
		{`	Name: "legacy", // krilint(strict): legacy`, "strict", "legacy"},
		{`	registry.Register("l", "a:b") // krilint(sinks): colon`, "sinks", "colon"},
		{`	Name: "a", // krilint(lax): colon`, "", ""},
		{`	Name: x, // krilint: colon [Listener.Name]`, "", "colon [Listener.Name]"},
		{`	Name: x, // krilint: colon [Cluster.Name|ClusterLoadAssignment.ClusterName], not-kri`, "", "colon [Cluster.Name|ClusterLoadAssignment.ClusterName], not-kri"},
		{`	Name: x, // krilint: colon [Listener Name]`, "", ""},
		{`	Name: "a", // krilint: Colon`, "", ""},
		{`	Name: "a", // krilint colon`, "", ""},
		{`	Name: "a", // not a marker: krilint: colon trailing text`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			m := markerRE.FindStringSubmatch(tt.line)
			if tt.rules == "" {
				if m != nil {
					t.Fatalf("matched %q, want no marker", m[0])
				}
				return
			}
			if m == nil {
				t.Fatal("no marker found")
			}
			if m[1] != tt.mode || m[2] != tt.rules {
				t.Fatalf("mode=%q rules=%q, want mode=%q rules=%q", m[1], m[2], tt.mode, tt.rules)
			}
		})
	}
}

// checkFields checks that a finding names the Envoy field its marker names: the field the value finally
// lands in, which for a builder argument is in another package (issue 7).
func checkFields(t *testing.T, diags []diagnostic, fields fieldsAt) {
	t.Helper()
	if len(fields) == 0 {
		t.Fatal("no marker names a field; the fixture lost them")
	}
	for _, d := range diags {
		want, ok := fields[d.at]
		if !ok {
			continue
		}
		named := false
		for _, f := range want {
			named = named || strings.Contains(d.Message, f)
		}
		if !named {
			t.Errorf("%s: message %q names none of the fields %v", d.at, d.Message, want)
		}
	}
}

// checkRelated checks the path a finding lists as related information (issue 7): a finding whose value
// travels through another function lists the steps, and a step "F writes …" points into F, so that a
// user who follows it lands on the write.
func checkRelated(t *testing.T, dir string, diags []diagnostic) {
	t.Helper()
	funcs := fixtureFuncs(t, dir)
	for _, d := range diags {
		if strings.Contains(d.Message, " through ") && len(d.Related) == 0 {
			t.Errorf("%s: the value reaches its field through other functions but no step is listed: %s", d.at, d.Message)
		}
		for _, r := range d.Related {
			file, line := position(t, dir, r.Posn)
			name, _, ok := strings.Cut(strings.TrimSpace(r.Message), " writes ")
			if !ok {
				continue
			}
			fn, known := funcs[name]
			if !known {
				t.Errorf("%s: step %q names a function the fixture does not declare", d.at, r.Message)
				continue
			}
			if file != fn.File || line < fn.Line || line > fn.EndLine {
				t.Errorf("%s: step %q is at %s:%d, outside %s (%s:%d-%d)", d.at, r.Message, file, line, name, fn.File, fn.Line, fn.EndLine)
			}
		}
	}
}

type funcSpan struct {
	File          string
	Line, EndLine int
}

// fixtureFuncs indexes the fixture's functions by the names diagnostics give them: "pkg.Func",
// "(*pkg.Type).Method" or "(pkg.Type).Method".
func fixtureFuncs(t *testing.T, dir string) map[string]funcSpan {
	t.Helper()
	out := map[string]funcSpan{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := f.Name.Name + "." + fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				typ, star := fd.Recv.List[0].Type, ""
				if s, ok := typ.(*ast.StarExpr); ok {
					typ, star = s.X, "*"
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = "(" + star + f.Name.Name + "." + id.Name + ")." + fd.Name.Name
				}
			}
			out[name] = funcSpan{
				File:    filepath.ToSlash(rel),
				Line:    fset.Position(fd.Pos()).Line,
				EndLine: fset.Position(fd.End()).Line,
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("parsing the fixture: %v", err)
	}
	return out
}
