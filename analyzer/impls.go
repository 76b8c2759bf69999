package analyzer

import (
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Implementations that a caller cannot see. Go vet analyses one package at a time, and facts
// reach it only for the objects of the packages its type information mentions: a generator that
// calls SecretsTracker.RequestCa(mesh).Name() on an interface of one package, implemented in
// another that it depends on only through packages whose API does not mention it, sees no fact of
// the implementation, though the implementation is part of its program. So the package that
// converts its own type to an interface says so, as a package fact: this method of this
// interface may return these shapes. Every package forwards the facts of its imports in its own,
// so that the packages above see the implementations below them whatever their types mention,
// as class-hierarchy analysis over the program would.

// implsFact lists implementations of interface methods with a string result.
type implsFact struct {
	Impls []IfaceImpl
}

// IfaceImpl is one implementation of an interface method, known by the shapes of its result.
type IfaceImpl struct {
	// Method is the interface method, "pkgpath.Type.Method".
	Method string
	// Impl names the implementation for humans, "(envoy.caRequest).Name", and ImplPkg is its
	// package's path.
	Impl, ImplPkg string
	// Recv is the implementation's receiver, its named type as typeKey spells it.
	Recv string
	// Shapes are the result's shapes, PartParam parts being the method's parameters.
	Shapes []Shape
	// Returns are, for a method whose result is an interface (SecretsTracker.RequestCa returning a
	// CaRequest), the named types the implementation returns in it: a call of the method on the
	// interface then runs only their methods (narrow).
	Returns []string
}

func (*implsFact) AFact() {}

func (f *implsFact) String() string {
	var b strings.Builder
	b.WriteString("implements")
	for _, im := range f.Impls {
		b.WriteString(" " + im.Method + "=" + im.Impl)
		for _, s := range im.Shapes {
			b.WriteString(" " + s.String())
		}
		if len(im.Returns) > 0 {
			short := make([]string, len(im.Returns))
			for i, r := range im.Returns {
				short[i] = r[strings.LastIndexByte(r, '/')+1:]
			}
			b.WriteString(" returns " + strings.Join(short, ","))
		}
	}
	return b.String()
}

// ifaceMethodKey names an interface method by the named interface that declares it, or "" when
// it has none (a method of an interface literal).
func ifaceMethodKey(m *types.Func) string {
	recv := m.Type().(*types.Signature).Recv()
	if recv == nil || m.Pkg() == nil {
		return ""
	}
	n, ok := types.Unalias(recv.Type()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name() + "." + m.Name()
}

// exportImpls exports the implementations the package makes, where it converts one of its own
// types to a named interface whose method returns a string, with those its imports export.
func (st *state) exportImpls() {
	seen := map[string]bool{}
	var out []IfaceImpl
	add := func(im IfaceImpl) {
		k := im.Method + "\x00" + im.Impl
		if !seen[k] {
			seen[k] = true
			out = append(out, im)
		}
	}
	for _, pf := range st.pass.AllPackageFacts() {
		if f, ok := pf.Fact.(*implsFact); ok {
			for _, im := range f.Impls {
				add(im)
			}
		}
	}
	if st.pkg != nil {
		for _, im := range st.ownImpls() {
			add(im)
		}
	}
	if len(out) == 0 {
		return
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Method != out[j].Method {
			return out[i].Method < out[j].Method
		}
		return out[i].Impl < out[j].Impl
	})
	st.pass.ExportPackageFact(&implsFact{Impls: out})
}

// ownImpls finds the conversions of the package's own types to named interfaces and the shapes of
// the methods they implement.
func (st *state) ownImpls() []IfaceImpl {
	type conv struct {
		t     types.Type
		iface *types.Named
	}
	done := map[conv]bool{}
	var out []IfaceImpl
	for _, f := range st.funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				mi, ok := in.(*ssa.MakeInterface)
				if !ok {
					continue
				}
				iface, ok := types.Unalias(mi.Type()).(*types.Named)
				if !ok || !types.IsInterface(iface) {
					continue
				}
				t := mi.X.Type()
				if n := namedOf(t); n == nil || n.Obj().Pkg() != st.pass.Pkg || n.TypeParams().Len() > 0 {
					continue
				}
				if done[conv{t, iface}] {
					continue
				}
				done[conv{t, iface}] = true
				it := iface.Underlying().(*types.Interface)
				recv := typeKey(namedOf(t))
				for i := 0; i < it.NumMethods(); i++ {
					m := it.Method(i)
					key := ifaceMethodKey(m)
					sig := m.Type().(*types.Signature)
					ri, ii := stringResult(sig), ifaceResult(sig)
					if key == "" || ri < 0 && ii < 0 {
						continue
					}
					sel := st.prog.MethodSets.MethodSet(t).Lookup(m.Pkg(), m.Name())
					if sel == nil {
						continue
					}
					fn, _ := st.declared(st.prog.MethodValue(sel))
					obj, ok := fn.Object().(*types.Func)
					if !ok || len(fn.Blocks) == 0 || isErrorMethod(obj) {
						continue
					}
					if ri < 0 {
						if rs := st.concreteResults(fn, ii); len(rs) > 0 {
							out = append(out, IfaceImpl{Method: key, Impl: funcName(obj), ImplPkg: st.pass.Pkg.Path(), Recv: recv, Returns: rs})
						}
						continue
					}
					shapes := st.shapes(st.results(fn, ri), func(p part) (Part, bool) {
						if p.fn == fn && (p.Kind == PartParam || p.Kind == PartJoin) && p.Param >= 1 {
							return Part{Kind: p.Kind, Param: p.Param - 1, Sep: p.Sep}, true
						}
						return Part{}, false
					})
					if shapes != nil {
						out = append(out, IfaceImpl{Method: key, Impl: funcName(obj), ImplPkg: st.pass.Pkg.Path(), Recv: recv, Shapes: shapes})
					}
				}
			}
		}
	}
	return out
}

