package analyzer

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A value is what krilint knows of a string: a few alternative templates (may-analysis: the
// string is one of them), each a sequence of literal pieces, holes, parameter references and
// struct field reads. Literal pieces remember the source literals they came from so that a ':'
// can be fixed where it is written.

const (
	maxAlts  = 8  // alternatives kept per value
	maxParts = 32 // parts kept per alternative
	maxDepth = 48 // nesting of evaluations
)

// src maps bytes of a literal part back to the source: a string literal of the package, or a
// use of a constant (whose value is then replaced whole).
type src struct {
	lit     *ast.BasicLit
	use     ast.Expr     // a use of constant obj …
	obj     types.Object // … or the package variable or constant whose declaration holds lit
	litOff  int          // offset in the literal's value
	partOff int          // offset in the part
	n       int
}

type part struct {
	Part
	field  *types.Var    // partField, partFieldMethod
	fn     *ssa.Function // PartParam, PartJoin, partFree, partMethod: the function whose parameter or free variable
	method string        // partMethod, partFieldMethod: the method path called on the parameter or field
	srcs   []src
}

type tmpl struct {
	pos    token.Pos // where a constant's candidate expression starts
	parts  []part
	origin string      // where the value came from, for humans
	defs   []token.Pos // stores it went through
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
	out := tmpl{parts: make([]part, 0, len(a.parts)+len(b.parts)), origin: a.origin, defs: append(append([]token.Pos(nil), a.defs...), b.defs...)}
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

// withOrigin marks the result of a call: where it came from.
func withOrigin(ts []tmpl, origin string) []tmpl {
	out := make([]tmpl, len(ts))
	for i, t := range ts {
		t.origin = origin
		out[i] = t
	}
	return out
}

// slicePart returns bytes [from, to) of literal part p, with their sources.
func slicePart(p part, from, to int) part {
	out := part{Part: Part{Kind: PartLit, Lit: p.Lit[from:to]}}
	for _, s := range p.srcs {
		lo, hi := max(from, s.partOff), min(to, s.partOff+s.n)
		if lo >= hi {
			continue
		}
		if s.use != nil {
			// A constant's use is replaced whole: keep it whole.
			s.partOff -= from
			out.srcs = append(out.srcs, s)
			continue
		}
		out.srcs = append(out.srcs, src{lit: s.lit, obj: s.obj, litOff: s.litOff + lo - s.partOff, partOff: lo - from, n: hi - lo})
	}
	return out
}

// constTmpl is a string constant of function fn, with the literals or constant uses of fn's
// source it comes from when that is unambiguous (for the fix).
func (st *state) constTmpl(fn *ssa.Function, s string) tmpl {
	t := litTmpl(s, nil, "literal "+strconv.Quote(s))
	if !strings.ContainsRune(s, ':') {
		return t
	}
	cands := st.constCands(fn, s)
	switch {
	case len(cands) == 1:
		return cands[0]
	case len(cands) > 1:
		t.origin = cands[0].origin
	}
	return t
}

type candKey struct {
	root ast.Node
	s    string
}

// constCands finds the largest constant expressions of fn's source whose value is s.
func (st *state) constCands(fn *ssa.Function, s string) []tmpl {
	for fn.Parent() != nil && fn.Syntax() == nil {
		fn = fn.Parent()
	}
	var roots []ast.Node
	var shared func(ast.Expr) types.Object
	if syn := fn.Syntax(); syn != nil {
		roots = []ast.Node{syn}
	} else if fn.Synthetic == "package initializer" {
		// Package variables' initialisers: a literal that is a string variable's whole value is
		// shared by every use of the variable.
		vars := map[ast.Expr]types.Object{}
		for _, file := range st.pass.Files {
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				roots = append(roots, g)
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					if len(vs.Values) == len(vs.Names) {
						for i, v := range vs.Values {
							vars[ast.Unparen(v)] = st.pass.TypesInfo.Defs[vs.Names[i]]
						}
					}
				}
			}
		}
		shared = func(e ast.Expr) types.Object { return vars[e] }
	}
	if len(roots) == 0 {
		return nil
	}
	key := candKey{roots[0], s}
	if r, ok := st.cands[key]; ok {
		return r
	}
	var out []tmpl
	info := st.pass.TypesInfo
	for _, root := range roots {
		ast.Inspect(root, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && n != root {
				_ = lit
				return false
			}
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			tv, ok := info.Types[e]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				return true
			}
			if constant.StringVal(tv.Value) == s {
				t := st.constExpr(e)
				t.pos = e.Pos()
				if shared != nil {
					if obj := shared(ast.Unparen(e)); obj != nil {
						for i := range t.parts {
							for j := range t.parts[i].srcs {
								t.parts[i].srcs[j].obj = obj
							}
						}
					}
				}
				out = append(out, t)
			}
			return false
		})
	}
	st.cands[key] = out
	return out
}

