package analyzer

import (
	"go/types"
	"sort"

	"golang.org/x/tools/go/types/objectpath"
)

// Sink fields of other packages, forwarded. A package that finds a field of another package to be
// a sink (a configurer of listeners/v3 copying envoy.StaticEndpointPath.ClusterName to a route)
// lists it in its pkgFact, and its importers check the writes to that field. But go vet gives a
// package the package facts of its direct imports only: a generator that imports the listeners
// package, which imports listeners/v3, would never learn of the field. So every package forwards,
// in a forwardFact, the foreign sink fields of its direct imports (theirs and those forwarded to
// them), as it forwards the implementations it sees (implsFact). A package reads foreign sink
// fields from its direct imports only, the way go vet hands them, so that the tests, whose driver
// keeps every package's facts, see what go vet sees.

// forwardFact lists the sink fields of other packages that the packages below this one found.
type forwardFact struct {
	Fields []ForeignField
}

func (*forwardFact) AFact() {}

func (f *forwardFact) String() string {
	s := "forwards"
	for _, ff := range f.Fields {
		s += " " + ff.Name + "->" + ff.Sink.Field
	}
	return s
}

// importedForeign returns the foreign sink fields of the package's direct imports, found by them
// (pkgFact) or forwarded to them (forwardFact), each once, sorted; made on first use.
func (st *state) importedForeign() []ForeignField {
	if st.impForeign != nil {
		return *st.impForeign
	}
	seen := map[string]bool{}
	var out []ForeignField
	add := func(ffs []ForeignField) {
		for _, ff := range ffs {
			if k := ff.Pkg + "." + ff.Obj; !seen[k] {
				seen[k] = true
				out = append(out, ff)
			}
		}
	}
	for _, imp := range st.pass.Pkg.Imports() {
		if f := new(pkgFact); st.pass.ImportPackageFact(imp, f) {
			add(f.Foreign)
		}
		if f := new(forwardFact); st.pass.ImportPackageFact(imp, f) {
			add(f.Fields)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pkg+"."+out[i].Obj < out[j].Pkg+"."+out[j].Obj })
	st.impForeign = &out
	return out
}

// exportForward forwards the foreign sink fields of the package's imports to its importers.
func (st *state) exportForward() {
	if ffs := st.importedForeign(); len(ffs) > 0 {
		st.pass.ExportPackageFact(&forwardFact{Fields: ffs})
	}
}

// resolveForeign finds the fields ffs name among the packages this one imports.
func (st *state) resolveForeign(ffs []ForeignField) map[*types.Var]Sink {
	out := make(map[*types.Var]Sink, len(ffs))
	for _, ff := range ffs {
		p := st.packages()[ff.Pkg]
		if p == nil {
			continue
		}
		if obj, err := objectpath.Object(p, objectpath.Path(ff.Obj)); err == nil {
			if v, ok := obj.(*types.Var); ok {
				out[v] = ff.Sink
			}
		}
	}
	return out
}

// usesForeign reports whether the package names a foreign sink field forwarded to it, or the type
// that declares one (an unkeyed literal): the writes to it are the package's sites, though it
// imports no package that exports a sink of its own.
func (st *state) usesForeign() bool {
	fields := st.foreignSinks()
	if len(fields) == 0 {
		return false
	}
	owners := map[types.Object]bool{}
	for v := range fields {
		if owner := st.fieldOwner(v); owner != "" {
			owners[v.Pkg().Scope().Lookup(owner)] = true
		}
	}
	for _, obj := range st.pass.TypesInfo.Uses {
		if v, ok := obj.(*types.Var); ok && v.IsField() {
			if _, ok := fields[v.Origin()]; ok {
				return true
			}
		} else if owners[obj] {
			return true
		}
	}
	return false
}
