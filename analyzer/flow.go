package analyzer

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// The flow engine: what a string value may be, followed on the SSA form of the package (built by
// buildSSA). Locals are SSA values and φ-nodes (every definition that may reach a use, in
// the order the control flow allows, goto included); variables whose address is taken or that
// closures capture are cells whose every store counts; struct fields, package variables, map
// entries and slice elements are read back from the stores the package makes to them. Calls are
// followed into their callees: static calls, calls of function values (closures, method values,
// functions returned by other functions, functions kept in fields, variables and maps), and
// interface method calls, to every implementation the package and its facts can see.

// valueAt is a value and the function it belongs to, with the position it was stored at.
type valueAt struct {
	fn  *ssa.Function
	v   ssa.Value
	pos token.Pos
}

type memoKey struct {
	fn *ssa.Function
	v  ssa.Value
}

// target is one function a call may run.
type target struct {
	fn     *ssa.Function // a function with a body (of this package, or a wrapper) …
	binds  [][]tmpl      // … and what its free variables hold, when known
	obj    *types.Func   // an imported function, known by its facts
	shapes []tmpl        // an imported closure: the shapes of its result (PartParam: its parameters)
	recv   string        // a forwarded implementation: its receiver's named type (typeKey)
}

// eval returns what is known of the string value v of function fn.
func (st *state) eval(fn *ssa.Function, v ssa.Value) []tmpl {
	k := memoKey{fn, v}
	if r, ok := st.memo[k]; ok {
		return r
	}
	if st.busy[k] || st.depth > maxDepth {
		return hole()
	}
	st.busy[k] = true
	st.depth++
	r := st.eval1(fn, v)
	st.depth--
	delete(st.busy, k)
	st.memo[k] = r
	return r
}

func (st *state) eval1(fn *ssa.Function, v ssa.Value) []tmpl {
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value == nil {
			return []tmpl{litTmpl("", nil, "")}
		}
		if v.Value.Kind() != constant.String {
			return hole()
		}
		return []tmpl{st.constTmpl(fn, constant.StringVal(v.Value))}
	case *ssa.BinOp:
		if v.Op == token.ADD && isString(v.Type()) {
			var x, y ast.Node
			if be := st.syntax().binops[v.Pos()]; be != nil {
				x, y = be.X, be.Y
			}
			return product(st.evalIn(fn, v.X, x), st.evalIn(fn, v.Y, y))
		}
	case *ssa.Phi:
		var out []tmpl
		for _, e := range v.Edges {
			out = append(out, st.eval(fn, e)...)
		}
		if v.Comment != "" {
			for i, t := range out {
				if hasColonLit(t) && !strings.HasPrefix(t.origin, "variable ") {
					out[i].origin = "variable " + v.Comment + " (" + t.origin + ")"
				}
			}
		}
		return capAlts(out)
	case *ssa.Parameter:
		for i, p := range v.Parent().Params {
			if p == v {
				return []tmpl{{parts: []part{{Part: Part{Kind: PartParam, Param: i}, fn: v.Parent()}}, origin: "parameter " + v.Name()}}
			}
		}
	case *ssa.FreeVar:
		return st.freeTmpl(v)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return st.load(fn, v.X)
		}
	case *ssa.Field:
		return st.fieldRead(fieldOf(v.X.Type(), v.Field))
	case *ssa.Call:
		return st.evalCall(fn, v.Common(), -1, v.Pos())
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			return st.evalCall(fn, c.Common(), v.Index, c.Pos())
		}
	case *ssa.ChangeType:
		return st.eval(fn, v.X)
	case *ssa.Convert:
		if isString(v.X.Type()) {
			return st.eval(fn, v.X)
		}
	case *ssa.MakeInterface:
		if isString(v.X.Type()) {
			return st.eval(fn, v.X)
		}
	}
	return hole()
}

// evalIn is eval, for a value written inside the syntax node within (nil: unknown): a constant is
// looked for there first, so that a fix finds the one literal it comes from.
func (st *state) evalIn(fn *ssa.Function, v ssa.Value, within ast.Node) []tmpl {
	c, ok := v.(*ssa.Const)
	if !ok || within == nil || c.Value == nil || c.Value.Kind() != constant.String {
		return st.eval(fn, v)
	}
	s := constant.StringVal(c.Value)
	if !strings.ContainsRune(s, ':') {
		return st.eval(fn, v)
	}
	var in []tmpl
	for _, t := range st.constCands(fn, s) {
		if p := t.pos; p.IsValid() && within.Pos() <= p && p < within.End() {
			in = append(in, t)
		}
	}
	if len(in) == 1 {
		return in
	}
	return st.eval(fn, v)
}

