package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/objectpath"
)

// Sites and sinks: where strings are written, which of those places are sinks, and how sinks
// spread back to the parameters and fields that feed them.

// site is a place where a string value is written somewhere that is, or may become, a sink.
type site struct {
	fn    *ssa.Function
	val   ssa.Value
	instr ssa.Instruction
	expr  ast.Expr // the value's expression, when the syntax index finds it

	field  *types.Var // a field write …
	owner  *types.Named
	key    bool     // … of a key of the map in field …
	calls  []target // … or an argument of a call of one of these
	param  int      // index in the callee's Params (receiver first)
	method string   // … or the result of this method path of an interface argument or field (ParamSink.Method)

	done bool
	sink Sink
	via  *target // the callee whose parameter is the sink
	vals []tmpl
}

func (s *site) pos() token.Pos {
	if s.expr != nil {
		return s.expr.Pos()
	}
	return s.instr.Pos()
}

func (s *site) end() token.Pos {
	if s.expr != nil {
		return s.expr.End()
	}
	return token.NoPos
}

// collectSites finds every write of a string to a field or argument that is, or may become, a
// sink.
func (st *state) collectSites() {
	si := st.syntax()
	for _, f := range st.funcs {
		for _, b := range f.Blocks {
			for _, in := range b.Instrs {
				switch in := in.(type) {
				case *ssa.Store:
					fa, ok := in.Addr.(*ssa.FieldAddr)
					if !ok {
						continue
					}
					fv := fieldOf(fa.X.Type(), fa.Field)
					if fv == nil {
						continue
					}
					owner := namedOf(fa.X.Type())
					if isString(fv.Type()) && st.maySinkField(owner, fv) {
						st.sites = append(st.sites, &site{fn: f, val: in.Val, instr: in, expr: si.values[in.Pos()], field: fv, owner: owner})
					} else if st.mayMethodSinkField(fv) {
						for _, m := range st.methodPaths(fv.Type()) {
							st.sites = append(st.sites, &site{fn: f, val: in.Val, instr: in, expr: si.values[in.Pos()], field: fv, owner: owner, method: m})
						}
					}
					if _, ok := envoyKeyField(owner, fv); ok {
						// A map made here and stored in the field: each of its keys.
						if mm, ok := in.Val.(*ssa.MakeMap); ok && mm.Referrers() != nil {
							for _, r := range *mm.Referrers() {
								if u, ok := r.(*ssa.MapUpdate); ok && u.Map == mm {
									st.sites = append(st.sites, &site{fn: f, val: u.Key, instr: u, expr: si.keys[u.Pos()], field: fv, owner: owner, key: true})
								}
							}
						}
					}
				case *ssa.MapUpdate:
					// m.ClusterMinHealthyPercentages[name] = p
					load, ok := in.Map.(*ssa.UnOp)
					if !ok || load.Op != token.MUL {
						continue
					}
					fa, ok := load.X.(*ssa.FieldAddr)
					if !ok {
						continue
					}
					fv, owner := fieldOf(fa.X.Type(), fa.Field), namedOf(fa.X.Type())
					if fv == nil {
						continue
					}
					if _, ok := envoyKeyField(owner, fv); ok {
						st.sites = append(st.sites, &site{fn: f, val: in.Key, instr: in, expr: si.keys[in.Pos()], field: fv, owner: owner, key: true})
					}
				case ssa.CallInstruction:
					st.callSites(f, in, si)
				}
			}
		}
	}
}

