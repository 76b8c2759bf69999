package rules

import (
	"maps"
	"strings"

	"gomodules.xyz/jsonpatch/v2"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// patch returns the JSON-patch operations obj needs.
func (c *Config) patch(g *guard, obj *admitted, create bool) []jsonpatch.Operation {
	generate := create && obj.name == "" && obj.generateName != ""
	var ops []jsonpatch.Operation
	displayName := ""
	if _, has := obj.annotations[naming.AnnotationDisplayName]; generate && !has {
		displayName = strings.TrimRight(obj.generateName, "-")
	}

	if !g.kri {
		if !generate {
			return nil
		}
		name := kongName(g.gk.Kind, obj)
		if name == "" {
			return nil
		}
		ops = append(ops, jsonpatch.NewOperation("add", "/metadata/name", name))
		if displayName != "" {
			ops = append(ops, mapMemberOp(obj, "annotations", naming.AnnotationDisplayName, displayName))
		}
		return ops
	}

	subject := obj
	if displayName != "" {
		// The KRI of the object as it will be stored, with the annotation this patch adds.
		s := *obj
		s.annotations = maps.Clone(obj.annotations)
		if s.annotations == nil {
			s.annotations = map[string]string{}
		}
		s.annotations[naming.AnnotationDisplayName] = displayName
		subject = &s
	}
	kri, errs := c.registry.ForObject(subject, g.gk.Kind)
	if len(errs) > 0 {
		return nil
	}
	if generate {
		ops = append(ops, jsonpatch.NewOperation("add", "/metadata/name", kdsName(kri)))
	}
	// Both annotations in one operation when the map is missing: two "add /metadata/annotations"
	// would have the second replace the first.
	var add [][2]string
	if displayName != "" {
		add = append(add, [2]string{naming.AnnotationDisplayName, displayName})
	}
	if s := kri.String(); obj.annotations[naming.AnnotationKRI] != s {
		add = append(add, [2]string{naming.AnnotationKRI, s})
	}
	return append(ops, annotationOps(obj, add)...)
}

// annotationOps sets each key to its value in metadata.annotations: one operation per member when
// the map exists, one for the whole map when it does not.
func annotationOps(obj *admitted, kv [][2]string) []jsonpatch.Operation {
	if len(kv) == 0 {
		return nil
	}
	if obj.hasAnnotations {
		ops := make([]jsonpatch.Operation, 0, len(kv))
		for _, p := range kv {
			ops = append(ops, mapMemberOp(obj, "annotations", p[0], p[1]))
		}
		return ops
	}
	m := make(map[string]string, len(kv))
	for _, p := range kv {
		m[p[0]] = p[1]
	}
	return []jsonpatch.Operation{jsonpatch.NewOperation("add", "/metadata/annotations", m)}
}

// kdsName is the hash-suffix name Kuma's KDS gives the object of kri: hashed over mesh, name, then
// the zone and namespace label values. The values are hashed with no separator, so an empty field
// adds nothing, as an absent label adds nothing in KDS.
func kdsName(kri naming.KRI) string {
	return hashsuffix.Name(kri.Mesh, kri.Name, kri.Zone, kri.Namespace)
}

// mapMemberOp sets metadata.<field>[key] = value: one member when the map exists, the whole
// map when it does not ("add" on an existing member replaces it).
func mapMemberOp(obj *admitted, fieldName, key, value string) jsonpatch.Operation {
	if fieldName == "labels" && obj.hasLabels || fieldName == "annotations" && obj.hasAnnotations {
		return jsonpatch.NewOperation("add", "/metadata/"+fieldName+"/"+escapePointer(key), value)
	}
	return jsonpatch.NewOperation("add", "/metadata/"+fieldName, map[string]string{key: value})
}

// escapePointer escapes a JSON-pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
