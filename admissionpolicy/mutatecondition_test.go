package admissionpolicy

import (
	"context"
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/kriguard/kriguard/rules"
)

// webhookMatcher compiles expression as the API server compiles a mutating webhook's matchCondition
// (webhook/accessors.go, GetCompiledMatcher; generic/webhook.go's compiler).
func webhookMatcher(tb testing.TB, expression string) matchconditions.Matcher {
	tb.Helper()
	compiler := plugincel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	evaluator := compiler.CompileCondition([]plugincel.ExpressionAccessor{&matchconditions.MatchCondition{Name: "generated-name", Expression: expression}},
		plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.StoredExpressions)
	for _, e := range evaluator.CompilationErrors() {
		tb.Fatalf("compiling %q: %v", expression, e)
	}
	fail := admissionregistrationv1.Fail
	return matchconditions.NewMatcher(evaluator, &fail, "webhook", "admit", "mutate.kriguard.io")
}

// matchAttributes are the attributes of a request for obj (old: nil on CREATE) as the webhook
// dispatcher hands them to the matcher.
func matchAttributes(op admission.Operation, obj, old *unstructured.Unstructured) *admission.VersionedAttributes {
	gvk := schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"}
	gvr := schema.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"}
	var oldObj runtime.Object
	if old != nil {
		oldObj = old
	}
	attr := admission.NewAttributesRecord(obj, oldObj, gvk, "kuma-demo", obj.GetName(), gvr, "", op, nil, false, &user.DefaultInfo{Name: "alice"})
	va := &admission.VersionedAttributes{Attributes: attr, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(obj)}
	if old != nil {
		va.VersionedOldObject = admission.NewLazyObject(old)
	}
	return va
}

// TestMutateCondition evaluates rules.MutateCondition with recording off, as the API server evaluates
// a webhook's matchCondition, on CREATE and UPDATE of objects with and without a name and a
// generateName, empty or not: it must match exactly what the mutating decision's own test for a
// generated name reads (a CREATE, a generateName, no name), and never fail to evaluate.
func TestMutateCondition(t *testing.T) {
	m := webhookMatcher(t, rules.MutateCondition(rules.RecordKRIOff))
	for _, meta := range []map[string]any{
		{"generateName": "backend-"},
		{"generateName": "backend-", "name": ""},
		{"generateName": "backend-", "name": "backend"},
		{"generateName": "", "name": "backend"},
		{"generateName": ""},
		{"name": "backend"},
		{"name": ""},
		{},
	} {
		for _, op := range []admission.Operation{admission.Create, admission.Update} {
			meta["namespace"] = "kuma-demo"
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": meta}}
			var old *unstructured.Unstructured
			if op == admission.Update {
				old = obj.DeepCopy()
			}
			r := m.Match(context.Background(), matchAttributes(op, obj, old), nil, nil)
			if r.Error != nil {
				t.Errorf("%s of %v: %v", op, meta, r.Error)
				continue
			}
			name, _ := meta["name"].(string)
			generateName, _ := meta["generateName"].(string)
			if want := op == admission.Create && generateName != "" && name == ""; r.Matches != want {
				t.Errorf("%s of %v: matches %v, want %v", op, meta, r.Matches, want)
			}
		}
	}
}

// BenchmarkMutateCondition measures one evaluation of the mutating webhook's matchCondition with
// recording off, in-process as the API server runs it, for the benchmark's CREATE with a name (the
// condition is false: the call is skipped), against the floor of any matchCondition ("true") in the
// same run. make bench-e2e's j-over-k is the same cost through a whole API server.
func BenchmarkMutateCondition(b *testing.B) {
	obj := meshTimeout()
	for _, c := range []struct{ name, expression string }{
		{"true", "true"},
		{"generated-name", rules.MutateCondition(rules.RecordKRIOff)},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := webhookMatcher(b, c.expression)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				// A request's own attributes: the object's CEL form is built per request.
				if r := m.Match(ctx, matchAttributes(admission.Create, obj, nil), nil, nil); r.Error != nil || r.Matches != (c.name == "true") {
					b.Fatal(fmt.Sprint(r))
				}
			}
		})
	}
}
