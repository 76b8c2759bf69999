// Command nopvet is a vet tool that analyzes nothing. It speaks the same protocol as krilint (it is a
// unitchecker, so go vet hands it one package at a time and it parses and type-checks that package) but its
// only analyzer returns at once, which makes it the baseline of the vet-tool overhead benchmark in
// test/vetbench: whatever krilint costs beyond nopvet is the cost of krilint's analysis.
package main

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// analyzer does nothing, so the tool's cost is the driver's own: reading the configuration, parsing,
// type-checking and writing an empty facts file.
var analyzer = &analysis.Analyzer{
	Name: "nop",
	Doc:  "report nothing; the baseline of the vet-tool overhead benchmark",
	Run:  func(*analysis.Pass) (any, error) { return nil, nil },
}

func main() {
	unitchecker.Main(analyzer)
}
