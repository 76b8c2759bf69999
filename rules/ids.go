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
		RuleProxyPatchLegacyName, RuleKRIAnnotation, RuleOriginKRI, RuleKongRouteName, RuleKongServiceName,
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
