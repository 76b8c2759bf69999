package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Selector closures. Kuma picks between a KRI and a legacy name with the closure that
// naming.GetNameOrFallbackFunc(unified) returns: it returns its first argument when unified is
// true, else its second. A may-analysis of
//
//	nameOrDefault := naming.GetNameOrFallbackFunc(unified)
//	inboundName := nameOrDefault(contextual, "inbound:passthrough:ipv4")
//	statPrefix := nameOrDefault(inboundName, "")
//
// finds "inbound:passthrough:ipv4" in statPrefix, which never holds it: both calls choose the same
// argument, the fallback "" when the first chooses the legacy name. So a function that returns
// such a closure says so in a fact: the closure returns one of its parameters, chosen by nothing but
// the values it captured from the function's parameters (by value: nothing can change them), with
// no memory read and no call that could answer differently. Two calls of one closure value then
// choose the same parameter, and a call whose argument is another call of the same value is
// evaluated per choice: the chosen argument, with the inner call making the same choice.

// selectFact marks a function that returns a selector closure.
type selectFact struct {
	// Params are the closure's string parameters it may return; it returns nothing else.
	Params []int
	// By are the function's parameters the closure captures and chooses by (receiver not counted).
	By []int
	// Calls says that the choice calls a function value derived from them (a predicate func): two
	// calls then agree only when the arguments for By cannot hold one (a bool, a string).
	Calls bool
}

func (*selectFact) AFact() {}

func (f *selectFact) String() string {
	var b strings.Builder
	b.WriteString("returns func selecting")
	for _, p := range f.Params {
		b.WriteString(" " + strconv.Itoa(p))
	}
	b.WriteString(" by")
	for _, p := range f.By {
		b.WriteString(" outer " + strconv.Itoa(p))
	}
	if f.Calls {
		b.WriteString(", calling")
	}
	return b.String()
}

// exportSelectors exports a selectFact for each exported function of the package that returns a
// selector closure.
func (st *state) exportSelectors() {
	for _, f := range st.funcs {
		fn, ok := f.Object().(*types.Func)
		if !ok || f.Synthetic != "" || f.Parent() != nil || !fn.Exported() {
			continue
		}
		idx := funcResult(f.Signature)
		if idx < 0 {
			continue
		}
		fact := selectorOf(f, idx)
		if fact != nil {
			off := recvOffset(fn)
			for i := range fact.By {
				fact.By[i] -= off
			}
			st.pass.ExportObjectFact(fn, fact)
		}
	}
}

// selectorOf returns the fact of f when its result idx is always one selector closure.
func selectorOf(f *ssa.Function, idx int) *selectFact {
	var fact *selectFact
	for _, b := range f.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		mk, ok := ret.Results[idx].(*ssa.MakeClosure)
		if !ok || fact != nil {
			return nil
		}
		g := mk.Fn.(*ssa.Function)
		fixed := map[ssa.Value]bool{}
		fact = &selectFact{}
		for i, bv := range mk.Bindings {
			p := capturedParam(f, mk, bv)
			if p == nil {
				return nil // a value computed in f, or a variable written again: not followed
			}
			fv := g.FreeVars[i]
			if _, cell := bv.(*ssa.Alloc); cell {
				for _, r := range *fv.Referrers() {
					switch r := r.(type) {
					case *ssa.UnOp:
						if r.Op != token.MUL {
							return nil
						}
						fixed[r] = true
					case *ssa.DebugRef:
					default:
						return nil
					}
				}
			} else {
				fixed[fv] = true
			}
			for j, q := range f.Params {
				if q == p {
					fact.By = append(fact.By, j)
				}
			}
		}
		choosable := map[ssa.Value]int{}
		for i, p := range g.Params {
			if isString(p.Type()) {
				choosable[p] = i
			}
		}
		s := &selScan{busy: map[*ssa.Function]bool{}}
		params, ok := s.selector(g, choosable, fixed)
		if !ok || len(params) < 2 {
			return nil
		}
		fact.Params, fact.Calls = params, s.calls
	}
	return fact
}

// capturedParam returns the parameter of f that the binding bv of closure mk holds: the parameter
// itself, or the cell it was spilled to (a parameter that a closure captures), when nothing writes
// the cell again.
func capturedParam(f *ssa.Function, mk *ssa.MakeClosure, bv ssa.Value) *ssa.Parameter {
	switch bv := bv.(type) {
	case *ssa.Parameter:
		if bv.Parent() == f {
			return bv
		}
	case *ssa.Alloc:
		var p *ssa.Parameter
		for _, r := range *bv.Referrers() {
			switch r := r.(type) {
			case *ssa.Store:
				q, ok := r.Val.(*ssa.Parameter)
				if !ok || p != nil || r.Addr != bv || q.Parent() != f {
					return nil
				}
				p = q
			case *ssa.MakeClosure:
				if r != mk {
					return nil
				}
			case *ssa.DebugRef:
			default:
				return nil
			}
		}
		return p
	}
	return nil
}

