package analyzer

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// A value is what krilint knows of a string: a few alternative templates (may-analysis: the
// string is one of them), each a sequence of literal pieces, holes, parameter references and
// struct field reads. Literal pieces remember the source literals they came from so that a ':'
// can be fixed where it is written.

const (
	maxAlts  = 8  // alternatives kept per value
	maxParts = 32 // parts kept per alternative
	maxDepth = 12 // nesting of evaluations
)

// src maps bytes of a literal part back to a string literal in the package being analysed.
type src struct {
	lit     *ast.BasicLit
	litOff  int // offset in the literal's value
	partOff int // offset in the part
	n       int
}

type part struct {
	Part
	field *types.Var // partField
	srcs  []src
}

type tmpl struct {
	parts  []part
	origin string      // where the value came from, for humans
	defs   []token.Pos // local definitions it went through
	called bool        // went through a call: not a plain copy
}

func hole() []tmpl { return []tmpl{{parts: []part{{Part: Part{Kind: PartHole}}}}} }

func litTmpl(s string, lit *ast.BasicLit, origin string) tmpl {
	p := part{Part: Part{Kind: PartLit, Lit: s}}
	if lit != nil && s != "" {
		p.srcs = []src{{lit: lit, n: len(s)}}
	}
	return tmpl{parts: []part{p}, origin: origin}
}

// concat joins two templates, merging adjacent literals.
func concat(a, b tmpl) tmpl {
	out := tmpl{parts: make([]part, 0, len(a.parts)+len(b.parts)), origin: a.origin, defs: append(append([]token.Pos(nil), a.defs...), b.defs...), called: a.called || b.called}
	if out.origin == "" || (!hasColonLit(a) && hasColonLit(b)) {
		out.origin = b.origin
	}
	out.parts = append(out.parts, a.parts...)
	for _, p := range b.parts {
		n := len(out.parts)
		if n > 0 && out.parts[n-1].Kind == PartLit && p.Kind == PartLit {
			last := out.parts[n-1]
			merged := part{Part: Part{Kind: PartLit, Lit: last.Lit + p.Lit}}
			merged.srcs = append(append([]src(nil), last.srcs...), shift(p.srcs, len(last.Lit))...)
			out.parts[n-1] = merged
			continue
		}
		if p.Kind == PartHole && n > 0 && out.parts[n-1].Kind == PartHole {
			continue
		}
		out.parts = append(out.parts, p)
	}
	if len(out.parts) > maxParts {
		out.parts = append(out.parts[:maxParts-1], part{Part: Part{Kind: PartHole}})
	}
	return out
}

func shift(ss []src, by int) []src {
	out := make([]src, len(ss))
	for i, s := range ss {
		s.partOff += by
		out[i] = s
	}
	return out
}

func hasColonLit(t tmpl) bool {
	for _, p := range t.parts {
		if p.Kind == PartLit && strings.IndexByte(p.Lit, ':') >= 0 {
			return true
		}
	}
	return false
}

// product concatenates every alternative of a with every alternative of b, keeping at most
// maxAlts, those with a ':' first so that a cap never hides a finding.
func product(a, b []tmpl) []tmpl {
	out := make([]tmpl, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, concat(x, y))
		}
	}
	return capAlts(out)
}

func capAlts(ts []tmpl) []tmpl {
	if len(ts) <= maxAlts {
		return ts
	}
	out := make([]tmpl, 0, maxAlts)
	for _, t := range ts {
		if len(out) < maxAlts && hasColonLit(t) {
			out = append(out, t)
		}
	}
	for _, t := range ts {
		if len(out) < maxAlts && !hasColonLit(t) {
			out = append(out, t)
		}
	}
	return out
}

// withOrigin marks the result of a call: where it came from, and that it is no plain copy.
func withOrigin(ts []tmpl, origin string) []tmpl {
	out := make([]tmpl, len(ts))
	for i, t := range ts {
		t.origin = origin
		t.called = true
		out[i] = t
	}
	return out
}

