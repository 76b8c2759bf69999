package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// Mode is a Kuma control plane's place in a deployment: what KDS does with its objects.
type Mode string

// The modes of kuma.mode.
const (
	// ModeAuto asks for the mode of the control plane the webhook runs beside, which the webhook
	// detects (Request.Mode); while it is unknown, copies that cannot be stored are noted, not
	// denied.
	ModeAuto Mode = "auto"
	// ModeGlobal: a global control plane, which copies its objects to every zone.
	ModeGlobal Mode = "global"
	// ModeZone: a zone federated with a global control plane, which copies its objects to global.
	ModeZone Mode = "zone"
	// ModeStandalone: a zone on its own, which syncs nothing.
	ModeStandalone Mode = "standalone"
)

// Mode returns the control plane's mode of kuma.mode; ModeAuto when unset.
func (c *Config) Mode() Mode {
	if c.Kuma.Mode == "" {
		return ModeAuto
	}
	return c.Kuma.Mode
}

// forMode returns the Config that judges under the detected mode m: c itself unless kuma.mode is
// auto and m is a mode.
func (c *Config) forMode(m Mode) *Config {
	if m == "" || m == ModeAuto {
		return c
	}
	return c.forDetectedMode(m)
}

// forDetectedMode is forMode for a detected mode m. It is apart from forMode, which decide inlines
// for every review, nearly all without a detected mode (docs/performance.md, "The code a review
// touches").
//
//go:noinline
func (c *Config) forDetectedMode(m Mode) *Config {
	if c.Mode() != ModeAuto {
		return c
	}
	if mc, ok := c.byMode[m]; ok {
		return mc
	}
	cp := *c
	cp.Kuma.Mode = m
	return &cp
}

// DefaultSystemNamespace is Kuma's system namespace unless kuma.systemNamespace says otherwise.
const DefaultSystemNamespace = "kuma-system"

// systemNamespace returns the namespace of the control plane, where KDS copies live.
func (c *Config) systemNamespace() string {
	if c.Kuma.SystemNamespace == "" {
		return DefaultSystemNamespace
	}
	return c.Kuma.SystemNamespace
}

// multizone reports whether the configured control plane syncs with others: the KDS rules deny
// there, and warn elsewhere.
func (c *Config) multizone() bool { return c.Mode() == ModeGlobal || c.Mode() == ModeZone }

// The kinds KDS copies, by direction, as Kuma's type registry says (ResourceTypeDescriptor.KDSFlags:
// SentFromGlobalToZone, SentFromZoneToGlobal), read by running v2.14.3's and master @348b6528bc's
// registries (docs/kds.md). master has the same directions for the kinds it keeps; the kinds it
// removed are refused as such (kuma/removed-kind).
var (
	kdsToZones = kindSet("CircuitBreaker", "Config", "ExternalService", "FaultInjection", "GlobalSecret",
		"HealthCheck", "HostnameGenerator", "Mesh", "MeshAccessLog", "MeshCircuitBreaker", "MeshExternalService",
		"MeshFaultInjection", "MeshGateway", "MeshGatewayRoute", "MeshHTTPRoute", "MeshHealthCheck", "MeshIdentity",
		"MeshLoadBalancingStrategy", "MeshMetric", "MeshMultiZoneService", "MeshOpenTelemetryBackend",
		"MeshPassthrough", "MeshProxyPatch", "MeshRateLimit", "MeshRetry", "MeshService", "MeshTCPRoute", "MeshTLS",
		"MeshTimeout", "MeshTrace", "MeshTrafficPermission", "MeshTrust", "MeshZoneAddress", "ProxyTemplate",
		"RateLimit", "Retry", "Secret", "ServiceInsight", "Timeout", "TrafficLog", "TrafficPermission",
		"TrafficRoute", "TrafficTrace", "VirtualOutbound", "ZoneIngress")
	kdsToGlobal = kindSet("Dataplane", "DataplaneInsight", "HostnameGenerator", "MeshAccessLog",
		"MeshCircuitBreaker", "MeshExternalService", "MeshFaultInjection", "MeshGateway", "MeshHTTPRoute",
		"MeshHealthCheck", "MeshIdentity", "MeshLoadBalancingStrategy", "MeshMetric", "MeshOpenTelemetryBackend",
		"MeshPassthrough", "MeshProxyPatch", "MeshRateLimit", "MeshRetry", "MeshService", "MeshTCPRoute", "MeshTLS",
		"MeshTimeout", "MeshTrace", "MeshTrafficPermission", "MeshTrust", "MeshZoneAddress", "Workload",
		"ZoneEgress", "ZoneEgressInsight", "ZoneIngress", "ZoneIngressInsight")
	// kdsUnhashed keep their name when copied (SkipKDSHash).
	kdsUnhashed = kindSet("Mesh", "Secret", "GlobalSecret", "Config")
)

