package rules

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// applyPatch applies the mutator's operations to raw, as the API server does, and decodes the
// result.
func applyPatch(raw []byte, ops any, gk schema.GroupKind, full bool) (*admitted, error) {
	b, err := json.Marshal(ops)
	if err != nil {
		return nil, fmt.Errorf("encoding patch: %w", err)
	}
	p, err := jsonpatchapply.DecodePatch(b)
	if err != nil {
		return nil, fmt.Errorf("decoding patch: %w", err)
	}
	patched, err := p.Apply(raw)
	if err != nil {
		return nil, fmt.Errorf("applying patch: %w", err)
	}
	return decodeObject(runtime.RawExtension{Raw: patched}, "patched object", gk, full)
}

// patchMetadata applies ops to a copy of obj when every operation adds its name, a label or an
// annotation, or the whole label or annotation map: what the mutator writes. It reports false for
// anything else, which applyPatch then applies to the bytes; the result is the same, without
// encoding, patching and decoding the object again.
func patchMetadata(obj *admitted, ops []jsonpatch.Operation) (*admitted, bool) {
	cp := *obj
	clonedLabels, clonedAnnotations := false, false
	var labels map[string]string // cp's labels, once an operation adds any
	for _, op := range ops {
		if op.Operation != "add" {
			return nil, false
		}
		var m *map[string]string
		var cloned *bool
		rest, ok := strings.CutPrefix(op.Path, "/metadata/")
		if !ok {
			return nil, false
		}
		switch {
		case rest == "name":
			v, ok := op.Value.(string)
			if !ok {
				return nil, false
			}
			cp.name = v
			continue
		case rest == "labels" || strings.HasPrefix(rest, "labels/"):
			if !clonedLabels {
				labels = obj.labels.asMap()
			}
			m, cloned = &labels, &clonedLabels
			cp.hasLabels = true
		case rest == "annotations" || strings.HasPrefix(rest, "annotations/"):
			m, cloned = &cp.annotations, &clonedAnnotations
			cp.hasAnnotations = true
		default:
			return nil, false
		}
		_, key, member := strings.Cut(rest, "/")
		if !member {
			whole, ok := op.Value.(map[string]string)
			if !ok {
				return nil, false
			}
			*m, *cloned = maps.Clone(whole), true
			continue
		}
		if !*cloned {
			*m, *cloned = maps.Clone(*m), true
			if *m == nil {
				*m = map[string]string{}
			}
		}
		v, ok := op.Value.(string)
		if !ok {
			return nil, false
		}
		if op.Path == kriAnnotationPath {
			key = naming.AnnotationKRI // the member most patches set, unescaped once
		} else {
			key = strings.ReplaceAll(strings.ReplaceAll(key, "~1", "/"), "~0", "~")
		}
		(*m)[key] = v
	}
	if clonedLabels {
		cp.labels = labelsOf(labels)
	}
	return &cp, true
}
