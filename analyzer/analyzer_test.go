package analyzer_test

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/kriguard/kriguard/analyzer"
	"github.com/kriguard/kriguard/naming"
)

// defaults is krilint with the default options, built for the tests: no test shares or changes the
// configuration of another.
func defaults() *analysis.Analyzer { return analyzer.New(analyzer.Options{}) }

func TestControlPlane(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/names", "cp/builders", "cp/traps")
	// The fixes land in the generator's own literals, never in the names or builders packages.
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), defaults(), "cp/generator")
}

func TestDirectWritesAndFixes(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), defaults(), "cp/direct")
}

func TestMayAnalysis(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/flow")
}

func TestStrict(t *testing.T) {
	t.Parallel()
	a := analyzer.New(analyzer.Options{
		Strict:   true,
		Prefixes: []string{"self_", "system_", "mine_"},
		Types:    []naming.ResourceType{{Kind: "MeshWidget", ShortName: "mw", Scope: naming.ScopeMesh}},
	})
	analysistest.Run(t, analysistest.TestData(), a, "cp/strict")
}

// TestFlags configures the command-line analyzer's twin through its flags, as go vet does.
func TestFlags(t *testing.T) {
	t.Parallel()
	a := analyzer.New(analyzer.Options{})
	if a.Flags.Lookup("strict") != nil {
		t.Fatal("an analyzer made by New has flags: its options are its configuration")
	}
	for _, name := range []string{"strict", "prefixes", "sinks", "types", "stat-names"} {
		if analyzer.Analyzer.Flags.Lookup(name) == nil {
			t.Errorf("analyzer.Analyzer has no -%s flag", name)
		}
	}
}

func TestConfiguredSinks(t *testing.T) {
	t.Parallel()
	a := analyzer.New(analyzer.Options{Sinks: []string{"cp/configured.Register:1", "cp/configured.Registry.Add:0"}})
	analysistest.Run(t, analysistest.TestData(), a, "cp/configured")
}

// TestRelatedPath checks that a finding lists the path from where the value enters to the Envoy
// field: the definition of the local, the builder call, and each write on the way.
func TestRelatedPath(t *testing.T) {
	t.Parallel()
	results := analysistest.Run(t, analysistest.TestData(), defaults(), "cp/generator")
	want := []string{
		"value assigned here",
		"passed to builders.NewListenerBuilder parameter name",
		"builders.NewListenerBuilder writes parameter name to builders.ListenerBuilder.name",
		"(*builders.ListenerBuilder).Build writes field name to listenerv3.Listener.Name",
	}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if !strings.Contains(d.Message, "(result of names.Inbound) through builders.NewListenerBuilder") {
				continue
			}
			var got []string
			for _, rel := range d.Related {
				got = append(got, rel.Message)
				if !rel.Pos.IsValid() {
					t.Errorf("related %q has no position", rel.Message)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("related information:\n got %q\nwant %q", got, want)
			}
			return
		}
	}
	t.Fatal("finding for InboundListenerFromLocal not reported")
}

func TestOddCode(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/odd")
}

// TestKumaStyle follows names through configurers reached by interfaces and options built from
// closures, the way Kuma's xDS generators are written.
func TestKumaStyle(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/kuma/v3", "cp/kuma/listeners", "cp/kuma/gen")
}

// TestForeignFields: a configuration type of one package becomes a sink in a second, and the
// writes to it are checked in a third.
func TestForeignFields(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/cfg", "cp/cbuild", "cp/cgen")
}

// TestForwardedForeignFields: a field of one package (cfg) becomes a sink in a second (v3); a third
// (listeners) imports v3, a fourth (gen) and a fifth (app) only the packages above it. Go vet gives
// a package the package facts of its direct imports only, and so does krilint's reading of them:
// gen and app see the field only because each package forwards what its imports found.
func TestForwardedForeignFields(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/fwd/v3", "cp/fwd/listeners", "cp/fwd/gen", "cp/fwd/app")
}