// forwardedImpls returns the implementations of interface method m that the facts forwarded to
// this package describe, but for those in have (found by their object facts).
func (st *state) forwardedImpls(m *types.Func, have []target) []target {
	key := ifaceMethodKey(m)
	if key == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, t := range have {
		if t.obj != nil && t.obj.Pkg() != nil {
			seen[t.obj.Pkg().Path()+"\x00"+funcName(t.obj)] = true
		}
	}
	var out []target
	for _, im := range st.forwarded()[key] {
		if len(im.Shapes) == 0 {
			continue
		}
		// A package's own implementations are never forwarded to it: their facts are exported
		// after its analysis.
		if k := im.ImplPkg + "\x00" + im.Impl; seen[k] || im.ImplPkg == st.pass.Pkg.Path() {
			continue
		} else {
			seen[k] = true
		}
		var ts []tmpl
		for _, s := range im.Shapes {
			t := fromShape(s)
			for i := range t.parts {
				if k := t.parts[i].Kind; k == PartParam || k == PartJoin {
					t.parts[i].Param++ // the receiver comes first in an interface call's arguments
				}
			}
			ts = append(ts, t)
		}
		out = append(out, target{shapes: withOrigin(ts, "result of "+im.Impl), recv: im.Recv})
	}
	return out
}

// forwarded indexes the implementations forwarded to the package by interface method, made on
// first use.
func (st *state) forwarded() map[string][]IfaceImpl {
	if st.fwd == nil {
		st.fwd = map[string][]IfaceImpl{}
		for _, pf := range st.pass.AllPackageFacts() {
			if f, ok := pf.Fact.(*implsFact); ok {
				for _, im := range f.Impls {
					st.fwd[im.Method] = append(st.fwd[im.Method], im)
				}
			}
		}
	}
	return st.fwd
}

