package rules

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// The rules, one id each; docs/rules.md says what each checks and why.
const (
	// RuleKRI: the object's KRI, as Kuma computes it, is valid.
	RuleKRI Rule = "kuma/kri"
	// RuleDisplayNameLabel: a kuma.io/display-name label is a valid KRI name.
	RuleDisplayNameLabel Rule = "kuma/display-name-label"
	// RuleSectionName: every sectionName of a target reference is a valid KRI section.
	RuleSectionName Rule = "kuma/section-name"
	// RuleSNI: the SNI Kuma builds for each service port is a valid host name.
	RuleSNI Rule = "kuma/sni"
	// RuleProxyPatchKRI: a MeshProxyPatch match that starts with "kri_" is a valid KRI.
	RuleProxyPatchKRI Rule = "kuma/proxy-patch-kri"
	// RuleProxyPatchLegacyName: a MeshProxyPatch match with ':' is a legacy name (a note).
	RuleProxyPatchLegacyName Rule = "kuma/proxy-patch-legacy-name"
	// RuleProxyPatchStatUnsafe: a name a MeshProxyPatch modification's value gives an Envoy
	// resource, where Envoy's stats read it, is stat-safe (a warning).
	RuleProxyPatchStatUnsafe Rule = "kuma/proxy-patch-stat-unsafe"
	// RuleKRIAnnotation: the kriguard.io/kri annotation is the object's KRI.
	RuleKRIAnnotation Rule = "kuma/kri-annotation"
	// RuleOriginKRI: status.origin.kri is a valid KRI.
	RuleOriginKRI Rule = "kuma/origin-kri"
	// RuleUniversalName: a Universal resource's name, mesh and labels are what the release's REST
	// API accepts.
	RuleUniversalName Rule = "kuma/universal-name"

	// The rules of a Kuma release (naming.Release): what it refuses or silently changes.

	// RuleRemovedKind: the object's kind is one the release removed.
	RuleRemovedKind Rule = "kuma/removed-kind"
	// RuleReleaseName: the name is an RFC 1035 label where the release demands one.
	RuleReleaseName Rule = "kuma/release-name"
	// RuleMeshOwnerReference: an ownerReference to a Mesh names the object's own mesh.
	RuleMeshOwnerReference Rule = "kuma/mesh-owner-reference"
	// RuleRefByName: a targetRef or backendRef selects by labels where the release demands it.
	RuleRefByName Rule = "kuma/ref-by-name"
	// RuleRemovedRefKind: a targetRef kind is one the release removed.
	RuleRemovedRefKind Rule = "kuma/removed-ref-kind"
	// RuleDataplaneRefByName: a top-level Dataplane targetRef by name, which the release turns
	// into one selecting every Dataplane (a note).
	RuleDataplaneRefByName Rule = "kuma/dataplane-ref-by-name"
	// RuleOverwrittenKey: a label or annotation the release's control plane overwrites (a note).
	RuleOverwrittenKey Rule = "kuma/overwritten-key"

	// RuleKDSCopy: the KDS copy of the object can be stored by a Kubernetes receiver.
	RuleKDSCopy Rule = "kuma/kds-copy"
	// RuleKDSSquat: a zone object does not hold the name of a global object's KDS copy (a note).
	RuleKDSSquat Rule = "kuma/kds-squat"
	// RuleKDSCollision: two objects do not get one KDS copy name on their receiver (across objects).
	RuleKDSCollision Rule = "kuma/kds-collision"
	// RuleKumaRouteName: the MeshHTTPRoute Kuma makes of an HTTPRoute's parentRef gets a name of
	// its own that it can store (across objects).
	RuleKumaRouteName Rule = "kuma/route-name"

	// RuleKongRouteName and the other Kong rules: a generated name has the shape Kong's operator
	// gives that kind and agrees with the object's own references.
	RuleKongRouteName         Rule = "kong/route-name"
	RuleKongServiceName       Rule = "kong/service-name"
	RuleKongUpstreamName      Rule = "kong/upstream-name"
	RuleKongTargetName        Rule = "kong/target-name"
	RuleKongPluginName        Rule = "kong/plugin-name"
	RuleKongPluginBindingName Rule = "kong/plugin-binding-name"
	RuleKongCertificateName   Rule = "kong/certificate-name"
	// RuleKongSNIName: a KongSNI name is a DNS-1123 subdomain; a generated one references the
	// KongCertificate of that name.
	RuleKongSNIName Rule = "kong/sni-name"
	// RuleKongSNIUnique: no two KongSNIs, generated or not, have one spec.name on one control
	// plane (across objects).
	RuleKongSNIUnique Rule = "kong/sni-unique"
	// RuleKongGeneratedUnique: no two certificateRefs of Gateways give one KongCertificate and
	// KongSNI name (across objects).
	RuleKongGeneratedUnique Rule = "kong/generated-unique"

	// The rules of the names an Envoy proxy receives (naming.CheckEnvoyName), which krilint
	// applies to Go code and `kriguard envoy` to config dumps.

	// RuleEnvoyColon: an Envoy resource name contains ':'.
	RuleEnvoyColon Rule = "envoy/colon"
	// RuleEnvoyNotKRI: an Envoy resource name starts with "kri_" but is not a KRI.
	RuleEnvoyNotKRI Rule = "envoy/not-kri"
	// RuleEnvoyLegacy: an Envoy resource name is neither a KRI, nor internal, nor under an
	// accepted prefix (reported only when asked for).
	RuleEnvoyLegacy Rule = "envoy/legacy"
	// RuleEnvoyStatUnsafe: a name Envoy puts into its stats holds characters its stats split or
	// rewrite (a warning).
	RuleEnvoyStatUnsafe Rule = "envoy/stat-unsafe"
)

