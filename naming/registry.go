package naming

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Scope says whether a resource type lives inside a mesh.
type Scope uint8

const (
	// ScopeMesh types belong to a mesh: their KRI must name it.
	ScopeMesh Scope = iota + 1
	// ScopeGlobal types stand above meshes: their KRI must leave the mesh empty.
	ScopeGlobal
)

// String returns "Mesh" or "Global", the spelling used in configuration files.
func (s Scope) String() string {
	switch s {
	case ScopeMesh:
		return "Mesh"
	case ScopeGlobal:
		return "Global"
	}
	return fmt.Sprintf("Scope(%d)", uint8(s))
}

// ParseScope reads the configuration spelling of a scope ("Mesh" or "Global").
func ParseScope(s string) (Scope, error) {
	switch s {
	case "Mesh":
		return ScopeMesh, nil
	case "Global":
		return ScopeGlobal, nil
	}
	return 0, fmt.Errorf("unknown scope %q: must be \"Mesh\" or \"Global\"", s)
}

// ResourceType describes a kind that can be named by a KRI.
type ResourceType struct {
	// Kind is the Kubernetes kind, e.g. "MeshTimeout".
	Kind string
	// ShortName is the KRI type segment, e.g. "mt".
	ShortName string
	Scope     Scope
	// Legacy kinds (Dataplane, Mesh, MeshGateway, ZoneIngress, ZoneEgress, Zone) keep their mesh in
	// the object's top-level mesh field; the others in the kuma.io/mesh label. See docs/kri.md.
	Legacy bool
	// CRD says that a supported Kuma release ships a CRD for the kind (group kuma.io, version
	// v1alpha1): the kinds the webhook guards by default. MeshGateway, ZoneIngress and ZoneEgress
	// have one in 2.14 only, and are guarded so that 2.14 judges them and 3.0 refuses them. In a
	// Release's Registry it is set on every kind: the release ships them all (docs/releases.md).
	CRD bool
}

// Validate reports what is wrong with t, if anything.
func (t ResourceType) Validate() error {
	var problems []string
	if t.Kind == "" {
		problems = append(problems, "kind must not be empty")
	}
	for i := 0; i < len(t.Kind); i++ {
		c := t.Kind[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			problems = append(problems, fmt.Sprintf("kind %q must contain only letters and digits", t.Kind))
			break
		}
	}
	if !FieldType.Valid(t.ShortName) {
		problems = append(problems, fmt.Sprintf("short name %q must be 1-63 lowercase letters", t.ShortName))
	}
	if t.Scope != ScopeMesh && t.Scope != ScopeGlobal {
		problems = append(problems, fmt.Sprintf("scope of %q must be Mesh or Global", t.Kind))
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid resource type: %s", strings.Join(problems, "; "))
	}
	return nil
}

// A Registry knows the resource types that may appear in a KRI. It is safe for concurrent use;
// lookups take no lock and do not allocate, registration copies the tables.
//
// The zero Registry is empty and ready to use.
type Registry struct {
	mu    sync.Mutex // serialises writers
	state atomic.Pointer[registryState]
	// readOnly is set on DefaultRegistry(), which every caller shares: Register refuses to change it.
	readOnly bool
}

type registryState struct {
	byKind, byShort map[string]ResourceType
}

// NewRegistry returns a registry holding types.
func NewRegistry(types ...ResourceType) (*Registry, error) {
	r := &Registry{}
	if err := r.Register(types...); err != nil {
		return nil, err
	}
	return r, nil
}

