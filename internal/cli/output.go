package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/rules"
)

// SourceCluster is the source of the objects audit reads.
const SourceCluster = "cluster"

// Result is the decision on one object, as -o json prints it.
type Result struct {
	// Source is a file, "-" for standard input, or "cluster".
	Source string `json:"source"`
	// Line is where the object starts in Source; 0 for the cluster.
	Line       int    `json:"line"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	// Name is the object's name once admitted; a generateName object the API server would give a
	// random name has its generateName followed by "*".
	Name string `json:"name"`
	// KRI is the object's KRI; empty for kinds without one and objects whose KRI is invalid.
	KRI         string  `json:"kri"`
	Allowed     bool    `json:"allowed"`
	Enforcement string  `json:"enforcement"`
	Causes      []Cause `json:"causes"`
	// Warnings are what the webhook admits with a warning; left out when there are none.
	Warnings []Cause `json:"warnings,omitempty"`
}

// Cause is one problem, at the object field that holds the offending value.
type Cause struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Line and Column are where the field is written in a file: its key, or its item in a list;
	// left out for the cluster.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

// positions finds a field in the file an object was read from: line and column (0 when not
// known). It is nil for objects of the cluster.
type positions func(field string) (line, column int)

func newResult(source string, line int, apiVersion, kind string, d rules.Decision, pos positions) Result {
	name := d.Object.Name
	if name == "" && d.Object.GenerateName != "" {
		name = d.Object.GenerateName + "*"
	}
	kri := ""
	if d.KRIValid {
		kri = d.KRI()
	}
	return Result{Source: source, Line: line, APIVersion: apiVersion, Kind: kind, Namespace: d.Object.Namespace,
		Name: name, KRI: kri, Allowed: d.Allowed, Enforcement: string(d.Enforcement), Causes: causes(d.Errors(), pos),
		Warnings: warnings(slices.Concat(d.PreExisting(), d.Notes()), pos)}
}

func warnings(errs field.ErrorList, pos positions) []Cause {
	if len(errs) == 0 {
		return nil
	}
	return causes(errs, pos)
}

// causes are the first rules.MaxCauses-1 problems of errs, each with its field path cut to
// rules.MaxFieldBytes, and one more that counts the rest, as the webhook's denial shows them; all of
// them when there are no more than rules.MaxCauses. pos, when not nil, places each.
func causes(errs field.ErrorList, pos positions) []Cause {
	shown := errs
	if len(errs) > rules.MaxCauses {
		shown = errs[:rules.MaxCauses-1]
	}
	out := make([]Cause, 0, len(shown)+1)
	for _, fe := range shown {
		c := Cause{Field: boundString(fe.Field, rules.MaxFieldBytes), Message: fe.ErrorBody()}
		if pos != nil {
			c.Line, c.Column = pos(fe.Field)
		}
		out = append(out, c)
	}
	if more := len(errs) - len(shown); more > 0 {
		c := Cause{Message: "… and " + formatCount(more) + " more"}
		if pos != nil {
			c.Line, c.Column = pos("")
		}
		out = append(out, c)
	}
	return out
}

// boundString cuts s to about n bytes, saying how long it was, as the webhook does.
func boundString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "... (" + strconv.Itoa(len(s)) + " bytes in all)"
}

// formatCount writes n with thousands separators, as the webhook does: 15900 is "15,900".
func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// location is "file:line", or the source alone when there is no line.
func location(source string, line int) string {
	if line <= 0 {
		return source
	}
	return source + ":" + strconv.Itoa(line)
}

// position is "file:line:column", as compilers write it, or "file:line" without a column.
func position(source string, line, column int) string {
	if column <= 0 {
		return location(source, line)
	}
	return source + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(column)
}

// objectRef is "Kind ns/name", or "Kind name" for an object without a namespace.
func objectRef(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// resultWriter prints results as they come.
type resultWriter interface {
	write(Result) error
	close() error
}

func (a *app) resultWriter() resultWriter {
	if a.output == "json" {
		return newJSONWriter(a.out)
	}
	return &textWriter{w: a.out}
}

// textWriter prints one line per problem: `file:line: Kind ns/name: field: message`. The
// problems of objects their enforcement allows end in "(allowed: warn)" or "(allowed: dryrun)",
// warnings in "(warning)".
type textWriter struct{ w stdout }

func (t *textWriter) write(r Result) error {
	suffix := ""
	if r.Allowed {
		suffix = " (allowed: " + r.Enforcement + ")"
	}
	for _, c := range r.Causes {
		if err := t.line(r, c, suffix); err != nil {
			return err
		}
	}
	for _, c := range r.Warnings {
		if err := t.line(r, c, " (warning)"); err != nil {
			return err
		}
	}
	return nil
}

func (t *textWriter) line(r Result, c Cause, suffix string) error {
	where := location(r.Source, r.Line)
	if c.Line > 0 {
		where = position(r.Source, c.Line, c.Column)
	}
	if c.Field == "" { // "… and 51 more"
		_, err := fmt.Fprintf(t.w, "%s: %s: %s%s\n", where, objectRef(r.Kind, r.Namespace, r.Name), c.Message, suffix)
		return err
	}
	_, err := fmt.Fprintf(t.w, "%s: %s: %s: %s%s\n", where, objectRef(r.Kind, r.Namespace, r.Name), c.Field, c.Message, suffix)
	return err
}

func (t *textWriter) close() error { return nil }

// jsonWriter streams one JSON array, an element per line.
type jsonWriter struct {
	w   stdout
	n   int
	buf bytes.Buffer
	enc *json.Encoder
}

// newJSONWriter starts an array on w: an interrupted run prints "[]" when it decided nothing.
func newJSONWriter(w stdout) *jsonWriter {
	w.setTrailer("[]\n")
	return &jsonWriter{w: w}
}

func (j *jsonWriter) write(v Result) error { return j.element(v) }

func (j *jsonWriter) element(v any) error {
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

// tally counts what decides the exit status.
type tally struct {
	objects, denied, errors int
}

func (t *tally) exitCode() int {
	switch {
	case t.errors > 0:
		return ExitError
	case t.denied > 0:
		return ExitDenied
	}
	return ExitOK
}
