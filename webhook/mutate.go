package webhook

import (
	"context"
	"maps"
	"net/http"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// Mutator is the handler of /mutate. On CREATE it replaces the random suffix of generateName
// with the deterministic name of the naming schemes, keeping the original name in the
// kuma.io/display-name annotation (where Kuma keeps it), and on CREATE and UPDATE it records every
// Kuma object's KRI, as Kuma computes it (docs/kri.md), in the kriguard.io/kri annotation. Its JSON
// patches touch nothing else.
//
// The deterministic names:
//   - Kuma kinds: the hash-suffix name Kuma's KDS gives a synced copy, with KDS's inputs: the
//     object's mesh and name as its KRI has them, then the values of its kuma.io/zone and
//     k8s.kuma.io/namespace labels, each only when present. The name hashed is the
//     kuma.io/display-name annotation when the object has one, else generateName with its trailing
//     "-" trimmed (which then becomes the annotation), so that a "backend-" generateName yields
//     backend-<16 characters>;
//   - KongPluginBinding: <route or service>.<plugin> of its spec.targets and spec.pluginRef, as
//     Kong's operator names it;
//   - KongService: its spec.host, when that is a generated upstream name.
//
// Other Kong kinds keep their random names: their names hash Gateway API values the objects do
// not hold (docs/kong-names.md).
//
// An object whose KRI or name cannot be built is left alone: /validate rejects it with the
// reasons. Kinds enforced in dryrun mode are not patched; the patch is only logged and counted.
type Mutator struct {
	cfg *Config
}

var _ admission.Handler = (*Mutator)(nil)

// NewMutator returns the handler of /mutate for c.
func NewMutator(c *Config) *Mutator { return &Mutator{cfg: c} }

// Handle answers one admission request with the patch it needs, if any.
func (m *Mutator) Handle(ctx context.Context, req admission.Request) admission.Response {
	g, d, done := m.cfg.triage(ctx, req)
	if done != nil {
		return *done
	}
	if req.SubResource != "" {
		// The API server keeps only the subresource's part of the object (status, scale):
		// a metadata patch would be dropped.
		d.count(req.Operation, decisionAllowed)
		return admission.Allowed("")
	}
	log := logf.FromContext(ctx)
	obj, err := decodeObject(req.Object, "object", g.gk, g.wholeSpec)
	if err != nil {
		d.count(req.Operation, decisionError)
		log.Info("bad request", "error", err.Error())
		return admission.Errored(http.StatusBadRequest, err)
	}

	ops := m.cfg.patch(g, obj, req.Operation == admissionv1.Create)
	if len(ops) == 0 {
		d.count(req.Operation, decisionAllowed)
		return admission.Allowed("")
	}
	if d.enforcement == EnforcementDryRun {
		d.count(req.Operation, decisionDryRun)
		log.Info("would patch", "kind", g.gk.String(), "objectName", objectName(obj, req), "patch", ops,
			"override", d.overrideLabel())
		return admission.Allowed("")
	}
	d.count(req.Operation, decisionMutated)
	log.V(1).Info("patched", "kind", g.gk.String(), "objectName", objectName(obj, req), "operations", len(ops),
		"override", d.overrideLabel())
	return admission.Patched("", ops...)
}

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
// the zone and namespace label values. A label that is absent and one that is empty add the same
// nothing to the hash (the values are written with no separator), so leaving out empty fields
// gives KDS's name in both cases.
func kdsName(kri naming.KRI) string {
	var extra []string
	if kri.Zone != "" {
		extra = append(extra, kri.Zone)
	}
	if kri.Namespace != "" {
		extra = append(extra, kri.Namespace)
	}
	return hashsuffix.Name(kri.Mesh, kri.Name, extra...)
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