// fnInfo is one function body (or the package's var initialisers when decl is nil).
type fnInfo struct {
	st     *state
	decl   *ast.FuncDecl
	obj    *types.Func
	params map[*types.Var]int

	defs   map[*types.Var][]*def
	parent map[ast.Node]ast.Node
	memo   map[ast.Expr][]tmpl
	busy   map[ast.Expr]bool
	depth  int

	result     []tmpl
	resultDone bool
	resultBusy bool
}

// def is one definition of a local variable or parameter.
type def struct {
	stmt ast.Node
	lhs  *ast.Ident
	rhs  ast.Expr // nil: unknown value (range, multi-value call, …) unless zero
	add  bool     // +=
	zero bool     // var x string
	over ast.Expr // for _, x := range over
}

func (f *fnInfo) info() *types.Info { return f.st.pass.TypesInfo }

// eval returns what is known of the string expression e.
func (f *fnInfo) eval(e ast.Expr) []tmpl {
	e = ast.Unparen(e)
	if r, ok := f.memo[e]; ok {
		return r
	}
	if f.busy[e] || f.depth > maxDepth {
		return hole()
	}
	if f.memo == nil {
		f.memo = map[ast.Expr][]tmpl{}
		f.busy = map[ast.Expr]bool{}
	}
	f.busy[e] = true
	f.depth++
	r := f.eval1(e)
	f.depth--
	delete(f.busy, e)
	f.memo[e] = r
	return r
}

func (f *fnInfo) eval1(e ast.Expr) []tmpl {
	info := f.info()
	tv := info.Types[e]
	if tv.Value != nil && tv.Value.Kind() == constant.String {
		switch e := e.(type) {
		case *ast.BasicLit:
			return []tmpl{litTmpl(constant.StringVal(tv.Value), e, "literal "+e.Value)}
		case *ast.BinaryExpr:
			// Keep the literals' positions for the fix.
		case *ast.Ident, *ast.SelectorExpr:
			var id *ast.Ident
			if sel, ok := e.(*ast.SelectorExpr); ok {
				id = sel.Sel
			} else {
				id = e.(*ast.Ident)
			}
			s := constant.StringVal(tv.Value)
			c, _ := info.Uses[id].(*types.Const)
			origin := "constant " + strconv.Quote(s)
			if c != nil {
				origin = "constant " + c.Name() + " = " + strconv.Quote(s)
			}
			return []tmpl{litTmpl(s, f.st.constLit(c), origin)}
		default:
			return []tmpl{litTmpl(constant.StringVal(tv.Value), nil, "constant")}
		}
	}
	switch e := e.(type) {
	case *ast.BinaryExpr:
		if e.Op == token.ADD && isString(tv.Type) {
			return product(f.eval(e.X), f.eval(e.Y))
		}
	case *ast.CallExpr:
		return f.evalCall(e)
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		if !ok {
			return hole()
		}
		return f.evalVar(v, e)
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			if v, ok := sel.Obj().(*types.Var); ok && (v.Pkg() == f.st.pass.Pkg || f.st.foreignSinkable(v)) {
				return []tmpl{{parts: []part{{Part: Part{Kind: partField}, field: v.Origin()}}}}
			}
		}
	}
	return hole()
}

