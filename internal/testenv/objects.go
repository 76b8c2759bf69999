package testenv

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

//go:embed objects.yaml
var objectsYAML []byte

// minimalFields maps a kind to the fields its objects need beyond metadata (see objects.yaml).
var minimalFields = func() map[schema.GroupKind]map[string]any {
	m, err := parseMinimalFields(objectsYAML)
	if err != nil {
		panic(fmt.Sprintf("testenv: objects.yaml: %v", err)) // a broken embedded file is a build defect
	}
	return m
}()

func parseMinimalFields(data []byte) (map[schema.GroupKind]map[string]any, error) {
	var entries []struct {
		Group  string         `json:"group"`
		Kind   string         `json:"kind"`
		Fields map[string]any `json:"fields"`
	}
	if err := yaml.UnmarshalStrict(data, &entries); err != nil {
		return nil, err
	}
	m := make(map[schema.GroupKind]map[string]any, len(entries))
	for i, e := range entries {
		gk := schema.GroupKind{Group: e.Group, Kind: e.Kind}
		switch {
		case e.Kind == "":
			return nil, fmt.Errorf("entry %d: kind is required", i)
		case m[gk] != nil:
			return nil, fmt.Errorf("entry %d: %s listed twice", i, gk)
		case len(e.Fields) == 0:
			return nil, fmt.Errorf("entry %d (%s): fields is required", i, gk)
		}
		for _, reserved := range []string{"apiVersion", "kind", "metadata"} {
			if _, ok := e.Fields[reserved]; ok {
				return nil, fmt.Errorf("entry %d (%s): %s is set by NewObject", i, gk, reserved)
			}
		}
		// sigs.k8s.io/yaml decodes numbers as float64; the apiserver's answers decode them as int64, as
		// apimachinery's JSON decoder does, so an object compares equal to what it reads back.
		raw, err := json.Marshal(e.Fields)
		if err != nil {
			return nil, fmt.Errorf("entry %d (%s): %w", i, gk, err)
		}
		var fields map[string]any
		if err := utiljson.Unmarshal(raw, &fields); err != nil {
			return nil, fmt.Errorf("entry %d (%s): %w", i, gk, err)
		}
		m[gk] = fields
	}
	return m, nil
}

// NewObject returns an object of kind k that the apiserver accepts under the upstream schema of every
// Kuma version testenv serves: the smallest spec that satisfies the CRD's required fields, enums
// and validation rules, or an empty spec when the kind needs nothing (and none when its schema has no
// spec). namespace is ignored for cluster-scoped kinds. Every call returns a fresh copy.
func NewObject(k Kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(minimalFields[schema.GroupKind{Group: k.Group, Kind: k.Kind}])}
	if u.Object == nil {
		u.Object = map[string]any{}
		if k.HasSpec {
			u.Object["spec"] = map[string]any{}
		}
	}
	u.SetGroupVersionKind(k.GroupVersionKind())
	u.SetName(name)
	if k.Namespaced {
		u.SetNamespace(namespace)
	}
	return u
}
