package rules

import "k8s.io/apimachinery/pkg/util/validation/field"

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
	// RuleKRIAnnotation: the kriguard.io/kri annotation is the object's KRI.
	RuleKRIAnnotation Rule = "kuma/kri-annotation"
	// RuleOriginKRI: status.origin.kri is a valid KRI.
	RuleOriginKRI Rule = "kuma/origin-kri"

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

	// RuleKongRouteName and the other Kong rules: a generated name has the shape Kong's operator
	// gives that kind and agrees with the object's own references.
	RuleKongRouteName         Rule = "kong/route-name"
	RuleKongServiceName       Rule = "kong/service-name"
	RuleKongUpstreamName      Rule = "kong/upstream-name"
	RuleKongTargetName        Rule = "kong/target-name"
	RuleKongPluginName        Rule = "kong/plugin-name"
	RuleKongPluginBindingName Rule = "kong/plugin-binding-name"
)

// Rules returns every rule id, in the order of docs/rules.md.
func Rules() []Rule {
	return []Rule{RuleKRI, RuleDisplayNameLabel, RuleSectionName, RuleSNI, RuleProxyPatchKRI,
		RuleProxyPatchLegacyName, RuleKRIAnnotation, RuleOriginKRI, RuleRemovedKind, RuleReleaseName,
		RuleMeshOwnerReference, RuleRefByName, RuleRemovedRefKind, RuleDataplaneRefByName, RuleOverwrittenKey,
		RuleKongRouteName, RuleKongServiceName,
		RuleKongUpstreamName, RuleKongTargetName, RuleKongPluginName, RuleKongPluginBindingName}
}

// kongRules are the rules of the Kong kinds.
var kongRules = map[string]Rule{
	"KongRoute": RuleKongRouteName, "KongService": RuleKongServiceName, "KongUpstream": RuleKongUpstreamName,
	"KongTarget": RuleKongTargetName, "KongPlugin": RuleKongPluginName, "KongPluginBinding": RuleKongPluginBindingName,
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