// evalVar is the may-analysis of a variable at one use.
func (f *fnInfo) evalVar(v *types.Var, use *ast.Ident) []tmpl {
	if v.Pkg() != f.st.pass.Pkg || v.Parent() == nil {
		return hole()
	}
	if v.Parent() == f.st.pass.Pkg.Scope() {
		return f.st.packageVar(v)
	}
	if f.decl == nil {
		return hole()
	}
	if !(v.Pos() >= f.decl.Pos() && v.Pos() < f.decl.End()) {
		return hole()
	}
	f.buildDefs()
	reaching, entry := f.reaching(v, use)
	var out []tmpl
	if entry {
		if i, ok := f.params[v]; ok {
			out = append(out, tmpl{parts: []part{{Part: Part{Kind: PartParam, Param: i}}}, origin: "parameter " + v.Name()})
		} else {
			out = append(out, hole()...)
		}
	}
	for _, d := range reaching {
		var ts []tmpl
		switch {
		case d.zero:
			ts = []tmpl{litTmpl("", nil, "")}
		case d.over != nil:
			ts = f.rangeValues(d.over)
		case d.rhs == nil:
			ts = hole()
		case d.add:
			ts = product(f.eval(d.lhs), f.eval(d.rhs))
		default:
			ts = f.eval(d.rhs)
		}
		for _, t := range ts {
			t.defs = append([]token.Pos{d.stmt.Pos()}, t.defs...)
			if hasColonLit(t) && !strings.HasPrefix(t.origin, "variable ") {
				t.origin = "variable " + v.Name() + " (" + t.origin + ")"
			}
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return hole()
	}
	return capAlts(out)
}

// callee returns the function a call runs when it is known statically: a function or method
// named in the call, or held by a local defined once with one (mk := builders.NewListenerBuilder;
// mk(…)). Interface methods are not known.
func (f *fnInfo) callee(call *ast.CallExpr) *types.Func {
	info := f.info()
	if fn := typeutil.StaticCallee(info, call); fn != nil {
		return fn.Origin()
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || f.decl == nil {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Pos() < f.decl.Pos() || v.Pos() >= f.decl.End() {
		return nil
	}
	if _, ok := f.params[v]; ok {
		return nil
	}
	f.buildDefs()
	ds, entry := f.reaching(v, id)
	if entry || len(ds) != 1 || len(f.defs[v]) != 1 || ds[0].rhs == nil {
		return nil
	}
	switch rhs := ast.Unparen(ds[0].rhs).(type) {
	case *ast.Ident:
		if fn, ok := info.Uses[rhs].(*types.Func); ok {
			return fn.Origin()
		}
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[rhs]; ok {
			if sel.Kind() == types.MethodVal {
				if fn, ok := sel.Obj().(*types.Func); ok && !types.IsInterface(sel.Recv()) {
					return fn.Origin()
				}
			}
			return nil
		}
		if fn, ok := info.Uses[rhs.Sel].(*types.Func); ok {
			return fn.Origin()
		}
	}
	return nil
}

// rangeValues is what the value of a range over x may be: any element of a slice or array
// literal, written there or held by a local with that one definition.
func (f *fnInfo) rangeValues(x ast.Expr) []tmpl {
	cl := f.sliceLit(x)
	if cl == nil || !isString(elemType(f.info().TypeOf(cl))) {
		return hole()
	}
	var out []tmpl
	for _, el := range cl.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		out = append(out, f.eval(el)...)
	}
	if len(out) == 0 {
		return hole()
	}
	return capAlts(out)
}

// sliceLit returns the composite literal x is, or the one a local x was defined with once.
func (f *fnInfo) sliceLit(x ast.Expr) *ast.CompositeLit {
	switch x := ast.Unparen(x).(type) {
	case *ast.CompositeLit:
		return x
	case *ast.Ident:
		v, ok := f.info().Uses[x].(*types.Var)
		if !ok || f.decl == nil || v.Pos() < f.decl.Pos() || v.Pos() >= f.decl.End() {
			return nil
		}
		if _, ok := f.params[v]; ok {
			return nil
		}
		f.buildDefs()
		if ds, entry := f.reaching(v, x); !entry && len(ds) == 1 && len(f.defs[v]) == 1 && ds[0].rhs != nil {
			cl, _ := ast.Unparen(ds[0].rhs).(*ast.CompositeLit)
			return cl
		}
	}
	return nil
}

func elemType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	}
	return nil
}

