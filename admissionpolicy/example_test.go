package admissionpolicy_test

import (
	"fmt"

	"github.com/kriguard/kriguard/admissionpolicy"
	"github.com/kriguard/kriguard/rules"
)

func ExampleGenerate() {
	cfg, err := rules.ParseConfig([]byte(`apiVersion: kriguard.io/v1alpha1
kind: Configuration
kinds:
  - {group: kuma.io, version: v1alpha1, kind: MeshRetry, enforcement: warn}
`))
	if err != nil {
		panic(err)
	}
	objs, err := admissionpolicy.Generate(cfg, admissionpolicy.Options{ExcludeNamespaces: []string{"kriguard-system"}})
	if err != nil {
		panic(err)
	}
	for i, p := range objs.Policies {
		if p.Labels[admissionpolicy.LabelKind] == "MeshRetry" {
			fmt.Println(p.Name, p.Spec.MatchConstraints.ResourceRules[0].Resources, objs.Bindings[i].Spec.ValidationActions)
		}
	}
	// Output: kriguard.meshretry.kuma.io [meshretries] [Warn]
}
