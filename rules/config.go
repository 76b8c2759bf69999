package rules

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/naming"
)

// The identity of a configuration file.
const (
	ConfigAPIVersion = "kriguard.io/v1alpha1"
	ConfigKind       = "Configuration"
)

// The API groups of the guarded kinds.
const (
	KumaGroup = "kuma.io"
	KongGroup = "configuration.konghq.com"
)

// Enforcement says what happens to an object that breaks a naming rule.
type Enforcement string

const (
	// EnforcementDeny rejects the request with HTTP 422.
	EnforcementDeny Enforcement = "deny"
	// EnforcementWarn admits the request and returns every problem as an admission warning.
	EnforcementWarn Enforcement = "warn"
	// EnforcementDryRun admits the request and only logs and counts the decision. The mutating
	// webhook does not patch objects of a kind in dry-run either: it counts what it would do.
	EnforcementDryRun Enforcement = "dryrun"
)

var enforcements = []Enforcement{EnforcementDeny, EnforcementDryRun, EnforcementWarn}

// kongKinds are the Kong hybrid-gateway kinds (package naming/kong) and their served versions.
var kongKinds = []KindConfig{
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongCertificate"},
	{Group: KongGroup, Version: "v1", Kind: "KongPlugin"},
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongPluginBinding"},
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongRoute"},
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongSNI"},
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongService"},
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongTarget"},
	{Group: KongGroup, Version: "v1alpha1", Kind: "KongUpstream"},
}

// Config is the webhook's configuration: the guarded kinds and how strictly each is enforced. Load
// it with LoadConfig or take DefaultConfig; a Config is read-only once loaded and safe for
// concurrent use.
type Config struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// DefaultEnforcement applies to every kind that does not set its own. Empty means deny.
	DefaultEnforcement Enforcement `json:"defaultEnforcement,omitempty"`
	// Kuma says which Kuma release objects are judged against.
	Kuma KumaConfig `json:"kuma,omitempty"`
	// Types are extra KRI resource types, added to a copy of each release's registry.
	Types []TypeConfig `json:"types,omitempty"`
	// Kinds are merged over the built-in defaults, keyed by group and kind.
	Kinds []KindConfig `json:"kinds,omitempty"`
	// Requesters override the enforcement of every guarded kind for the requests of some users,
	// groups or service accounts; the first one that matches a request applies. Absent (nil) means
	// DefaultRequesters; an empty list means none.
	Requesters []RequesterConfig `json:"requesters"`
	// Rules turns rules off.
	Rules RulesConfig `json:"rules,omitempty"`

	registry *naming.Registry
	// disabled holds the rules of Rules.Disabled.
	disabled map[Rule]bool
	// guards are the guards of the guarded kinds by kind, then group: a look-up hashes the kind
	// alone, a third of the cost of hashing a GroupKind (docs/performance.md).
	guards     map[string][]*guard
	requesters requesters
	// release is the Kuma release this Config judges against; byRelease holds a Config per known
	// release, keyed by its name, alike but for the registry (forRelease).
	release   naming.Release
	byRelease map[string]*Config
	// byMode holds, when kuma.mode is auto, a Config per mode auto may detect, alike but for
	// kuma.mode (forMode).
	byMode map[Mode]*Config
	// configured is the release of kuma.version: the one a Request that names none is judged
	// against.
	configured naming.Release
	// overwrites, refsByLabelsOnly and meshOwnerReference are release's Overwritten,
	// RefsByLabelsOnly and ChecksMeshOwnerReference, read once rather than for each object.
	overwrites                           []string
	refsByLabelsOnly, meshOwnerReference bool
}

// RulesConfig is the configuration's rules section.
type RulesConfig struct {
	// Disabled are rules whose findings are not reported. Only a rule that never denies (level
	// warning or note in docs/rules.md) can be turned off: one that denies is relaxed by the
	// enforcement of its kinds or of a requester, which keeps it reported.
	Disabled []Rule `json:"disabled,omitempty"`
}

// Enabled reports whether the findings of r are reported: false for a rule of rules.disabled.
func (c *Config) Enabled(r Rule) bool { return !c.disabled[r] }

