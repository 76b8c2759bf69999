// Command krilint reports Envoy resource names that contain ':' or are invalid KRIs.
//
// Standalone: krilint ./... (with -fix, -json, -strict, -prefixes, -sinks).
// As a vet tool: go vet -vettool=$(which krilint) ./...
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/kriguard/kriguard/analyzer"
)

func main() { singlechecker.Main(analyzer.Analyzer) }
