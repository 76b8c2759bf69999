package analyzer_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/kriguard/kriguard/analyzer"
)

// Run krilint from Go, as the golangci-lint plugin or an IDE would. The package under
// testdata/src/cp/example hands a ':' name to a builder whose build method writes it to
// Listener.Name: the finding is at the builder call, with the path in related information.
func Example() {
	dir, _ := filepath.Abs("testdata")
	cfg := &packages.Config{
		Mode: packages.LoadAllSyntax,
		Dir:  dir,
		Env:  append(os.Environ(), "GOPATH="+dir, "GO111MODULE=off", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "cp/example")
	if err != nil {
		log.Fatal(err)
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{analyzer.Analyzer}, pkgs, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, act := range graph.Roots {
		for _, d := range act.Diagnostics {
			posn := act.Package.Fset.Position(d.Pos)
			fmt.Printf("%s:%d: %s\n", filepath.Base(posn.Filename), posn.Line, d.Message)
			for _, r := range d.Related {
				fmt.Printf("\t%s\n", r.Message)
			}
		}
	}
	// Output:
	// example.go:16: listenerv3.Listener.Name gets "inbound:*:*" (fmt.Sprintf format "inbound:%s:%d") through example.newBuilder parameter name: contains ':', which Envoy resource names must not (use '_')
	// 	passed to example.newBuilder parameter name
	// 	example.newBuilder writes parameter name to example.builder.name
	// 	(*example.builder).build writes field name to listenerv3.Listener.Name
}
