package analyzer_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/kriguard/kriguard/analyzer"
)

func TestControlPlane(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/names", "cp/builders", "cp/generator", "cp/traps")
}
