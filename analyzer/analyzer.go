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
	"golang.org/x/tools/go/ssa"

	"github.com/kriguard/kriguard/naming"
)

const doc = `report Envoy resource names with ':' or invalid KRIs

krilint finds the strings that become Envoy resource names (the name fields of the
go-control-plane types: listeners, filter chains, clusters and their alt_stat_name,
cluster load assignments, route configurations, virtual hosts, routes, secrets, the
stat_prefix of the HTTP connection manager and TCP proxy, the clusters of route actions
and TCP proxies, and the fields that reference such resources) and checks them with the
rule of the naming core: no ':' anywhere; a name that starts with "kri_" must be a KRI;
names starting with "_" are internal; other names are legacy, reported with -strict.
Names Envoy puts into its stats (cluster names without an alt_stat_name, alt_stat_name,
virtual-host names, stat prefixes) get a warning, stat-unsafe, when they hold characters
outside [a-zA-Z0-9_-] (-stat-names=false turns it off); an alt_stat_name that is its
cluster's name sanitized, as Kuma writes it, is held to no rule.

Names are followed on SSA through constants, concatenations, fmt.Sprintf and fmt.Sprint
with a constant format, strings.Join with a constant separator, locals and their phi
nodes, closures and the functions that return them, method values, functions kept in
fields and maps, interface methods (every implementation the package and its facts can
see), struct fields written in one function and read in another, and helper functions in
any package. Sinks are followed back through parameters and struct fields that only copy a
name, across packages, so a ':' is reported where it enters a builder API.`

// Options configure one krilint analyzer. The zero value is the default configuration.
type Options struct {
	// Strict also reports legacy names: neither a KRI, nor internal ("_…"), nor under an accepted
	// prefix.
	Strict bool
	// Prefixes are the accepted name prefixes. Nil means naming.DefaultEnvoyPrefixes ("self_",
	// "system_"); an empty, non-nil slice accepts none.
	Prefixes []string
	// Sinks are extra sink arguments, each "pkgpath.Func:argIndex" or "pkgpath.Type.Method:argIndex"
	// (0-based, the receiver not counted), as ParseSink reads them.
	Sinks []string
	// Types are extra KRI resource types, registered in a copy of naming.DefaultRegistry().
	Types []naming.ResourceType
	// NoStatNames turns off the stat-safe rule (a warning): cluster names, virtual-host names and
	// stat prefixes with characters that Envoy's stats split or rewrite (docs/envoy-names.md).
	NoStatNames bool
}

// config is Options parsed and checked.
type config struct {
	opts      naming.EnvoyNameOptions
	sinks     configuredSinks
	statNames bool
}

// Validate reports what New would refuse: a malformed sink, a prefix that is empty or holds ':'
// or ',', a type the registry does not take.
func (o Options) Validate() error {
	_, err := o.parse()
	return err
}

func (o Options) parse() (*config, error) {
	c := &config{opts: naming.EnvoyNameOptions{Strict: o.Strict, Prefixes: o.Prefixes}, sinks: configuredSinks{}, statNames: !o.NoStatNames}
	if c.opts.Prefixes == nil {
		c.opts.Prefixes = naming.DefaultEnvoyPrefixes()
	}
	for i, p := range c.opts.Prefixes {
		switch {
		case strings.TrimSpace(p) == "":
			return nil, fmt.Errorf("prefixes[%d]: must not be empty", i)
		case strings.ContainsAny(p, ", \t"):
			return nil, fmt.Errorf("prefixes[%d]: %q: must not contain ',' or spaces", i, p)
		case strings.Contains(p, ":"):
			return nil, fmt.Errorf("prefixes[%d]: %q: must not contain ':', which no Envoy name may hold", i, p)
		}
	}
	for i, s := range o.Sinks {
		sk, err := ParseSink(s)
		if err != nil {
			return nil, fmt.Errorf("sinks[%d]: %w", i, err)
		}
		c.sinks[sk.Func] = append(c.sinks[sk.Func], sk.Arg)
	}
	if len(o.Types) > 0 {
		r := naming.DefaultRegistry().Clone()
		if err := r.Register(o.Types...); err != nil {
			return nil, fmt.Errorf("types: %w", err)
		}
		c.opts.Registry = r
	}
	return c, nil
}