// KumaConfig is the configuration's kuma section.
type KumaConfig struct {
	// Version is the Kuma release objects are judged against: a release naming knows ("2.14",
	// "3.0"), or ReleaseAuto, which empty means.
	Version string `json:"version,omitempty"`
	// Mode is the control plane's place in a deployment, which says what KDS copies of the
	// objects it holds (docs/kds.md): ModeGlobal, ModeZone (a zone federated with a global
	// control plane), ModeStandalone (a zone on its own, which syncs nothing) or ReleaseAuto, which
	// empty means.
	Mode Mode `json:"mode,omitempty"`
	// SystemNamespace is the namespace of Kuma's control plane, where KDS copies live; empty means
	// kuma-system.
	SystemNamespace string `json:"systemNamespace,omitempty"`
	// ControlPlane is where ReleaseAuto finds the control plane: its Deployment's namespace
	// (empty: SystemNamespace, else kuma-system) and name (empty: kuma-control-plane, as the Kuma
	// chart names it).
	ControlPlane ControlPlaneRef `json:"controlPlane,omitempty"`
}

// ControlPlaneRef names the Deployment of Kuma's control plane.
type ControlPlaneRef struct {
	Namespace  string `json:"namespace,omitempty"`
	Deployment string `json:"deployment,omitempty"`
}

// ReleaseAuto asks for the release of the control plane the webhook runs beside: the front ends
// detect it (internal/kumarelease) and name it in each Request; until they do, and when they
// cannot, Release is naming.DefaultRelease (docs/releases.md).
const ReleaseAuto = "auto"

// ControlPlaneDeployment returns the namespace and name of the Deployment ReleaseAuto reads, ""
// for the detection's defaults.
func (c *Config) ControlPlaneDeployment() (namespace, name string) {
	namespace = c.Kuma.ControlPlane.Namespace
	if namespace == "" {
		namespace = c.Kuma.SystemNamespace
	}
	return namespace, c.Kuma.ControlPlane.Deployment
}

// Auto reports whether the configuration leaves the release to detection (kuma.version auto or
// unset).
func (c *Config) Auto() bool { return c.Kuma.Version == "" || c.Kuma.Version == ReleaseAuto }

// NoOverride is what the webhook's decision metric says when no requester override applied; no
// override may take the name.
const NoOverride = "none"

// RequesterConfig overrides the enforcement for the requests of some requesters. A request
// matches when its user name is one of Users, one of its groups is one of Groups, or it comes from a
// service account (system:serviceaccount:<namespace>:<name>) of one of ServiceAccountNamespaces.
type RequesterConfig struct {
	// Name identifies the override in the decision metric (label override) and the logs.
	Name                     string      `json:"name"`
	Users                    []string    `json:"users,omitempty"`
	Groups                   []string    `json:"groups,omitempty"`
	ServiceAccountNamespaces []string    `json:"serviceAccountNamespaces,omitempty"`
	Enforcement              Enforcement `json:"enforcement"`
}

// The service accounts of the control planes kriguard guards, as their own installations name them.
const (
	// KumaControlPlaneUser is Kuma's control plane (the kuma chart's service account).
	KumaControlPlaneUser = "system:serviceaccount:kuma-system:kuma-control-plane"
	// KongOperatorUser is Kong's operator as its chart installs it (serviceAccount.name
	// controller-manager, in the namespace of its documented install, kong-system).
	KongOperatorUser = "system:serviceaccount:kong-system:controller-manager"
	// KongOperatorKustomizeUser is Kong's operator as its kustomize manifests install it (name
	// prefix gateway-operator-).
	KongOperatorKustomizeUser = "system:serviceaccount:kong-system:gateway-operator-controller-manager"
)

// DefaultRequesters are the overrides of a configuration that sets none: the guarded control
// planes' own writes are warned about, never denied, so that kriguard never stops their sync.
func DefaultRequesters() []RequesterConfig {
	return []RequesterConfig{
		{Name: "kuma-control-plane", Users: []string{KumaControlPlaneUser}, Enforcement: EnforcementWarn},
		{Name: "kong-operator", Users: []string{KongOperatorUser, KongOperatorKustomizeUser}, Enforcement: EnforcementWarn},
	}
}

