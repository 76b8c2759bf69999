package cli

import (
	"strconv"
	"strings"

	"github.com/kriguard/kriguard/rules"
)

// SourceCluster is the source of the objects audit reads.
const SourceCluster = "cluster"

// Result is one judged object and its findings: what every output format renders. The object is
// one of a manifest or of the cluster (check, audit, kri of), or a name of an Envoy config dump
// (envoy).
type Result struct {
	// Source is a file, "-" for standard input, "cluster", or the config dump's file or URL.
	Source string
	// Line is where the object starts in Source; 0 for the cluster and for Envoy names.
	Line       int
	APIVersion string
	// Object is the object judged. For an Envoy name it is the name, its kind what the name is
	// ("listener", "cluster reference").
	Object rules.Object
	// Path is where an Envoy name is in the dump's JSON; "" for objects.
	Path string
	// KRI is the object's KRI; empty for kinds without one and objects whose KRI is invalid.
	KRI         string
	Allowed     bool
	Enforcement string
	// Findings are those the webhook's answer shows: the problems (rules.LevelError) first, then
	// the warnings and notes, each group cut to rules.MaxCauses-1 when it has more, each field
	// path cut to rules.MaxFieldBytes; positioned in Source when it is a file.
	Findings []rules.Finding
	// MoreErrors and MoreWarnings count the findings of each group that are left out, and say
	// where to report the count.
	MoreErrors, MoreWarnings more
}

// more is a count of findings left out, at the object's position.
type more struct {
	N        int
	Position rules.Position
}

// Name is the object's name once admitted; a generateName object the API server would give a
// random name has its generateName followed by "*".
func (r *Result) Name() string {
	if r.Object.Name == "" && r.Object.GenerateName != "" {
		return r.Object.GenerateName + "*"
	}
	return r.Object.Name
}

// Errors returns the findings that make the object denied where its enforcement is deny.
func (r *Result) Errors() []rules.Finding {
	i := 0
	for i < len(r.Findings) && r.Findings[i].Level == rules.LevelError {
		i++
	}
	return r.Findings[:i]
}

// Warnings returns the findings the webhook admits with a warning whatever the enforcement.
func (r *Result) Warnings() []rules.Finding { return r.Findings[len(r.Errors()):] }

// positions finds a field in the file an object was read from: line and column (0 when not
// known). It is nil for objects of the cluster.
type positions func(field string) (line, column int)

func newResult(source string, line int, apiVersion string, d rules.Decision, pos positions) Result {
	kri := ""
	if d.KRIValid {
		kri = d.KRI()
	}
	r := Result{Source: source, Line: line, APIVersion: apiVersion, Object: d.Object, KRI: kri, Allowed: d.Allowed,
		Enforcement: string(d.Enforcement)}
	all := d.Findings()
	errs := len(d.Errors())
	r.Findings, r.MoreErrors = shown(nil, all[:errs], pos)
	r.Findings, r.MoreWarnings = shown(r.Findings, all[errs:], pos)
	return r
}

// shown appends to out the first rules.MaxCauses-1 findings of fs, each with its field path cut
// to rules.MaxFieldBytes, and counts the others, as the webhook's answer shows them; all of them
// when there are no more than rules.MaxCauses. pos, when not nil, places each.
func shown(out, fs []rules.Finding, pos positions) ([]rules.Finding, more) {
	n := len(fs)
	if n > rules.MaxCauses {
		n = rules.MaxCauses - 1
	}
	for _, f := range fs[:n] {
		if pos != nil {
			f.Position.Line, f.Position.Column = pos(f.Problem.Field)
		}
		if len(f.Problem.Field) > rules.MaxFieldBytes {
			fe := *f.Problem
			fe.Field = boundString(fe.Field, rules.MaxFieldBytes)
			f.Problem = &fe
		}
		out = append(out, f)
	}
	m := more{N: len(fs) - n}
	if m.N > 0 && pos != nil {
		m.Position.Line, m.Position.Column = pos("")
	}
	return out, m
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

// ref is the object of r as objectRef writes it, and a Kuma Universal resource as
// "Type name (mesh m)".
func (r *Result) ref() string {
	if m := r.Object.Mesh; m != "" {
		return r.Object.Kind.Kind + " " + r.Name() + " (mesh " + m + ")"
	}
	return objectRef(r.Object.Kind.Kind, r.Object.Namespace, r.Name())
}

// objectRef is "Kind ns/name", or "Kind name" for an object without a namespace.
func objectRef(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
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
