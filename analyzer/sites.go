package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"

	"golang.org/x/tools/go/types/objectpath"
)

// Sites and sinks: where strings are written, which of those places are sinks, and how sinks
// spread back to the parameters and fields that feed them.

// collectSites finds every write of a string to a field or argument that is, or may become, a
// sink.
func (st *state) collectSites() {
	st.funcDecls(func(_ *ast.FuncDecl, obj *types.Func) {
		fi := st.fn(obj)
		st.sitesIn(fi, fi.decl.Body)
	})
	for _, file := range st.pass.Files {
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				st.sitesIn(st.pkgInit, g)
			}
		}
	}
}

func (st *state) sitesIn(fi *fnInfo, root ast.Node) {
	info := st.pass.TypesInfo
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			t := info.TypeOf(n)
			if t == nil {
				return true
			}
			if p, ok := types.Unalias(t).(*types.Pointer); ok {
				t = p.Elem()
			}
			s, ok := t.Underlying().(*types.Struct)
			if !ok {
				return true
			}
			owner, _ := types.Unalias(t).(*types.Named)
			for i, el := range n.Elts {
				var fv *types.Var
				value := el
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					id, _ := kv.Key.(*ast.Ident)
					if id == nil {
						continue
					}
					fv, _ = info.Uses[id].(*types.Var)
					value = kv.Value
				} else if i < s.NumFields() {
					fv = s.Field(i)
				}
				if fv != nil && isString(fv.Type()) && st.maySinkField(owner, fv) {
					st.sites = append(st.sites, &site{fn: fi, value: value, at: n, field: fv.Origin(), owner: owner})
				}
				if fv != nil {
					if _, ok := envoyKeyField(owner, fv); ok {
						if m, ok := ast.Unparen(value).(*ast.CompositeLit); ok {
							for _, me := range m.Elts {
								if kv, ok := me.(*ast.KeyValueExpr); ok {
									st.sites = append(st.sites, &site{fn: fi, value: kv.Key, at: m, field: fv.Origin(), owner: owner, key: true})
								}
							}
						}
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok != token.ASSIGN || len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, l := range n.Lhs {
				if ix, ok := ast.Unparen(l).(*ast.IndexExpr); ok {
					// m.ClusterMinHealthyPercentages[name] = p
					if sel, ok := ast.Unparen(ix.X).(*ast.SelectorExpr); ok {
						if selection, ok := info.Selections[sel]; ok && selection.Kind() == types.FieldVal {
							fv := selection.Obj().(*types.Var)
							if owner := ownerOf(selection); owner != nil {
								if _, ok := envoyKeyField(owner, fv); ok {
									st.sites = append(st.sites, &site{fn: fi, value: ix.Index, at: n, field: fv.Origin(), owner: owner, key: true})
								}
							}
						}
					}
					continue
				}
				sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
				if !ok {
					continue
				}
				selection, ok := info.Selections[sel]
				if !ok || selection.Kind() != types.FieldVal {
					continue
				}
				fv := selection.Obj().(*types.Var)
				owner := ownerOf(selection)
				if isString(fv.Type()) && st.maySinkField(owner, fv) {
					st.sites = append(st.sites, &site{fn: fi, value: n.Rhs[i], at: n, field: fv.Origin(), owner: owner})
				}
			}
		case *ast.CallExpr:
			fn := fi.callee(n)
			if fn == nil {
				return true
			}
			if !st.maySinkFunc(fn) {
				return true
			}
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				if s, ok := info.Selections[sel]; ok && s.Kind() == types.MethodExpr {
					return true
				}
			}
			sig := fn.Type().(*types.Signature)
			for i, a := range n.Args {
				if i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1 {
					break
				}
				if isString(sig.Params().At(i).Type()) {
					st.sites = append(st.sites, &site{fn: fi, value: a, at: n, callee: fn, param: i})
				}
			}
		}
		return true
	})
}

// ownerOf returns the struct type that declares the selected field, following embedded fields.
func ownerOf(sel *types.Selection) *types.Named {
	t := sel.Recv()
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		n := namedOf(t)
		var s *types.Struct
		if n != nil {
			s, _ = n.Underlying().(*types.Struct)
		} else if p, ok := types.Unalias(t).(*types.Pointer); ok {
			s, _ = p.Elem().Underlying().(*types.Struct)
		} else {
			s, _ = t.Underlying().(*types.Struct)
		}
		if s == nil || i >= s.NumFields() {
			return nil
		}
		t = s.Field(i).Type()
	}
	return namedOf(t)
}

func (st *state) maySinkField(owner *types.Named, fv *types.Var) bool {
	if fv.Pkg() == st.pass.Pkg {
		return true
	}
	if owner != nil {
		if _, ok := envoyField(owner, fv); ok {
			return true
		}
	}
	if _, ok := st.foreignSinks()[fv.Origin()]; ok {
		return true
	}
	// A field of another package may still turn out to be a sink in this one.
	return st.foreignSinkable(fv) || st.importedField(fv.Origin()) != nil
}

