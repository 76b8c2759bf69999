package analyzer_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/kriguard/kriguard/analyzer"
)

// noop does nothing but carries a fact type, so that the checker visits the same packages and
// dependencies as for krilint: the difference between the two is krilint's own work.
var noop = &analysis.Analyzer{
	Name:      "noop",
	Doc:       "do nothing",
	Run:       func(*analysis.Pass) (any, error) { return nil, nil },
	FactTypes: []analysis.Fact{new(noopFact)},
}

type noopFact struct{}

func (*noopFact) AFact() {}

func loadFixture(b *testing.B) []*packages.Package {
	b.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		b.Fatal(err)
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
			packages.NeedTypesSizes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedDeps,
		Dir: dir,
		Env: append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "cp/...")
	if err != nil {
		b.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		b.Fatal("fixture does not load")
	}
	return pkgs
}

// BenchmarkAnalyzer runs krilint over the control-plane fixture and its dependencies (the
// go-control-plane stubs and the standard library), next to a do-nothing analyzer on the same
// packages.
func BenchmarkAnalyzer(b *testing.B) {
	pkgs := loadFixture(b)
	for _, a := range []*analysis.Analyzer{noop, analyzer.New(analyzer.Options{})} {
		b.Run(a.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, &checker.Options{Sequential: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