// kdsSync is what KDS does with the objects of a kind: the directions it copies them in, and
// whether their copies' names are hashed. A guard keeps its kind's, read once from the sets above.
type kdsSync struct{ toZones, toGlobal, hashed bool }

func kdsSyncOf(kind string) kdsSync {
	return kdsSync{toZones: kdsToZones[kind], toGlobal: kdsToGlobal[kind], hashed: !kdsUnhashed[kind]}
}

func kindSet(kinds ...string) map[string]bool {
	m := make(map[string]bool, len(kinds))
	for _, k := range kinds {
		m[k] = true
	}
	return m
}

// The labels KDS reads and writes.
const (
	labelOrigin    = "kuma.io/origin"
	labelNamespace = "k8s.kuma.io/namespace"
	originGlobal   = "global"
	originZone     = "zone"
)

// copyName returns the name of the KDS copy of an object of kind, in mesh, named name, in namespace
// namespace, created in zone ("" on global): the display name cut to 236 bytes, "-" and the hash
// of mesh, name, zone and namespace (Kuma's pkg/kds/context HashSuffixMapper; docs/kds.md). false
// for a kind that keeps its name.
func copyName(kind, mesh, name, zone, namespace string) (string, bool) {
	if kdsUnhashed[kind] {
		return "", false
	}
	return hashsuffix.Name(mesh, name, zone, namespace), true
}

// copyHashed returns the display name and the namespace Kuma's KDS hashes into the copy name of obj,
// a Kubernetes object, as rel stores it (docs/kds.md): the display name its resource adapter reads
// after its defaulting webhook (naming.Release.ValidatedName: in 2.14 a kuma.io/display-name
// annotation, <name>.<namespace> when it is empty), and the k8s.kuma.io/namespace label, which
// that webhook sets only when it is absent (pkg/core/resources/labels/compute.go setIfNotExist),
// so a label the user wrote is hashed instead of the namespace.
func copyHashed(rel naming.Release, obj *admitted) (name, namespace string) {
	namespace, ok := obj.labels.noted(notedNamespace)
	if !ok {
		namespace = obj.namespace
	}
	return rel.ValidatedName(obj), namespace
}

// kdsCopy returns the name of the KDS copy of obj, of kind with the KRI kri, on its receiver; false
// for a kind that keeps its name. Both directions hash the zone and namespace labels the object
// has (a zone's own zone label is its zone's name: KDS sets it). A Universal resource's copy is
// named after its KRI as the release stores it (naming.Release.ForUniversal, StoredUniversal): the
// display name the release keeps (the kuma.io/display-name label in 2.14, name in 3.0), its zone
// and its namespace label (docs/kds.md, "Universal").
func (c *Config) kdsCopy(kind string, obj *admitted, kri naming.KRI, universal bool) (string, bool) {
	if universal {
		return copyName(kind, kri.Mesh, kri.Name, kri.Zone, kri.Namespace)
	}
	name, namespace := copyHashed(c.release, obj)
	return copyName(kind, kri.Mesh, name, obj.labels.notedValue(notedZone), namespace)
}

