package golangciplugin_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/kriguard/kriguard/analyzer"
	"github.com/kriguard/kriguard/golangciplugin"
)

// options returns what the plugin's settings became, as the flags would spell them.
func options(t *testing.T, p register.LinterPlugin) map[string]string {
	t.Helper()
	o := p.(*golangciplugin.Plugin).Options()
	prefixes := "self_,system_"
	if o.Prefixes != nil {
		prefixes = strings.Join(o.Prefixes, ",")
	}
	types := make([]string, len(o.Types))
	for i, rt := range o.Types {
		types[i] = rt.Kind + ":" + rt.ShortName + ":" + rt.Scope.String()
	}
	return map[string]string{
		"strict":     strconv.FormatBool(o.Strict),
		"prefixes":   prefixes,
		"sinks":      strings.Join(o.Sinks, ","),
		"types":      strings.Join(types, ","),
		"stat-names": strconv.FormatBool(!o.NoStatNames),
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		settings  any
		wantFlags map[string]string
		wantErr   string
	}{
		{
			name:      "no settings",
			settings:  nil,
			wantFlags: map[string]string{"strict": "false", "prefixes": "self_,system_", "sinks": "", "types": "", "stat-names": "true"},
		},
		{
			name:      "stat names off",
			settings:  map[string]any{"statNames": false},
			wantFlags: map[string]string{"stat-names": "false"},
		},
		{name: "statNames not a bool", settings: map[string]any{"statNames": "no"}, wantErr: "Settings.statNames"},
		{
			name: "all settings",
			settings: map[string]any{
				"strict":   true,
				"prefixes": []any{"mine_", "self_"},
				"sinks":    []any{"example.com/cp/builders.NewListenerBuilder:1", "example.com/cp/builders.Registry.Add:0"},
				"types": []any{
					map[string]any{"kind": "MeshWidget", "shortName": "mw", "scope": "Mesh"},
					map[string]any{"kind": "Galaxy", "shortName": "gx", "scope": "Global"},
				},
			},
			wantFlags: map[string]string{
				"strict":   "true",
				"prefixes": "mine_,self_",
				"sinks":    "example.com/cp/builders.NewListenerBuilder:1,example.com/cp/builders.Registry.Add:0",
				"types":    "MeshWidget:mw:Mesh,Galaxy:gx:Global",
			},
		},
		{
			name:      "empty prefix list accepts no prefix",
			settings:  map[string]any{"prefixes": []any{}},
			wantFlags: map[string]string{"strict": "false", "prefixes": "", "sinks": ""},
		},
		{name: "unknown setting", settings: map[string]any{"strikt": true}, wantErr: `unknown field "strikt"`},
		{name: "strict not a bool", settings: map[string]any{"strict": "yes"}, wantErr: "Settings.strict"},
		{name: "prefixes not a list", settings: map[string]any{"prefixes": "self_,system_"}, wantErr: "Settings.prefixes"},
		{name: "empty prefix", settings: map[string]any{"prefixes": []any{"self_", ""}}, wantErr: "prefixes[1]: must not be empty"},
		{name: "prefix with colon", settings: map[string]any{"prefixes": []any{"in:"}}, wantErr: `prefixes[0]: "in:": must not contain ':'`},
		{name: "prefix with comma", settings: map[string]any{"prefixes": []any{"a_,b_"}}, wantErr: `prefixes[0]: "a_,b_": must not contain ','`},
		{name: "sink without index", settings: map[string]any{"sinks": []any{"example.com/cp.Register"}}, wantErr: `sinks[0]: "example.com/cp.Register": want pkgpath.Func:argIndex`},
		{name: "sink with negative index", settings: map[string]any{"sinks": []any{"example.com/cp.Register:-1"}}, wantErr: "must be a non-negative integer"},
		{name: "sink without function", settings: map[string]any{"sinks": []any{"example.com/cp:0"}}, wantErr: "want pkgpath.Func:argIndex"},
		{name: "type with bad scope", settings: map[string]any{"types": []any{map[string]any{"kind": "MeshWidget", "shortName": "mw", "scope": "Zone"}}}, wantErr: "types[0].scope"},
		{name: "type with unknown field", settings: map[string]any{"types": []any{map[string]any{"kind": "MeshWidget", "short": "mw", "scope": "Mesh"}}}, wantErr: `unknown field "short"`},
		{name: "type taking a known short name", settings: map[string]any{"types": []any{map[string]any{"kind": "MeshWidget", "shortName": "mt", "scope": "Mesh"}}}, wantErr: `short name "mt" is already registered`},
		{name: "type with a bad short name", settings: map[string]any{"types": []any{map[string]any{"kind": "MeshWidget", "shortName": "MW", "scope": "Mesh"}}}, wantErr: "types: "},
		{name: "type with a separator", settings: map[string]any{"types": []any{map[string]any{"kind": "Mesh:Widget", "shortName": "mw", "scope": "Mesh"}}}, wantErr: "types[0]: kind and shortName must not contain"},
		{name: "two sinks in one", settings: map[string]any{"sinks": []any{"a/b.F:0,a/b.G:1"}}, wantErr: "must not contain ','"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := golangciplugin.New(tt.settings)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New() error = %v, want one containing %q", err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "krilint settings: ") {
					t.Fatalf("New() error = %q, want it to say it is about krilint settings", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
				t.Fatalf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
			}
			analyzers, err := p.BuildAnalyzers()
			if err != nil {
				t.Fatalf("BuildAnalyzers() error = %v", err)
			}
			if len(analyzers) != 1 || analyzers[0] == analyzer.Analyzer || analyzers[0].Name != "krilint" {
				t.Fatalf("BuildAnalyzers() = %v, want one krilint analyzer of its own", analyzers)
			}
			got := options(t, p)
			for name, want := range tt.wantFlags {
				if got[name] != want {
					t.Errorf("flag -%s = %q, want %q", name, got[name], want)
				}
			}
		})
	}
}

// TestRegistered checks what golangci-lint does: it looks the plugin up by the name in .golangci.yml.
func TestRegistered(t *testing.T) {
	t.Parallel()
	newPlugin, err := register.GetPlugin("krilint")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(map[string]any{"strict": true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.BuildAnalyzers(); err != nil {
		t.Fatal(err)
	}
	if got := options(t, p)["strict"]; got != "true" {
		t.Fatalf("after building the registered plugin with strict: true, strict = %q", got)
	}
	if got := analyzer.Analyzer.Flags.Lookup("strict").Value.String(); got != "false" {
		t.Fatalf("building the plugin changed analyzer.Analyzer's -strict to %q", got)
	}
}

// TestSettingsTakeEffect runs the analyzer the plugin returns: strict mode, the replaced prefix list, the
// configured sink and the extra type all change what it reports (see testdata/src/cfg/gen).
func TestSettingsTakeEffect(t *testing.T) {
	t.Parallel()
	p, err := golangciplugin.New(map[string]any{
		"strict":   true,
		"prefixes": []any{"mine_"},
		"sinks":    []any{"cfg/registry.Register:0"},
		"types":    []any{map[string]any{"kind": "MeshWidget", "shortName": "mw", "scope": "Mesh"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	analyzers, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, analysistest.TestData(), analyzers[0], "cfg/gen")
}