// argHints are the syntax of the arguments of c (receiver first), where found.
func (st *state) argHints(c *ssa.CallCommon) []ast.Node {
	args := fullArgs(c)
	out := make([]ast.Node, len(args))
	for i := range args {
		out[i] = st.argIn(c, st.callPos, i)
	}
	return out
}

// argIn is the syntax of argument i (receiver first) of the call c at pos, if found.
func (st *state) argIn(c *ssa.CallCommon, pos token.Pos, i int) ast.Node {
	call := st.syntax().calls[pos]
	if call == nil {
		return nil
	}
	i -= recvOf(c, c.Signature())
	if i < 0 || i >= len(call.Args) {
		return nil
	}
	return call.Args[i]
}

func (st *state) freeTmpl(v *ssa.FreeVar) []tmpl {
	for i, fv := range v.Parent().FreeVars {
		if fv == v {
			return []tmpl{{parts: []part{{Part: Part{Kind: partFree, Param: i}, fn: v.Parent()}}}}
		}
	}
	return hole()
}

// load is what a load through ptr may read.
func (st *state) load(fn *ssa.Function, ptr ssa.Value) []tmpl {
	switch p := ptr.(type) {
	case *ssa.FieldAddr:
		return st.fieldRead(fieldOf(p.X.Type(), p.Field))
	case *ssa.FreeVar:
		return st.freeTmpl(p)
	}
	vals, unknown := st.stored(fn, ptr)
	var out []tmpl
	g, _ := ptr.(*ssa.Global)
	for _, va := range vals {
		for _, t := range st.eval(va.fn, va.v) {
			if va.pos.IsValid() {
				t.defs = append([]token.Pos{va.pos}, t.defs...)
			}
			if g != nil && hasColonLit(t) {
				t.origin = "variable " + g.Name() + " (" + t.origin + ")"
			}
			out = append(out, t)
		}
	}
	if unknown || len(out) == 0 {
		out = append(out, hole()...)
	}
	return capAlts(out)
}

// fieldRead is the value of a read of field fv: a field part when writes to it can be checked.
func (st *state) fieldRead(fv *types.Var) []tmpl {
	if fv != nil && (fv.Pkg() == st.pass.Pkg || st.foreignSinkable(fv)) {
		return []tmpl{{parts: []part{{Part: Part{Kind: partField}, field: fv}}}}
	}
	return hole()
}

// fieldOf returns field i of the struct t is or points to.
func fieldOf(t types.Type, i int) *types.Var {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok || i >= s.NumFields() {
		return nil
	}
	return s.Field(i).Origin()
}

// stored returns the values the package stores where ptr points, and whether anything else may
// write there.
func (st *state) stored(fn *ssa.Function, ptr ssa.Value) ([]valueAt, bool) {
	switch p := ptr.(type) {
	case *ssa.Alloc:
		return st.cellStores(p)
	case *ssa.Global:
		st.indexStores()
		if p.Pkg != st.pkg || p.Object() == nil || p.Object().Exported() || st.escaped[p] {
			return st.globalStores[p], true
		}
		return st.globalStores[p], false
	case *ssa.FieldAddr:
		fv := fieldOf(p.X.Type(), p.Field)
		st.indexStores()
		return st.fieldStores[fv], fv == nil || fv.Pkg() != st.pass.Pkg || fv.Exported()
	case *ssa.IndexAddr:
		return st.elemStores(fn, p.X)
	case *ssa.FreeVar:
		if mk := st.maker(p.Parent()); mk != nil {
			for i, fv := range p.Parent().FreeVars {
				if fv == p {
					return st.stored(mk.Parent(), mk.Bindings[i])
				}
			}
		}
	}
	return nil, true
}

// cellStores returns the stores to a local cell, in its function and in the closures that capture
// it, and whether its address goes anywhere else.
func (st *state) cellStores(a *ssa.Alloc) ([]valueAt, bool) {
	var out []valueAt
	unknown := false
	seen := map[ssa.Value]bool{}
	var walk func(v ssa.Value)
	walk = func(v ssa.Value) {
		if seen[v] || len(seen) > 64 {
			unknown = unknown || !seen[v]
			return
		}
		seen[v] = true
		refs := v.Referrers()
		if refs == nil {
			unknown = true
			return
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr == v {
					out = append(out, valueAt{fn: r.Parent(), v: r.Val, pos: r.Pos()})
				} else {
					unknown = true
				}
			case *ssa.UnOp:
				if r.Op != token.MUL {
					unknown = true
				}
			case *ssa.DebugRef:
			case *ssa.MakeClosure:
				f := r.Fn.(*ssa.Function)
				for i, b := range r.Bindings {
					if b == v && i < len(f.FreeVars) {
						walk(f.FreeVars[i])
					}
				}
			default:
				unknown = true
			}
		}
	}
	walk(a)
	return out, unknown
}

