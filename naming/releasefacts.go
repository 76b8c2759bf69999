package naming

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// releaseFacts are what one Kuma release does with names, each fact read from that release's code;
// docs/releases.md gives the source file and line of each.
type releaseFacts struct {
	// upstream is the Kuma version the facts were read from: its tag, or the branch and commit of a
	// development line, as the folder of its reference data is named (../shared/upstream/kuma/).
	upstream string
	// registry holds the kinds with a KRI that the release ships, each with a CRD.
	registry func() *Registry
	// removed maps a kind that an earlier release ships and this one does not to what its upgrade
	// notes say instead.
	removed map[string]string
	// removedRefKinds maps a targetRef kind that an earlier release accepts and this one does not to
	// what its upgrade notes say instead.
	removedRefKinds map[string]string
	// rfc1035 are the kinds whose name must be an RFC 1035 label.
	rfc1035 []string
	// shortNames are kinds whose name may have at most 63 characters (and no other rule beyond the
	// KRI's).
	shortNames []string
	// refsByLabelsOnly: targetRefs and backendRefs select by labels; name and namespace are gone.
	refsByLabelsOnly bool
	// overwritten are the labels and annotations the control plane sets whatever the user wrote.
	overwritten []string
	// meshOwnerReference: an ownerReference to a kuma.io Mesh must name the object's own mesh.
	meshOwnerReference bool
	// routeNames are the kinds of HTTPRoute parent the release's Gateway API controller turns into
	// MeshHTTPRoutes, each with the scheme of their names.
	routeNames map[routeParent]routeScheme
	// routesMerged: the parentRefs of one HTTPRoute that give one MeshHTTPRoute name give one
	// MeshHTTPRoute with all their destinations; without it, the last parentRef's replaces the
	// others' (MeshHTTPRouteKept).
	routesMerged bool
}

// LabelOrigin says where an object was created: "zone" or "global".
const LabelOrigin = "kuma.io/origin"

// legacyPolicies are the policies the Mesh* ones supersede; Kuma 2.14 still ships their CRDs.
var legacyPolicies = []string{
	"CircuitBreaker", "FaultInjection", "HealthCheck", "ProxyTemplate", "RateLimit", "Retry", "Timeout",
	"TrafficLog", "TrafficPermission", "TrafficRoute", "TrafficTrace", "VirtualOutbound",
}

// The facts of each release (Release.facts).
var (
	facts2_14 = &releaseFacts{
		upstream:   "v2.14.3",
		registry:   releaseRegistry(func(ResourceType) bool { return true }),
		shortNames: []string{"MeshExternalService", "MeshService"},
		routeNames: map[routeParent]routeScheme{
			{"", "Service"}:              serviceRouteName,
			{GatewayAPIGroup, "Service"}: serviceRouteName,
			{GatewayAPIGroup, "Gateway"}: gatewayRouteName,
		},
	}
	facts3_0 = &releaseFacts{
		upstream: "master-348b652",
		registry: releaseRegistry(func(t ResourceType) bool {
			return t.Kind != "MeshGateway" && t.Kind != "ZoneIngress" && t.Kind != "ZoneEgress"
		}),
		removed: func() map[string]string {
			const gateway = "the built-in gateway is gone (delegated gateways remain)"
			const zoneProxy = "a zone proxy is a Dataplane with zone proxy listeners"
			m := map[string]string{
				"MeshGateway":         gateway,
				"MeshGatewayConfig":   gateway,
				"MeshGatewayInstance": gateway,
				"MeshGatewayRoute":    gateway,
				"ZoneIngress":         zoneProxy,
				"ZoneIngressInsight":  zoneProxy,
				"ZoneEgress":          zoneProxy,
				"ZoneEgressInsight":   zoneProxy,
				"ExternalService":     "superseded by MeshExternalService",
			}
			for _, k := range legacyPolicies {
				m[k] = "superseded by the Mesh* policies"
			}
			return m
		}(),
		removedRefKinds: map[string]string{
			"MeshSubset":        "select with kind Dataplane and labels",
			"MeshServiceSubset": "select with kind Dataplane and labels at the top level, the MeshService itself in to[] and backendRefs",
			"MeshGateway":       "the built-in gateway is gone",
		},
		rfc1035:            []string{"Mesh", "MeshExternalService", "MeshMultiZoneService", "MeshService", "Zone"},
		refsByLabelsOnly:   true,
		overwritten:        []string{AnnotationDisplayName, LabelOrigin},
		meshOwnerReference: true,
		// The built-in gateway is gone: a Gateway parent gives no MeshHTTPRoute.
		routeNames: map[routeParent]routeScheme{
			{"", "Service"}:              serviceRouteName,
			{GatewayAPIGroup, "Service"}: serviceRouteName,
			{"kuma.io", "MeshService"}:   meshServiceRouteName,
		},
		routesMerged: true,
	}
)

