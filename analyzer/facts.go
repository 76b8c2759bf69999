package analyzer

import (
	"go/token"
	"strconv"
	"strings"
)

// Facts carry what one package learns to the packages that import it, as printf does for its
// wrappers. They hold only strings and ints: positions do not survive the trip between packages.

// Sink says where a value ends up: the final Envoy field and the path there.
type Sink struct {
	// Field is the Envoy field, "listenerv3.Listener.Name", or a configured sink function.
	Field string
	// Ref is what Field names when it references a resource defined elsewhere ("cluster",
	// "secret", "route configuration"); empty for the name of the resource itself.
	Ref string
	// Stat says how Envoy's stats use the name Field holds, when they do: "cluster",
	// "alt_stat_name", "stat_prefix", "virtual host" (the stat-safe rule, docs/envoy-names.md).
	Stat string
	// AltStat says that the function that writes a cluster's name (Stat "cluster") sets the same
	// cluster's alt_stat_name: the name does not reach the stats.
	AltStat bool
	// Steps is the path from this sink to Field.
	Steps []Step

	// pos holds the position of each step when it is in the package being analysed.
	pos []token.Pos
}

// Step is one write on the way to an Envoy field.
type Step struct {
	// Text says it for humans: "(*builders.ListenerBuilder).Build writes field name to
	// listenerv3.Listener.Name".
	Text string
	// Pkg and Obj locate the function that writes (an objectpath in package Pkg), so that a
	// diagnostic in another package can point at it.
	Pkg, Obj string
}

func (s Sink) prepend(step Step, pos token.Pos) Sink {
	out := Sink{
		Field:   s.Field,
		Ref:     s.Ref,
		Stat:    s.Stat,
		AltStat: s.AltStat,
		Steps:   append([]Step{step}, s.Steps...),
		pos:     make([]token.Pos, 0, len(s.Steps)+1),
	}
	out.pos = append(out.pos, pos)
	for i := range s.Steps {
		p := token.NoPos
		if i < len(s.pos) {
			p = s.pos[i]
		}
		out.pos = append(out.pos, p)
	}
	return out
}

// sinkParamsFact marks the parameters of a function that reach an Envoy name by copies.
type sinkParamsFact struct {
	Params []ParamSink
}

// ParamSink is one sink parameter (the receiver is not counted): the parameter itself, or, when
// Method is set, the result of calling that method (no arguments, a string result) on it — an
// interface value whose implementations the function cannot see, whose callers may. Method may be
// a path of two methods, "RequestCa.Name": the Name() of what RequestCa (any arguments) returns.
type ParamSink struct {
	Index  int
	Method string
	Sink   Sink
}

// methodCalls spells a method path for humans: "RequestCa.Name" is "RequestCa().Name()", "[].Name"
// (the Name() of each element of a slice) is "[i].Name()".
func methodCalls(path string) string {
	var b strings.Builder
	for i, seg := range strings.Split(path, ".") {
		if seg == elemSeg {
			b.WriteString("[i]")
			continue
		}
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(seg + "()")
	}
	return b.String()
}

func (*sinkParamsFact) AFact() {}

func (f *sinkParamsFact) String() string {
	var b strings.Builder
	b.WriteString("sink params")
	for _, p := range f.Params {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(p.Index))
		if p.Method != "" {
			b.WriteString("." + methodCalls(p.Method))
		}
		b.WriteString("->")
		b.WriteString(p.Sink.Field)
	}
	return b.String()
}

// sinkFieldFact marks a struct field whose value reaches an Envoy name by copies.
type sinkFieldFact struct {
	Sink Sink
}

func (*sinkFieldFact) AFact() {}

func (f *sinkFieldFact) String() string { return "sink field ->" + f.Sink.Field }

// sinkMethodsFact marks a struct field of interface type the result of whose methods reaches an
// Envoy name by copies: Kuma's ClientSideMTLSConfigurer hands c.SecretsTracker.RequestCa(mesh) to
// a function that names an SDS secret after its Name(), in a package that sees no implementation
// of the tracker. The packages that write the field check what they write.
type sinkMethodsFact struct {
	Methods []MethodSink
}