// requester is a resolved RequesterConfig.
type requester struct {
	name        string
	enforcement Enforcement
}

// requesters are the resolved requester overrides, in order, with the users, groups and service
// account namespaces of all of them, each to the index of the first override that names it: a
// request is matched with one look-up of its user, not one per override (docs/performance.md).
type requesters struct {
	list                           []requester
	byUser, byGroup, bySANamespace firstIndex
}

// firstIndex maps names to the index of the first override that names them. It holds few names (the
// default overrides name three users): a look-up compares the name with each, by length first,
// which costs a fraction of hashing it; past smallIndex names it hashes (docs/performance.md).
type firstIndex struct {
	names []string
	at    []int
	m     map[string]int
	// lens has bit min(n, 63) set for the names of n bytes: a name whose bit is clear is not in x.
	lens uint64
}

// smallIndex is the most names a firstIndex compares one by one.
const smallIndex = 8

// add maps name to i unless x already maps it: to an earlier override.
func (x *firstIndex) add(name string, i int) {
	if _, ok := x.get(name); ok {
		return
	}
	x.lens |= 1 << lenBit(name)
	x.names, x.at = append(x.names, name), append(x.at, i)
	if len(x.names) > smallIndex {
		if x.m == nil {
			x.m = make(map[string]int, len(x.names))
			for j, n := range x.names {
				x.m[n] = x.at[j]
			}
		}
		x.m[name] = i
	}
}

// get returns the index name maps to.
func (x *firstIndex) get(name string) (int, bool) {
	if x.m != nil {
		i, ok := x.m[name]
		return i, ok
	}
	for j, n := range x.names {
		if n == name {
			return x.at[j], true
		}
	}
	return 0, false
}

func (x *firstIndex) len() int { return len(x.names) }

// mayHave reports whether name may be in x: false when x holds no name of its length (of 63 bytes
// or more, when it holds none as long).
func (x *firstIndex) mayHave(name string) bool { return x.lens>>lenBit(name)&1 != 0 }

// lenBit is the bit of firstIndex.lens of name's length.
func lenBit(name string) uint { return uint(min(len(name), 63)) }

// serviceAccountPrefix starts the user name of every service account.
const serviceAccountPrefix = "system:serviceaccount:"

// mayMatch reports whether an override may match a request of user: false when none names a group
// or a service account namespace and none a user of user's length, which enforcementFor then need
// not ask first (the default overrides name three users of the control planes, whose lengths other
// requesters' names seldom have; docs/performance.md, "Change 21").
func (rs *requesters) mayMatch(user string) bool {
	return !skipUnfound || rs.byGroup.len()+rs.bySANamespace.len() > 0 || rs.byUser.mayHave(user)
}

// first returns the first override that matches a request of user and groups: one that lists the
// user or one of the groups, or the namespace of the service account the user is; nil when none
// does.
func (rs *requesters) first(user string, groups []string) *requester {
	first, ok := rs.byUser.get(user)
	if !ok {
		first = len(rs.list)
	}
	if rs.byGroup.len() > 0 {
		for _, g := range groups {
			if i, ok := rs.byGroup.get(g); ok && i < first {
				first = i
			}
		}
	}
	if rs.bySANamespace.len() > 0 {
		if rest, ok := strings.CutPrefix(user, serviceAccountPrefix); ok {
			if ns, name, ok := strings.Cut(rest, ":"); ok && name != "" {
				if i, ok := rs.bySANamespace.get(ns); ok && i < first {
					first = i
				}
			}
		}
	}
	if first == len(rs.list) {
		return nil
	}
	return &rs.list[first]
}

// TypeConfig registers a KRI resource type.
type TypeConfig struct {
	Kind      string `json:"kind"`
	ShortName string `json:"shortName"`
	Scope     string `json:"scope"`
}

