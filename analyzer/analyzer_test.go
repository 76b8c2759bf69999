package analyzer_test

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/kriguard/kriguard/analyzer"
)

func TestControlPlane(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/names", "cp/builders", "cp/traps")
	// The fixes land in the generator's own literals, never in the names or builders packages.
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.Analyzer, "cp/generator")
}

func TestDirectWritesAndFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), analyzer.Analyzer, "cp/direct")
}

func TestMayAnalysis(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/flow")
}

// setFlags sets analyzer flags for one test and restores them after.
func setFlags(t *testing.T, kv ...string) {
	t.Helper()
	for i := 0; i < len(kv); i += 2 {
		f := analyzer.Analyzer.Flags.Lookup(kv[i])
		if f == nil {
			t.Fatalf("no flag %q", kv[i])
		}
		old := f.Value.String()
		if err := f.Value.Set(kv[i+1]); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
}

func TestStrict(t *testing.T) {
	setFlags(t, "strict", "true", "prefixes", "self_,system_,mine_", "types", "MeshWidget:mw:Mesh")
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/strict")
}

func TestConfiguredSinks(t *testing.T) {
	setFlags(t, "sinks", "cp/configured.Register:1, cp/configured.Registry.Add:0")
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/configured")
}

// TestRelatedPath checks that a finding lists the path from where the value enters to the Envoy
// field: the definition of the local, the builder call, and each write on the way.
func TestRelatedPath(t *testing.T) {
	results := analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/generator")
	want := []string{
		"value assigned here",
		"passed to builders.NewListenerBuilder parameter name",
		"builders.NewListenerBuilder writes parameter name to builders.ListenerBuilder.name",
		"(*builders.ListenerBuilder).Build writes field name to listenerv3.Listener.Name",
	}
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if !strings.Contains(d.Message, "variable name (result of names.Inbound)) through builders.NewListenerBuilder") {
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
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/odd")
}

// TestKumaStyle follows names through configurers reached by interfaces and options built from
// closures, the way Kuma's xDS generators are written.
func TestKumaStyle(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/kuma/v3", "cp/kuma/listeners", "cp/kuma/gen")
}

// TestForeignFields: a configuration type of one package becomes a sink in a second, and the
// writes to it are checked in a third.
func TestForeignFields(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), analyzer.Analyzer, "cp/cfg", "cp/cbuild", "cp/cgen")
}
