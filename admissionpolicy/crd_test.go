package admissionpolicy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const crdYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          mesh: {type: string}
          metadata: {type: object, properties: {targetRef: {type: object, properties: {sectionName: {type: string}}}}}
          spec:
            type: object
            properties:
              targetRef: {type: object, properties: {sectionName: {type: string}}}
              backendRef: {type: object, properties: {sectionName: {type: string}}}
              rules:
                type: array
                items:
                  type: object
                  properties:
                    backendRefs: {type: array, items: {type: object, properties: {sectionName: {type: string}}}}
              blob: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status: {type: object, properties: {kri: {type: string}}}
`

func TestSchemasFromCRDs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(crdYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	schemas, err := SchemasFromCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas) != 1 {
		t.Fatalf("%d schemas", len(schemas))
	}
	s := schemas[0]
	if s.Resource != "widgets" || s.Version != "v1" || s.Namespaced || !s.TopLevelMesh {
		t.Errorf("facts: %+v", s)
	}
	var sections []string
	for _, p := range s.SectionNames {
		sections = append(sections, Path(p))
	}
	// metadata is Kubernetes', and a backendRef (singular) is no target reference the webhook checks.
	if want := []string{"spec.rules[*].backendRefs[*].sectionName", "spec.targetRef.sectionName"}; !slices.Equal(sections, want) {
		t.Errorf("sectionNames %q, want %q", sections, want)
	}
	if len(s.KRIs) != 1 || Path(s.KRIs[0]) != "status.kri" || len(s.Opaque) != 1 || Path(s.Opaque[0]) != "spec.blob" {
		t.Errorf("kris %q, opaque %q", s.KRIs, s.Opaque)
	}

	if err := os.WriteFile(filepath.Join(dir, "again.yaml"), []byte(crdYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := SchemasFromCRDs(dir); err == nil {
		t.Error("a kind defined twice must be an error")
	}
	if _, err := SchemasFromCRDs(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder must be an error")
	}
}

// FuzzDecodeCRDs: any input decodes to CRDs or an error, never a panic, and every decoded CRD
// yields its facts or an error.
func FuzzDecodeCRDs(f *testing.F) {
	f.Add([]byte(crdYAML))
	f.Add([]byte("---\n---\nkind: CustomResourceDefinition\nspec: {versions: [{storage: true}]}\n"))
	f.Add([]byte("kind: CustomResourceDefinition\nspec:\n  versions:\n  - storage: true\n    schema: {openAPIV3Schema: {items: {schema: {}}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		crds, err := decodeCRDs(data)
		if err != nil {
			return
		}
		for _, c := range crds {
			_, _ = schemaOf(c)
		}
	})
}