// releaseRegistry returns a read-only registry of the Kuma types that ship marks as shipped, each
// with its CRD, made on first use (as defaultRegistry).
func releaseRegistry(ship func(ResourceType) bool) func() *Registry {
	return sync.OnceValue(func() *Registry {
		var types []ResourceType
		for _, t := range KumaTypes() {
			if ship(t) {
				t.CRD = true
				types = append(types, t)
			}
		}
		r, err := NewRegistry(types...)
		if err != nil {
			panic(err) // a built-in table is wrong: a programming error caught by every test run
		}
		r.readOnly = true
		return r
	})
}

// facts returns r's facts. The rules ask for them several times a review: comparing r's short
// version with each release's costs a fraction of hashing it into a map (docs/performance.md).
func (r Release) facts() *releaseFacts {
	switch r.orDefault().version {
	case Kuma2_14.version:
		return facts2_14
	case Kuma3_0.version:
		return facts3_0
	}
	return nil
}

// Upstream returns the Kuma version r's facts were read from, as its reference data's folder is
// named: a tag ("v2.14.3") or a development line and commit ("master-348b652").
func (r Release) Upstream() string { return r.facts().upstream }

// Registry returns the kinds with a KRI that r ships, each with a CRD. It is shared and read-only:
// extend a Clone.
func (r Release) Registry() *Registry { return r.facts().registry() }

// ForObject builds the KRI of obj, a Kubernetes object of the given kind, as r computes it: see
// Registry.ForObject (the rule is the same in every release; the kinds differ). A kind r removed is
// reported as such.
func (r Release) ForObject(obj Object, kind string) (KRI, field.ErrorList) {
	k, errs := r.Registry().ForObject(obj, kind)
	if note, ok := r.Removed(kind); ok {
		for _, e := range errs {
			if e.Field == kindPath.String() {
				e.Detail = fmt.Sprintf("removed in Kuma %s: %s", r, note)
			}
		}
	}
	return k, errs
}

// Removed reports whether kind is a kind an earlier release ships and r does not, with what r's
// upgrade notes say instead. Kinds no release shipped are not reported.
func (r Release) Removed(kind string) (note string, ok bool) {
	note, ok = r.facts().removed[kind]
	return note, ok
}

// RemovedKinds returns the kinds Removed reports for r, sorted: the kinds an earlier release ships
// and r does not, with a KRI there (MeshGateway, ZoneIngress, ZoneEgress) or without one
// (MeshGatewayInstance, the legacy policies, …).
func (r Release) RemovedKinds() []string { return slices.Sorted(maps.Keys(r.facts().removed)) }

// RemovedTargetRefKinds returns the kinds RemovedTargetRefKind reports for r, sorted.
func (r Release) RemovedTargetRefKinds() []string {
	return slices.Sorted(maps.Keys(r.facts().removedRefKinds))
}

// RemovedTargetRefKind reports whether kind is a targetRef kind an earlier release accepts and r
// does not, with what r's upgrade notes say instead.
func (r Release) RemovedTargetRefKind(kind string) (note string, ok bool) {
	note, ok = r.facts().removedRefKinds[kind]
	return note, ok
}

// RFC1035Name reports whether r holds the name of kind to an RFC 1035 label (at most 63 lowercase
// letters, digits or '-', starting with a letter, ending with a letter or digit).
func (r Release) RFC1035Name(kind string) bool { return slices.Contains(r.facts().rfc1035, kind) }