// New returns a krilint analyzer with its own configuration: the golangci-lint plugin and the
// tests build theirs with it, and several may run side by side. Invalid options make every run
// of the analyzer fail with the error Validate reports.
func New(o Options) *analysis.Analyzer {
	cfg, err := o.parse()
	return newAnalyzer(func() (*config, error) { return cfg, err })
}

func newAnalyzer(conf func() (*config, error)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name: "krilint",
		Doc:  doc,
		URL:  "https://github.com/kriguard/kriguard/tree/main/analyzer",
		Run: func(pass *analysis.Pass) (any, error) {
			cfg, err := conf()
			if err != nil {
				return nil, err
			}
			return run(pass, cfg)
		},
		FactTypes: []analysis.Fact{new(sinkParamsFact), new(sinkFieldFact), new(resultFact), new(closureFact), new(pkgFact), new(getterFact), new(fieldCopyFact), new(implsFact), new(sinkMethodsFact), new(forwardFact), new(selectFact)},
	}
}

// Analyzer is krilint configured by its command-line flags, for cmd/krilint and go vet:
//
//	-strict          also report legacy names (neither KRI, internal, nor accepted prefix)
//	-prefixes=LIST   accepted name prefixes, comma-separated (default "self_,system_")
//	-sinks=LIST      extra sink arguments, "pkgpath.Func:argIndex" or "pkgpath.Type.Method:argIndex"
//	-types=LIST      extra KRI resource types, "Kind:short:Scope" (Scope Mesh or Global)
//	-stat-names      report names that Envoy's stats split (default true; a warning)
//
// Its configuration lives in the analyzer's own flag set; code that wants another configuration
// calls New.
var Analyzer = newFlagAnalyzer()

// flagValues hold the text of the flags of one analyzer.
type flagValues struct {
	strict, statNames      bool
	prefixes, sinks, types string

	mu  sync.Mutex
	key string
	cfg *config
	err error
}

// options parses the flags, once per distinct value.
func (f *flagValues) config() (*config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := strconv.FormatBool(f.strict) + strconv.FormatBool(f.statNames) + "\x00" + f.prefixes + "\x00" + f.sinks + "\x00" + f.types
	if f.cfg != nil || f.err != nil {
		if f.key == key {
			return f.cfg, f.err
		}
	}
	f.key = key
	f.cfg, f.err = f.parse()
	return f.cfg, f.err
}

func (f *flagValues) parse() (*config, error) {
	o := Options{Strict: f.strict, Prefixes: []string{}, NoStatNames: !f.statNames}
	for _, p := range strings.Split(f.prefixes, ",") {
		if p = strings.TrimSpace(p); p != "" {
			o.Prefixes = append(o.Prefixes, p)
		}
	}
	if err := (Options{Prefixes: o.Prefixes}).Validate(); err != nil {
		return nil, fmt.Errorf("parsing -prefixes: %w", err)
	}
	var err error
	o.Sinks, _ = SplitList(f.sinks)
	if err := (Options{Sinks: o.Sinks}).Validate(); err != nil {
		return nil, fmt.Errorf("parsing -sinks: %w", err)
	}
	if o.Types, err = ParseTypes(f.types); err != nil {
		return nil, fmt.Errorf("parsing -types: %w", err)
	}
	c, err := o.parse()
	if err != nil {
		return nil, fmt.Errorf("parsing -types: %w", err)
	}
	return c, nil
}

