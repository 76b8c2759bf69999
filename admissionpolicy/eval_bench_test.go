package admissionpolicy

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kriguard/kriguard/rules"
)

// validator compiles p as the API server does (validating.compilePolicy) and returns its validator.
func validator(tb testing.TB, p *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	tb.Helper()
	c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		tb.Fatal(err)
	}
	vars := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	named := make([]plugincel.NamedExpressionAccessor, len(p.Spec.Variables))
	for i, v := range p.Spec.Variables {
		named[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	c.CompileAndStoreVariables(named, vars, environment.StoredExpressions)
	var conds, msgs []plugincel.ExpressionAccessor
	for _, v := range p.Spec.Validations {
		conds = append(conds, &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason})
		msgs = append(msgs, &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression})
	}
	var matcher matchconditions.Matcher
	if len(p.Spec.MatchConditions) > 0 {
		var mcs []plugincel.ExpressionAccessor
		for i := range p.Spec.MatchConditions {
			mc := matchconditions.MatchCondition(p.Spec.MatchConditions[i])
			mcs = append(mcs, &mc)
		}
		matcher = matchconditions.NewMatcher(c.CompileCondition(mcs, vars, environment.StoredExpressions), p.Spec.FailurePolicy, "policy", "validate", p.Name)
	}
	return validating.NewValidator(c.CompileCondition(conds, vars, environment.StoredExpressions), matcher,
		c.CompileCondition(nil, vars, environment.StoredExpressions),
		c.CompileCondition(msgs, plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions), p.Spec.FailurePolicy, nil)
}

// meshTimeout is a valid MeshTimeout as a user writes it.
func meshTimeout() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": map[string]any{"name": "timeouts", "namespace": "kuma-demo",
			"labels": map[string]any{"kuma.io/mesh": "default", "k8s.kuma.io/namespace": "kuma-demo"}},
		"spec": map[string]any{
			"targetRef": map[string]any{"kind": "Mesh"},
			"to": []any{map[string]any{
				"targetRef": map[string]any{"kind": "MeshService", "labels": map[string]any{"kuma.io/display-name": "backend"}, "sectionName": "http"},
				"default":   map[string]any{"idleTimeout": "20s"},
			}},
		},
	}}
}

func evaluate(b *testing.B, v validating.Validator, obj *unstructured.Unstructured) {
	gvk := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"}
	gvr := schema.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"}
	attr := admission.NewAttributesRecord(obj, nil, gvk, "kuma-demo", "timeouts", gvr, "", admission.Create, nil, false, &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		// A request's own attributes: the object's CEL form is cached in them, per request.
		va := &admission.VersionedAttributes{Attributes: attr, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(obj)}
		r := v.Validate(ctx, gvr, va, nil, nil, celconfig.RuntimeCELCostBudget, nil)
		for _, d := range r.Decisions {
			if d.Action != validating.ActionAdmit {
				b.Fatalf("denied: %s", d.Message)
			}
		}
	}
}

// BenchmarkEvaluate measures one evaluation of the generated MeshTimeout policy for a valid
// object, in-process as the API server runs it, against a one-rule policy in the same run.
func BenchmarkEvaluate(b *testing.B) {
	objs, err := Generate(rules.DefaultConfig(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	var generated *admissionregistrationv1.ValidatingAdmissionPolicy
	for _, p := range objs.Policies {
		if p.Name == "kriguard.meshtimeout.kuma.io" {
			generated = p
		}
	}
	fail := admissionregistrationv1.Fail
	oneRule := &admissionregistrationv1.ValidatingAdmissionPolicy{Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
		FailurePolicy: &fail,
		Validations:   []admissionregistrationv1.Validation{{Expression: "object.metadata.name != 'forbidden'"}},
	}}
	b.Run("one-rule", func(b *testing.B) { evaluate(b, validator(b, oneRule), meshTimeout()) })
	b.Run("generated", func(b *testing.B) { evaluate(b, validator(b, generated), meshTimeout()) })
}
