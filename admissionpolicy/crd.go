package admissionpolicy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// KindSchema is what the policy needs to know about the CustomResourceDefinition of a guarded kind.
// SchemasFromCRDs reads it from the upstream CRDs; the generated table KnownSchemas holds the kinds of
// the upstream Kuma and Kong CRDs, so that a policy can be generated without them at hand.
type KindSchema struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
	// Namespaced is false for cluster-scoped kinds.
	Namespaced bool `json:"namespaced"`
	// TopLevelMesh says the schema has a top-level string "mesh" (Kuma's legacy kinds).
	TopLevelMesh bool `json:"topLevelMesh"`
	// SectionNames are the paths of every sectionName of a target reference: a property of a
	// "targetRef" object or of an element of a "backendRefs" list, the two places the webhook looks.
	// Each path is a list of steps; a step ending in "[]" is a list whose every element is visited.
	SectionNames [][]string `json:"sectionNames,omitempty"`
	// KRIs are the paths of string properties named "kri" under status (a value documented to hold
	// a KRI).
	KRIs [][]string `json:"kris,omitempty"`
	// Opaque are the paths under which the schema keeps unknown fields: the policy cannot see target
	// references there, the webhook can.
	Opaque [][]string `json:"opaque,omitempty"`
}

// Path renders a path in the webhook's field-path notation, lists as [*]: spec.to[*].targetRef.
func Path(steps []string) string {
	var b strings.Builder
	for i, s := range steps {
		name, list := strings.CutSuffix(s, "[]")
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(name)
		if list {
			b.WriteString("[*]")
		}
	}
	return b.String()
}

// SchemasFromCRDs reads every CustomResourceDefinition in the YAML files of dirs (not recursively)
// and returns the schema facts of each kind's storage version, sorted by group and kind.
func SchemasFromCRDs(dirs ...string) ([]KindSchema, error) {
	var out []KindSchema
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("reading CRD folder: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("reading CRD: %w", err)
			}
			crds, err := decodeCRDs(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			for _, crd := range crds {
				s, err := schemaOf(crd)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				out = append(out, s)
			}
		}
	}
	slices.SortFunc(out, func(a, b KindSchema) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	for i := 1; i < len(out); i++ {
		if out[i].Group == out[i-1].Group && out[i].Kind == out[i-1].Kind {
			return nil, fmt.Errorf("kind %s.%s is defined twice", out[i].Kind, out[i].Group)
		}
	}
	return out, nil
}

func decodeCRDs(data []byte) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*apiextensionsv1.CustomResourceDefinition
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("splitting YAML documents: %w", err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(doc, crd); err != nil {
			return nil, fmt.Errorf("decoding CRD: %w", err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		out = append(out, crd)
	}
}

func schemaOf(crd *apiextensionsv1.CustomResourceDefinition) (KindSchema, error) {
	s := KindSchema{
		Group:      crd.Spec.Group,
		Kind:       crd.Spec.Names.Kind,
		Resource:   crd.Spec.Names.Plural,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}
	var root *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			s.Version = v.Name
			if v.Schema != nil {
				root = v.Schema.OpenAPIV3Schema
			}
		}
	}
	if s.Version == "" {
		return s, fmt.Errorf("CRD %s has no storage version", crd.Name)
	}
	if root == nil {
		return s, fmt.Errorf("CRD %s has no schema", crd.Name)
	}
	if m, ok := root.Properties["mesh"]; ok && m.Type == "string" {
		s.TopLevelMesh = true
	}
	walkSchema(root, nil, "", &s)
	return s, nil
}

// walkSchema records, below node at path (whose last property is named key), the facts of KindSchema.
// metadata is left out: its fields are Kubernetes', not the kind's.
func walkSchema(node *apiextensionsv1.JSONSchemaProps, path []string, key string, s *KindSchema) {
	if node.XPreserveUnknownFields != nil && *node.XPreserveUnknownFields {
		s.Opaque = append(s.Opaque, slices.Clone(path))
	}
	names := make([]string, 0, len(node.Properties))
	for k := range node.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if len(path) == 0 && k == "metadata" {
			continue
		}
		child := node.Properties[k]
		p := append(slices.Clone(path), k)
		switch {
		case k == "sectionName" && child.Type == "string" && isRef(path, key):
			s.SectionNames = append(s.SectionNames, p)
		case k == "kri" && child.Type == "string" && len(path) > 0 && path[0] == "status":
			// Only status holds a KRI the webhook reads: Kuma 2.14's spec.origin.kri of MeshTrust
			// is deprecated for status.origin.kri, and not judged.
			s.KRIs = append(s.KRIs, p)
		}
		walkSchema(&child, p, k, s)
	}
	if node.Items != nil && node.Items.Schema != nil && len(path) > 0 {
		p := slices.Clone(path)
		p[len(p)-1] += "[]"
		walkSchema(node.Items.Schema, p, key+"[]", s)
	}
	if ap := node.AdditionalProperties; ap != nil && ap.Schema != nil {
		// Maps of references do not occur in the guarded kinds; a map's values are not walked, and
		// the test of the generated table says so if one appears.
		if hasRefs(ap.Schema) {
			s.Opaque = append(s.Opaque, append(slices.Clone(path), "*"))
		}
	}
}

// isRef reports whether the object at path, reached through property key, is a target reference
// the way the webhook finds them: the value of a "targetRef" property or an element of a
// "backendRefs" list.
func isRef(path []string, key string) bool {
	return len(path) > 0 && (key == "targetRef" || key == "backendRefs[]")
}

func hasRefs(node *apiextensionsv1.JSONSchemaProps) bool {
	for k, c := range node.Properties {
		if k == "targetRef" || k == "backendRefs" || hasRefs(&c) {
			return true
		}
	}
	return node.Items != nil && node.Items.Schema != nil && hasRefs(node.Items.Schema)
}