func newFlagAnalyzer() *analysis.Analyzer {
	f := &flagValues{prefixes: strings.Join(naming.DefaultEnvoyPrefixes(), ","), statNames: true}
	a := newAnalyzer(f.config)
	a.Flags.BoolVar(&f.strict, "strict", false, "also report legacy names (neither a KRI, internal, nor under an accepted prefix)")
	a.Flags.BoolVar(&f.statNames, "stat-names", true, "report cluster names, virtual-host names and stat prefixes that Envoy's stats split (stat-unsafe, a warning)")
	a.Flags.StringVar(&f.prefixes, "prefixes", f.prefixes, "comma-separated accepted name prefixes")
	a.Flags.StringVar(&f.sinks, "sinks", "", "comma-separated extra sinks: pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex (0-based, receiver not counted)")
	a.Flags.StringVar(&f.types, "types", "", "comma-separated extra KRI resource types, Kind:short:Scope (Scope is Mesh or Global), as in the webhook configuration")
	return a
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

type state struct {
	pass *analysis.Pass
	cfg  *config
	pkg  *ssa.Package
	prog *ssa.Program
	// funcs are the package's functions with a body: its source functions, the closures in them,
	// and the package initialiser.
	funcs []*ssa.Function

	memo    map[memoKey][]tmpl
	fmemo   map[memoKey][]target
	cmemo   map[memoKey][]string // concrete, made on first use
	busy    map[memoKey]bool
	depth   int
	res     map[resultKey][]tmpl
	resBusy map[resultKey]bool
	cands   map[candKey][]tmpl
	impls   map[string][]target
	methods map[string][]*types.Func // made on first use
	makers  map[*ssa.Function][]*ssa.MakeClosure
	callers map[*ssa.Function][]callerAt // made on first use
	syn     *syntaxIndex
	callPos token.Pos // the call evalCall is reading

	fieldStores  map[*types.Var][]valueAt // made on first use, with globalStores and escaped
	globalStores map[*ssa.Global][]valueAt
	escaped      map[*ssa.Global]bool

	fieldSinks map[*types.Var]Sink
	// fieldMethodSinks are the fields of interface type the result of whose method paths is a sink.
	fieldMethodSinks map[*types.Var]map[string]Sink
	paramSinks       map[*ssa.Function]map[int]Sink
	methodSinks      map[*ssa.Function]map[methodParam]Sink
	impParams        map[*types.Func]*sinkParamsFact
	impFields        map[*types.Var]*sinkFieldFact
	impMethods       map[*types.Var]*sinkMethodsFact // made on first use
	paths            map[types.Type][]string         // methodPaths, made on first use
	impResults       map[*types.Func][]tmpl
	sites            []*site
	pkgs             map[string]*types.Package // every package imported, made on first use
	foreign          map[*types.Var]Sink       // sink fields of other packages, made on first use
	impForeign       *[]ForeignField           // importedForeign, made on first use
	altStat          *bool                     // altStatNamesSet, made on first use
	fwd              map[string][]IfaceImpl    // forwarded implementations by interface method, made on first use
	narrowGetters    map[*types.Var]bool       // noteNarrowGetters, made on first use
}

func run(pass *analysis.Pass, cfg *config) (any, error) {
	if len(pass.Files) == 0 || skipped(pass) {
		return nil, nil
	}
	st := &state{
		pass:             pass,
		cfg:              cfg,
		memo:             map[memoKey][]tmpl{},
		fmemo:            map[memoKey][]target{},
		busy:             map[memoKey]bool{},
		res:              map[resultKey][]tmpl{},
		resBusy:          map[resultKey]bool{},
		cands:            map[candKey][]tmpl{},
		impls:            map[string][]target{},
		fieldSinks:       map[*types.Var]Sink{},
		fieldMethodSinks: map[*types.Var]map[string]Sink{},
		paramSinks:       map[*ssa.Function]map[int]Sink{},
		methodSinks:      map[*ssa.Function]map[methodParam]Sink{},
		impParams:        map[*types.Func]*sinkParamsFact{},
		impFields:        map[*types.Var]*sinkFieldFact{},
		impResults:       map[*types.Func][]tmpl{},
	}
	st.exportForward()
	relevant := st.relevant() || st.usesForeign()
	if !relevant && !st.summarizable() {
		st.exportImpls()
		return nil, nil
	}
	res := buildSSA(pass)
	st.pkg, st.prog = res.Pkg, res.Pkg.Prog
	st.funcs = res.SrcFuncs
	if init := res.Pkg.Func("init"); init != nil {
		var add func(f *ssa.Function)
		add = func(f *ssa.Function) {
			st.funcs = append(st.funcs, f)
			for _, a := range f.AnonFuncs {
				add(a)
			}
		}
		add(init)
	}
	if relevant {
		st.collectSites()
		st.propagate()
		st.exportSinks()
		st.report()
	}
	st.exportResults()
	st.exportSelectors()
	st.exportGetters()
	st.exportImpls()
	return nil, nil
}

// summarizable reports whether a package that cannot write to a sink is still worth its SSA form:
// it is not a dependency fetched at a version (a module of its own) and declares an exported
// function with a string or function result, whose shape may be a fact its importers need.
func (st *state) summarizable() bool {
	if m := st.pass.Module; m != nil && m.Version != "" {
		return false
	}
	for _, file := range st.pass.Files {
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !fd.Name.IsExported() || fd.Type.Results == nil {
				continue
			}
			fn, ok := st.pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			sig := fn.Type().(*types.Signature)
			if stringResult(sig) >= 0 && !isErrorMethod(fn) || funcResult(sig) >= 0 {
				return true
			}
		}
	}
	return false
}