// elemStores returns the values stored in the elements of the slice or array x of fn, and whether
// anything else may be there. A slice is followed the way a field is: to the array literal or
// make it was sliced from and the stores to its elements, through append (both operands), φ-nodes,
// the fields, variables and package variables it is kept in (every store counts) and the results
// of the package's functions that return it, and to what the package's calls pass for a parameter.
func (st *state) elemStores(fn *ssa.Function, x ssa.Value) ([]valueAt, bool) {
	var out []valueAt
	unknown := false
	seen := map[memoKey]bool{}
	var walk func(fn *ssa.Function, x ssa.Value)
	walk = func(fn *ssa.Function, x ssa.Value) {
		k := memoKey{fn, x}
		if seen[k] {
			return
		}
		if len(seen) > 64 {
			unknown = true
			return
		}
		seen[k] = true
		add := func(vs []valueAt, unk bool) {
			out = append(out, vs...)
			unknown = unknown || unk
		}
		switch x := x.(type) {
		case *ssa.Const:
			if !x.IsNil() {
				unknown = true
			}
		case *ssa.Alloc:
			add(arrayStores(x))
		case *ssa.MakeSlice:
			add(arrayStores(x))
		case *ssa.Slice:
			walk(fn, x.X)
		case *ssa.Phi:
			for _, e := range x.Edges {
				walk(fn, e)
			}
		case *ssa.ChangeType:
			walk(fn, x.X)
		case *ssa.Call:
			if b, ok := x.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
				for _, a := range x.Call.Args {
					walk(fn, a)
				}
				return
			}
			callee := x.Call.StaticCallee()
			if callee == nil || len(callee.Blocks) == 0 || callee.Signature.Results().Len() != 1 {
				unknown = true
				return
			}
			for _, b := range callee.Blocks {
				if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) == 1 {
					walk(callee, ret.Results[0])
				}
			}
		case *ssa.UnOp:
			if x.Op != token.MUL {
				unknown = true
				return
			}
			vals, unk := st.stored(fn, x.X)
			unknown = unknown || unk
			for _, va := range vals {
				walk(va.fn, va.v)
			}
		case *ssa.Field:
			st.indexStores()
			fv := fieldOf(x.X.Type(), x.Field)
			unknown = unknown || fv == nil || fv.Pkg() != st.pass.Pkg || fv.Exported()
			for _, va := range st.fieldStores[fv] {
				walk(va.fn, va.v)
			}
		case *ssa.FreeVar:
			mk := st.maker(x.Parent())
			if mk == nil {
				unknown = true
				return
			}
			for i, fv := range x.Parent().FreeVars {
				if fv == x {
					walk(mk.Parent(), mk.Bindings[i])
				}
			}
		case *ssa.Parameter:
			// What the package's calls pass; callers elsewhere are not known.
			unknown = true
			for i, p := range x.Parent().Params {
				if p != x {
					continue
				}
				for _, c := range st.callersOf(x.Parent()) {
					if i < len(c.call.Args) {
						walk(c.fn, c.call.Args[i])
					}
				}
			}
		default:
			unknown = true
		}
	}
	walk(fn, x)
	return out, unknown
}

// arrayStores returns the stores to the elements of an array or slice made here, and whether its
// elements may be written anywhere else: when it goes to a call other than append, len and cap.
func arrayStores(a ssa.Value) ([]valueAt, bool) {
	refs := a.Referrers()
	if refs == nil {
		return nil, true
	}
	var out []valueAt
	unknown := false
	var visit func(refs []ssa.Instruction, x ssa.Value)
	visit = func(refs []ssa.Instruction, x ssa.Value) {
		for _, r := range refs {
			switch r := r.(type) {
			case *ssa.IndexAddr:
				if r.Referrers() == nil {
					continue
				}
				for _, w := range *r.Referrers() {
					if s, ok := w.(*ssa.Store); ok && s.Addr == r {
						out = append(out, valueAt{fn: s.Parent(), v: s.Val, pos: s.Pos()})
					}
				}
			case *ssa.Slice:
				if r.X == x && r.Referrers() != nil {
					visit(*r.Referrers(), r)
				}
			case *ssa.Call:
				if b, ok := r.Call.Value.(*ssa.Builtin); !ok || b.Name() != "append" && b.Name() != "len" && b.Name() != "cap" {
					unknown = true
				}
			}
		}
	}
	visit(*refs, a)
	return out, unknown
}

