package rules

import (
	"maps"
	"slices"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// RecordKRI says whether the mutating webhook records each Kuma object's KRI in its kriguard.io/kri
// annotation (--record-kri; docs/performance.md, "Recording the KRI").
type RecordKRI string

const (
	// RecordKRIAdmission, the opt-in, writes the annotation at admission, on CREATE and UPDATE,
	// and keeps it equal to the object's KRI.
	RecordKRIAdmission RecordKRI = "admission"
	// RecordKRIOff, the default (--record-kri; "" means it too), never writes it: the mutating
	// webhook only names generateName objects. An annotation the object carries is left as it is,
	// and still judged (kuma/kri-annotation).
	RecordKRIOff RecordKRI = "off"
)

// MutatedOperations returns the operations on which the mutating webhook may patch an object of
// kind gk: CREATE and UPDATE for a kind named with a KRI when the KRI is recorded (its
// kriguard.io/kri annotation follows its labels), CREATE alone for the other kinds it names
// (generateName: the Kuma kinds, and the Kong kinds whose generated name the object's own fields
// give, kongName: KongPluginBinding, KongService), and none for the other Kong kinds, which keep
// their names. The chart sends the mutating webhook exactly these (test/chart holds it to this), so
// that the API server makes no call that cannot change the object (docs/performance.md).
func MutatedOperations(gk schema.GroupKind, record RecordKRI) []admissionv1.Operation {
	switch {
	case namedWithKRI(gk) && record == RecordKRIAdmission:
		return []admissionv1.Operation{admissionv1.Create, admissionv1.Update}
	case namedWithKRI(gk), gk.Kind == "KongPluginBinding", gk.Kind == "KongService":
		return []admissionv1.Operation{admissionv1.Create}
	}
	return nil
}

// GeneratedNameCondition is the CEL expression, over an admission request's object, of the one
// condition of every patch but the KRI annotation's: a CREATE of an object whose name the API
// server generates (a generateName, no name). With RecordKRIOff the chart gives it to the mutating
// webhook as its matchCondition (MutateCondition), so that a CREATE with a name, the usual one,
// costs no mutating call at all. An empty name counts as none, as in the decision.
const GeneratedNameCondition = "request.operation == 'CREATE' && has(object.metadata.generateName) && object.metadata.generateName != '' && (!has(object.metadata.name) || object.metadata.name == '')"

// MutateCondition returns the CEL matchCondition the mutating webhook's calls need under record: ""
// (every call MutatedOperations routes may patch) or GeneratedNameCondition.
func MutateCondition(record RecordKRI) string {
	if record != RecordKRIAdmission {
		return GeneratedNameCondition
	}
	return ""
}

// patch returns the JSON-patch operations obj needs; with record, its KRI annotation among them.
func (c *Config) patch(g *guard, obj *admitted, create, record bool) []jsonpatch.Operation {
	// GeneratedNameCondition says the same in CEL.
	generate := create && obj.name == "" && obj.generateName != ""
	if !generate && !(record && g.kri) {
		return nil
	}
	var ops []jsonpatch.Operation
	displayName := ""
	if _, has := obj.annotations[naming.AnnotationDisplayName]; generate && !has {
		displayName = strings.TrimRight(obj.generateName, "-")
	}

	if !g.kri {
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
	add := make([][2]string, 0, 2)
	if displayName != "" {
		add = append(add, [2]string{naming.AnnotationDisplayName, displayName})
	}
	if s := kri.String(); record && obj.annotations[naming.AnnotationKRI] != s {
		add = append(add, [2]string{naming.AnnotationKRI, s})
	}
	return annotationOps(ops, obj, add)
}

// annotationOps appends to ops the operations that set each key to its value in
// metadata.annotations: one per member when the map exists, one for the whole map when it does
// not.
func annotationOps(ops []jsonpatch.Operation, obj *admitted, kv [][2]string) []jsonpatch.Operation {
	if len(kv) == 0 {
		return ops
	}
	if obj.hasAnnotations {
		ops = slices.Grow(ops, len(kv))
		for _, p := range kv {
			ops = append(ops, mapMemberOp(obj, "annotations", p[0], p[1]))
		}
		return ops
	}
	m := make(map[string]string, len(kv))
	for _, p := range kv {
		m[p[0]] = p[1]
	}
	return append(ops, jsonpatch.NewOperation("add", "/metadata/annotations", m))
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
		return jsonpatch.NewOperation("add", memberPath(fieldName, key), value)
	}
	return jsonpatch.NewOperation("add", "/metadata/"+fieldName, map[string]string{key: value})
}

// kriAnnotationPath is the path of the kriguard.io/kri annotation in a patch, which the mutating
// decision writes for most objects it patches.
var kriAnnotationPath = "/metadata/annotations/" + escapePointer(naming.AnnotationKRI)

// memberPath is the JSON pointer of metadata.<field>[key].
func memberPath(fieldName, key string) string {
	if fieldName == "annotations" && key == naming.AnnotationKRI {
		return kriAnnotationPath
	}
	return "/metadata/" + fieldName + "/" + escapePointer(key)
}

// escapePointer escapes a JSON-pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