// fieldOwner names the package-level type that declares field fv, if any.
func (st *state) fieldOwner(fv *types.Var) string {
	scope := fv.Pkg().Scope()
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok {
			continue
		}
		if s, ok := tn.Type().Underlying().(*types.Struct); ok {
			for i := 0; i < s.NumFields(); i++ {
				if s.Field(i) == fv {
					return tn.Name()
				}
			}
		}
	}
	return ""
}

// foreignSinks returns the fields of other packages that the packages this one imports found to
// be sinks (pkgFact.Foreign), made on first use.
func (st *state) foreignSinks() map[*types.Var]Sink {
	if st.foreign != nil {
		return st.foreign
	}
	st.foreign = map[*types.Var]Sink{}
	for _, pf := range st.pass.AllPackageFacts() {
		f, ok := pf.Fact.(*pkgFact)
		if !ok {
			continue
		}
		for _, ff := range f.Foreign {
			p := st.packages()[ff.Pkg]
			if p == nil {
				continue
			}
			if obj, err := objectpath.Object(p, objectpath.Path(ff.Obj)); err == nil {
				if v, ok := obj.(*types.Var); ok {
					st.foreign[v] = ff.Sink
				}
			}
		}
	}
	return st.foreign
}

// packages maps the path of every package this one imports, directly or not, to it.
func (st *state) packages() map[string]*types.Package {
	if st.pkgs == nil {
		st.pkgs = map[string]*types.Package{}
		var walk func(p *types.Package)
		walk = func(p *types.Package) {
			if _, ok := st.pkgs[p.Path()]; ok {
				return
			}
			st.pkgs[p.Path()] = p
			for _, imp := range p.Imports() {
				walk(imp)
			}
		}
		walk(st.pass.Pkg)
	}
	return st.pkgs
}

func (st *state) maySinkFunc(fn *types.Func) bool {
	if fn.Pkg() == st.pass.Pkg {
		return true
	}
	if _, ok := st.cfg.sinks[funcKey(fn)]; ok {
		return true
	}
	return st.importedParams(fn) != nil
}

func (st *state) importedField(fv *types.Var) *sinkFieldFact {
	if f, ok := st.impFields[fv]; ok {
		return f
	}
	var f *sinkFieldFact
	if fv.Pkg() != nil && fv.Pkg() != st.pass.Pkg {
		f = new(sinkFieldFact)
		if !st.pass.ImportObjectFact(fv, f) {
			f = nil
		}
	}
	st.impFields[fv] = f
	return f
}

func (st *state) importedParams(fn *types.Func) *sinkParamsFact {
	if f, ok := st.impParams[fn]; ok {
		return f
	}
	var f *sinkParamsFact
	if fn.Pkg() != nil && fn.Pkg() != st.pass.Pkg {
		f = new(sinkParamsFact)
		if !st.pass.ImportObjectFact(fn, f) {
			f = nil
		}
	}
	st.impParams[fn] = f
	return f
}

// resolve tells whether a site's target is a sink, and which.
func (st *state) resolve(s *site) (Sink, bool) {
	if s.key {
		return envoyKeyField(s.owner, s.field)
	}
	if s.field != nil {
		if s.owner != nil {
			if sk, ok := envoyField(s.owner, s.field); ok {
				return sk, true
			}
		}
		if sk, ok := st.fieldSinks[s.field]; ok {
			return sk, true
		}
		if sk, ok := st.foreignSinks()[s.field]; ok {
			return sk, true
		}
		if f := st.importedField(s.field); f != nil {
			return f.Sink, true
		}
		return Sink{}, false
	}
	if m, ok := st.paramSinks[s.callee]; ok {
		if sk, ok := m[s.param]; ok {
			return sk, true
		}
	}
	if f := st.importedParams(s.callee); f != nil {
		for _, p := range f.Params {
			if p.Index == s.param {
				return p.Sink, true
			}
		}
	}
	if idx, ok := st.cfg.sinks[funcKey(s.callee)]; ok {
		for _, i := range idx {
			if i == s.param {
				return Sink{Field: "argument " + strconv.Itoa(i) + " of " + funcName(s.callee) + " (-sinks)"}, true
			}
		}
	}
	return Sink{}, false
}

// targetDesc names a site's target for humans.
func (s *site) targetDesc() string {
	if s.key {
		sk, _ := envoyKeyField(s.owner, s.field)
		return sk.Field
	}
	if s.field != nil {
		if s.owner != nil {
			if sk, ok := envoyField(s.owner, s.field); ok {
				return sk.Field
			}
			return s.owner.Obj().Pkg().Name() + "." + s.owner.Obj().Name() + "." + s.field.Name()
		}
		return "field " + s.field.Name()
	}
	sig := s.callee.Type().(*types.Signature)
	return funcName(s.callee) + " parameter " + sig.Params().At(s.param).Name()
}