func (f *fnInfo) evalCall(call *ast.CallExpr) []tmpl {
	info := f.info()
	if tv, ok := info.Types[call.Fun]; ok && tv.IsType() {
		if len(call.Args) == 1 && isString(info.TypeOf(call.Args[0])) {
			return f.eval(call.Args[0])
		}
		return hole()
	}
	fn := f.callee(call)
	if fn == nil {
		return hole()
	}
	if fn.Pkg() != nil {
		switch fn.Pkg().Path() + "." + fn.Name() {
		case "fmt.Sprintf":
			return f.evalSprintf(call)
		case "fmt.Sprint":
			return f.evalSprint(call)
		case "strings.Join":
			return f.evalJoin(call)
		case "net.JoinHostPort":
			if len(call.Args) == 2 {
				// host:port, or [host]:port when host holds a ':' (IPv6).
				return withOrigin(product(product(f.eval(call.Args[0]), []tmpl{litTmpl(":", nil, "")}), f.eval(call.Args[1])), "net.JoinHostPort")
			}
		}
	}
	if fv := f.st.getter(fn); fv != nil {
		// b.Name() where Name only returns b.name: a copy of the field.
		return []tmpl{{parts: []part{{Part: Part{Kind: partField}, field: fv}}}}
	}
	shapes, local := f.st.resultOf(fn)
	if shapes == nil {
		return hole()
	}
	out := make([]tmpl, 0, len(shapes))
	for _, s := range shapes {
		out = append(out, f.substitute(s, call, fn, local)...)
	}
	return withOrigin(capAlts(out), "result of "+funcName(fn))
}

// substitute puts the call's arguments into a result shape of fn.
func (f *fnInfo) substitute(s tmpl, call *ast.CallExpr, fn *types.Func, local bool) []tmpl {
	sig := fn.Type().(*types.Signature)
	acc := []tmpl{{}}
	for _, p := range s.parts {
		var next []tmpl
		switch p.Kind {
		case PartParam:
			if sig.Variadic() && p.Param == sig.Params().Len()-1 || p.Param >= len(call.Args) {
				next = hole()
			} else {
				next = f.eval(call.Args[p.Param])
			}
		case PartJoin:
			next = f.joinArgs(call, p.Param, p.Sep, nil)
		case PartLit:
			q := p
			if !local {
				q.srcs = nil
			}
			next = []tmpl{{parts: []part{q}}}
		default:
			next = hole()
		}
		acc = product(acc, next)
	}
	return acc
}

// joinArgs joins the variadic arguments from index i with sep.
func (f *fnInfo) joinArgs(call *ast.CallExpr, i int, sep string, sepLit *ast.BasicLit) []tmpl {
	var elems []ast.Expr
	if call.Ellipsis.IsValid() {
		if i != len(call.Args)-1 {
			return hole()
		}
		cl, ok := ast.Unparen(call.Args[i]).(*ast.CompositeLit)
		if !ok {
			return hole()
		}
		elems = cl.Elts
	} else if i <= len(call.Args) {
		elems = call.Args[i:]
	}
	return f.joinElems(elems, sep, sepLit)
}

func (f *fnInfo) joinElems(elems []ast.Expr, sep string, sepLit *ast.BasicLit) []tmpl {
	acc := []tmpl{litTmpl("", nil, "")}
	for k, el := range elems {
		if _, ok := el.(*ast.KeyValueExpr); ok {
			return hole()
		}
		if k > 0 {
			acc = product(acc, []tmpl{litTmpl(sep, sepLit, "")})
		}
		acc = product(acc, f.eval(el))
	}
	return acc
}