// Rules returns every rule id, in the order of docs/rules.md.
func Rules() []Rule {
	return []Rule{RuleKRI, RuleDisplayNameLabel, RuleSectionName, RuleSNI, RuleProxyPatchKRI,
		RuleProxyPatchLegacyName, RuleProxyPatchStatUnsafe, RuleKRIAnnotation, RuleOriginKRI, RuleUniversalName, RuleRemovedKind, RuleReleaseName,
		RuleMeshOwnerReference, RuleRefByName, RuleRemovedRefKind, RuleDataplaneRefByName, RuleOverwrittenKey,
		RuleKDSCopy, RuleKDSSquat, RuleKDSCollision, RuleKumaRouteName,
		RuleKongRouteName, RuleKongServiceName,
		RuleKongUpstreamName, RuleKongTargetName, RuleKongPluginName, RuleKongPluginBindingName,
		RuleKongCertificateName, RuleKongSNIName, RuleKongSNIUnique, RuleKongGeneratedUnique,
		RuleEnvoyColon, RuleEnvoyNotKRI, RuleEnvoyLegacy, RuleEnvoyStatUnsafe}
}

// RuleInfo describes a rule, as docs/rules.md does at greater length.
type RuleInfo struct {
	// Level is the level of the rule's findings, unless the finding is a problem an UPDATE keeps
	// (LevelWarning).
	Level Level
	// Summary says in one line what the rule checks.
	Summary string
	// Description says why, in a few sentences.
	Description string
}

// Describe returns what r checks; false for an unknown id.
func Describe(r Rule) (RuleInfo, bool) {
	i, ok := ruleInfo[r]
	return i, ok
}