// callSites adds the string arguments of a call whose callee may have sink parameters.
func (st *state) callSites(f *ssa.Function, in ssa.CallInstruction, si *syntaxIndex) {
	c := in.Common()
	ts := st.callees(f, c)
	var keep []target
	for _, t := range ts {
		if st.maySinkTarget(t) {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		return
	}
	args := fullArgs(c)
	sig := c.Signature()
	recv := recvOf(c, sig)
	call := si.calls[in.Pos()]
	for i, a := range args {
		if sig.Variadic() && i-recv >= sig.Params().Len()-1 {
			// The variadic parameter: the method paths of its elements, at the argument when there
			// is one (or the slice is passed with ...).
			var expr ast.Expr
			if call != nil && len(call.Args) == i-recv+1 {
				expr = call.Args[i-recv]
			}
			for _, m := range st.elemPaths(a.Type()) {
				st.sites = append(st.sites, &site{fn: f, val: a, instr: in, expr: expr, calls: keep, param: i, method: m})
			}
			break
		}
		if i < recv {
			continue
		}
		var expr ast.Expr
		if call != nil && i-recv < len(call.Args) {
			expr = call.Args[i-recv]
		}
		if isString(a.Type()) {
			st.sites = append(st.sites, &site{fn: f, val: a, instr: in, expr: expr, calls: keep, param: i})
			continue
		}
		for _, m := range st.methodPaths(a.Type()) {
			st.sites = append(st.sites, &site{fn: f, val: a, instr: in, expr: expr, calls: keep, param: i, method: m})
		}
	}
}

// methodPaths lists the method paths of interface type t whose result may be a sink
// (ParamSink.Method): its name methods, and those of the named interface its other methods return
// ("RequestCa.Name"), made on first use for each type.
func (st *state) methodPaths(t types.Type) []string {
	if _, ok := t.Underlying().(*types.Interface); !ok {
		return st.elemPaths(t)
	}
	if ps, ok := st.paths[t]; ok {
		return ps
	}
	ps := nameMethods(t)
	it := t.Underlying().(*types.Interface)
	for i := 0; i < it.NumMethods(); i++ {
		sig := it.Method(i).Type().(*types.Signature)
		if sig.Results().Len() == 1 && ifaceResult(sig) == 0 {
			for _, n := range nameMethods(sig.Results().At(0).Type()) {
				ps = append(ps, it.Method(i).Name()+"."+n)
			}
		}
	}
	if st.paths == nil {
		st.paths = map[types.Type][]string{}
	}
	st.paths[t] = ps
	return ps
}

// nameMethods lists the methods of interface type t that take nothing and return a string, but for
// Error (a message, never a name).
func nameMethods(t types.Type) []string {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var out []string
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		sig := m.Type().(*types.Signature)
		if m.Name() != "Error" && sig.Params().Len() == 0 && sig.Results().Len() == 1 && isString(sig.Results().At(0).Type()) {
			out = append(out, m.Name())
		}
	}
	return out
}

// recvOf is 1 when the arguments of c hold a receiver that sig does not list among its parameters.
func recvOf(c *ssa.CallCommon, sig *types.Signature) int {
	if c.IsInvoke() || sig.Recv() != nil {
		return 1
	}
	return 0
}

func (st *state) maySinkTarget(t target) bool {
	switch {
	case t.fn != nil:
		d, _ := st.declared(t.fn)
		if d.Pkg == st.pkg {
			return true
		}
		if obj, ok := d.Object().(*types.Func); ok {
			return st.maySinkFunc(obj)
		}
	case t.obj != nil:
		return st.maySinkFunc(t.obj)
	}
	return false
}

// mayMethodSinkField reports whether the result of a method of field fv, of interface type, may be
// a sink: a field of the package, or one whose package found it to be (sinkMethodsFact).
func (st *state) mayMethodSinkField(fv *types.Var) bool {
	if _, ok := fv.Type().Underlying().(*types.Interface); !ok && !isIfaceSlice(fv.Type()) {
		return false
	}
	return fv.Pkg() == st.pass.Pkg || st.importedFieldMethods(fv) != nil
}

