package rules_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/rules"
)

// One call decides an object: here as the API server would admit its creation, the mutating
// webhook's patch first (generateName gives way to Kuma's KDS name), then the validating rules.
func ExampleConfig_Decide() {
	d, err := rules.DefaultConfig().Decide(context.Background(), rules.Request{
		Phase: rules.Admit,
		Kind:  schema.GroupKind{Group: rules.KumaGroup, Kind: "MeshTimeout"},
		Object: []byte(`{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
			"metadata": {"generateName": "backend-", "namespace": "kuma-demo", "labels": {"kuma.io/mesh": "default"}},
			"spec": {"to": [{"targetRef": {"kind": "MeshService", "sectionName": "HTTP_1"}}]}}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Outcome, d.Object.Name, d.KRI())
	for _, f := range d.Findings() {
		fmt.Println(f.Level, f.Message())
	}
	// Output:
	// denied backend-524cwbwv5vzz94b6 kri_mt_default___backend_
	// error spec.to[0].targetRef.sectionName: Invalid value: "HTTP_1": must start with a lowercase letter or digit; must contain only lowercase letters, digits or '-' (found 'H', 'T', 'P', '_')
}

// A configuration file overrides the defaults per kind.
func ExampleParseConfig() {
	_, err := rules.ParseConfig([]byte(`
apiVersion: kriguard.io/v1alpha1
kind: Configuration
kinds:
  - {group: kuma.io, version: v1alpha1, kind: MeshTimeout, enforcement: block}
`))
	fmt.Println(err)
	// Output:
	// kinds[0].enforcement: Unsupported value: "block": supported values: "deny", "dryrun", "warn"
}
