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
//	-types=LIST      extra KRI resource types, "Kind:short:Scope" (Scope Mesh or Global)
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
	flagTypes    string
)

func init() {
	Analyzer.Flags.BoolVar(&flagStrict, "strict", false, "also report legacy names (neither a KRI, internal, nor under an accepted prefix)")
	Analyzer.Flags.StringVar(&flagPrefixes, "prefixes", flagPrefixes, "comma-separated accepted name prefixes")
	Analyzer.Flags.StringVar(&flagSinks, "sinks", "", "comma-separated extra sinks: pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex (0-based, receiver not counted)")
	Analyzer.Flags.StringVar(&flagTypes, "types", "", "comma-separated extra KRI resource types, Kind:short:Scope (Scope is Mesh or Global), as in the webhook configuration")
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
	key := strconv.FormatBool(flagStrict) + "\x00" + flagPrefixes + "\x00" + flagSinks + "\x00" + flagTypes
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
	if c.err == nil && flagTypes != "" {
		c.opts.Registry, c.err = parseTypes(flagTypes)
		if c.err != nil {
			c.err = fmt.Errorf("parsing -types: %w", c.err)
		}
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
	pkgs       map[string]*types.Package // every package imported, made on first use
	foreign    map[*types.Var]Sink       // sink fields of other packages, made on first use
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
	return f != nil && goroot != "" && strings.HasPrefix(f.Name(), goroot)
}

// goroot is the source folder of the standard library, with a trailing separator.
var goroot = func() string {
	if build.Default.GOROOT == "" {
		return ""
	}
	return filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)
}()

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