// constExpr is the value of a constant expression with the sources of its bytes.
func (st *state) constExpr(e ast.Expr) tmpl {
	info := st.pass.TypesInfo
	s := constant.StringVal(info.Types[e].Value)
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return litTmpl(s, e, "literal "+e.Value)
	case *ast.Ident, *ast.SelectorExpr:
		c, _ := info.Uses[identOf(e)].(*types.Const)
		if c == nil {
			break
		}
		t := litTmpl(s, nil, "constant "+c.Name()+" = "+strconv.Quote(s))
		if s != "" {
			t.parts[0].srcs = []src{{use: e, obj: c, n: len(s)}}
		}
		return t
	case *ast.BinaryExpr:
		x, y := st.constExpr(e.X), st.constExpr(e.Y)
		return concat(x, y)
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			if tv, ok := info.Types[e.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				return st.constExpr(e.Args[0])
			}
		}
	}
	return litTmpl(s, nil, "constant "+strconv.Quote(s))
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

// evalCall is what result idx (-1: the only string result) of a call may be.
func (st *state) evalCall(fn *ssa.Function, c *ssa.CallCommon, idx int, pos token.Pos) []tmpl {
	st.callPos = pos
	if callee := c.StaticCallee(); callee != nil && callee.Pkg != nil {
		if obj, ok := callee.Object().(*types.Func); ok && obj.Pkg() != nil {
			switch obj.Pkg().Path() + "." + obj.Name() {
			case "fmt.Sprintf":
				return st.evalSprintf(fn, c)
			case "fmt.Sprint":
				return st.evalSprint(fn, c)
			case "strings.Join":
				return st.evalJoin(fn, c)
			case "net.JoinHostPort":
				// host:port, or [host]:port when host holds a ':' (IPv6).
				return withOrigin(product(product(st.eval(fn, c.Args[0]), []tmpl{litTmpl(":", nil, "")}), st.eval(fn, c.Args[1])), "net.JoinHostPort")
			}
		}
	}
	if ts, ok := st.evalSelect(fn, c, pos); ok {
		return ts
	}
	args := fullArgs(c)
	hints := st.argHints(c)
	callees := st.callees(fn, c)
	st.noteNarrowGetters(fn, c, callees)
	if len(callees) == 0 && c.IsInvoke() && len(c.Args) == 0 {
		// An interface method of a parameter or field, with no implementation in sight: what the
		// callers pass or the writers of the field store decides (ParamSink.Method, sinkMethodsFact).
		if t, ok := st.methodBase(fn, c.Value, c.Method.Name(), 0); ok {
			return []tmpl{t}
		}
	}
	out := st.evalTargets(fn, callees, args, hints, idx)
	if len(callees) > 0 && c.IsInvoke() && len(c.Args) == 0 {
		out = append(out, st.paramMethod(fn, c.Value, c.Method.Name())...)
	}
	if len(out) == 0 {
		return hole()
	}
	for i, t := range out {
		if pos.IsValid() && hasColonLit(t) {
			out[i].defs = append([]token.Pos{pos}, t.defs...)
		}
	}
	return capAlts(out)
}

// evalTargets is what result idx (-1: the only string result) of the callees may be, called with
// args (receiver first; missing ones are unknown).
func (st *state) evalTargets(fn *ssa.Function, callees []target, args []ssa.Value, hints []ast.Node, idx int) []tmpl {
	var out []tmpl
	for _, t := range callees {
		var ts []tmpl
		switch {
		case t.fn != nil:
			i := idx
			if i < 0 {
				i = stringResult(t.fn.Signature)
			}
			if i < 0 {
				continue
			}
			ts = withOrigin(st.substCall(fn, st.results(t.fn, i), t, args, hints), "result of "+ssaName(t.fn))
		case t.obj != nil:
			if idx >= 0 && idx != stringResult(t.obj.Type().(*types.Signature)) {
				continue
			}
			ts = st.importedResult(fn, t.obj, args, hints)
			if ts == nil {
				if fv := st.importedGetter(t.obj); fv != nil {
					ts = []tmpl{{parts: []part{{Part: Part{Kind: partField}, field: fv}}}}
				}
			}
		case t.shapes != nil:
			ts = st.subst(t.shapes, func(p part) ([]tmpl, bool) {
				if p.Kind != PartParam {
					return nil, false
				}
				if p.Param < len(args) {
					return st.evalIn(fn, args[p.Param], hints[p.Param]), true
				}
				return hole(), true
			})
		}
		if ts == nil {
			ts = hole()
		}
		out = append(out, ts...)
	}
	return out
}

