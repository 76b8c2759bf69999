package golangciplugin

import (
	"fmt"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/kriguard/kriguard/analyzer"
	"github.com/kriguard/kriguard/naming"
)

// Name is the linter's name in .golangci.yml.
const Name = "krilint"

func init() {
	register.Plugin(Name, New)
}

// Settings are krilint's settings in .golangci.yml, under linters.settings.custom.krilint.settings. They
// mirror the flags of cmd/krilint.
type Settings struct {
	// Strict also reports legacy names: neither a KRI, nor internal ("_…"), nor under an accepted prefix
	// (-strict).
	Strict bool `json:"strict"`
	// Prefixes are the accepted name prefixes (-prefixes). Absent means the default, "self_" and
	// "system_"; an empty list accepts none.
	Prefixes []string `json:"prefixes"`
	// Sinks are extra sink arguments, "pkgpath.Func:argIndex" or "pkgpath.Type.Method:argIndex", the
	// index counting parameters from 0 without the receiver (-sinks).
	Sinks []string `json:"sinks"`
	// Types are extra KRI resource types, written as in the webhook's configuration file (-types).
	Types []ResourceType `json:"types"`
	// StatNames reports cluster names, virtual-host names and stat prefixes that Envoy's stats split
	// (the stat-unsafe rule, a warning; -stat-names). Absent means true.
	StatNames *bool `json:"statNames"`
}

// ResourceType is one extra KRI resource type: a kind, the short name that is its KRI type segment, and
// its scope, "Mesh" or "Global".
type ResourceType struct {
	Kind      string `json:"kind"`
	ShortName string `json:"shortName"`
	Scope     string `json:"scope"`
}

// Plugin is krilint as a golangci-lint linter.
type Plugin struct {
	opts analyzer.Options
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New decodes and checks the settings golangci-lint passes (nil when .golangci.yml has none).
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("krilint settings: %w", err)
	}
	opts, err := s.options()
	if err != nil {
		return nil, fmt.Errorf("krilint settings: %w", err)
	}
	return &Plugin{opts: opts}, nil
}

// Options returns the analyzer options the settings make.
func (p *Plugin) Options() analyzer.Options { return p.opts }

// BuildAnalyzers returns a krilint analyzer of its own, configured by the settings: nothing is shared
// with analyzer.Analyzer or with another plugin instance.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{analyzer.New(p.opts)}, nil
}

// GetLoadMode asks for type information: krilint reads constants and callees from it.
func (p *Plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}

// options turns the settings into analyzer options and has the analyzer check them, with the parser the
// -sinks flag uses and the registry that judges the webhook's KRI types; a mistake in .golangci.yml is
// reported when golangci-lint starts rather than on every package.
func (s Settings) options() (analyzer.Options, error) {
	o := analyzer.Options{Strict: s.Strict, Prefixes: s.Prefixes, Sinks: s.Sinks, NoStatNames: s.StatNames != nil && !*s.StatNames}
	for i, t := range s.Types {
		if strings.ContainsAny(t.Kind+t.ShortName, ",: \t") {
			return o, fmt.Errorf("types[%d]: kind and shortName must not contain ',', ':' or spaces", i)
		}
		scope, err := naming.ParseScope(t.Scope)
		if err != nil {
			return o, fmt.Errorf("types[%d].scope: %w", i, err)
		}
		o.Types = append(o.Types, naming.ResourceType{Kind: t.Kind, ShortName: t.ShortName, Scope: scope})
	}
	return o, o.Validate()
}