// KindConfig guards one kind.
type KindConfig struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// ShortName and Scope register the kind as a KRI type; they may be left out for kinds the
	// registry knows and must be left out for Kong kinds, which have no KRI.
	ShortName   string      `json:"shortName,omitempty"`
	Scope       string      `json:"scope,omitempty"`
	Enforcement Enforcement `json:"enforcement,omitempty"`
}

// guard is the resolved rule set for one kind.
type guard struct {
	gk          schema.GroupKind
	version     string
	enforcement Enforcement
	// kri is set for kinds named by a KRI; the other guarded kinds are Kong kinds.
	kri bool
	// wholeSpec is set for kinds whose checks read more of spec than target references (Kong
	// kinds, and the Kuma kinds readsWholeSpec names).
	wholeSpec bool
	// kds is what KDS does with the kind's objects (kdsFindings).
	kds kdsSync
	// kriValues is set for the kinds whose objects hold values built from their KRI
	// (hasKRIValues).
	kriValues bool
	// removed, removedNote and rfc1035 are the facts of the kind in the release of the Config
	// that holds the guard (naming.Release.Removed, RFC1035Name), read once (withTypes) rather
	// than for each object.
	removed     bool
	removedNote string
	rfc1035     bool
	// rt is the KRI type of a kri kind in the registry of the Config that holds the guard, when
	// hasRT: checkWith takes it rather than look the kind up for each object (withTypes).
	rt    naming.ResourceType
	hasRT bool
}

// setFacts sets in g the facts of its kind in rel that the rules read of every object.
func (g *guard) setFacts(rel naming.Release) {
	if g.kri && g.gk.Group == KumaGroup {
		g.removedNote, g.removed = rel.Removed(g.gk.Kind)
		g.rfc1035 = rel.RFC1035Name(g.gk.Kind)
	}
}

// kriType is the KRI type of g's kind in reg, the registry of the Config that holds g: the one
// withTypes noted, without a look-up.
func (g *guard) kriType(reg *naming.Registry) (naming.ResourceType, bool) {
	if g.hasRT {
		return g.rt, true
	}
	return reg.ByKind(g.gk.Kind)
}

// withTypes returns guards, a Config's, with the types of their kinds in reg and their facts in
// rel: each release's Config has its own registry, hence its own guards.
func withTypes(guards map[string][]*guard, reg *naming.Registry, rel naming.Release) map[string][]*guard {
	out := make(map[string][]*guard, len(guards))
	for kind, gs := range guards {
		for _, g := range gs {
			cp := *g
			if cp.kri {
				cp.rt, cp.hasRT = reg.ByKind(kind)
			}
			cp.setFacts(rel)
			out[kind] = append(out[kind], &cp)
		}
	}
	return out
}

// DefaultConfig returns the built-in configuration: every Kuma kind that has a CRD and the six Kong
// kinds, all enforced with deny, except for the requests of the guarded control planes
// (DefaultRequesters), which are only warned about.
func DefaultConfig() *Config {
	c, err := buildConfig(&Config{APIVersion: ConfigAPIVersion, Kind: ConfigKind})
	if err != nil {
		panic(err) // the built-in tables are wrong: every test run catches it
	}
	return c
}