// maxPath is the most methods a method path (ParamSink.Method) holds.
const maxPath = 2

// methodBase is the result of method path (of an interface call with no implementation in sight)
// called on v, when v is a parameter, a field of the package, a variable a closure captures from
// either, or the result of such a call itself (c.SecretsTracker.RequestCa(mesh).Name()).
func (st *state) methodBase(fn *ssa.Function, v ssa.Value, path string, depth int) (tmpl, bool) {
	switch v := v.(type) {
	case *ssa.Parameter:
		for i, p := range v.Parent().Params {
			if p == v {
				return tmpl{parts: []part{{Part: Part{Kind: partMethod, Param: i}, fn: v.Parent(), method: path}}, origin: "result of " + callOn(v.Name(), path)}, true
			}
		}
	case *ssa.FreeVar:
		if mk := st.maker(v.Parent()); mk != nil {
			for i, fv := range v.Parent().FreeVars {
				if fv == v && types.Identical(mk.Bindings[i].Type(), v.Type()) {
					return st.methodBase(mk.Parent(), mk.Bindings[i], path, depth)
				}
			}
		}
	case *ssa.UnOp:
		if v.Op != token.MUL {
			break
		}
		switch x := v.X.(type) {
		case *ssa.IndexAddr:
			return st.elemBase(fn, x, path, depth)
		case *ssa.FieldAddr:
			return st.fieldMethodBase(fieldOf(x.X.Type(), x.Field), path)
		case *ssa.FreeVar, *ssa.Alloc:
			// A variable a closure captures (go/ssa captures by reference), stored once: a parameter
			// spilled to its cell.
			if vals, unknown := st.stored(fn, x); !unknown && len(vals) == 1 {
				return st.methodBase(vals[0].fn, vals[0].v, path, depth)
			}
		}
	case *ssa.Field:
		return st.fieldMethodBase(fieldOf(v.X.Type(), v.Field), path)
	case *ssa.Call:
		c := v.Common()
		if !c.IsInvoke() || depth+1 >= maxPath || st.implemented(c.Method, c.Value.Type()) {
			break
		}
		if sig := c.Signature(); sig.Results().Len() != 1 || ifaceResult(sig) != 0 {
			break
		}
		return st.methodBase(fn, c.Value, c.Method.Name()+"."+path, depth+1)
	}
	return tmpl{}, false
}

func (st *state) fieldMethodBase(fv *types.Var, path string) (tmpl, bool) {
	if fv == nil || fv.Pkg() != st.pass.Pkg {
		return tmpl{}, false
	}
	return tmpl{parts: []part{{Part: Part{Kind: partFieldMethod}, field: fv, method: path}}, origin: "result of field " + callOn(fv.Name(), path)}, true
}

// importedResult is the result of a call of an imported function, from its result fact.
func (st *state) importedResult(fn *ssa.Function, obj *types.Func, args []ssa.Value, hints []ast.Node) []tmpl {
	ts, ok := st.impResults[obj]
	if !ok {
		var f resultFact
		if st.pass.ImportObjectFact(obj, &f) {
			for _, s := range f.Shapes {
				ts = append(ts, fromShape(s))
			}
		}
		st.impResults[obj] = ts
	}
	if ts == nil {
		return nil
	}
	off := recvOffset(obj)
	sig := obj.Type().(*types.Signature)
	return withOrigin(st.subst(ts, func(p part) ([]tmpl, bool) {
		switch p.Kind {
		case PartParam:
			i := p.Param + off
			if sig.Variadic() && p.Param == sig.Params().Len()-1 || i >= len(args) {
				return hole(), true
			}
			return st.evalIn(fn, args[i], hints[i]), true
		case PartJoin:
			if i := p.Param + off; i < len(args) {
				return st.joinValues(fn, args[i], p.Sep), true
			}
			return hole(), true
		case PartLit, PartHole:
			return nil, false
		}
		return hole(), true
	}), "result of "+funcName(obj))
}

// results computes the shapes of result idx of f from its return instructions.
func (st *state) results(f *ssa.Function, idx int) []tmpl {
	key := resultKey{f, idx}
	if r, ok := st.res[key]; ok {
		return r
	}
	if st.resBusy[key] {
		return hole()
	}
	st.resBusy[key] = true
	var out []tmpl
	for _, b := range f.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && idx < len(ret.Results) {
			out = append(out, st.eval(f, ret.Results[idx])...)
		}
	}
	delete(st.resBusy, key)
	if len(out) == 0 {
		out = hole()
	}
	out = capAlts(out)
	st.res[key] = out
	return out
}