var ruleInfo = map[Rule]RuleInfo{
	RuleKRI: {LevelError, "The object's KRI, as Kuma computes it, is valid",
		"Every segment of the KRI Kuma computes for the object (mesh, zone, namespace, name, section) is within its length and characters, and the mesh is present or absent as the kind's scope demands. Reported at the field the segment comes from."},
	RuleDisplayNameLabel: {LevelError, "A kuma.io/display-name label is a valid KRI name",
		"Older Kuma releases read the object's name from the kuma.io/display-name label; it must be a valid KRI name."},
	RuleSectionName: {LevelError, "Every sectionName of a target reference is a valid KRI section",
		"Kuma builds KRIs and Envoy names from the sectionName of a targetRef or backendRef, at any depth of spec; it must be a valid KRI section name."},
	RuleSNI: {LevelError, "The SNI Kuma builds for each service port is a valid host name",
		"For MeshService, MeshMultiZoneService and MeshExternalService, sni.<type>.<mesh>[.<zone>[.<namespace>]].<name>.<section> must be a host name: each part a DNS-1123 label, the whole at most 253 characters. Kuma only warns, and the listener does not work."},
	RuleProxyPatchKRI: {LevelError, "A MeshProxyPatch match that starts with kri_ is a valid KRI",
		"Kuma only generates valid KRIs, so a hand-typed one with a typo silently matches nothing."},
	RuleProxyPatchLegacyName: {LevelNote, "A MeshProxyPatch match with ':' is a legacy Envoy name",
		"A legacy Envoy name matches nothing on a mesh with unified naming: match the resource's KRI there."},
	RuleProxyPatchStatUnsafe: {LevelWarning, "A name a MeshProxyPatch value gives an Envoy resource is stat-safe",
		"The Envoy resource a MeshProxyPatch modification adds or patches (its value, YAML) names a cluster without an alt_stat_name, an alt_stat_name, a stat_prefix (listener, HTTP connection manager, TCP proxy) or a virtual host with characters outside [a-zA-Z0-9_-]: Envoy's stats split or rewrite it, and Kuma does not sanitize what a patch writes. Admitted with a warning."},
	RuleKRIAnnotation: {LevelError, "The kriguard.io/kri annotation is the object's KRI",
		"The mutating webhook writes the object's KRI into kriguard.io/kri; a stale one means labels changed after it was written."},
	RuleOriginKRI: {LevelError, "status.origin.kri is a valid KRI",
		"A MeshTrust's status.origin.kri must be a string and a valid KRI."},
	RuleUniversalName: {LevelError, "A Universal resource's name, mesh and labels are what the Kuma release's REST API accepts",
		"On Universal the control plane's REST API refuses a name that is not a lowercase RFC 1123 subdomain of at most 253 characters, a mesh with other characters than lowercase letters, digits, '-', '_' and '.', a label key that is not a qualified name or a value that is not a label value, a Mesh name over 63 characters, and on 2.14 a MeshService or MeshExternalService display name over 63; a kuma.io/origin other than global or zone; on a zone, another zone's kuma.io/zone or another mesh's kuma.io/mesh label unless kuma.io/origin is global; on a federated zone, a type only global creates, or a type of Kuma's plugins without kuma.io/origin: zone."},
	RuleRemovedKind: {LevelError, "The object's kind is one the Kuma release removed",
		"The release judged against (3.0) no longer has this kind; the message names what replaces it."},
	RuleReleaseName: {LevelError, "The name is an RFC 1035 label where the Kuma release demands one",
		"Kuma 3.0 names Mesh, Zone, MeshService, MeshExternalService and MeshMultiZoneService with an RFC 1035 label: on Kubernetes, metadata.name."},
	RuleMeshOwnerReference: {LevelError, "An ownerReference to a Mesh names the object's own mesh",
		"Kuma 3.0 refuses a mesh-scoped object whose kuma.io Mesh ownerReference names another mesh."},
	RuleRefByName: {LevelError, "A targetRef or backendRef selects by labels where the Kuma release demands it",
		"Kuma 3.0 selects by labels only; a reference by name or namespace is pruned. The message gives the labels that replace them."},
	RuleRemovedRefKind: {LevelError, "A targetRef kind is one the Kuma release removed",
		"Kuma 3.0 removed the targetRef kinds MeshSubset, MeshServiceSubset and MeshGateway; the message names what replaces them."},
	RuleDataplaneRefByName: {LevelNote, "A top-level Dataplane targetRef by name selects every Dataplane in the release",
		"Kuma 3.0 prunes the name of a top-level Dataplane targetRef and admits the policy, which then selects every Dataplane. The message gives the labels to select with."},
	RuleOverwrittenKey: {LevelNote, "A label or annotation the release's control plane overwrites",
		"Kuma 3.0 overwrites the kuma.io/display-name annotation with metadata.name and the kuma.io/origin label whatever the user wrote."},
	RuleKongRouteName: {LevelError, "A KongRoute's name is well formed",
		"The name is a DNS-1123 subdomain, and a name of the shape Kong's operator generates is well formed."},
	RuleKongServiceName: {LevelError, "A KongService's name is well formed and agrees with spec.host",
		"The name is a DNS-1123 subdomain; a generated name is well formed and equals spec.host when that is a generated upstream name."},
	RuleKongUpstreamName: {LevelError, "A KongUpstream's name is well formed",
		"The name is a DNS-1123 subdomain, and a generated name is well formed."},
	RuleKongTargetName: {LevelError, "A KongTarget's name is well formed and under its upstream's",
		"The name is a DNS-1123 subdomain; a generated name is well formed, spec.upstreamRef.name is set and the name is under that upstream's."},
	RuleKongPluginName: {LevelError, "A KongPlugin's name is well formed",
		"The name is a DNS-1123 subdomain, and a generated name is well formed."},
	RuleKongPluginBindingName: {LevelError, "A KongPluginBinding's name is well formed and names what it binds",
		"The name is a DNS-1123 subdomain; a generated name is well formed, binds a route or a service and a plugin, and is the name of the route or service followed by the plugin."},
	RuleKDSCopy: {LevelError, "The KDS copy of the object can be stored by a Kubernetes control plane",
		"KDS copies an object as <name cut to 236>-<hash>; a cut that ends in '.', a Universal name with '_' or upper case, or a label value over 63 characters gives a copy the receiver refuses. An error on a multizone control plane (kuma.mode global or zone), a note where the mode is auto."},
	RuleKDSSquat: {LevelNote, "A zone object does not hold the name of a global object's KDS copy",
		"A zone object in the system namespace named like the copy a global object gets there makes that sync fail with AlreadyExists and restart (Kuma #10212)."},
	RuleKDSCollision: {LevelError, "Two objects do not get one KDS copy name on their receiver",
		"The KDS hash has no separator, so backend/zone-1/abc and backend/zone-1a/bc get one copy name on global: one of the two zones' syncs fails and restarts. Found across objects, by check and audit."},
	RuleKumaRouteName: {LevelError, "Kuma's MeshHTTPRoute of an HTTPRoute gets a name of its own that it can store",
		"Kuma names the MeshHTTPRoute of an HTTPRoute attached to a Service <route>-<namespace>-<service>.<service namespace> (3.0 also <route>-<namespace>-meshservice-<name>.<namespace>; 2.14 also <route>-<namespace> cut to 244 and an FNV-32 of the parentRef for its own Gateways) without escaping: two routes or two Gateway parentRefs giving one name, or a name it cannot store, leave a route without policy or status (Kuma #18262). Found across objects."},
	RuleKongCertificateName: {LevelError, "A KongCertificate's name is well formed",
		"The name is a DNS-1123 subdomain; every name Kong's operator generates (cert.<gateway>.<port>.<listener>, or ngn and a hash) is one."},
	RuleKongSNIName: {LevelError, "A KongSNI's name is well formed and names its certificate",
		"The name is a DNS-1123 subdomain; a KongSNI with a generated certificate name references the KongCertificate of that very name, as the operator builds it."},
	RuleKongSNIUnique: {LevelError, "No two KongSNIs have one name on one control plane",
		"Kong keeps SNI names unique: two KongSNIs with one spec.name ('*' included) whose certificates share a control plane, or two listeners of one Gateway that give one SNI, leave one of them unconfigured. Found across objects."},
	RuleKongGeneratedUnique: {LevelError, "No two certificateRefs give one generated KongCertificate name",
		"Kong's operator names a listener's KongCertificate and KongSNI cert.<gateway>.<port>.<listener> without escaping: dotted names or several certificateRefs of one listener give one name, and the last one written wins. Found across objects."},
	RuleEnvoyColon: {LevelError, "An Envoy resource name contains no ':'",
		"Envoy resource names must not contain ':' (use '_'): Kuma's unified naming builds them from KRIs."},
	RuleEnvoyNotKRI: {LevelError, "An Envoy resource name that starts with kri_ is a valid KRI",
		"A name that starts with kri_ claims to be a KRI; one that is not cannot be matched or parsed as one."},
	RuleEnvoyLegacy: {LevelError, "An Envoy resource name is a KRI, internal, or under an accepted prefix",
		"Names that are neither a KRI, nor internal (_...), nor under an accepted prefix are legacy names; reported only in strict mode."},
	RuleEnvoyStatUnsafe: {LevelWarning, "A name Envoy puts into its stats is stat-safe",
		"Cluster names without an alt_stat_name, alt_stat_name, virtual-host names and stat_prefix values with characters outside [a-zA-Z0-9_-] are split or rewritten by Envoy's stats."},
}

