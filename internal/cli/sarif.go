package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/kriguard/kriguard/rules"
)

// formatSARIF is SARIF 2.1.0, as GitHub code scanning ingests it (docs/reports.md).
const formatSARIF = "sarif"

const (
	// projectURL is where kriguard lives; rule help points into its docs.
	projectURL = "https://github.com/kriguard/kriguard"
	// rulesDoc is docs/rules.md, a section per rule id.
	rulesDoc = projectURL + "/blob/main/docs/rules.md"
	// fingerprintKey names kriguard's partial fingerprint of a result. A new way of computing it
	// gets a new key, so that code scanning does not match results across the change.
	fingerprintKey = "kriguardFinding/v1"
)

// ruleHelpURI is the section of docs/rules.md that documents r, as GitHub anchors its heading
// "## `kuma/kri`": lower case, punctuation but '-' and '_' dropped.
func ruleHelpURI(r rules.Rule) string {
	var b strings.Builder
	for _, c := range strings.ToLower(string(r)) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteRune(c)
		}
	}
	return rulesDoc + "#" + b.String()
}

// sarifWriter collects the results of a run into one SARIF log, written when the run ends: one
// run, the tool with every rule, one result per finding.
type sarifWriter struct {
	w   sink
	log *sarif.Report
	run *sarif.Run
	// seen counts the results of each fingerprint, so that two findings with the same identity
	// (the same object twice in one file) still get distinct fingerprints.
	seen map[string]int
}

func newSARIFWriter(w sink, version string) *sarifWriter {
	run := sarif.NewRunWithInformationURI("kriguard", projectURL)
	// SARIF compares versions that start with a number: "0.3.0", not "v0.3.0".
	v := strings.TrimPrefix(version, "v")
	run.Tool.Driver.WithVersion(v)
	if isSemver(v) {
		run.Tool.Driver.WithSemanticVersion(v)
	}
	for _, r := range rules.Rules() {
		info, _ := rules.Describe(r)
		run.AddRule(string(r)).
			WithName(ruleName(r)).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(info.Summary + ".")).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(info.Description)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(info.Description + " See " + ruleHelpURI(r) + ".")).
			WithHelpURI(ruleHelpURI(r)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(string(info.Level)))
	}
	run.WithColumnKind("unicodeCodePoints")
	return &sarifWriter{w: w, log: sarif.NewReport().AddRun(run), run: run, seen: map[string]int{}}
}

// ruleName is a rule's id as SARIF wants a rule's name: one word, upper camel case
// ("kuma/kri" is "KumaKri").
func ruleName(r rules.Rule) string {
	var b strings.Builder
	up := true
	for _, c := range string(r) {
		switch {
		case c == '/' || c == '-' || c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
			up = false
		default:
			b.WriteRune(c)
			up = false
		}
	}
	return b.String()
}

func (s *sarifWriter) write(r Result) error {
	uri := artifactURI(r.Source)
	for _, f := range r.Findings {
		if _, ok := rules.Describe(f.Rule); !ok {
			continue // not a rule's finding: nothing a reader could look up
		}
		// The library writes the "unset" sentinels (an index of -1, SARIF §3.4.5) that the
		// multitool's SARIF2004 notes; the log is valid with them.
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri))
		line, col := f.Position.Line, f.Position.Column
		if line == 0 {
			line = r.Line
		}
		if line > 0 {
			region := sarif.NewRegion().WithStartLine(line)
			if col > 0 {
				region.WithStartColumn(col)
			}
			loc.WithRegion(region)
		}
		fp := fingerprint(uri, &r, &f)
		s.seen[fp]++
		if n := s.seen[fp]; n > 1 {
			fp += ":" + itoa(n)
		}
		res := s.run.CreateResultForRule(string(f.Rule)).
			WithLevel(sarifLevel(shownLevel(&r, &f))).
			WithMessage(sarif.NewTextMessage(sentence(findingText(&r, &f)))).
			AddLocation(sarif.NewLocationWithPhysicalLocation(loc)).
			WithPartialFingerprints(map[string]string{fingerprintKey: fp})
		if r.Path != "" {
			res.Locations[0].AddLogicalLocation(sarif.NewLogicalLocation().WithFullyQualifiedName(r.Path).WithKind("element"))
		}
	}
	return nil
}

func (s *sarifWriter) close() error {
	if err := s.log.Write(s.w); err != nil {
		return err
	}
	_, err := s.w.WriteString("\n")
	return err
}

// fingerprint identifies a finding across runs whatever moves around it: the rule, the file, the
// object (kind, namespace, name) or the Envoy name (what it is, the name, its JSON path), and the
// field. Lines are no part of it, so that adding a document above an object keeps its findings'
// fingerprints.
func fingerprint(uri string, r *Result, f *rules.Finding) string {
	h := sha256.New()
	for _, s := range []string{string(f.Rule), uri, f.Object.Kind.Group, f.Object.Kind.Kind, f.Object.Namespace,
		r.Name(), f.Problem.Field} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// artifactURI is a source as a SARIF artifact location: a relative path with '/', as GitHub
// resolves it against the repository's root, a file: URI for an absolute path, an admin URL as
// it is.
func artifactURI(source string) string {
	if strings.Contains(source, "://") {
		return source
	}
	if filepath.IsAbs(source) {
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(source)}).String()
	}
	return (&url.URL{Path: filepath.ToSlash(filepath.Clean(source))}).String()
}

func sarifLevel(l rules.Level) string {
	switch l {
	case rules.LevelError:
		return "error"
	case rules.LevelWarning:
		return "warning"
	}
	return "note"
}

// findingText is a finding in one line, the object first: `Kind ns/name: field: message` or,
// for an Envoy name, `what "name" at path: message`.
func findingText(r *Result, f *rules.Finding) string {
	if r.Path != "" {
		return r.Object.Kind.Kind + " " + quote(r.Object.Name) + " at " + r.Path + ": " + message(r, f)
	}
	return objectRef(r.Object.Kind.Kind, r.Object.Namespace, r.Name()) + ": " + f.Problem.Field + ": " + message(r, f)
}

// sentence ends s with a period, as SARIF's messages are written.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// isSemver reports whether v is MAJOR.MINOR.PATCH with an optional pre-release or build.
func isSemver(v string) bool {
	core, _, _ := strings.Cut(v, "+")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || (len(p) > 1 && p[0] == '0') {
			return false
		}
	}
	return true
}