func (f *fnInfo) evalJoin(call *ast.CallExpr) []tmpl {
	info := f.info()
	if len(call.Args) != 2 {
		return hole()
	}
	sv := info.Types[call.Args[1]].Value
	if sv == nil || sv.Kind() != constant.String {
		return hole()
	}
	sep := constant.StringVal(sv)
	sepLit, _ := ast.Unparen(call.Args[1]).(*ast.BasicLit)
	if sepLit == nil {
		if id := identOf(call.Args[1]); id != nil {
			if c, ok := info.Uses[id].(*types.Const); ok {
				sepLit = f.st.constLit(c)
			}
		}
	}
	origin := "strings.Join with separator " + strconv.Quote(sep)
	switch a := ast.Unparen(call.Args[0]).(type) {
	case *ast.CompositeLit:
		return withOrigin(f.joinElems(a.Elts, sep, sepLit), origin)
	case *ast.Ident:
		if cl := f.sliceLit(a); cl != nil {
			// A local slice with one literal definition: parts := []string{a, b}.
			return withOrigin(f.joinElems(cl.Elts, sep, sepLit), origin)
		}
		// strings.Join(parts, sep) over the function's own variadic parameter: a join helper.
		if v, ok := info.Uses[a].(*types.Var); ok && f.decl != nil {
			if i, ok := f.params[v]; ok {
				sig := f.obj.Type().(*types.Signature)
				if sig.Variadic() && i == sig.Params().Len()-1 {
					f.buildDefs()
					if _, entry := f.reaching(v, a); entry && len(f.defs[v]) == 0 {
						return []tmpl{{parts: []part{{Part: Part{Kind: PartJoin, Param: i, Sep: sep}}}, origin: origin}}
					}
				}
			}
		}
	}
	return hole()
}

// foreignSinkable reports whether a field of another package may become a sink here: an exported
// string field of a type of the project, not of go-control-plane (its name fields are sinks
// already, its other fields are not names) nor of the standard library (a url.URL's Host is no
// name).
func (st *state) foreignSinkable(v *types.Var) bool {
	if v.Pkg() == nil || !v.Exported() || !isString(v.Type()) || strings.HasPrefix(v.Pkg().Path(), envoyPrefix) {
		return false
	}
	return !st.inGOROOT(v)
}

// inGOROOT reports whether obj is declared in the standard library, by the file it comes from
// (export data keeps it).
func (st *state) inGOROOT(obj types.Object) bool {
	f := st.pass.Fset.File(obj.Pos())
	return f != nil && goroot != "" && strings.HasPrefix(f.Name(), goroot)
}

func identOf(e ast.Expr) *ast.Ident {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// evalSprintf reads a constant format: literal text stays, each verb is a hole, except %s and %v
// of a string argument, which take the argument's value.
func (f *fnInfo) evalSprintf(call *ast.CallExpr) []tmpl {
	info := f.info()
	if len(call.Args) == 0 || call.Ellipsis.IsValid() {
		return hole()
	}
	fv := info.Types[call.Args[0]].Value
	if fv == nil || fv.Kind() != constant.String {
		return hole()
	}
	format := constant.StringVal(fv)
	lit, _ := ast.Unparen(call.Args[0]).(*ast.BasicLit)
	if lit == nil {
		if id := identOf(call.Args[0]); id != nil {
			if c, ok := info.Uses[id].(*types.Const); ok {
				lit = f.st.constLit(c)
			}
		}
	}
	args := call.Args[1:]
	acc := []tmpl{{}}
	text := func(from, to int) {
		if to > from {
			p := part{Part: Part{Kind: PartLit, Lit: format[from:to]}}
			if lit != nil {
				p.srcs = []src{{lit: lit, litOff: from, n: to - from}}
			}
			acc = product(acc, []tmpl{{parts: []part{p}}})
		}
	}
	argi := 0
	start := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		text(start, i)
		j := i + 1
		for j < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[j]) >= 0 {
			if format[j] == '[' || format[j] == '*' {
				argi = -1 // explicit indexes and star widths: give up on matching arguments
			}
			j++
		}
		if j >= len(format) {
			start = len(format)
			acc = product(acc, hole())
			break
		}
		verb := format[j]
		switch {
		case verb == '%':
			p := part{Part: Part{Kind: PartLit, Lit: "%"}}
			acc = product(acc, []tmpl{{parts: []part{p}}})
		case (verb == 's' || verb == 'v') && j == i+1 && argi >= 0 && argi < len(args) && isString(info.TypeOf(args[argi])):
			acc = product(acc, f.eval(args[argi]))
			argi++
		default:
			acc = product(acc, hole())
			if argi >= 0 {
				argi++
			}
		}
		start = j + 1
		i = j
	}
	text(start, len(format))
	return withOrigin(acc, "fmt.Sprintf format "+strconv.Quote(format))
}

