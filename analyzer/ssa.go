package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// builtSSA is the SSA form of the package being analysed.
type builtSSA struct {
	Pkg *ssa.Package
	// SrcFuncs are the package's declared functions and the closures in them, in source order.
	SrcFuncs []*ssa.Function
}

// buildSSA builds the package's SSA form, on demand: krilint does not require the buildssa pass,
// which would build SSA for every package of the program — the standard library and
// go-control-plane's generated code included — when krilint needs it in few of them.
//
// It builds what buildssa builds, for less. buildssa creates every direct import with
// Program.CreatePackage, which makes an ssa.Function for every method of every named type of the
// import: thousands of protobuf getters per go-control-plane package, half the cost of SSA in a
// typical generator package. The builder only needs the package-level functions and variables the
// package refers to (methods of imported types are made on demand), so each import is created from a
// declaration-only file that lists just those. Nor does it build control-flow graphs to learn which
// functions never return (buildssa's ctrlflow requirement): keeping the edges after such calls only
// adds paths to a may-analysis.
func buildSSA(pass *analysis.Pass) *builtSSA {
	prog := ssa.NewProgram(pass.Fset, 0)
	used := map[*types.Package][]types.Object{}
	seen := map[types.Object]bool{}
	for _, obj := range pass.TypesInfo.Uses {
		pkg := obj.Pkg()
		if pkg == nil || pkg == pass.Pkg || seen[obj] || obj.Parent() != pkg.Scope() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			if obj.Type().(*types.Signature).Recv() != nil {
				continue
			}
		case *types.Var:
		default:
			continue
		}
		seen[obj] = true
		used[pkg] = append(used[pkg], obj)
	}
	for _, imp := range pass.Pkg.Imports() {
		file, info := declarations(used[imp])
		prog.CreatePackage(imp, []*ast.File{file}, info, true)
	}
	pkg := prog.CreatePackage(pass.Pkg, pass.Files, pass.TypesInfo, false)
	pkg.Build()

	var funcs []*ssa.Function
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		funcs = append(funcs, f)
		for _, anon := range f.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range pass.Files {
		for _, decl := range file.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok {
				if f := prog.FuncValue(pass.TypesInfo.Defs[fd.Name].(*types.Func)); f != nil {
					add(f)
				}
			}
		}
	}
	return &builtSSA{Pkg: pkg, SrcFuncs: funcs}
}

// declarations is a file that declares objs without bodies or values, and the type information
// that maps its identifiers to them, for CreatePackage: a function without a body is external to
// the program, as an imported one is.
func declarations(objs []types.Object) (*ast.File, *types.Info) {
	f := &ast.File{Name: ast.NewIdent("_")}
	info := &types.Info{Defs: make(map[*ast.Ident]types.Object, len(objs))}
	for _, obj := range objs {
		id := ast.NewIdent(obj.Name())
		info.Defs[id] = obj
		switch obj.(type) {
		case *types.Func:
			f.Decls = append(f.Decls, &ast.FuncDecl{Name: id, Type: &ast.FuncType{}})
		case *types.Var:
			f.Decls = append(f.Decls, &ast.GenDecl{Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{Names: []*ast.Ident{id}}}})
		}
	}
	return f, info
}
