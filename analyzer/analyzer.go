package analyzer

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/objectpath"

	"github.com/kriguard/kriguard/naming"
)

const doc = `report Envoy resource names with ':' or invalid KRIs

krilint finds the strings that become Envoy resource names (the name fields of the
go-control-plane types: listeners, filter chains, clusters and their alt_stat_name,
cluster load assignments, route configurations, virtual hosts, routes, secrets, the
stat_prefix of the HTTP connection manager and TCP proxy, the clusters of route actions
and TCP proxies, and the fields that reference such resources) and checks them with the
rule of the naming core (SPEC §4): no ':' anywhere; a name that starts with "kri_" must be a
KRI; names starting with "_" are internal; other names are legacy, reported with -strict.

Names are followed through constants, concatenations, fmt.Sprintf and fmt.Sprint with a
constant format, strings.Join with a constant separator, local variables (every definition
that may reach the use), and helper functions in any package. Sinks are followed back
through parameters and struct fields that only copy a name, across packages, so a ':' is
reported where it enters a builder API, not three packages later.`

// Analyzer reports bad Envoy resource names. Its flags:
//
//	-strict          also report legacy names (neither KRI, internal, nor accepted prefix)
//	-prefixes=LIST   accepted name prefixes, comma-separated (default "self_,system_")
//	-sinks=LIST      extra sink arguments, "pkgpath.Func:argIndex" or "pkgpath.Type.Method:argIndex"
var Analyzer = &analysis.Analyzer{
	Name:      "krilint",
	Doc:       doc,
	URL:       "https://github.com/kriguard/kriguard/tree/main/analyzer",
	Run:       run,
	FactTypes: []analysis.Fact{new(sinkParamsFact), new(sinkFieldFact), new(resultFact), new(pkgFact)},
}

var (
	flagStrict   bool
	flagPrefixes = strings.Join(naming.DefaultEnvoyPrefixes(), ",")
	flagSinks    string
)

func init() {
	Analyzer.Flags.BoolVar(&flagStrict, "strict", false, "also report legacy names (neither a KRI, internal, nor under an accepted prefix)")
	Analyzer.Flags.StringVar(&flagPrefixes, "prefixes", flagPrefixes, "comma-separated accepted name prefixes")
	Analyzer.Flags.StringVar(&flagSinks, "sinks", "", "comma-separated extra sinks: pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex (0-based, receiver not counted)")
}

// config is the parsed form of the flags, cached by their text.
type config struct {
	key   string
	opts  naming.EnvoyNameOptions
	sinks configuredSinks
	err   error
}

var (
	configMu sync.Mutex
	cached   *config
)

func currentConfig() *config {
	key := strconv.FormatBool(flagStrict) + "\x00" + flagPrefixes + "\x00" + flagSinks
	configMu.Lock()
	defer configMu.Unlock()
	if cached != nil && cached.key == key {
		return cached
	}
	c := &config{key: key, opts: naming.EnvoyNameOptions{Strict: flagStrict, Prefixes: []string{}}}
	for _, p := range strings.Split(flagPrefixes, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.opts.Prefixes = append(c.opts.Prefixes, p)
		}
	}
	c.sinks, c.err = parseSinks(flagSinks)
	if c.err != nil {
		c.err = fmt.Errorf("parsing -sinks: %w", c.err)
	}
	cached = c
	return c
}

type state struct {
	pass      *analysis.Pass
	cfg       *config
	constLits map[*types.Const]*ast.BasicLit // made on first use
	decls     map[*types.Func]*ast.FuncDecl  // made on first use
	funcs     map[*types.Func]*fnInfo
	getters   map[*types.Func]*types.Var
	pkgVars   map[*types.Var]ast.Expr // made on first use; nil value: unknown
	pkgInit   *fnInfo

	fieldSinks map[*types.Var]Sink
	paramSinks map[*types.Func]map[int]Sink
	impParams  map[*types.Func]*sinkParamsFact
	impFields  map[*types.Var]*sinkFieldFact
	impResults map[*types.Func][]tmpl
	sites      []*site
	pkgs       map[string]*types.Package // every package imported, for stepPos
}

// site is a place where a string value is written somewhere that is, or may become, a sink.
type site struct {
	fn    *fnInfo
	value ast.Expr
	at    ast.Node // the call, composite literal or assignment

	field  *types.Var // a field write …
	owner  *types.Named
	key    bool        // … of a key of the map in field …
	callee *types.Func // … or an argument
	param  int

	done bool
	sink Sink
	vals []tmpl
}

