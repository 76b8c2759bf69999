package chart

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/webhook"
)

// TestValidationMode: webhook installs the validating webhook and no policies; policy installs a
// policy and binding per enabled kind and no validating webhook; both installs both. The mutating
// webhook stays in every mode. The rules of every rendered policy are the generator's, bindings carry
// each kind's enforcement, and the API server accepts every object (dry run).
func TestValidationMode(t *testing.T) {
	generated, err := admissionpolicy.Generate(webhook.DefaultConfig(), admissionpolicy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, p := range generated.Policies {
		b, _ := json.Marshal([]any{p.Spec.Variables, p.Spec.Validations, p.Spec.MatchConstraints.ResourceRules})
		rules[p.Labels[admissionpolicy.LabelKind]] = string(b)
	}
	for _, tc := range []struct {
		mode                 string
		validating, policies bool
	}{
		{"webhook", true, false},
		{"policy", false, true},
		{"both", true, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			values := "validation: {mode: " + tc.mode + "}\nconfig:\n  kinds:\n    MeshRetry: {enforcement: warn}\n    MeshTrace: {enforcement: dryrun}\n    Zone: {enabled: false}\n"
			objs := render(t, "kriguard", releaseNamespace, values)
			if got := len(objs.ofKind("ValidatingWebhookConfiguration")) == 1; got != tc.validating {
				t.Errorf("validating webhook installed: %t, want %t", got, tc.validating)
			}
			if len(objs.ofKind("MutatingWebhookConfiguration")) != 1 {
				t.Error("the mutating webhook must be installed in every mode")
			}
			policies, bindings := objs.ofKind("ValidatingAdmissionPolicy"), objs.ofKind("ValidatingAdmissionPolicyBinding")
			kinds := guardedKinds(chartValues(t, values))
			if !tc.policies {
				if len(policies)+len(bindings) > 0 {
					t.Errorf("%d policies and %d bindings in mode webhook", len(policies), len(bindings))
				}
				return
			}
			if len(policies) != len(kinds) || len(bindings) != len(kinds) {
				t.Fatalf("%d policies and %d bindings for %d enabled kinds", len(policies), len(bindings), len(kinds))
			}
			want := map[string]string{"MeshRetry": "Warn", "MeshTrace": "Audit", "MeshTimeout": "Deny"}
			for i, p := range policies {
				kind := p.GetLabels()[admissionpolicy.LabelKind]
				if kind == "Zone" {
					t.Error("a disabled kind has a policy")
				}
				b, _ := json.Marshal([]any{field(t, p, "spec", "variables"), field(t, p, "spec", "validations"), field(t, p, "spec", "matchConstraints", "resourceRules")})
				var got, gen any
				_ = json.Unmarshal(b, &got)
				_ = json.Unmarshal([]byte(rules[kind]), &gen)
				if !reflect.DeepEqual(got, gen) {
					t.Errorf("%s: the chart's rules differ from the generator's", kind)
				}
				ns := field(t, p, "spec", "matchConstraints", "namespaceSelector", "matchExpressions").([]any)
				if vals := ns[0].(map[string]any)["values"].([]any); !slices.Contains(vals, any(releaseNamespace)) || !slices.Contains(vals, any("kube-system")) {
					t.Errorf("%s: namespaces not excluded: %v", kind, vals)
				}
				bind := bindings[i]
				if field(t, bind, "spec", "policyName") != p.GetName() {
					t.Errorf("binding %s binds %v", bind.GetName(), field(t, bind, "spec", "policyName"))
				}
				if a, ok := want[kind]; ok {
					if got := field(t, bind, "spec", "validationActions").([]any); len(got) != 1 || got[0] != a {
						t.Errorf("%s: actions %v, want [%s]", kind, got, a)
					}
				}
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
