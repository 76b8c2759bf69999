package analyzer

import (
	"go/token"
	"go/types"
	"sort"
	"strconv"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/objectpath"
)

// Getters and setters across packages: a type whose name is kept in an unexported field, set by a
// function of its package (an option, a setter, a constructor) and read back by a method that
// importers call, often through an interface (c.Name() on a Cluster interface). The package that
// declares the type exports which methods return which field (getterFact) and which parameters
// are copied to such a field (fieldCopyFact); an importer that writes the result of the getter to
// a sink makes the field a sink, and so the parameter of every call that sets it.

// getterFact marks a method that returns a field of its package as it is.
type getterFact struct {
	Field string // objectpath of the field
	Name  string // for humans
}

func (*getterFact) AFact() {}

func (f *getterFact) String() string { return "returns field " + f.Name }

// fieldCopyFact marks a function whose parameters are copied, as they are, to fields of its
// package that a getter returns.
type fieldCopyFact struct {
	Params []ParamField
}

// ParamField is one parameter (the receiver not counted) and the field it is copied to.
type ParamField struct {
	Index       int
	Field, Name string // objectpath of the field, and its name for humans
}

func (*fieldCopyFact) AFact() {}

func (f *fieldCopyFact) String() string {
	s := "copies"
	for _, p := range f.Params {
		s += " " + strconv.Itoa(p.Index) + "->" + p.Name
	}
	return s
}

// exportGetters exports the getter facts of the package's exported methods and the field-copy
// facts of the exported functions that set those fields.
func (st *state) exportGetters() {
	fields := map[*types.Var]string{}
	for _, f := range st.funcs {
		fn, ok := f.Object().(*types.Func)
		if !ok || f.Synthetic != "" || f.Parent() != nil || !fn.Exported() || f.Signature.Recv() == nil {
			continue
		}
		i := stringResult(f.Signature)
		if i < 0 {
			continue
		}
		rs := st.results(f, i)
		if len(rs) != 1 || len(rs[0].parts) != 1 || rs[0].parts[0].Kind != partField {
			continue
		}
		fv := rs[0].parts[0].field
		if fv == nil || fv.Pkg() != st.pass.Pkg {
			continue
		}
		p, err := objectpath.For(fv)
		if err != nil {
			continue
		}
		fields[fv] = string(p)
		st.pass.ExportObjectFact(fn, &getterFact{Field: string(p), Name: fv.Name()})
	}
	if len(fields) == 0 {
		return
	}
	copies := map[*types.Func][]ParamField{}
	for _, f := range st.funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				s, ok := in.(*ssa.Store)
				if !ok {
					continue
				}
				fa, ok := s.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				fv := fieldOf(fa.X.Type(), fa.Field)
				path, ok := fields[fv]
				if !ok {
					continue
				}
				for _, t := range st.closeFree(st.eval(f, s.Val)) {
					if len(t.parts) != 1 || t.parts[0].Kind != PartParam || t.parts[0].fn == nil {
						continue
					}
					g := t.parts[0].fn
					obj, ok := g.Object().(*types.Func)
					if !ok || g.Parent() != nil || g.Synthetic != "" || !obj.Exported() {
						continue
					}
					idx := t.parts[0].Param - recvOffset(obj)
					if idx < 0 {
						continue
					}
					copies[obj] = append(copies[obj], ParamField{Index: idx, Field: path, Name: fv.Name()})
				}
			}
		}
	}
	for obj, ps := range copies {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Index < ps[j].Index })
		st.pass.ExportObjectFact(obj, &fieldCopyFact{Params: ps})
	}
}

// importedGetter returns the field an imported method returns as it is, if its facts say so.
func (st *state) importedGetter(obj *types.Func) *types.Var {
	var f getterFact
	if obj.Pkg() == nil || obj.Pkg() == st.pass.Pkg || !st.pass.ImportObjectFact(obj, &f) {
		return nil
	}
	return st.objectVar(obj.Pkg(), f.Field)
}

// importedCopies returns the field-copy fact of an imported function, if it has one.
func (st *state) importedCopies(obj *types.Func) *fieldCopyFact {
	var f fieldCopyFact
	if obj.Pkg() == nil || obj.Pkg() == st.pass.Pkg || !st.pass.ImportObjectFact(obj, &f) {
		return nil
	}
	return &f
}

// objectVar finds a field of package pkg by its objectpath.
func (st *state) objectVar(pkg *types.Package, path string) *types.Var {
	obj, err := objectpath.Object(pkg, objectpath.Path(path))
	if err != nil {
		return nil
	}
	v, _ := obj.(*types.Var)
	return v
}

// copySink is the sink a parameter of an imported function reaches through the field it copies
// the parameter to, when that field is a sink here.
func (st *state) copySink(obj *types.Func, idx int) (Sink, bool) {
	f := st.importedCopies(obj)
	if f == nil {
		return Sink{}, false
	}
	for _, p := range f.Params {
		if p.Index != idx {
			continue
		}
		fv := st.objectVar(obj.Pkg(), p.Field)
		if fv == nil {
			continue
		}
		sk, ok := st.fieldSinks[fv]
		if !ok {
			// A getter's field that a package this one imports found to be a sink (pkgFact.Foreign).
			if sk, ok = st.foreignSinks()[fv]; !ok {
				continue
			}
		}
		step := Step{Text: funcName(obj) + " writes its parameter to field " + p.Name, Pkg: obj.Pkg().Path()}
		if path, err := objectpath.For(obj); err == nil {
			step.Obj = string(path)
		}
		return sk.prepend(step, token.NoPos), true
	}
	return Sink{}, false
}