func run(pass *analysis.Pass) (any, error) {
	if len(pass.Files) == 0 || skipped(pass) {
		return nil, nil
	}
	cfg := currentConfig()
	if cfg.err != nil {
		return nil, cfg.err
	}
	st := &state{
		pass:       pass,
		cfg:        cfg,
		funcs:      map[*types.Func]*fnInfo{},
		fieldSinks: map[*types.Var]Sink{},
		paramSinks: map[*types.Func]map[int]Sink{},
		impParams:  map[*types.Func]*sinkParamsFact{},
		impFields:  map[*types.Var]*sinkFieldFact{},
		impResults: map[*types.Func][]tmpl{},
	}
	st.pkgInit = &fnInfo{st: st}
	if st.relevant() {
		st.collectSites()
		st.propagate()
		st.exportSinks()
		st.report()
	}
	st.exportResults()
	return nil, nil
}

// skipped reports packages that can hold no finding and no fact anyone needs: the standard
// library and go-control-plane itself.
func skipped(pass *analysis.Pass) bool {
	if strings.HasPrefix(pass.Pkg.Path(), envoyPrefix) {
		return true
	}
	f := pass.Fset.File(pass.Files[0].Pos())
	if f == nil || build.Default.GOROOT == "" {
		return false
	}
	root := filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)
	return strings.HasPrefix(f.Name(), root)
}

// relevant reports whether the package can write to a sink: it imports go-control-plane, a
// package with sink facts, or holds a configured sink.
func (st *state) relevant() bool {
	if st.cfg.sinks.inPackage(st.pass.Pkg.Path()) {
		return true
	}
	for _, imp := range st.pass.Pkg.Imports() {
		if strings.HasPrefix(imp.Path(), envoyPrefix) || st.pass.ImportPackageFact(imp, new(pkgFact)) || st.cfg.sinks.inPackage(imp.Path()) {
			return true
		}
	}
	return false
}

// fn returns the analysis state of one function of the package, made on first use: most
// functions of most packages are never looked at.
func (st *state) fn(obj *types.Func) *fnInfo {
	if fi, ok := st.funcs[obj]; ok {
		return fi
	}
	if st.decls == nil {
		st.decls = map[*types.Func]*ast.FuncDecl{}
		for _, file := range st.pass.Files {
			for _, d := range file.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
					if o, ok := st.pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
						st.decls[o] = fd
					}
				}
			}
		}
	}
	d := st.decls[obj]
	if d == nil {
		st.funcs[obj] = nil
		return nil
	}
	fi := &fnInfo{st: st, decl: d, obj: obj, params: map[*types.Var]int{}}
	sig := obj.Type().(*types.Signature)
	for i := 0; i < sig.Params().Len(); i++ {
		fi.params[sig.Params().At(i)] = i
	}
	st.funcs[obj] = fi
	return fi
}

// getter returns the field a method of the package returns as is (func (b *B) Name() string {
// return b.name }), so that reading a name through its getter is still a copy.
func (st *state) getter(fn *types.Func) *types.Var {
	if fn.Pkg() != st.pass.Pkg {
		return nil
	}
	if fv, ok := st.getters[fn]; ok {
		return fv
	}
	var out *types.Var
	if fi := st.fn(fn); fi != nil && fi.decl.Recv != nil && len(fi.decl.Recv.List) == 1 && len(fi.decl.Body.List) == 1 {
		recv := fn.Type().(*types.Signature).Recv()
		if ret, ok := fi.decl.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			if sel, ok := ast.Unparen(ret.Results[0]).(*ast.SelectorExpr); ok {
				if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok && st.pass.TypesInfo.Uses[id] == recv {
					if s, ok := st.pass.TypesInfo.Selections[sel]; ok && s.Kind() == types.FieldVal && isString(s.Obj().Type()) {
						out = s.Obj().(*types.Var).Origin()
					}
				}
			}
		}
	}
	if st.getters == nil {
		st.getters = map[*types.Func]*types.Var{}
	}
	st.getters[fn] = out
	return out
}

// packageVar is the value of a variable of the package scope that nothing but its declaration
// writes: var adminListener = "admin:9901". Anything else is unknown.
func (st *state) packageVar(v *types.Var) []tmpl {
	if st.pkgVars == nil {
		st.indexPackageVars()
	}
	init, ok := st.pkgVars[v]
	if !ok || init == nil {
		return hole()
	}
	ts := st.pkgInit.eval(init)
	out := make([]tmpl, len(ts))
	for i, t := range ts {
		if hasColonLit(t) {
			t.origin = "variable " + v.Name() + " (" + t.origin + ")"
		}
		out[i] = t
	}
	return out
}