// envoyRules are the rules of naming.CheckEnvoyName, by its own rule.
var envoyRules = map[naming.EnvoyRule]Rule{
	naming.EnvoyColon: RuleEnvoyColon, naming.EnvoyNotKRI: RuleEnvoyNotKRI,
	naming.EnvoyLegacy: RuleEnvoyLegacy, naming.EnvoyStatUnsafe: RuleEnvoyStatUnsafe,
}

// EnvoyFindings returns the findings of the problems naming.CheckEnvoyName found in an Envoy
// resource name: what says what the name is ("listener", "cluster reference"), path where it is
// in the config dump's JSON. The finding's object is the name, of kind what; its field and its
// Position.JSONPath are path.
func EnvoyFindings(what, name, path string, probs []naming.EnvoyNameProblem) []Finding {
	if len(probs) == 0 {
		return nil
	}
	o := Object{Kind: schema.GroupKind{Kind: what}, Name: name}
	out := make([]Finding, 0, len(probs))
	for _, p := range probs {
		r := envoyRules[p.Rule]
		l := LevelError
		if p.Rule.Level() == string(LevelWarning) {
			l = LevelWarning
		}
		fe := &field.Error{Type: field.ErrorTypeInvalid, Field: path, BadValue: name, Detail: p.Message, Origin: string(r)}
		out = append(out, Finding{Rule: r, Level: l, Problem: fe, Object: o, Position: Position{JSONPath: path}})
	}
	return out
}

// kongRules are the rules of the Kong kinds.
var kongRules = map[string]Rule{
	"KongRoute": RuleKongRouteName, "KongService": RuleKongServiceName, "KongUpstream": RuleKongUpstreamName,
	"KongTarget": RuleKongTargetName, "KongPlugin": RuleKongPluginName, "KongPluginBinding": RuleKongPluginBindingName,
	"KongCertificate": RuleKongCertificateName, "KongSNI": RuleKongSNIName,
}

// tag records r as the rule of the problems errs[from:] (field.Error's Origin, which answers leave
// out) and returns errs.
func tag(errs field.ErrorList, from int, r Rule) field.ErrorList {
	for _, fe := range errs[from:] {
		if fe != omittedProblem {
			fe.Origin = string(r)
		}
	}
	return errs
}