// elems returns the elements of a slice made from an array literal, in order: the arguments of
// a variadic call, strings.Join([]string{a, b}, sep). ok is false for anything else.
func elems(x ssa.Value) ([]ssa.Value, bool) {
	if c, ok := x.(*ssa.Const); ok && c.IsNil() {
		return nil, true
	}
	s, ok := x.(*ssa.Slice)
	if !ok || s.Low != nil || s.High != nil || s.Max != nil {
		return nil, false
	}
	a, ok := s.X.(*ssa.Alloc)
	if !ok || a.Referrers() == nil {
		return nil, false
	}
	arr, ok := a.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array)
	if !ok || arr.Len() > maxParts {
		return nil, false
	}
	out := make([]ssa.Value, arr.Len())
	for _, r := range *a.Referrers() {
		ia, ok := r.(*ssa.IndexAddr)
		if !ok {
			continue
		}
		c, ok := ia.Index.(*ssa.Const)
		if !ok || ia.Referrers() == nil {
			return nil, false
		}
		i, ok := constant.Int64Val(constant.ToInt(c.Value))
		if !ok || i < 0 || i >= arr.Len() {
			return nil, false
		}
		for _, w := range *ia.Referrers() {
			if s, ok := w.(*ssa.Store); ok && s.Addr == ia {
				if out[i] != nil {
					return nil, false
				}
				out[i] = s.Val
			}
		}
	}
	for _, v := range out {
		if v == nil {
			return nil, false
		}
	}
	return out, true
}

// indexStores indexes, once, the stores the package makes to package variables and to struct
// fields, and the package variables whose address goes elsewhere.
func (st *state) indexStores() {
	if st.fieldStores != nil {
		return
	}
	st.fieldStores = map[*types.Var][]valueAt{}
	st.globalStores = map[*ssa.Global][]valueAt{}
	st.escaped = map[*ssa.Global]bool{}
	for _, f := range st.funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				var rands [8]*ssa.Value
				for _, op := range in.Operands(rands[:0]) {
					if g, ok := (*op).(*ssa.Global); ok {
						switch in := in.(type) {
						case *ssa.Store:
							if in.Addr != g {
								st.escaped[g] = true
							}
						case *ssa.UnOp:
						default:
							st.escaped[g] = true
						}
					}
				}
				s, ok := in.(*ssa.Store)
				if !ok {
					continue
				}
				switch a := s.Addr.(type) {
				case *ssa.Global:
					st.globalStores[a] = append(st.globalStores[a], valueAt{fn: f, v: s.Val, pos: s.Pos()})
				case *ssa.FieldAddr:
					if fv := fieldOf(a.X.Type(), a.Field); fv != nil {
						st.fieldStores[fv] = append(st.fieldStores[fv], valueAt{fn: f, v: s.Val, pos: s.Pos()})
					}
				}
			}
		}
	}
}

// maker returns the one MakeClosure that makes the anonymous function fn, if there is one.
func (st *state) maker(fn *ssa.Function) *ssa.MakeClosure {
	if st.makers == nil {
		st.makers = map[*ssa.Function][]*ssa.MakeClosure{}
		for _, f := range st.funcs {
			for _, b := range f.Blocks {
				for _, in := range b.Instrs {
					if mk, ok := in.(*ssa.MakeClosure); ok {
						g := mk.Fn.(*ssa.Function)
						st.makers[g] = append(st.makers[g], mk)
					}
				}
			}
		}
	}
	if ms := st.makers[fn]; len(ms) == 1 {
		return ms[0]
	}
	return nil
}

// closeFree replaces the free variables of anonymous functions in ts by what their one maker
// binds, so that a value read inside a closure is known in the function around it.
func (st *state) closeFree(ts []tmpl) []tmpl {
	for range maxDepth {
		open := false
		for _, t := range ts {
			for _, p := range t.parts {
				if p.Kind == partFree {
					open = true
				}
			}
		}
		if !open {
			return ts
		}
		ts = st.subst(ts, func(p part) ([]tmpl, bool) {
			if p.Kind != partFree {
				return nil, false
			}
			mk := st.maker(p.fn)
			if mk == nil || p.Param >= len(mk.Bindings) {
				return hole(), true
			}
			return st.bindingValue(mk.Parent(), mk.Bindings[p.Param]), true
		})
	}
	return st.subst(ts, func(p part) ([]tmpl, bool) {
		if p.Kind == partFree {
			return hole(), true
		}
		return nil, false
	})
}