// indexPackageVars finds the package variables with a single initialiser and no other write in
// the package (an assignment, ++, or taking the address); exported ones may also be written by
// importers, so they are left out.
func (st *state) indexPackageVars() {
	st.pkgVars = map[*types.Var]ast.Expr{}
	info := st.pass.TypesInfo
	for _, file := range st.pass.Files {
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					v, ok := info.Defs[name].(*types.Var)
					if !ok || v.Exported() || !isString(v.Type()) {
						continue
					}
					if len(vs.Values) == len(vs.Names) {
						st.pkgVars[v] = vs.Values[i]
					} else {
						st.pkgVars[v] = nil
					}
				}
			}
		}
	}
	if len(st.pkgVars) == 0 {
		return
	}
	written := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				if _, ok := st.pkgVars[v]; ok {
					st.pkgVars[v] = nil
				}
			}
		}
	}
	for _, file := range st.pass.Files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					written(l)
				}
			case *ast.IncDecStmt:
				written(n.X)
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					written(n.X)
				}
			case *ast.RangeStmt:
				written(n.Key)
				if n.Value != nil {
					written(n.Value)
				}
			}
			return true
		})
	}
}

// funcDecls calls f for every function of the package with a body, in source order.
func (st *state) funcDecls(f func(*ast.FuncDecl, *types.Func)) {
	for _, file := range st.pass.Files {
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if obj, ok := st.pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					f(fd, obj)
				}
			}
		}
	}
}

// constLit returns the string literal a constant of the package is declared with, if any, so
// that a fix can edit the declaration.
func (st *state) constLit(c *types.Const) *ast.BasicLit {
	if c == nil || c.Pkg() != st.pass.Pkg {
		return nil
	}
	if st.constLits == nil {
		st.constLits = map[*types.Const]*ast.BasicLit{}
		for _, file := range st.pass.Files {
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i >= len(vs.Values) {
							break
						}
						if lit, ok := ast.Unparen(vs.Values[i]).(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if c, ok := st.pass.TypesInfo.Defs[name].(*types.Const); ok {
								st.constLits[c] = lit
							}
						}
					}
				}
			}
		}
	}
	return st.constLits[c]
}

// resultOf returns what fn's string result may be, and whether fn is in this package (its
// literals can then be fixed).
func (st *state) resultOf(fn *types.Func) ([]tmpl, bool) {
	if fn.Pkg() == st.pass.Pkg {
		fi := st.fn(fn)
		if fi == nil {
			return nil, false
		}
		ts := fi.resultTemplates()
		for _, t := range ts {
			if len(t.parts) != 1 || t.parts[0].Kind != PartHole {
				return ts, true
			}
		}
		return nil, true
	}
	if fn.Pkg() == nil {
		return nil, false
	}
	if ts, ok := st.impResults[fn]; ok {
		return ts, false
	}
	var f resultFact
	var ts []tmpl
	if st.pass.ImportObjectFact(fn, &f) {
		for _, s := range f.Shapes {
			ts = append(ts, fromShape(s))
		}
	}
	st.impResults[fn] = ts
	return ts, false
}

// isErrorMethod reports whether fn is the Error method of an error type: its result is a message,
// never a name, and generated validation code has thousands of them.
func isErrorMethod(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if fn.Name() != "Error" || sig.Recv() == nil || sig.Params().Len() != 0 {
		return false
	}
	errType := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	return types.Implements(sig.Recv().Type(), errType)
}

// exportResults exports the result shapes of the package's exported functions.
func (st *state) exportResults() {
	st.funcDecls(func(d *ast.FuncDecl, obj *types.Func) {
		if !d.Name.IsExported() || d.Type.Results == nil || stringResult(obj) < 0 || isErrorMethod(obj) {
			return
		}
		fi := st.fn(obj)
		ts := fi.resultTemplates()
		keep := false
		for _, t := range ts {
			if interesting(t) {
				keep = true
				break
			}
		}
		if !keep {
			return
		}
		f := &resultFact{}
		for _, t := range ts {
			f.Shapes = append(f.Shapes, toShape(t))
		}
		st.pass.ExportObjectFact(obj, f)
	})
}

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
	return st.importedField(fv.Origin()) != nil
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
	p := st.pkgs[s.Pkg]
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
	for fv, sk := range st.fieldSinks {
		if !fv.Exported() {
			continue
		}
		st.pass.ExportObjectFact(fv, &sinkFieldFact{Sink: sk})
		exported = true
	}
	if exported {
		st.pass.ExportPackageFact(&pkgFact{})
	}
}