// selScan checks that functions choose their result by fixed values alone.
type selScan struct {
	busy  map[*ssa.Function]bool
	calls bool // a function value derived from the fixed values is called
}

// selector reports which of the choosable parameters (value → index) g may return, when g returns
// nothing else, uses them for nothing else, and branches on fixed values alone.
func (s *selScan) selector(g *ssa.Function, choosable map[ssa.Value]int, fixed map[ssa.Value]bool) ([]int, bool) {
	if len(g.Blocks) == 0 || s.busy[g] {
		return nil, false
	}
	s.busy[g] = true
	defer delete(s.busy, g)
	seen := map[int]bool{}
	var out []int
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	// passes maps the calls that hand choosable parameters on to what they may return.
	passes := map[*ssa.Call][]int{}
	for _, b := range g.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Return:
				if len(in.Results) != 1 {
					return nil, false
				}
				var ret func(v ssa.Value, depth int) bool
				ret = func(v ssa.Value, depth int) bool {
					if i, ok := choosable[v]; ok {
						add(i)
						return true
					}
					switch v := v.(type) {
					case *ssa.Call:
						is, ok := passes[v]
						if !ok {
							is, ok = s.passOn(g, v, choosable, fixed)
							if !ok {
								return false
							}
							passes[v] = is
						}
						for _, i := range is {
							add(i)
						}
						return true
					case *ssa.Phi:
						if depth > 8 {
							return false
						}
						for _, e := range v.Edges {
							if !ret(e, depth+1) {
								return false
							}
						}
						return true
					}
					return false
				}
				if !ret(in.Results[0], 0) {
					return nil, false
				}
			case *ssa.If:
				if !s.fixedValue(in.Cond, fixed, 0) {
					return nil, false
				}
			}
			// Other instructions cannot change the choice: the branches read fixed values through
			// operations without memory, whatever else the function does.
		}
	}
	// A choosable parameter goes nowhere but to a return, a φ of returns or a call handing it on.
	for p := range choosable {
		for _, r := range *p.Referrers() {
			switch r := r.(type) {
			case *ssa.Return, *ssa.DebugRef, *ssa.Phi:
			case *ssa.Call:
				if _, ok := passes[r]; !ok {
					return nil, false
				}
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// passOn checks a call of g that hands some of g's choosable parameters to a selector of the same
// package, the others of its arguments being fixed: it returns the parameters of g it may return.
func (s *selScan) passOn(g *ssa.Function, c *ssa.Call, choosable map[ssa.Value]int, fixed map[ssa.Value]bool) ([]int, bool) {
	h := c.Common().StaticCallee()
	if h == nil || pkgOf(h) != pkgOf(g) || c.Common().IsInvoke() {
		return nil, false
	}
	hChoosable := map[ssa.Value]int{}
	hFixed := map[ssa.Value]bool{}
	for j, a := range c.Common().Args {
		if j >= len(h.Params) {
			return nil, false
		}
		if _, ok := choosable[a]; ok {
			hChoosable[h.Params[j]] = j
		} else if s.fixedValue(a, fixed, 0) {
			hFixed[h.Params[j]] = true
		} else {
			return nil, false
		}
	}
	is, ok := s.selector(h, hChoosable, hFixed)
	if !ok {
		return nil, false
	}
	var out []int
	for _, j := range is {
		out = append(out, choosable[c.Common().Args[j]])
	}
	return out, true
}

// fixedValue reports whether v is computed from fixed values and constants alone, by operations
// without memory and by calls of functions of the package that are themselves such computations
// of their parameters, or of a function value so computed.
func (s *selScan) fixedValue(v ssa.Value, fixed map[ssa.Value]bool, depth int) bool {
	if fixed[v] {
		return true
	}
	if depth > 32 {
		return false
	}
	switch v := v.(type) {
	case *ssa.Const:
		return true
	case *ssa.Call:
		c := v.Common()
		if c.IsInvoke() {
			return false
		}
		for _, a := range c.Args {
			if !s.fixedValue(a, fixed, depth+1) {
				return false
			}
		}
		if h := c.StaticCallee(); h != nil {
			return pkgOf(h) == pkgOf(v.Parent()) && s.pure(h)
		}
		if _, ok := c.Value.(*ssa.Builtin); ok {
			return false
		}
		if s.fixedValue(c.Value, fixed, depth+1) {
			s.calls = true
			return true
		}
		return false
	case *ssa.Phi:
		fixed[v] = true // a loop of φ-nodes is fixed when its other edges are
		for _, e := range v.Edges {
			if !s.fixedValue(e, fixed, depth+1) {
				delete(fixed, v)
				return false
			}
		}
		return true
	case ssa.Instruction:
		if !pureInstr(v) {
			return false
		}
		var ops []*ssa.Value
		for _, op := range v.Operands(ops) {
			if *op != nil && !s.fixedValue(*op, fixed, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// pure reports whether h computes its results from its parameters alone (fixedValue).
func (s *selScan) pure(h *ssa.Function) bool {
	if len(h.Blocks) == 0 || s.busy[h] || len(h.FreeVars) > 0 {
		return false
	}
	s.busy[h] = true
	defer delete(s.busy, h)
	fixed := map[ssa.Value]bool{}
	for _, p := range h.Params {
		fixed[p] = true
	}
	for _, b := range h.Blocks {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Return:
				for _, r := range in.Results {
					if !s.fixedValue(r, fixed, 0) {
						return false
					}
				}
			case *ssa.If:
				if !s.fixedValue(in.Cond, fixed, 0) {
					return false
				}
			case *ssa.Jump, *ssa.DebugRef:
			case ssa.Value:
				if !s.fixedValue(in, fixed, 0) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// pkgOf is the package of f, or of the generic function it instantiates.
func pkgOf(f *ssa.Function) *ssa.Package {
	if f.Pkg == nil && f.Origin() != nil {
		return f.Origin().Pkg
	}
	return f.Pkg
}

// pureInstr reports whether in computes its value from its operands alone, without memory.
func pureInstr(in ssa.Instruction) bool {
	switch in := in.(type) {
	case *ssa.UnOp:
		return in.Op != token.MUL && in.Op != token.ARROW
	case *ssa.BinOp, *ssa.TypeAssert, *ssa.MakeInterface, *ssa.ChangeType, *ssa.Convert,
		*ssa.ChangeInterface, *ssa.Extract, *ssa.Phi:
		return true
	}
	return false
}

// evalSelect evaluates the call c of a selector closure per choice, when c.Value is the result of a
// call of a function with a selectFact that is made once per run of fn (no loop around it) and
// whose choice cannot call a function value; ok is false otherwise.
func (st *state) evalSelect(fn *ssa.Function, c *ssa.CallCommon, pos token.Pos) ([]tmpl, bool) {
	v, ok := c.Value.(*ssa.Call)
	if !ok || c.IsInvoke() || c.StaticCallee() != nil {
		return nil, false
	}
	callee := v.Common().StaticCallee()
	if callee == nil {
		return nil, false
	}
	obj, ok := callee.Object().(*types.Func)
	if !ok || obj.Pkg() == st.pass.Pkg {
		return nil, false
	}
	obj = obj.Origin()
	var fact selectFact
	var shapes closureFact
	if !st.pass.ImportObjectFact(obj, &fact) || !st.pass.ImportObjectFact(obj, &shapes) || inLoop(v.Block()) {
		return nil, false
	}
	args := fullArgs(v.Common())
	off := recvOffset(obj)
	for _, i := range fact.By {
		if i+off >= len(args) || fact.Calls && !valueOnly(args[i+off].Type()) {
			return nil, false
		}
	}
	hints := st.argHints(c)
	var ts []tmpl
	for _, s := range shapes.Shapes {
		ts = append(ts, fromShape(s))
	}
	ts = st.subst(ts, func(p part) ([]tmpl, bool) {
		switch {
		case p.Kind == PartParam && p.Param < len(c.Args):
			return st.choose(fn, c.Args[p.Param], v, p.Param, hints[p.Param], map[ssa.Value]bool{}), true
		case p.Kind == PartOuter && p.Param+off < len(args):
			return st.eval(fn, args[p.Param+off]), true
		}
		return hole(), true
	})
	ts = withOrigin(ts, "result of the function "+funcName(obj)+" returns")
	for i, t := range ts {
		if pos.IsValid() && hasColonLit(t) {
			ts[i].defs = append([]token.Pos{pos}, t.defs...)
		}
	}
	return capAlts(ts), true
}

// choose is what x may be when every call of the selector closure sel in it chooses parameter k.
func (st *state) choose(fn *ssa.Function, x ssa.Value, sel *ssa.Call, k int, hint ast.Node, seen map[ssa.Value]bool) []tmpl {
	switch x := x.(type) {
	case *ssa.Call:
		if c := x.Common(); c.Value == sel && !c.IsInvoke() && k < len(c.Args) {
			return st.choose(fn, c.Args[k], sel, k, nil, seen)
		}
	case *ssa.Phi:
		if seen[x] {
			return nil
		}
		seen[x] = true
		var out []tmpl
		for _, e := range x.Edges {
			out = append(out, st.choose(fn, e, sel, k, nil, seen)...)
		}
		if len(out) == 0 {
			return hole()
		}
		return capAlts(out)
	}
	return st.evalIn(fn, x, hint)
}

// valueOnly reports whether a value of type t cannot be or hold a function: a boolean, number or
// string.
func valueOnly(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsBoolean|types.IsNumeric|types.IsString) != 0
}

// inLoop reports whether block b may run twice in one run of its function.
func inLoop(b *ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), b.Succs...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == b {
			return true
		}
		if !seen[n] {
			seen[n] = true
			stack = append(stack, n.Succs...)
		}
	}
	return false
}
