package analyzer

import (
	"go/types"
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
	// Shapes are the result's shapes, PartParam parts being the method's parameters.
	Shapes []Shape
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
				for i := 0; i < it.NumMethods(); i++ {
					m := it.Method(i)
					key := ifaceMethodKey(m)
					ri := stringResult(m.Type().(*types.Signature))
					if key == "" || ri < 0 {
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
					shapes := st.shapes(st.results(fn, ri), func(p part) (Part, bool) {
						if p.fn == fn && (p.Kind == PartParam || p.Kind == PartJoin) && p.Param >= 1 {
							return Part{Kind: p.Kind, Param: p.Param - 1, Sep: p.Sep}, true
						}
						return Part{}, false
					})
					if shapes != nil {
						out = append(out, IfaceImpl{Method: key, Impl: funcName(obj), ImplPkg: st.pass.Pkg.Path(), Shapes: shapes})
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
	seen := map[string]bool{}
	for _, t := range have {
		if t.obj != nil && t.obj.Pkg() != nil {
			seen[t.obj.Pkg().Path()+"\x00"+funcName(t.obj)] = true
		}
	}
	var out []target
	for _, im := range st.fwd[key] {
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
		out = append(out, target{shapes: withOrigin(ts, "result of "+im.Impl)})
	}
	return out
}