// RefsByLabelsOnly reports whether r's targetRefs and backendRefs select by labels only: name and
// namespace are gone from them.
func (r Release) RefsByLabelsOnly() bool { return r.facts().refsByLabelsOnly }

// Overwritten returns the labels and annotations r's control plane sets on an object it admits
// whatever the user wrote there.
func (r Release) Overwritten() []string { return slices.Clone(r.facts().overwritten) }

// ChecksMeshOwnerReference reports whether r refuses an object whose ownerReference to a kuma.io Mesh
// names another mesh than the object's own.
func (r Release) ChecksMeshOwnerReference() bool { return r.facts().meshOwnerReference }

// ValidatedName returns the name r's control plane validates for obj, a Kubernetes object: its
// display name as r's resource adapter reads it (the kuma.io/display-name annotation when present
// and not empty; when present and empty, <metadata.name>.<metadata.namespace>; else metadata.name),
// after r's defaulting webhook, which in 3.0 overwrites the annotation with metadata.name.
func (r Release) ValidatedName(obj Meta) string {
	if slices.Contains(r.facts().overwritten, AnnotationDisplayName) {
		return obj.GetName()
	}
	return r.ValidatedNameAsSent(obj)
}

// ValidatedNameAsSent returns the name r's control plane validates for obj, a Kubernetes object,
// when its defaulting webhook leaves the object's labels and annotations as they were sent, as
// every release does for a copy another control plane synced (KDS) that the control plane itself
// writes (3.0: pkg/core/resources/labels/compute.go:127): the display name as the resource adapter
// reads it, so that an 80-character copy of a 63-character name is judged by its 63 characters.
func (r Release) ValidatedNameAsSent(obj Meta) string {
	dn, ok := obj.GetAnnotations()[AnnotationDisplayName]
	switch {
	case ok && dn != "":
		return dn
	case ok:
		return emptyDisplayName(obj)
	}
	return obj.GetName()
}

// emptyDisplayName is ValidatedNameAsSent's name of an object whose display-name annotation is
// empty: apart, as the names forObject builds are (docs/performance.md, "Change 22").
//
//go:noinline
func emptyDisplayName(obj Meta) string {
	if ns := obj.GetNamespace(); ns != "" {
		return obj.GetName() + "." + ns
	}
	return obj.GetName()
}

// ValidateName checks name, the ValidatedName of an object of kind, against what r demands of such
// names beyond the KRI's rule: an RFC 1035 label for the kinds of RFC1035Name, at most 63
// characters for the others r limits. An empty name is left to the callers' own required-field
// checks, as Kuma leaves it.
func (r Release) ValidateName(kind, name string, p *field.Path) field.ErrorList {
	// The problems are built apart: the rules ask this of every object, and most names have none
	// (docs/performance.md, "Change 22").
	f := r.facts()
	switch {
	case name == "":
		return nil
	case slices.Contains(f.rfc1035, kind):
		// An RFC 1035 label is exactly what a KRI mesh may be: at most 63 lowercase letters, digits
		// or '-', starting with a letter, ending with a letter or digit.
		if FieldMesh.Valid(name) {
			return nil
		}
		return r.notRFC1035(kind, name, p)
	case len(name) > 63 && slices.Contains(f.shortNames, kind):
		return r.tooLong(kind, name, p)
	}
	return nil
}

// notRFC1035 is ValidateName's problems with name, which is not the RFC 1035 label r demands of a
// kind's names.
//
//go:noinline
func (r Release) notRFC1035(kind, name string, p *field.Path) field.ErrorList {
	errs := FieldMesh.Validate(name, p)
	for _, e := range errs {
		e.Detail = fmt.Sprintf("Kuma %s names a %s with an RFC 1035 label: %s", r, kind, e.Detail)
	}
	return errs
}

// tooLong is ValidateName's problem with name, longer than the 63 characters r allows a kind's
// names.
//
//go:noinline
func (r Release) tooLong(kind, name string, p *field.Path) field.ErrorList {
	e := field.TooLong(p, name, 63)
	e.Detail = fmt.Sprintf("Kuma %s names a %s with at most 63 characters", r, kind)
	return field.ErrorList{e}
}
