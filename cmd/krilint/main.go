// Command krilint reports Envoy resource names that contain ':' or are invalid KRIs.
//
// Standalone: krilint ./... (with -fix, -json, -strict, -prefixes, -sinks).
// As a vet tool: go vet -vettool=$(which krilint) ./...
package main

import (
	"os"
	"runtime"
	"strings"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/kriguard/kriguard/analyzer"
)

func main() {
	if vetTool(os.Args[1:]) {
		// go vet runs one process per package and never asks for a heap profile there (the
		// -memprofile flag is the standalone driver's), but linking that driver turns the runtime's
		// heap sampling on: a stack walk every 512 KiB allocated, about 1.5 % of the instructions
		// of a vet run (docs/krilint.md, "Cost as a vet tool").
		runtime.MemProfileRate = 0
	}
	singlechecker.Main(analyzer.Analyzer)
}

// vetTool reports whether krilint was started by go vet: its last argument is the package's
// configuration file, as singlechecker.Main tells the two modes apart.
func vetTool(args []string) bool {
	return len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg")
}