func sortParams(ps []ParamSink) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Index < ps[j-1].Index; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// report checks the value of every sink site, once.
func (st *state) report() {
	for _, s := range st.sites {
		if !s.done {
			continue
		}
		var best []naming.EnvoyNameProblem
		var bestT tmpl
		var bestParts []naming.PatternPart
		for _, t := range s.vals {
			parts := pattern(t)
			probs := naming.CheckEnvoyPattern(parts, st.cfg.opts)
			if len(probs) == 0 {
				continue
			}
			if best == nil || probs[0].Rule < best[0].Rule {
				best, bestT, bestParts = probs, t, parts
			}
		}
		if best != nil {
			st.diagnose(s, bestT, bestParts, best)
		}
	}
}

// pattern turns a template into the naming core's pattern: everything not literal is a hole.
func pattern(t tmpl) []naming.PatternPart {
	out := make([]naming.PatternPart, 0, len(t.parts))
	for _, p := range t.parts {
		if p.Kind == PartLit {
			out = append(out, naming.Lit(p.Lit))
		} else {
			out = append(out, naming.Hole)
		}
	}
	return out
}

func render(parts []naming.PatternPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Hole {
			b.WriteString("*")
		} else {
			b.WriteString(p.Lit)
		}
	}
	return strconv.Quote(b.String())
}

func (st *state) diagnose(s *site, t tmpl, parts []naming.PatternPart, probs []naming.EnvoyNameProblem) {
	var msg strings.Builder
	msg.WriteString(s.sink.Field)
	msg.WriteString(" gets ")
	msg.WriteString(render(parts))
	if t.origin != "" {
		msg.WriteString(" (" + t.origin + ")")
	}
	if len(s.sink.Steps) > 0 {
		msg.WriteString(" through " + s.targetDesc())
	}
	msg.WriteString(": ")
	for i, p := range probs {
		if i > 0 {
			msg.WriteString("; and ")
		}
		msg.WriteString(p.Message)
	}
	d := analysis.Diagnostic{Pos: s.value.Pos(), End: s.value.End(), Category: probs[0].Rule.String(), Message: msg.String()}
	for _, pos := range t.defs {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: pos, Message: "value assigned here"})
	}
	if len(s.sink.Steps) > 0 {
		verb := "stored in "
		if s.callee != nil {
			verb = "passed to "
		}
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: s.at.Pos(), End: s.at.End(), Message: verb + s.targetDesc()})
	}
	for i, step := range s.sink.Steps {
		pos := token.NoPos
		if i < len(s.sink.pos) {
			pos = s.sink.pos[i]
		}
		if !pos.IsValid() {
			pos = st.stepPos(step)
		}
		if !pos.IsValid() && s.callee != nil {
			pos = s.callee.Pos()
		}
		if pos.IsValid() {
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: pos, Message: step.Text})
		}
	}
	if fix, ok := colonFix(t, probs); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	st.pass.Report(d)
}

// colonFix replaces every ':' of the value in the literals it comes from, when all of them come
// from literals of this package.
func colonFix(t tmpl, probs []naming.EnvoyNameProblem) (analysis.SuggestedFix, bool) {
	var colons []naming.ColonAt
	for _, p := range probs {
		if p.Rule == naming.EnvoyColon {
			colons = p.Colons
		}
	}
	if len(colons) == 0 {
		return analysis.SuggestedFix{}, false
	}
	seen := map[token.Pos]bool{}
	whole := map[*ast.BasicLit]bool{}
	var edits []analysis.TextEdit
	for _, c := range colons {
		if c.Part >= len(t.parts) {
			return analysis.SuggestedFix{}, false
		}
		var at *src
		for i := range t.parts[c.Part].srcs {
			s := &t.parts[c.Part].srcs[i]
			if c.Offset >= s.partOff && c.Offset < s.partOff+s.n {
				at = s
				break
			}
		}
		if at == nil {
			return analysis.SuggestedFix{}, false
		}
		val, err := strconv.Unquote(at.lit.Value)
		if err != nil {
			return analysis.SuggestedFix{}, false
		}
		if len(at.lit.Value) == len(val)+2 && at.lit.Value[1:len(at.lit.Value)-1] == val {
			pos := at.lit.Pos() + 1 + token.Pos(at.litOff+c.Offset-at.partOff)
			if !seen[pos] {
				seen[pos] = true
				edits = append(edits, analysis.TextEdit{Pos: pos, End: pos + 1, NewText: []byte("_")})
			}
			continue
		}
		if !whole[at.lit] {
			whole[at.lit] = true
			edits = append(edits, analysis.TextEdit{Pos: at.lit.Pos(), End: at.lit.End(), NewText: []byte(strconv.Quote(strings.ReplaceAll(val, ":", "_")))})
		}
	}
	return analysis.SuggestedFix{Message: "Replace ':' with '_'", TextEdits: edits}, true
}