// LoadConfig reads the configuration file at path; "" means DefaultConfig. The file is decoded
// strictly (unknown and duplicate fields are errors) and every problem is reported with its field
// path, e.g. `kinds[3].enforcement: Unsupported value: "block": supported values: "deny",
// "dryrun", "warn"`.
func LoadConfig(path string) (*Config, error) {
	if path == "" {
		return DefaultConfig(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading configuration: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("configuration %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig decodes and checks a configuration document, as LoadConfig does for a file. Keys
// are matched exactly, as the API server matches them: a key of another case (APIVERSION,
// defaultenforcement) is an unknown field, reported with its path like every other one.
func ParseConfig(data []byte) (*Config, error) {
	doc, err := yaml.YAMLToJSONStrict(data) // refuses duplicate keys
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	var c Config
	strict, err := json.UnmarshalStrict(doc, &c)
	if err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf("decoding: %w", errors.Join(strict...))
	}
	return buildConfig(&c)
}

// buildConfig checks c, registers its types and resolves the guarded kinds over the defaults.
func buildConfig(c *Config) (*Config, error) {
	var errs field.ErrorList
	if c.APIVersion != ConfigAPIVersion {
		errs = append(errs, requiredOr(field.NewPath("apiVersion"), c.APIVersion, ConfigAPIVersion))
	}
	if c.Kind != ConfigKind {
		errs = append(errs, requiredOr(field.NewPath("kind"), c.Kind, ConfigKind))
	}
	defaultEnforcement := EnforcementDeny
	if c.DefaultEnforcement != "" {
		if slices.Contains(enforcements, c.DefaultEnforcement) {
			defaultEnforcement = c.DefaultEnforcement
		} else {
			errs = append(errs, field.NotSupported(field.NewPath("defaultEnforcement"), c.DefaultEnforcement, enforcements))
		}
	}

	release := naming.DefaultRelease
	versions := []string{ReleaseAuto}
	for _, r := range naming.Releases() {
		versions = append(versions, r.String())
	}
	switch v := c.Kuma.Version; {
	case v == "" || v == ReleaseAuto:
	case slices.Contains(versions, v):
		release, _ = naming.ParseRelease(v)
	default:
		errs = append(errs, field.NotSupported(field.NewPath("kuma", "version"), v, versions))
	}
	cp := field.NewPath("kuma", "controlPlane")
	if ns := c.Kuma.ControlPlane.Namespace; ns != "" {
		for _, msg := range validation.IsDNS1123Label(ns) {
			errs = append(errs, field.Invalid(cp.Child("namespace"), ns, msg))
		}
	}
	if d := c.Kuma.ControlPlane.Deployment; d != "" {
		for _, msg := range validation.IsDNS1123Subdomain(d) {
			errs = append(errs, field.Invalid(cp.Child("deployment"), d, msg))
		}
	}

	switch m := c.Kuma.Mode; m {
	case "", ModeAuto, ModeGlobal, ModeZone, ModeStandalone:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("kuma", "mode"), m, []Mode{ModeAuto, ModeGlobal, ModeZone, ModeStandalone}))
	}

	disabled, derrs := buildDisabled(c.Rules.Disabled)
	errs = append(errs, derrs...)

	if c.Requesters == nil {
		c.Requesters = DefaultRequesters()
	}
	requesters, rerrs := buildRequesters(c.Requesters)
	errs = append(errs, rerrs...)

	reg := naming.DefaultRelease.Registry().Clone()
	for i, t := range c.Types {
		p := field.NewPath("types").Index(i)
		rt, terrs := resourceType(t.Kind, t.ShortName, t.Scope, p, true)
		if len(terrs) > 0 {
			errs = append(errs, terrs...)
			continue
		}
		if err := reg.Register(rt); err != nil {
			errs = append(errs, field.Invalid(p, t.Kind, err.Error()))
		}
	}

	// The defaults first, in a stable order; file entries override them or are added.
	var order []schema.GroupKind
	merged := map[schema.GroupKind]KindConfig{}
	for _, k := range defaultKinds() {
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		order = append(order, gk)
		merged[gk] = k
	}
	seen := map[schema.GroupKind]bool{}
	for i, k := range c.Kinds {
		p := field.NewPath("kinds").Index(i)
		kerrs := checkKind(reg, k, p)
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		if seen[gk] {
			kerrs = append(kerrs, field.Duplicate(p, gk.String()))
		}
		seen[gk] = true
		if len(kerrs) > 0 {
			errs = append(errs, kerrs...)
			continue
		}
		if _, ok := merged[gk]; !ok {
			order = append(order, gk)
		}
		merged[gk] = k
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}

	// Each other release's registry: its own kinds, and the types the file adds to the default
	// release's, reported again when they clash with that release's kinds.
	var added []naming.ResourceType
	for _, t := range reg.Types() {
		if _, known := naming.DefaultRelease.Registry().ByKind(t.Kind); !known {
			added = append(added, t)
		}
	}
	others := map[naming.Release]*naming.Registry{}
	for _, rel := range naming.Releases() {
		if rel == naming.DefaultRelease {
			continue
		}
		rr := rel.Registry().Clone()
		for _, t := range added {
			if err := rr.Register(t); err != nil {
				errs = append(errs, field.Invalid(field.NewPath("types"), t.Kind, fmt.Sprintf("Kuma %s: %v", rel, err)))
			}
		}
		others[rel] = rr
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}

	c.registry = reg
	c.requesters = requesters
	c.disabled = disabled
	c.guards = make(map[string][]*guard, len(order))
	c.Kinds = c.Kinds[:0:0]
	for _, gk := range order {
		k := merged[gk]
		g := &guard{gk: gk, version: k.Version, enforcement: k.Enforcement, kri: namedWithKRI(gk), kds: kdsSyncOf(gk.Kind), kriValues: hasKRIValues(gk)}
		g.wholeSpec = !g.kri || gk.Group == KumaGroup && readsWholeSpec(gk.Kind)
		if g.enforcement == "" {
			g.enforcement = defaultEnforcement
		}
		k.Enforcement = g.enforcement
		if g.kri {
			rt, _ := reg.ByKind(gk.Kind)
			k.ShortName, k.Scope = rt.ShortName, rt.Scope.String()
		}
		c.guards[gk.Kind] = append(c.guards[gk.Kind], g)
		c.Kinds = append(c.Kinds, k)
	}
	c.DefaultEnforcement = defaultEnforcement
	c.configured = release
	c.release = naming.DefaultRelease
	c.setReleaseFacts()
	unset := c.guards
	c.guards = withTypes(unset, reg, c.release)
	c.byRelease = map[string]*Config{c.release.String(): c}
	for rel, rr := range others {
		cp := *c
		cp.registry, cp.release, cp.guards = rr, rel, withTypes(unset, rr, rel)
		cp.setReleaseFacts()
		c.byRelease[rel.String()] = &cp
	}
	for _, rc := range c.byRelease {
		rc.byMode = modeConfigs(rc)
	}
	return c, nil
}

// setReleaseFacts sets in c the facts of c.release that the rules read of every object.
func (c *Config) setReleaseFacts() {
	rel := c.release
	c.overwrites, c.refsByLabelsOnly, c.meshOwnerReference = rel.Overwritten(), rel.RefsByLabelsOnly(), rel.ChecksMeshOwnerReference()
}

// modeConfigs returns the Configs forMode returns for c, which judges under kuma.mode auto: one per
// mode auto may detect, made once rather than for each request (docs/performance.md, "Change 18").
// nil when c's mode is not auto.
func modeConfigs(c *Config) map[Mode]*Config {
	if c.Mode() != ModeAuto {
		return nil
	}
	out := make(map[Mode]*Config, 3)
	for _, m := range []Mode{ModeGlobal, ModeZone, ModeStandalone} {
		cp := *c
		cp.Kuma.Mode, cp.byMode = m, nil
		out[m] = &cp
	}
	return out
}

// buildDisabled checks the rules turned off: known ids, once each, of rules that never deny.
func buildDisabled(rs []Rule) (map[Rule]bool, field.ErrorList) {
	var errs field.ErrorList
	out := make(map[Rule]bool, len(rs))
	for i, r := range rs {
		p := field.NewPath("rules", "disabled").Index(i)
		info, ok := Describe(r)
		switch {
		case !ok:
			errs = append(errs, field.Invalid(p, r, "not a rule id (docs/rules.md)"))
		case info.Level == LevelError:
			errs = append(errs, field.Invalid(p, r, "denies objects, so it cannot be turned off: relax it with the enforcement of its kinds or of a requester"))
		case out[r]:
			errs = append(errs, field.Duplicate(p, r))
		}
		out[r] = true
	}
	return out, errs
}

// buildRequesters checks the requester overrides and resolves them.
func buildRequesters(rs []RequesterConfig) (requesters, field.ErrorList) {
	var errs field.ErrorList
	out := requesters{list: make([]requester, 0, len(rs))}
	names := map[string]bool{}
	for i, r := range rs {
		p := field.NewPath("requesters").Index(i)
		switch {
		case r.Name == "":
			errs = append(errs, field.Required(p.Child("name"), "names the override in metrics and logs"))
		case names[r.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), r.Name))
		case r.Name == NoOverride:
			errs = append(errs, field.Invalid(p.Child("name"), r.Name, "is what the metric says when no override applied"))
		default:
			for _, msg := range validation.IsDNS1123Label(r.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), r.Name, msg))
			}
		}
		names[r.Name] = true
		if r.Enforcement == "" {
			errs = append(errs, field.Required(p.Child("enforcement"), "deny, dryrun or warn"))
		} else if !slices.Contains(enforcements, r.Enforcement) {
			errs = append(errs, field.NotSupported(p.Child("enforcement"), r.Enforcement, enforcements))
		}
		if len(r.Users)+len(r.Groups)+len(r.ServiceAccountNamespaces) == 0 {
			errs = append(errs, field.Required(p, "at least one of users, groups or serviceAccountNamespaces"))
		}
		at := len(out.list)
		out.list = append(out.list, requester{name: r.Name, enforcement: r.Enforcement})
		for j, u := range r.Users {
			if u == "" {
				errs = append(errs, field.Required(p.Child("users").Index(j), "a user name"))
			}
			out.byUser.add(u, at)
		}
		for j, g := range r.Groups {
			if g == "" {
				errs = append(errs, field.Required(p.Child("groups").Index(j), "a group name"))
			}
			out.byGroup.add(g, at)
		}
		for j, ns := range r.ServiceAccountNamespaces {
			for _, msg := range validation.IsDNS1123Label(ns) {
				errs = append(errs, field.Invalid(p.Child("serviceAccountNamespaces").Index(j), ns, msg))
			}
			out.bySANamespace.add(ns, at)
		}
	}
	return out, errs
}