// bindingValue is what a free variable bound to b holds: b itself, or what b points to when the
// variable is captured by reference.
func (st *state) bindingValue(fn *ssa.Function, b ssa.Value) []tmpl {
	if isString(b.Type()) {
		return st.eval(fn, b)
	}
	if p, ok := b.Type().Underlying().(*types.Pointer); ok && isString(p.Elem()) {
		return st.load(fn, b)
	}
	return hole()
}

// subst rewrites the parts of ts that f replaces, keeping the others.
func (st *state) subst(ts []tmpl, f func(part) ([]tmpl, bool)) []tmpl {
	var out []tmpl
	for _, t := range ts {
		acc := []tmpl{{origin: t.origin, defs: t.defs}}
		for _, p := range t.parts {
			if r, ok := f(p); ok {
				acc = product(acc, r)
			} else {
				acc = product(acc, []tmpl{{parts: []part{p}}})
			}
		}
		if t.origin != "" {
			for i := range acc {
				acc[i].origin = t.origin
			}
		}
		out = append(out, acc...)
	}
	return capAlts(out)
}

// fullArgs are the arguments of a call with the receiver first, as the callee's Params hold them.
func fullArgs(c *ssa.CallCommon) []ssa.Value {
	if c.IsInvoke() {
		return append([]ssa.Value{c.Value}, c.Args...)
	}
	return c.Args
}

// callees returns the functions a call may run.
func (st *state) callees(fn *ssa.Function, c *ssa.CallCommon) []target {
	if c.IsInvoke() {
		return st.narrow(fn, c.Value, st.implementations(c.Method, c.Value.Type()))
	}
	if _, ok := c.Value.(*ssa.Builtin); ok {
		return nil
	}
	return st.funcValues(fn, c.Value)
}

// funcValues returns the functions v, a value of function type, may be.
func (st *state) funcValues(fn *ssa.Function, v ssa.Value) []target {
	k := memoKey{fn, v}
	if r, ok := st.fmemo[k]; ok {
		return r
	}
	if st.busy[k] || st.depth > maxDepth {
		return nil
	}
	st.busy[k] = true
	st.depth++
	r := st.funcValues1(fn, v)
	if len(r) > maxAlts {
		r = r[:maxAlts]
	}
	st.depth--
	delete(st.busy, k)
	st.fmemo[k] = r
	return r
}

func (st *state) funcValues1(fn *ssa.Function, v ssa.Value) []target {
	switch v := v.(type) {
	case *ssa.Function:
		if len(v.Blocks) > 0 {
			return []target{{fn: v}}
		}
		if obj, ok := v.Object().(*types.Func); ok {
			return []target{{obj: obj.Origin()}}
		}
	case *ssa.MakeClosure:
		f := v.Fn.(*ssa.Function)
		binds := make([][]tmpl, len(v.Bindings))
		for i, b := range v.Bindings {
			binds[i] = st.bindingValue(fn, b)
		}
		return []target{{fn: f, binds: binds}}
	case *ssa.Phi:
		var out []target
		for _, e := range v.Edges {
			out = append(out, st.funcValues(fn, e)...)
		}
		return out
	case *ssa.ChangeType:
		return st.funcValues(fn, v.X)
	case *ssa.MakeInterface:
		return st.funcValues(fn, v.X)
	case *ssa.Call:
		return st.returnedFuncs(fn, v.Common(), -1)
	case *ssa.Extract:
		switch t := v.Tuple.(type) {
		case *ssa.Call:
			return st.returnedFuncs(fn, t.Common(), v.Index)
		case *ssa.Lookup:
			if v.Index == 0 {
				return st.mapFuncs(fn, t.X)
			}
		}
	case *ssa.Lookup:
		return st.mapFuncs(fn, v.X)
	case *ssa.UnOp:
		if v.Op == token.MUL {
			vals, _ := st.stored(fn, v.X)
			var out []target
			for _, va := range vals {
				out = append(out, st.funcValues(va.fn, va.v)...)
			}
			return out
		}
	case *ssa.Field:
		st.indexStores()
		var out []target
		for _, va := range st.fieldStores[fieldOf(v.X.Type(), v.Field)] {
			out = append(out, st.funcValues(va.fn, va.v)...)
		}
		return out
	case *ssa.FreeVar:
		if mk := st.maker(v.Parent()); mk != nil {
			for i, fv := range v.Parent().FreeVars {
				if fv == v {
					return st.funcValues(mk.Parent(), mk.Bindings[i])
				}
			}
		}
	case *ssa.Parameter:
		// A function handed in as an argument: what the package's calls of the function pass. Callers
		// in other packages are not known; what they pass is not followed.
		for i, p := range v.Parent().Params {
			if p != v {
				continue
			}
			var out []target
			for _, c := range st.callersOf(v.Parent()) {
				if i < len(c.call.Args) {
					out = append(out, st.funcValues(c.fn, c.call.Args[i])...)
				}
			}
			return out
		}
	}
	return nil
}