// evalSprint concatenates string operands; fmt.Sprint adds spaces only between two operands that
// are both not strings, which holes cover.
func (f *fnInfo) evalSprint(call *ast.CallExpr) []tmpl {
	if call.Ellipsis.IsValid() {
		return hole()
	}
	acc := []tmpl{{}}
	for _, a := range call.Args {
		if isString(f.info().TypeOf(a)) {
			acc = product(acc, f.eval(a))
		} else {
			acc = product(acc, hole())
		}
	}
	return withOrigin(acc, "fmt.Sprint")
}

// resultTemplates computes the shapes of fn's string result from its return statements.
func (f *fnInfo) resultTemplates() []tmpl {
	if f.resultDone {
		return f.result
	}
	if f.resultBusy || f.decl == nil || f.decl.Body == nil {
		return nil
	}
	idx := stringResult(f.obj)
	if idx < 0 {
		f.resultDone = true
		return nil
	}
	f.resultBusy = true
	var out []tmpl
	unknown := false
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 0 {
				unknown = true
				return false
			}
			if idx < len(n.Results) && len(n.Results) > 1 || len(n.Results) == 1 && idx == 0 {
				for _, t := range f.eval(n.Results[idx]) {
					out = append(out, toResult(t))
				}
			} else {
				unknown = true
			}
			return false
		}
		return true
	})
	f.resultBusy = false
	f.resultDone = true
	if unknown {
		out = append(out, hole()...)
	}
	f.result = capAlts(out)
	return f.result
}

// toResult keeps what a caller can use: struct field reads become holes, because a value that
// goes through a call does not carry a sink back.
func toResult(t tmpl) tmpl {
	out := tmpl{origin: t.origin}
	for _, p := range t.parts {
		if p.Kind == partField {
			p = part{Part: Part{Kind: PartHole}}
		}
		out = concat(out, tmpl{parts: []part{p}})
	}
	out.origin = t.origin
	return out
}

// stringResult is the index of fn's only string result, or -1.
func stringResult(fn *types.Func) int {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return -1
	}
	idx := -1
	for i := 0; i < sig.Results().Len(); i++ {
		if isString(sig.Results().At(i).Type()) {
			if idx >= 0 {
				return -1
			}
			idx = i
		}
	}
	return idx
}

// interesting reports whether a result shape is worth a fact: it may hold ':', claims to be a
// KRI, or passes an argument through.
func interesting(t tmpl) bool {
	if hasColonLit(t) {
		return true
	}
	for i, p := range t.parts {
		switch p.Kind {
		case PartParam, PartJoin:
			return true
		case PartLit:
			if i == 0 && strings.HasPrefix(p.Lit, "kri_") {
				return true
			}
		}
	}
	return false
}

func toShape(t tmpl) Shape {
	s := Shape{Parts: make([]Part, len(t.parts))}
	for i, p := range t.parts {
		s.Parts[i] = p.Part
		if p.Kind == partField {
			s.Parts[i] = Part{Kind: PartHole}
		}
	}
	return s
}

func fromShape(s Shape) tmpl {
	t := tmpl{parts: make([]part, len(s.Parts))}
	for i, p := range s.Parts {
		t.parts[i] = part{Part: p}
	}
	return t
}