// exportResults exports the result shapes of the package's exported functions, and of the
// functions they return.
func (st *state) exportResults() {
	for _, f := range st.funcs {
		fn, ok := f.Object().(*types.Func)
		if !ok || f.Synthetic != "" || f.Parent() != nil || !fn.Exported() || isErrorMethod(fn) {
			continue
		}
		off := recvOffset(fn)
		if i := stringResult(f.Signature); i >= 0 {
			if shapes := st.shapes(st.results(f, i), func(p part) (Part, bool) {
				if p.fn == f && (p.Kind == PartParam || p.Kind == PartJoin) && p.Param >= off {
					return Part{Kind: p.Kind, Param: p.Param - off, Sep: p.Sep}, true
				}
				return Part{}, false
			}); shapes != nil {
				st.pass.ExportObjectFact(fn, &resultFact{Shapes: shapes})
			}
		}
		if i := funcResult(f.Signature); i >= 0 {
			var ts []tmpl
			for _, t := range st.funcResults(f, i) {
				if t.fn == nil {
					continue
				}
				if j := stringResult(t.fn.Signature); j >= 0 {
					c := t
					ts = append(ts, st.subst(st.results(t.fn, j), func(p part) ([]tmpl, bool) {
						if p.fn == c.fn && p.Kind == partFree {
							if p.Param < len(c.binds) && c.binds[p.Param] != nil {
								return c.binds[p.Param], true
							}
							return hole(), true
						}
						return nil, false
					})...)
				}
			}
			closureFns := map[*ssa.Function]bool{}
			for _, t := range st.funcResults(f, i) {
				closureFns[t.fn] = true
			}
			if shapes := st.shapes(ts, func(p part) (Part, bool) {
				switch {
				case p.Kind == PartParam && p.fn == f && p.Param >= off:
					return Part{Kind: PartOuter, Param: p.Param - off}, true
				case p.Kind == PartParam && closureFns[p.fn]:
					return Part{Kind: PartParam, Param: p.Param}, true
				}
				return Part{}, false
			}); shapes != nil {
				st.pass.ExportObjectFact(fn, &closureFact{Shapes: shapes})
			}
		}
	}
}

// shapes turns templates into fact shapes, keeping the parameter parts conv accepts; nil when
// none is interesting.
func (st *state) shapes(ts []tmpl, conv func(part) (Part, bool)) []Shape {
	keep := false
	out := make([]Shape, 0, len(ts))
	for _, t := range ts {
		var s Shape
		for _, p := range t.parts {
			switch p.Kind {
			case PartLit, PartHole:
				s.Parts = append(s.Parts, p.Part)
			default:
				if q, ok := conv(p); ok {
					s.Parts = append(s.Parts, q)
				} else {
					s.Parts = append(s.Parts, Part{Kind: PartHole})
				}
			}
		}
		s.Parts = mergeHoles(s.Parts)
		if interesting(fromShape(s)) {
			keep = true
		}
		out = append(out, s)
	}
	if !keep {
		return nil
	}
	return out
}

func mergeHoles(ps []Part) []Part {
	out := ps[:0]
	for _, p := range ps {
		if p.Kind == PartHole && len(out) > 0 && out[len(out)-1].Kind == PartHole {
			continue
		}
		out = append(out, p)
	}
	return out
}