// callerAt is one static call of a function of the package.
type callerAt struct {
	fn   *ssa.Function
	call *ssa.CallCommon
}

// callersOf returns the static calls of f in the package: the edges of its call graph that a
// function value can flow along into a parameter. The index is made once, on first use.
func (st *state) callersOf(f *ssa.Function) []callerAt {
	if st.callers == nil {
		st.callers = map[*ssa.Function][]callerAt{}
		for _, g := range st.funcs {
			for _, b := range g.Blocks {
				for _, in := range b.Instrs {
					ci, ok := in.(ssa.CallInstruction)
					if !ok {
						continue
					}
					if callee := ci.Common().StaticCallee(); callee != nil && callee.Pkg == st.pkg {
						st.callers[callee] = append(st.callers[callee], callerAt{fn: g, call: ci.Common()})
					}
				}
			}
		}
	}
	return st.callers[f]
}

// mapFuncs returns the functions stored in the map m: a map of name functions.
func (st *state) mapFuncs(fn *ssa.Function, m ssa.Value) []target {
	var maps []valueAt
	switch m := m.(type) {
	case *ssa.MakeMap:
		maps = []valueAt{{fn: fn, v: m}}
	case *ssa.UnOp:
		if m.Op == token.MUL {
			maps, _ = st.stored(fn, m.X)
		}
	}
	var out []target
	for _, mv := range maps {
		mm, ok := mv.v.(*ssa.MakeMap)
		if !ok || mm.Referrers() == nil {
			continue
		}
		for _, r := range *mm.Referrers() {
			if u, ok := r.(*ssa.MapUpdate); ok && u.Map == mm {
				out = append(out, st.funcValues(mv.fn, u.Value)...)
			}
		}
	}
	return out
}

// returnedFuncs returns the functions a call returns, their free variables in terms of the
// caller's values.
func (st *state) returnedFuncs(fn *ssa.Function, c *ssa.CallCommon, idx int) []target {
	args := fullArgs(c)
	var out []target
	for _, t := range st.callees(fn, c) {
		switch {
		case t.fn != nil:
			for _, r := range st.funcResults(t.fn, idx) {
				binds := make([][]tmpl, len(r.binds))
				for i, b := range r.binds {
					binds[i] = st.substCall(fn, b, t, args, st.argHints(c))
				}
				out = append(out, target{fn: r.fn, binds: binds, obj: r.obj, shapes: r.shapes})
			}
		case t.obj != nil:
			var f closureFact
			if st.pass.ImportObjectFact(t.obj, &f) {
				var shapes []tmpl
				for _, s := range f.Shapes {
					shapes = append(shapes, fromShape(s))
				}
				off := recvOffset(t.obj)
				shapes = st.subst(shapes, func(p part) ([]tmpl, bool) {
					if p.Kind != PartOuter {
						return nil, false
					}
					if i := p.Param + off; i < len(args) {
						return st.eval(fn, args[i]), true
					}
					return hole(), true
				})
				out = append(out, target{shapes: withOrigin(shapes, "result of the function "+funcName(t.obj)+" returns")})
			}
		}
	}
	return out
}

// funcResults returns the functions f returns as its result idx (-1: its only function result).
func (st *state) funcResults(f *ssa.Function, idx int) []target {
	if idx < 0 {
		idx = funcResult(f.Signature)
		if idx < 0 {
			return nil
		}
	}
	var out []target
	for _, b := range f.Blocks {
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && idx < len(ret.Results) {
			out = append(out, st.funcValues(f, ret.Results[idx])...)
		}
	}
	return out
}

// funcResult is the index of the only function-typed result of sig, or -1.
func funcResult(sig *types.Signature) int {
	idx := -1
	for i := 0; i < sig.Results().Len(); i++ {
		if _, ok := sig.Results().At(i).Type().Underlying().(*types.Signature); ok {
			if idx >= 0 {
				return -1
			}
			idx = i
		}
	}
	return idx
}