// kdsFindings checks what KDS makes of obj, of kind g.gk.Kind with the KRI kri, under the
// configured mode: a copy a Kubernetes receiver cannot store (kuma/kds-copy), and a zone object
// that holds the name of a global object's copy (kuma/kds-squat, a note). Unstorable copies are
// errors on a multizone control plane, notes elsewhere.
func (c *Config) kdsFindings(g *guard, obj *admitted, kri *naming.KRI, universal bool, errs, notes field.ErrorList) (field.ErrorList, field.ErrorList) {
	if skipUnfound && !c.kdsMayFind(g, obj, kri, universal, "") {
		return errs, notes
	}
	return c.kdsFindingsNamed(g, obj, kri, universal, "", errs, notes)
}

// kdsMayFind reports whether kdsFindingsNamed may find something: its conditions, without its
// findings' slices to carry through its branches, so that a review without findings runs a few
// lines of code rather than kdsFindingsNamed's (docs/performance.md, "Change 21", "Second
// round"). TestDecideSameAsBefore and FuzzDecideSameAsBefore hold it to kdsFindingsNamed, which
// they run always (skipUnfound).
func (c *Config) kdsMayFind(g *guard, obj *admitted, kri *naming.KRI, universal bool, name string) bool {
	mode := c.Mode()
	if mode == ModeStandalone || obj.name == "" || mode != ModeGlobal && obj.labels.notedValue(notedOrigin) == originGlobal {
		return false
	}
	if g.kds.hashed && (g.kds.toZones && mode != ModeZone || g.kds.toGlobal && mode != ModeGlobal) {
		labels, base := &obj.labels, kri.Name
		if universal {
			labels = nil
		} else if base = name; base == "" {
			base = c.release.ValidatedName(obj)
		}
		if !copyValid(base, labels) && (universal || hashsuffix.IsDNS1123Subdomain(obj.name)) {
			return true
		}
	}
	return g.kds.toZones && g.kds.hashed && mode != ModeGlobal && obj.namespace == c.systemNamespace()
}

// kdsFindingsNamed is kdsFindings with the object's c.release.ValidatedName, which checkFor has
// computed: name, when not "", is it (docs/performance.md, "Change 18"). It is called where
// kdsMayFind says it may find something.
//
//go:noinline
func (c *Config) kdsFindingsNamed(g *guard, obj *admitted, kri *naming.KRI, universal bool, name string, errs, notes field.ErrorList) (field.ErrorList, field.ErrorList) {
	mode := c.Mode()
	fromGlobal := obj.labels.notedValue(notedOrigin) == originGlobal
	if mode == ModeStandalone || obj.name == "" || fromGlobal && mode != ModeGlobal {
		// A standalone zone syncs nothing; a copy from global is Kuma's own.
		return errs, notes
	}
	if g.kds.hashed && (g.kds.toZones && mode != ModeZone || g.kds.toGlobal && mode != ModeGlobal) {
		labels, base := &obj.labels, kri.Name
		if universal {
			labels = nil // kuma/universal-name holds a Universal resource's labels to Kubernetes' rules
		} else if base = name; base == "" {
			base = c.release.ValidatedName(obj) // as copyHashed reads it
		}
		// Only a copy with a problem is named: its name is the problem's message. A Kubernetes
		// name that is itself no DNS-1123 subdomain is refused by the API server before any copy;
		// a Universal one is stored as written, and its copy is what a Kubernetes receiver refuses.
		if !copyValid(base, labels) && (universal || hashsuffix.IsDNS1123Subdomain(obj.name)) {
			errs, notes = c.kdsCopyFindings(g.gk.Kind, obj, kri, universal, labels, errs, notes)
		}
	}
	// A zone object that holds the name a global object's copy gets in this zone: copies live in
	// the system namespace, and the global's is taken to be the same (Kubernetes) or none
	// (Universal). (An object copied from global is not one: it returned above.)
	if g.kds.toZones && g.kds.hashed && mode != ModeGlobal && obj.namespace == c.systemNamespace() {
		notes = squatNotes(g, obj, kri, notes)
	}
	return errs, notes
}