// propagate grows the sinks to a fixed point: a parameter or field whose value is copied to a
// sink is a sink.
func (st *state) propagate() {
	for changed := true; changed; {
		changed = false
		for _, s := range st.sites {
			if s.done {
				continue
			}
			sk, ok := st.resolve(s)
			if !ok {
				continue
			}
			s.done, s.sink = true, sk
			s.vals = s.fn.eval(s.value)
			for _, t := range s.vals {
				// Only a plain copy carries the sink back; a value that went through a call
				// (a sanitizer, a formatter) or is a piece of a longer name does not.
				if len(t.parts) != 1 || t.called {
					continue
				}
				switch p := t.parts[0]; p.Kind {
				case PartParam:
					if s.fn.obj == nil {
						continue
					}
					sig := s.fn.obj.Type().(*types.Signature)
					step := st.step(s.fn.obj, funcName(s.fn.obj)+" writes parameter "+sig.Params().At(p.Param).Name()+" to "+s.targetDesc())
					if st.addParamSink(s.fn.obj, p.Param, sk.prepend(step, s.value.Pos())) {
						changed = true
					}
				case partField:
					who := "package initialisation"
					if s.fn.obj != nil {
						who = funcName(s.fn.obj)
					}
					step := st.step(s.fn.obj, who+" writes field "+p.field.Name()+" to "+s.targetDesc())
					if st.addFieldSink(p.field, sk.prepend(step, s.value.Pos())) {
						changed = true
					}
				}
			}
		}
	}
}

// step describes one write by function writer (nil: a package variable's initialiser).
func (st *state) step(writer *types.Func, text string) Step {
	s := Step{Text: text, Pkg: st.pass.Pkg.Path()}
	if writer != nil {
		if p, err := objectpath.For(writer); err == nil {
			s.Obj = string(p)
		}
	}
	return s
}

// stepPos finds where an imported step was written: the declaration of the writing function.
func (st *state) stepPos(s Step) token.Pos {
	if s.Obj == "" {
		return token.NoPos
	}
	p := st.packages()[s.Pkg]
	if p == nil {
		return token.NoPos
	}
	obj, err := objectpath.Object(p, objectpath.Path(s.Obj))
	if err != nil {
		return token.NoPos
	}
	return obj.Pos()
}

func (st *state) addParamSink(fn *types.Func, i int, sk Sink) bool {
	m := st.paramSinks[fn]
	if m == nil {
		m = map[int]Sink{}
		st.paramSinks[fn] = m
	}
	if _, ok := m[i]; ok {
		return false
	}
	m[i] = sk
	return true
}

func (st *state) addFieldSink(fv *types.Var, sk Sink) bool {
	if _, ok := st.fieldSinks[fv]; ok {
		return false
	}
	st.fieldSinks[fv] = sk
	return true
}

// exportSinks exports the sinks importers can reach: parameters of exported functions and
// exported fields.
func (st *state) exportSinks() {
	exported := false
	for fn, m := range st.paramSinks {
		if !fn.Exported() {
			continue
		}
		f := &sinkParamsFact{}
		for i, sk := range m {
			f.Params = append(f.Params, ParamSink{Index: i, Sink: sk})
		}
		sortParams(f.Params)
		st.pass.ExportObjectFact(fn, f)
		exported = true
	}
	pf := &pkgFact{}
	for fv, sk := range st.fieldSinks {
		if !fv.Exported() {
			continue
		}
		if fv.Pkg() == st.pass.Pkg {
			st.pass.ExportObjectFact(fv, &sinkFieldFact{Sink: sk})
			exported = true
			continue
		}
		if _, known := st.foreignSinks()[fv]; known || st.importedField(fv) != nil {
			continue
		}
		if p, err := objectpath.For(fv); err == nil {
			name := fv.Pkg().Name() + "." + fv.Name()
			if owner := st.fieldOwner(fv); owner != "" {
				name = fv.Pkg().Name() + "." + owner + "." + fv.Name()
			}
			pf.Foreign = append(pf.Foreign, ForeignField{Pkg: fv.Pkg().Path(), Obj: string(p), Name: name, Sink: sk})
		}
	}
	if len(pf.Foreign) > 0 || exported {
		sort.Slice(pf.Foreign, func(i, j int) bool {
			return pf.Foreign[i].Pkg+"."+pf.Foreign[i].Obj < pf.Foreign[j].Pkg+"."+pf.Foreign[j].Obj
		})
		st.pass.ExportPackageFact(pf)
	}
}

func sortParams(ps []ParamSink) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Index < ps[j-1].Index; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