// substCall puts a call's arguments and the callee's bindings into ts, the callee's view.
func (st *state) substCall(fn *ssa.Function, ts []tmpl, t target, args []ssa.Value, hints []ast.Node) []tmpl {
	sig := t.fn.Signature
	hint := func(i int) ast.Node {
		if i < len(hints) {
			return hints[i]
		}
		return nil
	}
	return st.subst(ts, func(p part) ([]tmpl, bool) {
		if p.fn != t.fn {
			return nil, false
		}
		switch p.Kind {
		case PartParam:
			if p.Param >= len(args) || sig.Variadic() && p.Param == len(t.fn.Params)-1 {
				return hole(), true
			}
			return st.evalIn(fn, args[p.Param], hint(p.Param)), true
		case PartJoin:
			if p.Param >= len(args) {
				return hole(), true
			}
			return st.joinValues(fn, args[p.Param], p.Sep), true
		case partFree:
			if p.Param < len(t.binds) && t.binds[p.Param] != nil {
				return t.binds[p.Param], true
			}
			return hole(), true
		case partMethod:
			if p.Param < len(args) {
				return st.evalMethod(fn, args[p.Param], p.method), true
			}
			return hole(), true
		}
		return nil, false
	})
}

// evalMethod is what the result of method path (ParamSink.Method) of the interface value v may be,
// as the calls v.M() or v.R(…).M() in fn would be evaluated: R's arguments are unknown, and its
// result holds the types R's implementations return, when they are known (narrow).
func (st *state) evalMethod(fn *ssa.Function, v ssa.Value, path string) []tmpl {
	saved := st.callPos
	defer func() { st.callPos = saved }()
	if rest, ok := strings.CutPrefix(path, elemSeg+"."); ok {
		return st.evalElemsMethod(fn, v, rest)
	}
	first, rest, more := strings.Cut(path, ".")
	if !more {
		m := ifaceMethod(v.Type(), path)
		if m == nil {
			return hole()
		}
		return st.evalCall(fn, &ssa.CallCommon{Value: v, Method: m}, -1, token.NoPos)
	}
	r := ifaceMethod(v.Type(), first)
	if r == nil || strings.Contains(rest, ".") {
		return hole()
	}
	sig := r.Type().(*types.Signature)
	if sig.Results().Len() != 1 || ifaceResult(sig) != 0 {
		return hole()
	}
	recv := sig.Results().At(0).Type()
	m := ifaceMethod(recv, rest)
	if m == nil {
		return hole()
	}
	impls := st.implementations(m, recv)
	if len(impls) == 0 || !st.implemented(r, v.Type()) {
		// Nothing in sight implements the path: the value's own callers or writers may see more.
		if t, ok := st.methodBase(fn, v, path, 1); ok {
			return []tmpl{t}
		}
		return hole()
	}
	if kinds := st.methodReturns(fn, v, r); kinds != nil {
		var keep []target
		for _, t := range impls {
			if slices.Contains(kinds, st.recvKey(t)) {
				keep = append(keep, t)
			}
		}
		impls = keep
	}
	out := st.evalTargets(fn, impls, nil, nil, -1)
	if len(out) == 0 {
		return hole()
	}
	return capAlts(out)
}

// implemented reports whether the package sees an implementation of interface method m: its own,
// an imported one with facts, or a forwarded one.
func (st *state) implemented(m *types.Func, recv types.Type) bool {
	return len(st.implementations(m, recv)) > 0 || len(st.forwarded()[ifaceMethodKey(m)]) > 0
}

// methodReturns returns the named types that a call of interface method r on v may return, or nil
// when they are not known: what the implementations of r among the types v may hold return, as
// concreteCall has it for a call in the code.
func (st *state) methodReturns(fn *ssa.Function, v ssa.Value, r *types.Func) []string {
	iface, ok := v.Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	return st.implReturns(r, iface, 0, st.concrete(fn, v))
}

// ifaceMethod returns the method name of interface type t, if it has one.
func ifaceMethod(t types.Type, name string) *types.Func {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	for i := 0; i < it.NumMethods(); i++ {
		if m := it.Method(i); m.Name() == name {
			return m
		}
	}
	return nil
}

// recvOffset is 1 for a method: its facts count parameters without the receiver.
func recvOffset(fn *types.Func) int {
	if fn.Type().(*types.Signature).Recv() != nil {
		return 1
	}
	return 0
}

// implementations returns the methods an interface call may run: those of the package's own types
// and those of imported types that carry facts.
func (st *state) implementations(m *types.Func, recv types.Type) []target {
	iface, ok := recv.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	key := m.Name() + "\x00" + types.TypeString(recv, nil)
	if r, ok := st.impls[key]; ok {
		return r
	}
	var out []target
	for _, f := range st.ownMethods(m, iface) {
		out = append(out, target{fn: f})
	}
	for _, obj := range st.methodFacts()[m.Name()] {
		r := obj.Type().(*types.Signature).Recv().Type()
		if types.Implements(r, iface) {
			out = append(out, target{obj: obj})
		}
	}
	out = append(out, st.forwardedImpls(m, out)...)
	st.impls[key] = out
	return out
}

