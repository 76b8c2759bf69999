package plugin

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

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
	settings Settings
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New decodes and checks the settings golangci-lint passes (nil when .golangci.yml has none).
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("krilint settings: %w", err)
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("krilint settings: %w", err)
	}
	return &Plugin{settings: s}, nil
}

// flagsMu serialises the writes to the analyzer's flags, which are its configuration.
var flagsMu sync.Mutex

// BuildAnalyzers configures krilint's analyzer through its flags and returns it.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	flagsMu.Lock()
	defer flagsMu.Unlock()
	for name, value := range p.settings.flags() {
		if err := analyzer.Analyzer.Flags.Set(name, value); err != nil {
			return nil, fmt.Errorf("krilint settings: setting -%s: %w", name, err)
		}
	}
	return []*analysis.Analyzer{analyzer.Analyzer}, nil
}

// GetLoadMode asks for type information: krilint reads constants and callees from it.
func (p *Plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}

// flags returns the analyzer flag values for s. Every flag is set, so that no value is left over from an
// earlier configuration.
func (s Settings) flags() map[string]string {
	prefixes := s.Prefixes
	if prefixes == nil {
		prefixes = naming.DefaultEnvoyPrefixes()
	}
	types := make([]string, len(s.Types))
	for i, t := range s.Types {
		types[i] = t.Kind + ":" + t.ShortName + ":" + t.Scope
	}
	return map[string]string{
		"strict":   strconv.FormatBool(s.Strict),
		"prefixes": strings.Join(prefixes, ","),
		"sinks":    strings.Join(s.Sinks, ","),
		"types":    strings.Join(types, ","),
	}
}

// validate rejects what the flags cannot carry or the analyzer would refuse, so that a mistake in
// .golangci.yml is reported when golangci-lint starts rather than on every package.
func (s Settings) validate() error {
	for i, p := range s.Prefixes {
		switch {
		case strings.TrimSpace(p) == "":
			return fmt.Errorf("prefixes[%d]: must not be empty", i)
		case strings.ContainsAny(p, ", \t"):
			return fmt.Errorf("prefixes[%d]: %q: must not contain ',' or spaces", i, p)
		case strings.Contains(p, ":"):
			return fmt.Errorf("prefixes[%d]: %q: must not contain ':', which no Envoy name may hold", i, p)
		}
	}
	for i, sink := range s.Sinks {
		if err := validateSink(sink); err != nil {
			return fmt.Errorf("sinks[%d]: %q: %w", i, sink, err)
		}
	}
	// The registry is the judge of a type, as it is for the webhook's configuration: register the types
	// in a clone of the default registry and keep only the verdict.
	types := make([]naming.ResourceType, 0, len(s.Types))
	for i, t := range s.Types {
		if strings.ContainsAny(t.Kind+t.ShortName, ",: \t") {
			return fmt.Errorf("types[%d]: kind and shortName must not contain ',', ':' or spaces", i)
		}
		scope, err := naming.ParseScope(t.Scope)
		if err != nil {
			return fmt.Errorf("types[%d].scope: %w", i, err)
		}
		types = append(types, naming.ResourceType{Kind: t.Kind, ShortName: t.ShortName, Scope: scope})
	}
	if len(types) > 0 {
		if err := naming.Default.Clone().Register(types...); err != nil {
			return fmt.Errorf("types: %w", err)
		}
	}
	return nil
}

// validateSink checks the "pkgpath.Func:argIndex" form of one sink.
func validateSink(sink string) error {
	if strings.ContainsAny(sink, ", \t") {
		return fmt.Errorf("must not contain ',' or spaces")
	}
	colon := strings.LastIndexByte(sink, ':')
	if colon < 0 {
		return fmt.Errorf("want pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex")
	}
	idx, err := strconv.Atoi(sink[colon+1:])
	if err != nil || idx < 0 {
		return fmt.Errorf("argument index %q must be a non-negative integer", sink[colon+1:])
	}
	name := sink[:colon]
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot <= 0 || strings.HasSuffix(name, ".") {
		return fmt.Errorf("want pkgpath.Func:argIndex or pkgpath.Type.Method:argIndex")
	}
	return nil
}