// squatNotes notes obj's name when it is the one KDS gives a global object's copy in this zone. It
// and kdsCopyFindings are apart from kdsFindingsNamed, whose frame is on the stack of every review
// of a Kuma kind, for their frames (docs/performance.md, "Change 19").
func squatNotes(g *guard, obj *admitted, kri *naming.KRI, notes field.ErrorList) field.ErrorList {
	base, _, split := hashsuffix.Split(obj.name)
	if split && (hashsuffix.Squats(obj.name, kri.Mesh, obj.namespace) || hashsuffix.Squats(obj.name, kri.Mesh)) {
		e := field.Invalid(namePath, obj.name, fmt.Sprintf("is the name KDS gives the copy of the global %s %q of mesh %q: while this object exists, that copy cannot be created and the zone's sync fails and restarts (Kuma #10212; docs/kds.md)", g.gk.Kind, base, kri.Mesh))
		e.Origin = string(RuleKDSSquat)
		notes = append(notes, e)
	}
	return notes
}

// kdsCopyFindings reports the problems of the KDS copy of obj, of kind with the KRI kri, that a
// Kubernetes receiver refuses with the given labels (kuma/kds-copy).
func (c *Config) kdsCopyFindings(kind string, obj *admitted, kri *naming.KRI, universal bool, labels *labelSet, errs, notes field.ErrorList) (field.ErrorList, field.ErrorList) {
	copy, _ := c.kdsCopy(kind, obj, *kri, universal)
	probs := copyProblems(copy, labels.asMap())
	if len(probs) == 0 {
		return errs, notes
	}
	// The copy is named after the display name: point at the label or annotation that gave it.
	at, value := namePath, obj.name
	switch {
	case universal && kri.Name == obj.name:
		at = universalNamePath
	case universal:
		at, value = naming.UniversalLabelPath(naming.LabelDisplayName), kri.Name
	case !universal && c.release.ValidatedName(obj) != obj.name:
		at, value = naming.AnnotationPath(naming.AnnotationDisplayName), obj.annotations[naming.AnnotationDisplayName]
	}
	e := field.Invalid(at, value, fmt.Sprintf("its KDS copy %q cannot be stored by a Kubernetes control plane: %s (docs/kds.md)", copy, strings.Join(probs, "; ")))
	e.Origin = string(RuleKDSCopy)
	if c.multizone() {
		return append(errs, e), notes
	}
	return errs, append(notes, e)
}

// copyValid reports whether copyProblems finds nothing wrong with a copy hashsuffix.Name makes of
// name, whatever its mesh and extra values, with the given labels (nil: none), without building
// the copy's name (hashsuffix.ValidBase; FuzzCopyValid holds it to copyProblems). The keys of the
// noted labels are qualified names: only their values are checked.
func copyValid(name string, labels *labelSet) bool {
	if !hashsuffix.ValidBase(name) {
		return false
	}
	if labels == nil {
		return true
	}
	for _, p := range labels.pairs {
		if !hashsuffix.IsLabelValue(p.value) || notedIndex(p.key) < 0 && !hashsuffix.IsQualifiedName(p.key) {
			return false
		}
	}
	return true
}

// copyProblems returns why a Kubernetes receiver cannot store a copy named name with the given
// labels: the name is not a DNS-1123 subdomain (a cut at hashsuffix.MaxBaseLen that ends in ".",
// or a Universal name with "_" or upper case), or a label key or value is one the API server
// refuses (a Universal value over 63 characters, copied along). nil when it can. hashsuffix
// answers whether a value is good; apimachinery, asked only of a bad one, says why.
func copyProblems(name string, labels map[string]string) []string {
	var out []string
	if !hashsuffix.IsDNS1123Subdomain(name) {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			out = append(out, fmt.Sprintf("metadata.name %q: %s", name, msg))
		}
	}
	for k, v := range labels {
		if !hashsuffix.IsQualifiedName(k) {
			for _, msg := range validation.IsQualifiedName(k) {
				out = append(out, fmt.Sprintf("metadata.labels key %q: %s", k, msg))
			}
		}
		if !hashsuffix.IsLabelValue(v) {
			for _, msg := range validation.IsValidLabelValue(v) {
				out = append(out, fmt.Sprintf("metadata.labels[%s] %q: %s", k, v, msg))
			}
		}
	}
	return out
}