// ownMethods returns the methods m of the package's own types that implement iface.
func (st *state) ownMethods(m *types.Func, iface *types.Interface) []*ssa.Function {
	var out []*ssa.Function
	scope := st.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok || n.TypeParams().Len() > 0 || types.IsInterface(n) {
			continue
		}
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			if !types.Implements(t, iface) {
				continue
			}
			sel := st.prog.MethodSets.MethodSet(t).Lookup(m.Pkg(), m.Name())
			if sel == nil {
				break
			}
			if f := st.prog.MethodValue(sel); f != nil && len(f.Blocks) > 0 {
				out = append(out, f)
			}
			break
		}
	}
	return out
}

// methodFacts indexes, by name, the imported methods that carry a fact.
func (st *state) methodFacts() map[string][]*types.Func {
	if st.methods == nil {
		st.methods = map[string][]*types.Func{}
		seen := map[*types.Func]bool{}
		for _, of := range st.pass.AllObjectFacts() {
			fn, ok := of.Object.(*types.Func)
			if !ok || seen[fn] || fn.Type().(*types.Signature).Recv() == nil {
				continue
			}
			seen[fn] = true
			st.methods[fn.Name()] = append(st.methods[fn.Name()], fn)
		}
	}
	return st.methods
}

// declared returns the declared function behind fn and the shift of parameter indexes from fn to
// it: a generic instance's origin, the method behind a wrapper or bound method.
func (st *state) declared(fn *ssa.Function) (*ssa.Function, int) {
	if o := fn.Origin(); o != nil {
		return o, 0
	}
	if fn.Synthetic == "" {
		return fn, 0
	}
	obj, ok := fn.Object().(*types.Func)
	if !ok {
		return fn, 0
	}
	d := st.prog.FuncValue(obj)
	if d == nil {
		return fn, 0
	}
	if d.Origin() != nil {
		d = d.Origin()
	}
	if len(d.Params) == len(fn.Params)+1 {
		return d, 1
	}
	return d, 0
}

// ssaName names fn for humans: "names.Inbound", "(*b.B).Build", "gen.Inbound$1".
func ssaName(fn *ssa.Function) string {
	if obj, ok := fn.Object().(*types.Func); ok && fn.Parent() == nil {
		return funcName(obj)
	}
	name := fn.Name()
	for p := fn.Parent(); p != nil; p = p.Parent() {
		fn = p
	}
	if fn.Pkg != nil {
		if obj, ok := fn.Object().(*types.Func); ok && fn.Synthetic == "" && name != fn.Name() {
			return funcName(obj) + strings.TrimPrefix(name, fn.Name())
		}
		return fn.Pkg.Pkg.Name() + "." + name
	}
	return name
}

// outerName names the declared function fn is, or is written in.
func outerName(fn *ssa.Function) string {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return ssaName(fn)
}

// syntaxIndex maps the positions SSA instructions carry back to the expressions they come from.
type syntaxIndex struct {
	values map[token.Pos]ast.Expr // a stored value, by the position of its store
	binops map[token.Pos]*ast.BinaryExpr
	keys   map[token.Pos]ast.Expr      // a map key, by the position of its update
	calls  map[token.Pos]*ast.CallExpr // a call, by its '('
}

func (st *state) syntax() *syntaxIndex {
	if st.syn != nil {
		return st.syn
	}
	si := &syntaxIndex{values: map[token.Pos]ast.Expr{}, binops: map[token.Pos]*ast.BinaryExpr{}, keys: map[token.Pos]ast.Expr{}, calls: map[token.Pos]*ast.CallExpr{}}
	for _, file := range st.pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						si.values[kv.Colon] = kv.Value
						si.keys[kv.Colon] = kv.Key
					} else {
						si.values[el.Pos()] = el
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) != len(n.Rhs) {
					break
				}
				for i, l := range n.Lhs {
					switch l := ast.Unparen(l).(type) {
					case *ast.SelectorExpr:
						si.values[l.Sel.Pos()] = n.Rhs[i]
					case *ast.IndexExpr:
						si.keys[l.Lbrack] = l.Index
						si.values[l.Lbrack] = n.Rhs[i]
					case *ast.StarExpr:
						si.values[l.Star] = n.Rhs[i]
					}
				}
			case *ast.CallExpr:
				si.calls[n.Lparen] = n
			case *ast.BinaryExpr:
				si.binops[n.OpPos] = n
			}
			return true
		})
	}
	st.syn = si
	return si
}