type resultKey struct {
	f   *ssa.Function
	idx int
}

// joinValues joins the elements of the slice x with sep.
func (st *state) joinValues(fn *ssa.Function, x ssa.Value, sep string) []tmpl {
	els, ok := elems(x)
	if !ok {
		return hole()
	}
	acc := []tmpl{litTmpl("", nil, "")}
	for k, el := range els {
		if k > 0 {
			acc = product(acc, []tmpl{litTmpl(sep, nil, "")})
		}
		acc = product(acc, st.eval(fn, el))
	}
	return acc
}

func (st *state) evalJoin(fn *ssa.Function, c *ssa.CallCommon) []tmpl {
	sc, ok := c.Args[1].(*ssa.Const)
	if !ok || sc.Value == nil || sc.Value.Kind() != constant.String {
		return hole()
	}
	sep := st.evalIn(fn, sc, st.argIn(c, st.callPos, 1))[0]
	origin := "strings.Join with separator " + strconv.Quote(sep.parts[0].Lit)
	if p, ok := c.Args[0].(*ssa.Parameter); ok && p.Parent().Signature.Variadic() && p == p.Parent().Params[len(p.Parent().Params)-1] {
		// strings.Join(parts, sep) over the function's own variadic parameter: a join helper.
		return []tmpl{{parts: []part{{Part: Part{Kind: PartJoin, Param: len(p.Parent().Params) - 1, Sep: sep.parts[0].Lit}, fn: p.Parent()}}, origin: origin}}
	}
	els, ok := elems(c.Args[0])
	if !ok {
		return hole()
	}
	acc := []tmpl{litTmpl("", nil, "")}
	for k, el := range els {
		if k > 0 {
			acc = product(acc, []tmpl{sep})
		}
		acc = product(acc, st.eval(fn, el))
	}
	return withOrigin(acc, origin)
}

// varargs returns the values passed to a variadic ...any parameter, without their interface.
func varargs(x ssa.Value) ([]ssa.Value, bool) {
	els, ok := elems(x)
	if !ok {
		return nil, false
	}
	out := make([]ssa.Value, len(els))
	for i, el := range els {
		if mi, ok := el.(*ssa.MakeInterface); ok {
			el = mi.X
		}
		out[i] = el
	}
	return out, true
}

// evalSprintf reads a constant format: literal text stays, each verb is a hole, except %s and %v
// of a string argument, which take the argument's value.
func (st *state) evalSprintf(fn *ssa.Function, c *ssa.CallCommon) []tmpl {
	fc, ok := c.Args[0].(*ssa.Const)
	if !ok || fc.Value == nil || fc.Value.Kind() != constant.String {
		return hole()
	}
	args, ok := varargs(c.Args[1])
	if !ok {
		return hole()
	}
	ft := st.evalIn(fn, fc, st.argIn(c, st.callPos, 0))[0]
	fp := ft.parts[0]
	format := fp.Lit
	acc := []tmpl{{}}
	text := func(from, to int) {
		if to > from {
			acc = product(acc, []tmpl{{parts: []part{slicePart(fp, from, to)}}})
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
			acc = product(acc, []tmpl{{parts: []part{{Part: Part{Kind: PartLit, Lit: "%"}}}}})
		case (verb == 's' || verb == 'v') && j == i+1 && argi >= 0 && argi < len(args) && isString(args[argi].Type()):
			acc = product(acc, st.eval(fn, args[argi]))
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
func (st *state) evalSprint(fn *ssa.Function, c *ssa.CallCommon) []tmpl {
	args, ok := varargs(c.Args[0])
	if !ok {
		return hole()
	}
	acc := []tmpl{{}}
	for _, a := range args {
		if isString(a.Type()) {
			acc = product(acc, st.eval(fn, a))
		} else {
			acc = product(acc, hole())
		}
	}
	return withOrigin(acc, "fmt.Sprint")
}

// stringResult is the index of sig's only string result, or -1.
func stringResult(sig *types.Signature) int {
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
		case PartParam, PartJoin, PartOuter:
			return true
		case PartLit:
			if i == 0 && strings.HasPrefix(p.Lit, "kri_") {
				return true
			}
		}
	}
	return false
}

func fromShape(s Shape) tmpl {
	t := tmpl{parts: make([]part, len(s.Parts))}
	for i, p := range s.Parts {
		t.parts[i] = part{Part: p}
	}
	return t
}

func constantString(v constant.Value) string {
	if v == nil || v.Kind() != constant.String {
		return ""
	}
	return constant.StringVal(v)
}
