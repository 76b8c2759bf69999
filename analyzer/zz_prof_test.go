package analyzer

import (
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

func BenchmarkZZCorpusSSA(b *testing.B) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: "/work/scratch/fieldsink/corpus"}
	pkgs, err := packages.Load(cfg, "./gen/p000")
	if err != nil || len(pkgs) != 1 {
		b.Fatal(err)
	}
	p := pkgs[0]
	pass := &analysis.Pass{Fset: p.Fset, Files: p.Syntax, Pkg: p.Types, TypesInfo: p.TypesInfo}
	b.ReportAllocs()
	for b.Loop() {
		buildSSA(pass)
	}
}
