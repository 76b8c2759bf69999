package manifest_test

import (
	"fmt"
	"strings"

	"github.com/kriguard/kriguard/internal/manifest"
)

func ExampleRead() {
	in := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: timeouts
---
apiVersion: kuma.io/v1alpha1
kind: MeshRetry
metadata: {name: [broken
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
`
	_ = manifest.Read("in.yaml", strings.NewReader(in), manifest.Options{}, func(d manifest.Document) error {
		if d.Err != nil {
			fmt.Printf("%s:%d: %v\n", d.Source, d.Line, d.Err)
			return nil
		}
		fmt.Printf("%s:%d: %s %s\n", d.Source, d.Line, d.APIVersion, d.Kind)
		return nil
	})
	// Output:
	// in.yaml:1: kuma.io/v1alpha1 MeshTimeout
	// in.yaml:8: invalid YAML: line 8: did not find expected ',' or ']'
	// in.yaml:13: v1 ConfigMap
}