func (st *state) importedFieldMethods(fv *types.Var) *sinkMethodsFact {
	if f, ok := st.impMethods[fv]; ok {
		return f
	}
	var f *sinkMethodsFact
	if fv.Pkg() != nil && fv.Pkg() != st.pass.Pkg {
		f = new(sinkMethodsFact)
		if !st.pass.ImportObjectFact(fv, f) {
			f = nil
		}
	}
	if st.impMethods == nil {
		st.impMethods = map[*types.Var]*sinkMethodsFact{}
	}
	st.impMethods[fv] = f
	return f
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
// be sinks (pkgFact.Foreign, and forwardFact), made on first use.
func (st *state) foreignSinks() map[*types.Var]Sink {
	if st.foreign == nil {
		st.foreign = st.resolveForeign(st.importedForeign())
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
	return st.importedParams(fn) != nil || st.importedCopies(fn) != nil
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
func (st *state) resolve(s *site) (Sink, *target, bool) {
	if s.key {
		sk, ok := envoyKeyField(s.owner, s.field)
		return sk, nil, ok
	}
	if s.field != nil && s.method != "" {
		if sk, ok := st.fieldMethodSinks[s.field][s.method]; ok {
			return sk, nil, true
		}
		if f := st.importedFieldMethods(s.field); f != nil {
			for _, m := range f.Methods {
				if m.Path == s.method {
					return m.Sink, nil, true
				}
			}
		}
		return Sink{}, nil, false
	}
	if s.field != nil {
		if s.owner != nil {
			if sk, ok := envoyField(s.owner, s.field); ok {
				return sk, nil, true
			}
		}
		if sk, ok := st.fieldSinks[s.field]; ok {
			return sk, nil, true
		}
		if sk, ok := st.foreignSinks()[s.field]; ok {
			return sk, nil, true
		}
		if f := st.importedField(s.field); f != nil {
			return f.Sink, nil, true
		}
		return Sink{}, nil, false
	}
	for i := range s.calls {
		t := &s.calls[i]
		var obj *types.Func
		idx := s.param
		if t.fn != nil {
			d, off := st.declared(t.fn)
			if s.method != "" {
				if sk, ok := st.methodSinks[d][methodParam{idx + off, s.method}]; ok {
					return sk, t, true
				}
			} else if m, ok := st.paramSinks[d]; ok {
				if sk, ok := m[idx+off]; ok {
					return sk, t, true
				}
			}
			obj, _ = d.Object().(*types.Func)
			idx += off
		} else {
			obj = t.obj
		}
		if obj == nil {
			continue
		}
		// Facts and -sinks count parameters without the receiver.
		idx -= recvOffset(obj)
		if f := st.importedParams(obj); f != nil {
			for _, p := range f.Params {
				if p.Index == idx && p.Method == s.method {
					return p.Sink, t, true
				}
			}
		}
		if s.method != "" {
			continue
		}
		if sk, ok := st.copySink(obj, idx); ok {
			return sk, t, true
		}
		if ix, ok := st.cfg.sinks[funcKey(obj)]; ok {
			for _, i := range ix {
				if i == idx {
					return Sink{Field: "argument " + strconv.Itoa(i) + " of " + funcName(obj) + " (-sinks)"}, t, true
				}
			}
		}
	}
	return Sink{}, nil, false
}

// targetDesc names a site's target for humans.
func (st *state) targetDesc(s *site) string {
	if s.key {
		sk, _ := envoyKeyField(s.owner, s.field)
		return sk.Field
	}
	if s.field != nil {
		of := ""
		if s.method != "" {
			of = "the " + methodCalls(s.method) + " of "
		}
		if s.owner != nil {
			if sk, ok := envoyField(s.owner, s.field); ok && of == "" {
				return sk.Field
			}
			return of + s.owner.Obj().Pkg().Name() + "." + s.owner.Obj().Name() + "." + s.field.Name()
		}
		return of + "field " + s.field.Name()
	}
	t := s.via
	if t == nil && len(s.calls) > 0 {
		t = &s.calls[0]
	}
	if t == nil {
		return "a call"
	}
	of := ""
	if s.method != "" {
		of = "the " + methodCalls(s.method) + " of "
	}
	if t.fn != nil {
		d, off := st.declared(t.fn)
		name := "parameter"
		if i := s.param + off; i < len(d.Params) {
			name += " " + d.Params[i].Name()
		}
		return of + ssaName(d) + " " + name
	}
	sig := t.obj.Type().(*types.Signature)
	name := "parameter"
	if i := s.param - recvOffset(t.obj); i >= 0 && i < sig.Params().Len() {
		name += " " + sig.Params().At(i).Name()
	}
	return of + funcName(t.obj) + " " + name
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
			sk, via, ok := st.resolve(s)
			if !ok {
				continue
			}
			if sk.Stat == "cluster" && coversOwnCluster(s) {
				sk.AltStat = true
			}
			s.done, s.sink, s.via = true, sk, via
			var within ast.Node
			if s.expr != nil {
				within = s.expr
			}
			if s.method != "" {
				s.vals = st.closeFree(st.evalMethod(s.fn, s.val, s.method))
			} else {
				s.vals = st.closeFree(st.evalIn(s.fn, s.val, within))
			}
			for _, t := range s.vals {
				// Only a plain copy carries the sink back; a value that went through a sanitizer or
				// is a piece of a longer name does not.
				if len(t.parts) != 1 {
					continue
				}
				switch p := t.parts[0]; p.Kind {
				case PartParam:
					g := p.fn
					if g == nil || p.Param >= len(g.Params) {
						continue
					}
					what := "parameter " + g.Params[p.Param].Name()
					if g.Parent() != nil {
						what += " of a function literal"
					}
					step := st.step(g, outerName(g)+" writes "+what+" to "+st.targetDesc(s))
					if st.addParamSink(g, p.Param, sk.prepend(step, st.writtenIn(g, s, t))) {
						changed = true
					}
				case partMethod:
					g := p.fn
					if g == nil || p.Param >= len(g.Params) {
						continue
					}
					what := "the result of " + callOn(g.Params[p.Param].Name(), p.method)
					step := st.step(g, outerName(g)+" writes "+what+" to "+st.targetDesc(s))
					if st.addMethodSink(g, methodParam{p.Param, p.method}, sk.prepend(step, st.writtenIn(g, s, t))) {
						changed = true
					}
				case partFieldMethod:
					step := st.step(s.fn, outerName(s.fn)+" writes the result of field "+callOn(p.field.Name(), p.method)+" to "+st.targetDesc(s))
					if st.addFieldMethodSink(p.field, p.method, sk.prepend(step, s.pos())) {
						changed = true
					}
				case partField:
					who := "package initialisation"
					if s.fn.Synthetic != "package initializer" {
						who = outerName(s.fn)
					}
					step := st.step(s.fn, who+" writes field "+p.field.Name()+" to "+st.targetDesc(s))
					if st.addFieldSink(p.field, sk.prepend(step, s.pos())) {
						changed = true
					}
				}
			}
		}
	}
}

// writtenIn is where function g writes the value t of site s on its way there: the site, when it
// is in g; else the store in g it went through (a slice element written by an add method and read
// by another); else nowhere known.
func (st *state) writtenIn(g *ssa.Function, s *site, t tmpl) token.Pos {
	for g.Parent() != nil {
		g = g.Parent()
	}
	f := s.fn
	for f.Parent() != nil {
		f = f.Parent()
	}
	if f == g {
		return s.pos()
	}
	if syn := g.Syntax(); syn != nil {
		for _, d := range t.defs {
			if syn.Pos() <= d && d < syn.End() {
				return d
			}
		}
	}
	return token.NoPos
}

// step describes one write by function writer.
func (st *state) step(writer *ssa.Function, text string) Step {
	s := Step{Text: text, Pkg: st.pass.Pkg.Path()}
	for writer.Parent() != nil {
		writer = writer.Parent()
	}
	if obj, ok := writer.Object().(*types.Func); ok && writer.Synthetic == "" {
		if p, err := objectpath.For(obj); err == nil {
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

func (st *state) addParamSink(fn *ssa.Function, i int, sk Sink) bool {
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

// methodParam is the result of a method of a parameter (index in Params, receiver first).
type methodParam struct {
	param  int
	method string
}

func (st *state) addMethodSink(fn *ssa.Function, mp methodParam, sk Sink) bool {
	m := st.methodSinks[fn]
	if m == nil {
		m = map[methodParam]Sink{}
		st.methodSinks[fn] = m
	}
	if _, ok := m[mp]; ok {
		return false
	}
	m[mp] = sk
	return true
}

func (st *state) addFieldMethodSink(fv *types.Var, path string, sk Sink) bool {
	m := st.fieldMethodSinks[fv]
	if m == nil {
		m = map[string]Sink{}
		st.fieldMethodSinks[fv] = m
	}
	if _, ok := m[path]; ok {
		return false
	}
	m[path] = sk
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
	funcs := map[*ssa.Function]bool{}
	for g := range st.paramSinks {
		funcs[g] = true
	}
	for g := range st.methodSinks {
		funcs[g] = true
	}
	for g := range funcs {
		fn, ok := g.Object().(*types.Func)
		if !ok || g.Synthetic != "" || g.Parent() != nil || !fn.Exported() {
			continue
		}
		off := recvOffset(fn)
		f := &sinkParamsFact{}
		for i, sk := range st.paramSinks[g] {
			if i >= off {
				f.Params = append(f.Params, ParamSink{Index: i - off, Sink: sk})
			}
		}
		for mp, sk := range st.methodSinks[g] {
			if mp.param >= off {
				f.Params = append(f.Params, ParamSink{Index: mp.param - off, Method: mp.method, Sink: sk})
			}
		}
		if len(f.Params) == 0 {
			continue
		}
		sortParams(f.Params)
		st.pass.ExportObjectFact(fn, f)
		exported = true
	}
	for fv, m := range st.fieldMethodSinks {
		if !fv.Exported() || fv.Pkg() != st.pass.Pkg {
			continue
		}
		f := &sinkMethodsFact{}
		for path, sk := range m {
			f.Methods = append(f.Methods, MethodSink{Path: path, Sink: sk})
		}
		sort.Slice(f.Methods, func(i, j int) bool { return f.Methods[i].Path < f.Methods[j].Path })
		st.pass.ExportObjectFact(fv, f)
		exported = true
	}
	pf := &pkgFact{}
	for fv, sk := range st.fieldSinks {
		if !fv.Exported() && (fv.Pkg() == st.pass.Pkg || !st.narrowGetters[fv]) {
			// An unexported field of another package is a sink here as what a getter of its package
			// returns (getterFact); its setters (fieldCopyFact) are checked in the importers when the
			// getter was called on a value known to hold its type (noteNarrowGetters).
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
	pf.AltStatNames = st.setsForeignAltStatNames()
	if len(pf.Foreign) > 0 || exported || pf.AltStatNames {
		sort.Slice(pf.Foreign, func(i, j int) bool {
			return pf.Foreign[i].Pkg+"."+pf.Foreign[i].Obj < pf.Foreign[j].Pkg+"."+pf.Foreign[j].Obj
		})
		st.pass.ExportPackageFact(pf)
	}
}

func sortParams(ps []ParamSink) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Index != ps[j].Index {
			return ps[i].Index < ps[j].Index
		}
		return ps[i].Method < ps[j].Method
	})
}

// foreignSinkable reports whether a field of another package may become a sink here: an exported
// string field of a type of the project, not of go-control-plane (its name fields are sinks
// already, its other fields are not names) nor of the standard library (a url.URL's Host is no
// name).
func (st *state) foreignSinkable(v *types.Var) bool {
	if v.Pkg() == nil || !v.Exported() || !isString(v.Type()) || strings.HasPrefix(v.Pkg().Path(), envoyPrefix) {
		return false
	}
	f := st.pass.Fset.File(v.Pos())
	return !(f != nil && goroot != "" && strings.HasPrefix(f.Name(), goroot))
}