// enforcementFor returns how a request of userInfo for kind g is enforced, and the name of the
// requester override that decided it ("" for none).
func (c *Config) enforcementFor(g *guard, user string, groups []string) (Enforcement, string) {
	if c.requesters.mayMatch(user) {
		if r := c.requesters.first(user, groups); r != nil {
			return r.enforcement, r.name
		}
	}
	return g.enforcement, ""
}

// RequesterEnforcement returns how a request of the given user and groups for gk is enforced, and
// the name of the requester override that decided it ("" for none). ok is false when gk is not
// guarded.
func (c *Config) RequesterEnforcement(gk schema.GroupKind, user string, groups []string) (e Enforcement, override string, ok bool) {
	g, ok := c.guarded(gk)
	if !ok {
		return "", "", false
	}
	e, override = c.enforcementFor(g, user, groups)
	return e, override, true
}

// defaultKinds are the guarded kinds of a configuration that lists none: the Kuma kinds of the
// naming registry that Kuma ships a CRD for (naming.ResourceType.CRD), in kind order, then the
// Kong kinds.
func defaultKinds() []KindConfig {
	var out []KindConfig
	for _, t := range naming.KumaTypes() {
		if t.CRD {
			out = append(out, KindConfig{Group: KumaGroup, Version: "v1alpha1", Kind: t.Kind})
		}
	}
	slices.SortFunc(out, func(a, b KindConfig) int { return strings.Compare(a.Kind, b.Kind) })
	return append(out, kongKinds...)
}