// typeKey spells a named type as the facts do, "pkgpath.Name"; "" for nil.
func typeKey(n *types.Named) string {
	if n == nil || n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

// ifaceResult is the index of sig's only result of a named interface type other than error, or -1.
func ifaceResult(sig *types.Signature) int {
	idx := -1
	for i := 0; i < sig.Results().Len(); i++ {
		t := sig.Results().At(i).Type()
		if n, ok := types.Unalias(t).(*types.Named); ok && types.IsInterface(n) && n.Obj().Pkg() != nil {
			if idx >= 0 {
				return -1
			}
			idx = i
		}
	}
	return idx
}

// The implementations of an interface call, narrowed to the types its receiver may hold: the
// receiver of RequestCa(mesh).Name() is what RequestCa returns, a caRequest, so the call runs
// caRequest.Name, not every Name of a type that implements CaRequest. Where the types are unknown,
// every implementation in sight counts, as class-hierarchy analysis has it.

// narrow keeps the targets whose receiver is one of the types v may hold, when they are known.
func (st *state) narrow(fn *ssa.Function, v ssa.Value, ts []target) []target {
	if len(ts) == 0 {
		return ts
	}
	types := st.concrete(fn, v)
	if types == nil {
		return ts
	}
	var out []target
	for _, t := range ts {
		if slices.Contains(types, st.recvKey(t)) {
			out = append(out, t)
		}
	}
	return out
}

// recvKey is the named type of the receiver of a method target.
func (st *state) recvKey(t target) string {
	switch {
	case t.fn != nil:
		d, _ := st.declared(t.fn)
		if r := d.Signature.Recv(); r != nil {
			return typeKey(namedOf(r.Type()))
		}
	case t.obj != nil:
		if r := t.obj.Type().(*types.Signature).Recv(); r != nil {
			return typeKey(namedOf(r.Type()))
		}
	}
	return t.recv
}

// concrete returns the named types the interface value v of fn may hold, or nil when that is not
// known: a conversion, a call whose callees (functions of the package, implementations of an
// interface method in the package or forwarded with their Returns) say what they return, φ-nodes
// of those.
func (st *state) concrete(fn *ssa.Function, v ssa.Value) []string {
	k := memoKey{fn, v}
	if r, ok := st.cmemo[k]; ok {
		return r
	}
	if st.busy[k] || st.depth > maxDepth {
		return nil
	}
	st.busy[k] = true
	st.depth++
	r := st.concrete1(fn, v)
	st.depth--
	delete(st.busy, k)
	if st.cmemo == nil {
		st.cmemo = map[memoKey][]string{}
	}
	st.cmemo[k] = r
	return r
}

func (st *state) concrete1(fn *ssa.Function, v ssa.Value) []string {
	switch v := v.(type) {
	case *ssa.MakeInterface:
		if n := namedOf(v.X.Type()); n != nil && !types.IsInterface(n) {
			return []string{typeKey(n)}
		}
	case *ssa.ChangeInterface:
		return st.concrete(fn, v.X)
	case *ssa.Phi:
		var out []string
		for _, e := range v.Edges {
			ts := st.concrete(fn, e)
			if ts == nil {
				return nil
			}
			out = union(out, ts)
		}
		return out
	case *ssa.Call:
		return st.concreteCall(fn, v.Common(), 0)
	case *ssa.UnOp:
		// An element of a slice: what the stores to its elements convert.
		if ia, ok := v.X.(*ssa.IndexAddr); ok && v.Op == token.MUL {
			vals, unknown := st.elemStores(fn, ia.X)
			if unknown || len(vals) == 0 {
				return nil
			}
			var out []string
			for _, va := range vals {
				ts := st.concrete(va.fn, va.v)
				if ts == nil {
					return nil
				}
				out = union(out, ts)
			}
			return out
		}
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok {
			return st.concreteCall(fn, c.Common(), v.Index)
		}
	}
	return nil
}

// concreteCall returns the named types result idx of a call may hold, or nil.
func (st *state) concreteCall(fn *ssa.Function, c *ssa.CallCommon, idx int) []string {
	if !c.IsInvoke() {
		if callee := c.StaticCallee(); callee != nil && len(callee.Blocks) > 0 {
			return st.concreteResults(callee, idx)
		}
		return nil
	}
	iface, ok := c.Value.Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	return st.implReturns(c.Method, iface, idx, nil)
}

// implReturns returns the named types that the implementations of interface method m may return as
// result idx: those of the package's own (of the receiver types kinds, when not nil) and the
// forwarded ones (their first result); nil when the results of one are not known, or there is none.
func (st *state) implReturns(m *types.Func, iface *types.Interface, idx int, kinds []string) []string {
	var out []string
	found := false
	for _, f := range st.ownMethods(m, iface) {
		if kinds != nil && !slices.Contains(kinds, st.recvKey(target{fn: f})) {
			continue
		}
		ts := st.concreteResults(f, idx)
		if ts == nil {
			return nil
		}
		out, found = union(out, ts), true
	}
	if key := ifaceMethodKey(m); key != "" {
		for _, im := range st.forwarded()[key] {
			if im.ImplPkg == st.pass.Pkg.Path() || kinds != nil && !slices.Contains(kinds, im.Recv) {
				continue
			}
			if len(im.Returns) == 0 {
				return nil
			}
			out, found = union(out, im.Returns), true
		}
	}
	if !found {
		return nil
	}
	return out
}

// concreteResults returns the named types f returns as its result idx, or nil when one of its
// returns is not known.
func (st *state) concreteResults(f *ssa.Function, idx int) []string {
	var out []string
	for _, b := range f.Blocks {
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || idx >= len(ret.Results) {
			continue
		}
		if c, ok := ret.Results[idx].(*ssa.Const); ok && c.IsNil() {
			continue // a nil interface runs no method
		}
		ts := st.concrete(f, ret.Results[idx])
		if ts == nil {
			return nil
		}
		out = union(out, ts)
	}
	return out
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
