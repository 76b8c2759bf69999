package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func objectOf(gk schema.GroupKind, obj *admitted) Object {
	return Object{Kind: gk, Namespace: obj.namespace, Name: obj.name, GenerateName: obj.generateName}
}

// Object names the object a finding is about.
type Object struct {
	Kind                          schema.GroupKind
	Namespace, Name, GenerateName string
	// Mesh is the mesh of a Kuma Universal resource (Request.Universal); "" for Kubernetes objects.
	Mesh string
}

func (o Object) findings(out []Finding, l Level, errs field.ErrorList) []Finding {
	for _, fe := range errs {
		r, level := Rule(fe.Origin), l
		if l == LevelNote && ruleInfo[r].Level == LevelWarning {
			level = LevelWarning // a rule that only warns: admitted, as notes are
		}
		out = append(out, Finding{Rule: r, Level: level, Problem: fe, Object: o})
	}
	return out
}

// Rule is the stable id of a rule, one per rule, as docs/rules.md lists them. A finding carries its
// rule's id in its Problem's Origin, which the API server's answers leave out.
type Rule string

// Level says what a finding does to its object.
type Level string

// The levels of a finding.
const (
	// LevelError is a problem: the object is denied where its enforcement is deny.
	LevelError Level = "error"
	// LevelWarning is a problem an UPDATE keeps from the old object, or one of a rule that only
	// warns (kuma/proxy-patch-stat-unsafe): admitted with a warning.
	LevelWarning Level = "warning"
	// LevelNote is a value admitted with a note.
	LevelNote Level = "note"
)

// Finding is one thing the rules found in an object: what every front end reports.
type Finding struct {
	// Rule is the id of the rule that found it (docs/rules.md).
	Rule  Rule
	Level Level
	// Problem is the finding at the object field that holds the offending value, in the API
	// server's terms (field path, type, value, detail).
	Problem *field.Error
	// Object is the object it is about.
	Object Object
	// Position is where the field is in the input; the rules leave it empty, front ends that
	// read files or dumps fill it.
	Position Position
}

// Message is the finding as the API server words a cause: `field: Invalid value: "v": detail`.
func (f *Finding) Message() string { return f.Problem.Error() }

// Position is where a finding's field is in the input it was read from.
type Position struct {
	// Line and Column are 1-based, 0 when unknown.
	Line, Column int
	// JSONPath locates the value in a JSON document (an Envoy config dump), "" when unknown.
	JSONPath string
}

func (p Position) String() string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	case p.Line > 0:
		return fmt.Sprint(p.Line)
	}
	return p.JSONPath
}
