package admissionpolicy

import (
	"testing"

	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kriguard/kriguard/rules"
)

// TestExpressionsCompile compiles every expression of the generated policies with the API server's
// own CEL environment, as it does when a policy is created: a syntax or typing error shows here,
// without a control plane.
func TestExpressionsCompile(t *testing.T) {
	cfg, err := rules.ParseConfig([]byte(`apiVersion: kriguard.io/v1alpha1
kind: Configuration
requesters:
  - {name: kuma, serviceAccountNamespaces: [kuma-system], groups: ["o'brien"], enforcement: warn}
  - {name: ops, users: [alice], enforcement: dryrun}
`))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Generate(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	withAuthz := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	for _, p := range objs.Policies {
		c, err := plugincel.NewCompositedCompiler(env)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Spec.Variables {
			if r := c.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, withAuthz, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: variable %s: %v", p.Name, v.Name, r.Error)
			}
		}
		for i, v := range p.Spec.Validations {
			if r := c.CompileCELExpression(&validating.ValidationCondition{Expression: v.Expression}, withAuthz, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: validation %d: %v", p.Name, i, r.Error)
			}
			if r := c.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}, plugincel.OptionalVariableDeclarations{}, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: message %d: %v", p.Name, i, r.Error)
			}
		}
		for _, m := range p.Spec.MatchConditions {
			mc := matchconditions.MatchCondition(m)
			if r := c.CompileCELExpression(&mc, withAuthz, environment.NewExpressions); r.Error != nil {
				t.Errorf("%s: match condition %s: %v", p.Name, m.Name, r.Error)
			}
		}
	}
}
