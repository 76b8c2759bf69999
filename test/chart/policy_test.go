package chart

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/rules"
)

// TestValidationMode: webhook installs the validating webhook and no policies; policy installs the
// policies and bindings of the enabled kinds and no validating webhook; both installs both. The
// mutating webhook stays in every mode. Every rendered policy and binding is the one
// admissionpolicy.Generate makes for the configuration the chart gives the webhook (its ConfigMap),
// requester overrides included, and the API server accepts them all (dry run).
func TestValidationMode(t *testing.T) {
	for _, tc := range []struct {
		name, values         string
		validating, policies bool
	}{
		{"webhook", "validation: {mode: webhook}\n", true, false},
		{"policy", "validation: {mode: policy}\n", false, true},
		{"both", "validation: {mode: both}\n", true, true},
		{"policy, customised", `validation: {mode: policy}
admission:
  excludeNamespaces: [monitoring]
  failurePolicy: Ignore
config:
  defaultEnforcement: warn
  requesters:
    kuma-control-plane: {enforcement: dryrun}
    ops: {enforcement: deny, groups: [ops, "o'brien"], serviceAccountNamespaces: [ci]}
  kinds:
    MeshRetry: {enforcement: deny}
    MeshTrace: {enforcement: dryrun}
    Zone: {enabled: false}
`, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := render(t, "kriguard", releaseNamespace, tc.values)
			if got := len(objs.ofKind("ValidatingWebhookConfiguration")) == 1; got != tc.validating {
				t.Errorf("validating webhook installed: %t, want %t", got, tc.validating)
			}
			if len(objs.ofKind("MutatingWebhookConfiguration")) != 1 {
				t.Error("the mutating webhook must be installed in every mode")
			}
			policies, bindings := objs.ofKind("ValidatingAdmissionPolicy"), objs.ofKind("ValidatingAdmissionPolicyBinding")
			if !tc.policies {
				if len(policies)+len(bindings) > 0 {
					t.Errorf("%d policies and %d bindings in mode webhook", len(policies), len(bindings))
				}
				return
			}
			cfg, err := rules.ParseConfig([]byte(field(t, objs.get(t, "ConfigMap", "kriguard-config"), "data", "config.yaml").(string)))
			if err != nil {
				t.Fatal(err)
			}
			want, err := admissionpolicy.Generate(cfg, admissionpolicy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			byName := func(m manifest) map[string]*unstructured.Unstructured {
				out := map[string]*unstructured.Unstructured{}
				for _, o := range m {
					out[o.GetName()] = o
				}
				return out
			}
			gotPolicies, gotBindings := byName(policies), byName(bindings)
			// The chart routes only its enabled kinds; the webhook's configuration still names the
			// built-in ones it disables.
			enabled := map[string]bool{}
			for _, k := range guardedKinds(chartValues(t, tc.values)) {
				enabled[k.kind] = true
			}
			var failurePolicy any
			for i, w := range want.Policies {
				if !enabled[w.Labels[admissionpolicy.LabelKind]] {
					continue
				}
				p, b := gotPolicies[w.Name], gotBindings[w.Name]
				if p == nil || b == nil || field(t, b, "spec", "policyName") != w.Name {
					t.Errorf("no policy %s, or no binding of it", w.Name)
					continue
				}
				delete(gotPolicies, w.Name)
				if failurePolicy == nil {
					failurePolicy = field(t, p, "spec", "failurePolicy")
				}
				same := func(what string, got any, want any) {
					var g, w any
					gb, _ := json.Marshal(got)
					wb, _ := json.Marshal(want)
					_ = json.Unmarshal(gb, &g)
					_ = json.Unmarshal(wb, &w)
					if !reflect.DeepEqual(g, w) {
						t.Errorf("%s: %s differ from the generator's:\n got: %s\nwant: %s", p.GetName(), what, gb, wb)
					}
				}
				same("variables", field(t, p, "spec", "variables"), w.Spec.Variables)
				same("validations", field(t, p, "spec", "validations"), w.Spec.Validations)
				same("resource rules", field(t, p, "spec", "matchConstraints", "resourceRules"), w.Spec.MatchConstraints.ResourceRules)
				var mc any
				if m, ok := p.Object["spec"].(map[string]any)["matchConditions"]; ok {
					mc = m
				}
				same("match conditions", mc, w.Spec.MatchConditions)
				same("validation actions", field(t, b, "spec", "validationActions"), want.Bindings[i].Spec.ValidationActions)
				if fp := field(t, p, "spec", "failurePolicy"); fp != failurePolicy {
					t.Errorf("%s: failurePolicy %v", p.GetName(), fp)
				}
				ns := field(t, p, "spec", "matchConstraints", "namespaceSelector", "matchExpressions").([]any)
				if vals := ns[0].(map[string]any)["values"].([]any); !slices.Contains(vals, any(releaseNamespace)) || !slices.Contains(vals, any("kube-system")) {
					t.Errorf("%s: namespaces not excluded: %v", p.GetName(), vals)
				}
			}
			for name := range gotPolicies {
				t.Errorf("policy %s: the generator makes none", name)
			}
			ctx := testContext(t)
			for _, o := range append(policies, bindings...) {
				if err := env.Client.Create(ctx, o.DeepCopy(), client.DryRunAll); err != nil {
					t.Errorf("%s/%s: %v", o.GetKind(), o.GetName(), err)
				}
			}
		})
	}
}

// TestValidationModePolicyNeedsGeneratedKinds: a kind the generator has no policy for (a custom
// kind) cannot be enforced by the chart's policies; rendering says so instead of leaving it unchecked.
func TestValidationModePolicyNeedsGeneratedKinds(t *testing.T) {
	values := "validation: {mode: policy}\nconfig:\n  types: [{kind: MeshWidget, shortName: mw, scope: Mesh}]\n  kinds:\n    MeshWidget: {group: kuma.io, version: v1alpha1, resource: meshwidgets}\n"
	_, err := helm(t, "", append([]string{"template", "kriguard", chartDir(t), "--namespace", releaseNamespace}, valuesFile(t, values)...)...)
	if err == nil {
		t.Fatal("rendering a custom kind in mode policy succeeded")
	}
}