// MethodSink is the result of a method path (ParamSink.Method) as a sink.
type MethodSink struct {
	Path string
	Sink Sink
}

func (*sinkMethodsFact) AFact() {}

func (f *sinkMethodsFact) String() string {
	var b strings.Builder
	b.WriteString("sink methods")
	for _, m := range f.Methods {
		b.WriteString(" " + methodCalls(m.Path) + "->" + m.Sink.Field)
	}
	return b.String()
}

// resultFact records the shapes a function's string result may take.
type resultFact struct {
	Shapes []Shape
}

func (*resultFact) AFact() {}

func (f *resultFact) String() string {
	var b strings.Builder
	b.WriteString("result")
	for _, s := range f.Shapes {
		b.WriteString(" ")
		b.WriteString(s.String())
	}
	return b.String()
}

// Shape is a result shape: literal parts, holes, and references to the function's parameters.
type Shape struct {
	Parts []Part
}

// PartKind tells what a Part stands for.
type PartKind uint8

const (
	// PartLit is a literal piece.
	PartLit PartKind = iota
	// PartHole is any string.
	PartHole
	// PartParam is the value of parameter Param.
	PartParam
	// PartJoin is the elements of variadic parameter Param joined with Sep.
	PartJoin
	// PartOuter is the value of parameter Param of the function that made a closure (closureFact).
	PartOuter
	// partField is the value of a struct field; it only lives inside one package.
	partField
	// partFree is the value of a free variable of a closure; it only lives inside one package.
	partFree
	// partMethod is the result of a method path (part.method: the last method takes no arguments)
	// called on parameter Param, an interface value none of whose implementations the package sees;
	// it only lives inside one package, and spreads a sink back as a ParamSink with a Method.
	partMethod
	// partFieldMethod is the same of the interface value in struct field part.field, of the package:
	// it spreads a sink back as a sinkMethodsFact.
	partFieldMethod
)

// Part is one piece of a Shape.
type Part struct {
	Kind  PartKind
	Lit   string
	Param int
	Sep   string
}

func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('"')
	for _, p := range s.Parts {
		switch p.Kind {
		case PartLit:
			b.WriteString(p.Lit)
		case PartParam:
			b.WriteString("{" + strconv.Itoa(p.Param) + "}")
		case PartJoin:
			b.WriteString("{" + strconv.Itoa(p.Param) + "..." + p.Sep + "}")
		case PartOuter:
			b.WriteString("{outer " + strconv.Itoa(p.Param) + "}")
		default:
			b.WriteString("*")
		}
	}
	b.WriteByte('"')
	return b.String()
}

// closureFact records the shapes of the string result of the functions a function returns (a
// helper returning func(def string) string): PartParam parts are the closure's parameters,
// PartOuter parts the helper's.
type closureFact struct {
	Shapes []Shape
}

func (*closureFact) AFact() {}

func (f *closureFact) String() string {
	var b strings.Builder
	b.WriteString("returns func with result")
	for _, s := range f.Shapes {
		b.WriteString(" ")
		b.WriteString(s.String())
	}
	return b.String()
}

// pkgFact marks a package that exports sink facts, so that its importers cannot be skipped.
type pkgFact struct {
	// Foreign lists the struct fields declared in other packages that this package copies to a
	// sink. Their own package was analysed before this one and could not know; the importers of
	// this package check the writes to them.
	Foreign []ForeignField
	// AltStatNames says that the package sets the alt_stat_name of clusters it did not make itself,
	// as Kuma's AltStatNameConfigurer does: the clusters its importers name may all be covered.
	AltStatNames bool
}

// ForeignField is a sink field of another package, found by package path and objectpath.
type ForeignField struct {
	Pkg, Obj string
	Name     string // for humans: "cfg.RouteOptions.ClusterName"
	Sink     Sink
}

func (*pkgFact) AFact() {}

func (f *pkgFact) String() string {
	s := "has sinks"
	if f.AltStatNames {
		s += ", sets alt_stat_name"
	}
	for _, ff := range f.Foreign {
		s += " foreign " + ff.Name + "->" + ff.Sink.Field
	}
	return s
}