// TestSelectorClosures: two calls of one closure that returns its first or its second argument,
// chosen by a bool it captured, choose alike (Kuma's GetNameOrFallbackFunc); a closure that chooses
// by its argument, a package variable or a predicate function, or one made anew in a loop, may not.
func TestSelectorClosures(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/sel/naming", "cp/sel/gen")
}

// TestFlowShapes follows names through closures returned by helpers, method values, interface
// calls, fields filled in constructors and maps of name functions, each with a quiet twin.
func TestFlowShapes(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/namefn", "cp/shapes")
}

// TestSlices follows names through slice elements: append, index, range, a field filled by a
// method, a helper's result; each with a quiet twin.
func TestSlices(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/slices")
}

// TestSharedConstantFix: a fix edits each use of a constant that other code also reads, and edits
// the declaration only of an unexported constant whose every use is an Envoy name — and says so.
func TestSharedConstantFix(t *testing.T) {
	t.Parallel()
	results := analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), defaults(), "cp/constfix")
	declFixes := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			for _, f := range d.SuggestedFixes {
				if strings.Contains(f.Message, "declaration of statsListener, every use of which is an Envoy name") {
					declFixes++
				} else if strings.Contains(f.Message, "declaration") {
					t.Errorf("%s: fix %q edits a declaration", d.Message, f.Message)
				}
			}
		}
	}
	if declFixes != 2 {
		t.Errorf("%d fixes say they edit statsListener's declaration, want 2", declFixes)
	}
}

// TestStatNames checks the stat-safe rule: dotted cluster names with and without an alt_stat_name
// (set in the same literal, later in the function, by a builder, by a configurer of another
// package), stat prefixes and virtual-host names, and Kuma's sanitized alt_stat_name.
func TestStatNames(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/stats", "cp/statcfg", "cp/statgen")
}

// TestNoStatNames turns the stat-safe rule off: only the rules of the naming core are left.
func TestNoStatNames(t *testing.T) {
	t.Parallel()
	results := analysistest.Run(&quiet{T: t}, analysistest.TestData(), analyzer.New(analyzer.Options{NoStatNames: true}), "cp/stats")
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if d.Category == naming.EnvoyStatUnsafe.String() {
				t.Errorf("NoStatNames: %s", d.Message)
			}
		}
		if len(r.Diagnostics) != 2 {
			t.Errorf("NoStatNames: %d findings, want the 2 of the KRI and colon rules", len(r.Diagnostics))
		}
	}
}

// quiet is a testing.T whose errors (the want comments the run leaves unmatched) are dropped.
type quiet struct{ *testing.T }

func (*quiet) Errorf(string, ...any) {}

// TestSeenThrough checks the shapes of a control plane's name switches and name holders: a generic
// helper returning a closure (GetNameOrFallbackFunc), a closure over a bool (GetNameOrDefault), a
// function value handed to another function as an argument, a cluster known by an interface
// whose name an option sets in another package, and a secret request reached through two
// interfaces; and the one shape a package-at-a-time analysis cannot see, an implementation in a
// package the caller does not import.
func TestSeenThrough(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/kx/naming", "cp/kx/sysnames", "cp/kx/core", "cp/kx/envoy", "cp/kx/gen", "cp/kx/gen2", "cp/kx/wire", "cp/kx/tls", "cp/kx/mtls", "cp/kx/clusters3", "cp/kx/clusters", "cp/kx/gen3")
}

// TestElements checks the Name() of the elements of a slice or variadic parameter and of a slice
// field as a sink, across packages, also where the callee sees an implementation of its own.
func TestElements(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, analysistest.TestData(), defaults(), "cp/elems/common", "cp/elems/pxds", "cp/elems/v3", "cp/elems/listeners", "cp/elems/gen", "cp/elems/meshtls")
}