// checkKind checks one kinds[] entry and registers its KRI type when it names a new one.
func checkKind(reg *naming.Registry, k KindConfig, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if k.Group == "" {
		errs = append(errs, field.Required(p.Child("group"), ""))
	}
	if k.Version == "" {
		errs = append(errs, field.Required(p.Child("version"), ""))
	}
	if k.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	}
	if k.Enforcement != "" && !slices.Contains(enforcements, k.Enforcement) {
		errs = append(errs, field.NotSupported(p.Child("enforcement"), k.Enforcement, enforcements))
	}
	if len(errs) > 0 {
		return errs
	}
	if k.Group == KongGroup {
		names := make([]string, len(kongKinds))
		for i, kk := range kongKinds {
			names[i] = kk.Kind
		}
		if !slices.Contains(names, k.Kind) {
			errs = append(errs, field.NotSupported(p.Child("kind"), k.Kind, names))
		}
		if k.ShortName != "" {
			errs = append(errs, field.Forbidden(p.Child("shortName"), "Kong kinds have no KRI"))
		}
		if k.Scope != "" {
			errs = append(errs, field.Forbidden(p.Child("scope"), "Kong kinds have no KRI"))
		}
		return errs
	}
	if have, ok := reg.ByKind(k.Kind); ok {
		if k.ShortName != "" && k.ShortName != have.ShortName {
			errs = append(errs, field.Invalid(p.Child("shortName"), k.ShortName,
				fmt.Sprintf("kind %s is registered with short name %q", k.Kind, have.ShortName)))
		}
		if k.Scope != "" && k.Scope != have.Scope.String() {
			errs = append(errs, field.Invalid(p.Child("scope"), k.Scope,
				fmt.Sprintf("kind %s is registered with scope %s", k.Kind, have.Scope)))
		}
		return errs
	}
	if gk := (schema.GroupKind{Group: k.Group, Kind: k.Kind}); k.ShortName == "" && k.Scope == "" && removedByARelease(gk) {
		// Not a KRI kind to declare: the webhook is sent it and judges it only as removed, whatever
		// the configuration lists.
		return field.ErrorList{field.Invalid(p.Child("kind"), k.Kind, "a Kuma kind a release removed, which has no KRI: "+
			"not configured, the webhook judges it only as removed, under the default enforcement (docs/releases.md, \"Removed kinds at admission\")")}
	}
	rt, errs := resourceType(k.Kind, k.ShortName, k.Scope, p, false)
	if len(errs) > 0 {
		return errs
	}
	if err := reg.Register(rt); err != nil {
		errs = append(errs, field.Invalid(p.Child("shortName"), k.ShortName, err.Error()))
	}
	return errs
}

