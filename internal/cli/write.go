package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kriguard/kriguard/internal/envoydump"
	"github.com/kriguard/kriguard/rules"
)

// The output formats (docs/cli.md, docs/reports.md).
const (
	formatText = "text"
	formatJSON = "json"
)

// output is one -o FORMAT[=FILE]: a format, written to FILE or, without one, to standard output.
type output struct {
	format, file string
}

// parseOutputs reads the -o values of a command that writes formats: each FORMAT or FORMAT=FILE
// ("-" for standard output), at most one of them on standard output.
func parseOutputs(values []string, formats []string) ([]output, error) {
	var outs []output
	onStdout := ""
	for _, v := range values {
		f, file, _ := strings.Cut(v, "=")
		if !slices.Contains(formats, f) {
			return nil, usagef(`--output: unknown format %q (want %s, each optionally followed by =FILE)`, f, quoteList(formats))
		}
		if strings.Contains(v, "=") && file == "" {
			return nil, usagef("--output %s: no file after =", v)
		}
		if file == "" || file == "-" {
			if onStdout != "" {
				return nil, usagef("--output: %s and %s both write to standard output; give one of them a file (-o %s=FILE)", onStdout, f, f)
			}
			onStdout, file = f, ""
		}
		outs = append(outs, output{format: f, file: file})
	}
	return outs, nil
}

func quoteList(formats []string) string {
	return `"` + strings.Join(formats, `", "`) + `"`
}

// stdoutFormat returns the one format of a command that writes text or JSON to standard output.
func (a *app) stdoutFormat() (string, error) {
	outs, err := parseOutputs(a.outputs, []string{formatText, formatJSON})
	if err != nil {
		return "", err
	}
	if len(outs) != 1 || outs[0].file != "" {
		return "", usagef(`--output: this command writes one format, "text" or "json", to standard output`)
	}
	return outs[0].format, nil
}

// sink is where a writer writes: standard output, which an interrupted run closes with the
// trailer set last (the "]" of a JSON array), or a file.
type sink interface {
	io.Writer
	WriteString(string) (int, error)
	setTrailer(string)
}

// fileSink is an output file, buffered; written in full when the run ends.
type fileSink struct {
	*bufio.Writer
	f *os.File
}

func (fileSink) setTrailer(string) {}