// Register adds types. Registering a type that is already present, identically, is a no-op; a
// kind or short name that is already taken by a different type is an error, and then nothing is
// added.
func (r *Registry) Register(types ...ResourceType) error {
	if r.readOnly {
		return errors.New("the default registry is read-only: register types on a Clone")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.state.Load()
	next := &registryState{byKind: map[string]ResourceType{}, byShort: map[string]ResourceType{}}
	if old != nil {
		for k, v := range old.byKind {
			next.byKind[k] = v
		}
		for k, v := range old.byShort {
			next.byShort[k] = v
		}
	}
	for _, t := range types {
		if err := t.Validate(); err != nil {
			return err
		}
		if have, ok := next.byKind[t.Kind]; ok && have != t {
			return fmt.Errorf("kind %q is already registered as %q (%s)", t.Kind, have.ShortName, have.Scope)
		}
		if have, ok := next.byShort[t.ShortName]; ok && have != t {
			return fmt.Errorf("short name %q is already registered for kind %q", t.ShortName, have.Kind)
		}
		next.byKind[t.Kind] = t
		next.byShort[t.ShortName] = t
	}
	r.state.Store(next)
	return nil
}

// ByKind looks a type up by its Kubernetes kind.
func (r *Registry) ByKind(kind string) (ResourceType, bool) {
	s := r.state.Load()
	if s == nil {
		return ResourceType{}, false
	}
	t, ok := s.byKind[kind]
	return t, ok
}

// ByShortName looks a type up by its KRI short name.
func (r *Registry) ByShortName(short string) (ResourceType, bool) {
	s := r.state.Load()
	if s == nil {
		return ResourceType{}, false
	}
	t, ok := s.byShort[short]
	return t, ok
}

// Types returns every registered type, sorted by short name.
func (r *Registry) Types() []ResourceType {
	s := r.state.Load()
	if s == nil {
		return nil
	}
	out := make([]ResourceType, 0, len(s.byShort))
	for _, t := range s.byShort {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b ResourceType) int { return strings.Compare(a.ShortName, b.ShortName) })
	return out
}

// Clone returns an independent copy of r, to extend without touching r.
func (r *Registry) Clone() *Registry {
	c := &Registry{}
	if s := r.state.Load(); s != nil {
		c.state.Store(s) // states are never mutated after Store
	}
	return c
}

func (r *Registry) shortNames() []string {
	types := r.Types()
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = t.ShortName
	}
	return out
}

// KumaTypes returns Kuma's resource types of every supported release, including the ones 3.0
// removed (MeshGateway, ZoneIngress, ZoneEgress), with their scope and whether they are legacy kinds
// (see docs/kri.md). Release.Registry holds one release's.
func KumaTypes() []ResourceType {
	m, g := ScopeMesh, ScopeGlobal
	legacy, label := true, false // where the mesh comes from: the top-level field or the label
	crd := true                  // whether a supported release ships a CRD for the kind
	return []ResourceType{
		{"Dataplane", "dp", m, legacy, crd},
		{"Mesh", "m", g, legacy, crd},
		{"Zone", "z", g, legacy, crd},
		{"HostnameGenerator", "hg", g, label, crd},
		{"MeshExternalService", "extsvc", m, label, crd},
		{"MeshIdentity", "mid", m, label, crd},
		{"MeshMultiZoneService", "mzsvc", m, label, crd},
		{"MeshOpenTelemetryBackend", "motb", m, label, crd},
		{"MeshService", "msvc", m, label, crd},
		{"MeshTrust", "mtrust", m, label, crd},
		{"MeshZoneAddress", "mza", m, label, crd},
		{"Workload", "wl", m, label, crd},
		{"MeshAccessLog", "mal", m, label, crd},
		{"MeshCircuitBreaker", "mcb", m, label, crd},
		{"MeshFaultInjection", "mfi", m, label, crd},
		{"MeshHTTPRoute", "mhttpr", m, label, crd},
		{"MeshHealthCheck", "mhc", m, label, crd},
		{"MeshLoadBalancingStrategy", "mlbs", m, label, crd},
		{"MeshMetric", "mm", m, label, crd},
		{"MeshPassthrough", "mp", m, label, crd},
		{"MeshProxyPatch", "mpp", m, label, crd},
		{"MeshRateLimit", "mrl", m, label, crd},
		{"MeshRetry", "mr", m, label, crd},
		{"MeshTCPRoute", "mtcpr", m, label, crd},
		{"MeshTLS", "mtls", m, label, crd},
		{"MeshTimeout", "mt", m, label, crd},
		{"MeshTrace", "mtr", m, label, crd},
		{"MeshTrafficPermission", "mtp", m, label, crd},
		{"MeshGateway", "mgw", m, legacy, crd},
		{"ZoneIngress", "zi", g, legacy, crd},
		{"ZoneEgress", "ze", g, legacy, crd},
	}
}

// DefaultRegistry returns the registry of KumaTypes that the package-level functions use. It is shared
// and read-only (Register refuses to change it), so that one caller's configuration cannot leak into
// another's: extend a Clone.
func DefaultRegistry() *Registry { return defaultRegistry() }

// defaultRegistry is made on first use, not at init: krilint links naming and go vet starts it once
// per package, most of which never look a type up (docs/krilint.md, "Start-up").
var defaultRegistry = sync.OnceValue(func() *Registry {
	r, err := NewRegistry(KumaTypes()...)
	if err != nil {
		panic(err) // the built-in table is wrong: a programming error caught by every test run
	}
	r.readOnly = true
	return r
})
