package cli

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/kriguard/kriguard/rules"
)

// formatJUnit is JUnit XML as Jenkins, GitLab and most CI read it (docs/reports.md).
const formatJUnit = "junit"

// junitWriter collects a run into one JUnit XML document, written when the run ends: a test
// suite per source, a test case per judged object, a failure for each denied one with its
// findings as text. The findings of an object that is admitted are its test case's system-out.
type junitWriter struct {
	w      sink
	name   string
	suites []*junitSuite
	bySrc  map[string]*junitSuite
}

type junitSuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Errors   int           `xml:"errors,attr"`
	Suites   []*junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func newJUnitWriter(w sink, name string) *junitWriter {
	return &junitWriter{w: w, name: name, bySrc: map[string]*junitSuite{}}
}

func (j *junitWriter) write(r Result) error {
	s := j.bySrc[r.Source]
	if s == nil {
		s = &junitSuite{Name: r.Source}
		j.bySrc[r.Source] = s
		j.suites = append(j.suites, s)
	}
	c := junitCase{Name: caseName(&r), Classname: r.Source, Line: r.Line}
	if r.Source != SourceCluster {
		c.File = r.Source
	}
	var text strings.Builder
	for _, f := range r.Findings {
		text.WriteString(findingLine(&r, f.Position, &f))
	}
	for _, m := range []more{r.MoreErrors, r.MoreWarnings} {
		if m.N > 0 {
			text.WriteString("… and " + formatCount(m.N) + " more\n")
		}
	}
	s.Tests++
	if r.Allowed {
		c.SystemOut = text.String()
	} else {
		s.Failures++
		errs := r.Errors()
		n := len(errs) + r.MoreErrors.N
		msg := "denied: 1 problem"
		if n != 1 {
			msg = "denied: " + formatCount(n) + " problems"
		}
		c.Failure = &junitFailure{Message: msg, Type: string(errs[0].Rule), Text: text.String()}
	}
	s.Cases = append(s.Cases, c)
	return nil
}

// caseName names an object's test case: `Kind ns/name`, or `what "name" at path` for an Envoy name.
func caseName(r *Result) string {
	if r.Path != "" {
		return r.Object.Kind.Kind + " " + quote(r.Object.Name) + " at " + r.Path
	}
	return objectRef(r.Object.Kind.Kind, r.Object.Namespace, r.Name())
}

// findingLine is one finding of a test case's text: `[level rule] line:column: field: message`.
func findingLine(r *Result, p rules.Position, f *rules.Finding) string {
	var b strings.Builder
	b.WriteString("[" + string(f.Level) + " " + string(f.Rule) + "] ")
	if p.Line > 0 {
		b.WriteString(strconv.Itoa(p.Line))
		if p.Column > 0 {
			b.WriteString(":" + strconv.Itoa(p.Column))
		}
		b.WriteString(": ")
	}
	b.WriteString(f.Problem.Field + ": " + message(r, f) + "\n")
	return b.String()
}

func (j *junitWriter) close() error {
	doc := junitSuites{Name: j.name, Suites: j.suites}
	if doc.Suites == nil {
		doc.Suites = []*junitSuite{}
	}
	for _, s := range j.suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if _, err := j.w.WriteString(xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(j.w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := j.w.WriteString("\n")
	return err
}