func (s fileSink) close() error {
	err := s.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// resultWriter prints results: as they come, or at the end for the formats that are one document.
type resultWriter interface {
	write(Result) error
	close() error
}

// writerKind says what a command's results are: objects, or the names of an Envoy config dump.
type writerKind int

const (
	objectResults writerKind = iota
	envoyResults
)

// resultWriters opens every output of a.outputs, which must be among formats, and returns one
// writer for them all.
// command names the run (the JUnit document).
func (a *app) resultWriters(kind writerKind, command string, formats ...string) (resultWriter, error) {
	outs, err := parseOutputs(a.outputs, formats)
	if err != nil {
		return nil, err
	}
	var ws multiWriter
	for _, o := range outs {
		var s sink = a.out
		var f *fileSink
		if o.file != "" {
			fh, err := os.Create(o.file)
			if err != nil {
				ws.abort()
				return nil, fmt.Errorf("--output %s=%s: %w", o.format, o.file, err)
			}
			f = &fileSink{Writer: bufio.NewWriterSize(fh, 64<<10), f: fh}
			s = f
		}
		ws = append(ws, fileWriter{resultWriter: a.newWriter(kind, command, o.format, s), file: f})
	}
	return ws, nil
}

func (a *app) newWriter(kind writerKind, command, format string, s sink) resultWriter {
	w := a.formatWriter(kind, command, format, s)
	if kind == envoyResults && a.dumpFile != "" && (format == formatSARIF || format == formatJUnit || format == formatGitHub) {
		return &locatingWriter{next: w, file: a.dumpFile, all: format == formatJUnit}
	}
	return w
}

func (a *app) formatWriter(kind writerKind, command, format string, s sink) resultWriter {
	switch format {
	case formatSARIF:
		return newSARIFWriter(s, version(a.streams.Version))
	case formatJUnit:
		return newJUnitWriter(s, command)
	case formatGitHub:
		return &githubWriter{w: s}
	case formatJSON:
		if kind == envoyResults {
			return newJSONWriter(s, envoyJSON)
		}
		w := newJSONWriter(s, objectJSON)
		w.appendElement = appendObjectJSON
		return w
	}
	return &textWriter{w: s, envoy: kind == envoyResults}
}

// locatingWriter holds the results of an Envoy config dump read from a file until the run ends,
// then places their findings at the lines and columns of the dump (envoydump.Locate) and hands
// them on: the dump is read as it streams, and only the formats that show lines wait for it.
type locatingWriter struct {
	next resultWriter
	file string
	// all keeps the names without findings too (JUnit has a test case for each).
	all     bool
	results []Result
}

func (l *locatingWriter) write(r Result) error {
	if len(r.Findings) > 0 || l.all {
		l.results = append(l.results, r)
	}
	return nil
}

func (l *locatingWriter) close() error {
	var paths []string
	for _, r := range l.results {
		for _, f := range r.Findings {
			paths = append(paths, f.Position.JSONPath)
		}
	}
	// A dump that can no longer be read keeps its findings at their JSON paths only.
	if pos, err := locate(l.file, paths); err == nil {
		for _, r := range l.results {
			for i := range r.Findings {
				if p, ok := pos[r.Findings[i].Position.JSONPath]; ok {
					r.Findings[i].Position.Line, r.Findings[i].Position.Column = p.Line, p.Column
				}
			}
		}
	}
	for _, r := range l.results {
		if err := l.next.write(r); err != nil {
			return err
		}
	}
	return l.next.close()
}

func locate(file string, paths []string) (map[string]envoydump.Position, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return envoydump.Locate(f, paths)
}

// fileWriter is a writer and the file it writes, closed after it.
type fileWriter struct {
	resultWriter
	file *fileSink
}

func (w fileWriter) close() error {
	err := w.resultWriter.close()
	if w.file != nil {
		err = errors.Join(err, w.file.close())
	}
	return err
}

// multiWriter writes each result to several writers.
type multiWriter []fileWriter

func (m multiWriter) write(r Result) error {
	for _, w := range m {
		if err := w.write(r); err != nil {
			return err
		}
	}
	return nil
}

func (m multiWriter) close() error {
	var errs []error
	for _, w := range m {
		errs = append(errs, w.close())
	}
	return errors.Join(errs...)
}

// abort closes the files opened so far.
func (m multiWriter) abort() {
	for _, w := range m {
		if w.file != nil {
			_ = w.file.close()
		}
	}
}

// shownLevel is the level a finding is reported with where a format has no other way to say that
// the object is admitted (SARIF, GitHub annotations): an error of an object its enforcement
// admits (warn, dryrun) is a warning.
func shownLevel(r *Result, f *rules.Finding) rules.Level {
	if f.Level == rules.LevelError && r.Allowed {
		return rules.LevelWarning
	}
	return f.Level
}

func quote(s string) string { return strconv.Quote(s) }

func itoa(n int) string { return strconv.Itoa(n) }

// message is a finding's message without its field: for an object as the API server words a
// cause (`Invalid value: "v": detail`), for an Envoy name what is wrong with it.
func message(r *Result, f *rules.Finding) string {
	if r.Path != "" {
		return f.Problem.Detail
	}
	return f.Problem.ErrorBody()
}

// textWriter prints one line per finding. For objects: `file:line:column: Kind ns/name: field:
// message`, the findings of objects their enforcement allows ending in "(allowed: warn)" or
// "(allowed: dryrun)", warnings and notes in "(warning)". For Envoy names: `source: path: what
// "name" message [rule]`, then a summary line per rule that found something.
type textWriter struct {
	w     sink
	envoy bool
	// source, names and perRule are the config dump, its names and the findings of each rule.
	source  string
	names   int
	perRule map[rules.Rule]int
}

func (t *textWriter) write(r Result) error {
	if t.envoy {
		return t.writeEnvoy(r)
	}
	if len(r.Findings) == 0 && r.MoreErrors.N == 0 && r.MoreWarnings.N == 0 {
		return nil // most objects of an audit: nothing to print, nothing to build
	}
	suffix := ""
	if r.Allowed {
		suffix = " (allowed: " + r.Enforcement + ")"
	}
	for _, f := range r.Errors() {
		if err := t.line(&r, f.Position, f.Problem.Field, message(&r, &f), suffix); err != nil {
			return err
		}
	}
	if err := t.more(&r, r.MoreErrors, suffix); err != nil {
		return err
	}
	for _, f := range r.Warnings() {
		if err := t.line(&r, f.Position, f.Problem.Field, message(&r, &f), " (warning)"); err != nil {
			return err
		}
	}
	return t.more(&r, r.MoreWarnings, " (warning)")
}

func (t *textWriter) more(r *Result, m more, suffix string) error {
	if m.N == 0 {
		return nil
	}
	return t.line(r, m.Position, "", "… and "+formatCount(m.N)+" more", suffix)
}

func (t *textWriter) line(r *Result, p rules.Position, field, msg, suffix string) error {
	where := location(r.Source, r.Line)
	if p.Line > 0 {
		where = position(r.Source, p.Line, p.Column)
	}
	ref := r.ref()
	if field == "" { // "… and 51 more"
		_, err := fmt.Fprintf(t.w, "%s: %s: %s%s\n", where, ref, msg, suffix)
		return err
	}
	_, err := fmt.Fprintf(t.w, "%s: %s: %s: %s%s\n", where, ref, field, msg, suffix)
	return err
}

func (t *textWriter) writeEnvoy(r Result) error {
	t.source = r.Source
	t.names++
	if t.perRule == nil {
		t.perRule = map[rules.Rule]int{}
	}
	for _, f := range r.Findings {
		t.perRule[f.Rule]++
		where := r.Source + ": " + r.Path
		if f.Position.Line > 0 {
			where = position(r.Source, f.Position.Line, f.Position.Column) + ": " + r.Path
		}
		if _, err := fmt.Fprintf(t.w, "%s: %s %q %s [%s]\n", where, r.Object.Kind.Kind, r.Object.Name, message(&r, &f), ruleTag(f)); err != nil {
			return err
		}
	}
	return nil
}

// ruleTag names a finding's rule, and its level when it is not an error.
func ruleTag(f rules.Finding) string {
	if f.Level == rules.LevelError {
		return string(f.Rule)
	}
	return string(f.Rule) + ", " + string(f.Level)
}

func (t *textWriter) close() error {
	if !t.envoy {
		return nil
	}
	for _, r := range []rules.Rule{rules.RuleEnvoyColon, rules.RuleEnvoyNotKRI, rules.RuleEnvoyLegacy, rules.RuleEnvoyStatUnsafe} {
		if t.perRule[r] == 0 {
			continue
		}
		info, _ := rules.Describe(r)
		if _, err := fmt.Fprintf(t.w, "%s: %s (%s): %d of %d names\n", t.source, r, info.Level, t.perRule[r], t.names); err != nil {
			return err
		}
	}
	return nil
}

// jsonFinding is a finding as -o json prints it.
type jsonFinding struct {
	// Rule and Level are "" only for the entry that counts the findings left out.
	Rule  rules.Rule  `json:"rule,omitempty"`
	Level rules.Level `json:"level,omitempty"`
	// Field is the field path of the offending value; for an Envoy name, its JSON path.
	Field   string `json:"field"`
	Message string `json:"message"`
	// Line and Column are where the field is written in a file: its key, or its item in a list;
	// left out when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

func jsonFindings(r *Result, fs []rules.Finding, m more) []jsonFinding {
	out := make([]jsonFinding, 0, len(fs)+1)
	for _, f := range fs {
		out = append(out, jsonFinding{Rule: f.Rule, Level: f.Level, Field: f.Problem.Field, Message: message(r, &f),
			Line: f.Position.Line, Column: f.Position.Column})
	}
	if m.N > 0 {
		out = append(out, jsonFinding{Message: "… and " + formatCount(m.N) + " more", Line: m.Position.Line, Column: m.Position.Column})
	}
	return out
}

// objectJSON is an object's result as -o json prints it (docs/cli.md).
func objectJSON(r *Result) any {
	type result struct {
		Source      string        `json:"source"`
		Line        int           `json:"line"`
		APIVersion  string        `json:"apiVersion"`
		Kind        string        `json:"kind"`
		Namespace   string        `json:"namespace"`
		Mesh        string        `json:"mesh,omitempty"`
		Name        string        `json:"name"`
		KRI         string        `json:"kri"`
		Allowed     bool          `json:"allowed"`
		Enforcement string        `json:"enforcement"`
		Causes      []jsonFinding `json:"causes"`
		Warnings    []jsonFinding `json:"warnings,omitempty"`
	}
	out := result{Source: r.Source, Line: r.Line, APIVersion: r.APIVersion, Kind: r.Object.Kind.Kind, Namespace: r.Object.Namespace,
		Mesh: r.Object.Mesh, Name: r.Name(), KRI: r.KRI, Allowed: r.Allowed, Enforcement: r.Enforcement, Causes: jsonFindings(r, r.Errors(), r.MoreErrors)}
	if w := r.Warnings(); len(w) > 0 || r.MoreWarnings.N > 0 {
		out.Warnings = jsonFindings(r, w, r.MoreWarnings)
	}
	return out
}

// envoyJSON is an Envoy name's result as -o json prints it (docs/cli.md).
func envoyJSON(r *Result) any {
	return struct {
		Source   string        `json:"source"`
		Path     string        `json:"path"`
		What     string        `json:"what"`
		Name     string        `json:"name"`
		Allowed  bool          `json:"allowed"`
		Problems []jsonFinding `json:"problems"`
	}{r.Source, r.Path, r.Object.Kind.Kind, r.Object.Name, r.Allowed, jsonFindings(r, r.Findings, more{})}
}

// jsonWriter streams one JSON array, an element per line.
type jsonWriter struct {
	w       sink
	element func(*Result) any
	// appendElement, when set, appends what encoding element(r) would, without reflection.
	appendElement func([]byte, *Result) []byte
	n             int
	buf           bytes.Buffer
	enc           *json.Encoder
	// line is the element appendElement wrote last, kept for its capacity.
	line []byte
}

// newJSONWriter starts an array on w: an interrupted run prints "[]" when it decided nothing.
func newJSONWriter(w sink, element func(*Result) any) *jsonWriter {
	w.setTrailer("[]\n")
	return &jsonWriter{w: w, element: element}
}

func (j *jsonWriter) write(r Result) error {
	if j.appendElement == nil {
		return j.encode(j.element(&r))
	}
	sep := ",\n"
	if j.n == 0 {
		sep = "[\n"
		// An interrupted run still prints a JSON array of what it decided.
		j.w.setTrailer("\n]\n")
	}
	j.n++
	j.line = j.appendElement(append(j.line[:0], sep...), &r)
	// One write per element: an interrupted run never prints half of one.
	_, err := j.w.Write(j.line)
	return err
}

func (j *jsonWriter) encode(v any) error {
	if j.enc == nil {
		j.enc = json.NewEncoder(&j.buf)
		j.enc.SetEscapeHTML(false) // KRI templates and messages read better with their < and >
	}
	j.buf.Reset()
	sep := ",\n"
	if j.n == 0 {
		sep = "[\n"
	}
	j.buf.WriteString(sep)
	if err := j.enc.Encode(v); err != nil {
		return err
	}
	if j.n == 0 {
		// An interrupted run still prints a JSON array of what it decided.
		j.w.setTrailer("\n]\n")
	}
	j.n++
	// One write per element: an interrupted run never prints half of one.
	_, err := j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	return err
}

func (j *jsonWriter) close() error {
	j.w.setTrailer("")
	if j.n == 0 {
		_, err := j.w.WriteString("[]\n")
		return err
	}
	_, err := j.w.WriteString("\n]\n")
	return err
}