// resourceType checks the fields of a KRI type declaration. withKind is false when the caller
// has already checked the kind.
func resourceType(kind, short, scope string, p *field.Path, withKind bool) (naming.ResourceType, field.ErrorList) {
	var errs field.ErrorList
	if withKind && kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	}
	if short == "" {
		errs = append(errs, field.Required(p.Child("shortName"), "the KRI type of a kind the registry does not know"))
	} else {
		errs = append(errs, naming.FieldType.Validate(short, p.Child("shortName"))...)
	}
	var sc naming.Scope
	if scope == "" {
		errs = append(errs, field.Required(p.Child("scope"), "the KRI scope of a kind the registry does not know"))
	} else if s, err := naming.ParseScope(scope); err != nil {
		errs = append(errs, field.NotSupported(p.Child("scope"), scope, []string{naming.ScopeGlobal.String(), naming.ScopeMesh.String()}))
	} else {
		sc = s
	}
	return naming.ResourceType{Kind: kind, ShortName: short, Scope: sc}, errs
}

func requiredOr(p *field.Path, got, want string) *field.Error {
	if got == "" {
		return field.Required(p, fmt.Sprintf("must be %q", want))
	}
	return field.NotSupported(p, got, []string{want})
}

// Release returns the Kuma release of kuma.version, which a Request that names none is judged
// against; ReleaseAuto gives naming.DefaultRelease: the front ends that detect the release name
// it in each Request.
func (c *Config) Release() naming.Release { return c.configured }

// Registry returns the KRI type registry: naming.DefaultRegistry() plus the configured types.
func (c *Config) Registry() *naming.Registry { return c.registry }

// Enforcement returns how gk is enforced, and false when gk is not guarded.
func (c *Config) Enforcement(gk schema.GroupKind) (Enforcement, bool) {
	g, ok := c.guarded(gk)
	if !ok {
		return "", false
	}
	return g.enforcement, true
}

// GuardedKinds returns the resolved kinds: defaults merged with the file, each with its
// enforcement, short name and scope filled in. Charts and tests use it to write webhook rules.
func (c *Config) GuardedKinds() []KindConfig { return slices.Clone(c.Kinds) }
