package golangciplugin_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kriguard/kriguard/golangciplugin"
)

// FuzzNew feeds New the strings a .golangci.yml may hold. It must never panic, must blame the settings in
// every error, and what it accepts must reach the analyzer's options unchanged.
func FuzzNew(f *testing.F) {
	for _, seed := range [][3]string{
		{"example.com/cp/builders.NewListenerBuilder:1", "self_", "Mesh"},
		{"example.com/cp/builders.Registry.Add:0", "", "Global"},
		{"nonsense", "in:", "Zone"},
		{"a/b.F:-1", "a,b", ""},
		{"gopkg.in/yaml.v3.Marshal:0", "_", "Mesh"},
		{":", " ", "Mesh"},
		{"a.b:99999999999999999999", "mine_", "Global"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, sink, prefix, scope string) {
		if !utf8.ValidString(sink + prefix + scope) {
			// YAML, and the JSON golangci-lint re-encodes settings with, cannot carry them.
			t.Skip("not UTF-8")
		}
		p, err := golangciplugin.New(map[string]any{
			"sinks":    []any{sink},
			"prefixes": []any{prefix},
			"types":    []any{map[string]any{"kind": "FuzzKind", "shortName": "fz", "scope": scope}},
		})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "krilint settings: ") {
				t.Fatalf("error %q does not say it is about krilint settings", err)
			}
			return
		}
		if _, err := p.BuildAnalyzers(); err != nil {
			t.Fatalf("BuildAnalyzers after New accepted the settings: %v", err)
		}
		got := options(t, p)
		if got["sinks"] != sink {
			t.Fatalf("sinks = %q, want %q", got["sinks"], sink)
		}
		if got["prefixes"] != prefix {
			t.Fatalf("prefixes = %q, want %q", got["prefixes"], prefix)
		}
		if want := "FuzzKind:fz:" + scope; got["types"] != want {
			t.Fatalf("types = %q, want %q", got["types"], want)
		}
	})
}
