package webhook

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

var (
	annotationKRIPath = field.NewPath("metadata", "annotations").Key(naming.AnnotationKRI)
	specPath          = field.NewPath("spec")
	originKRIPath     = field.NewPath("status", "origin", "kri")
)

// check lists every naming problem of obj, a guarded object, each at the object field that holds
// the offending value. For KRI kinds it also returns the object's KRI and whether it is valid.
//
// The rules, all from the naming core:
//   - the object's own KRI (type, mesh, zone, namespace and name from its labels and metadata);
//   - every sectionName of a target reference: a map under a "targetRef" key, or an element of a
//     "backendRefs" list (Kuma's BackendRef embeds a TargetRef), at any depth of spec;
//   - the values documented to hold a KRI: the kriguard.io/kri annotation, which must parse and
//     equal the object's KRI, and status.origin.kri (MeshTrust), which must parse. In the upstream
//     CRDs no targetRef kind takes a KRI: references select by kind, labels and sectionName;
//   - for Kong kinds, the generated-name shapes and object-local relations of naming/kong.
func (c *Config) check(g *guard, obj *admitted) (naming.KRI, bool, field.ErrorList) {
	if !g.kri {
		return naming.KRI{}, false, kongErrors(g.gk.Kind, obj)
	}
	kri, errs := c.registry.ForObject(obj, g.gk.Kind)
	valid := len(errs) == 0
	if obj.spec != nil {
		errs = walkRefs(obj.spec, specPath, errs)
	}
	if v, ok := obj.annotations[naming.AnnotationKRI]; ok {
		switch got, err := c.registry.Parse(v); {
		case err != nil:
			errs = append(errs, field.Invalid(annotationKRIPath, v, kriDetail(err)))
		case valid && got != kri:
			errs = append(errs, field.Invalid(annotationKRIPath, v,
				fmt.Sprintf("must equal the object's KRI %q", kri.String())))
		}
	}
	if v := obj.originKRI; obj.hasOriginKRI {
		if s, ok := v.(string); !ok {
			errs = append(errs, field.Invalid(originKRIPath, v, "must be a string"))
		} else if _, err := c.registry.Parse(s); err != nil {
			errs = append(errs, field.Invalid(originKRIPath, s, kriDetail(err)))
		}
	}
	return kri, valid, errs
}

// kriDetail turns a parse error into the detail of a field error. The paths inside (kri.mesh,
// …) name the segment; the outer path names the object field.
func kriDetail(err error) string {
	if pe, ok := err.(*naming.ParseError); ok {
		return "must be a valid KRI: " + pe.Errs.ToAggregate().Error()
	}
	return "must be a valid KRI: " + err.Error()
}

// walkRefs appends the problems of every target reference found in v, at path p. Map keys are
// visited in sorted order so that the causes come out in a stable order.
func walkRefs(v any, p *field.Path, errs field.ErrorList) field.ErrorList {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k, child := range t {
			switch child.(type) {
			case map[string]any, []any:
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			child, cp := t[k], p.Child(k)
			switch k {
			case "targetRef":
				if ref, ok := child.(map[string]any); ok {
					errs = refErrors(ref, cp, errs)
				}
			case "backendRefs":
				if refs, ok := child.([]any); ok {
					for i, r := range refs {
						if ref, ok := r.(map[string]any); ok {
							errs = refErrors(ref, cp.Index(i), errs)
						}
					}
				}
			}
			errs = walkRefs(child, cp, errs)
		}
	case []any:
		for i, child := range t {
			switch child.(type) {
			case map[string]any, []any:
				errs = walkRefs(child, p.Index(i), errs)
			}
		}
	}
	return errs
}

func refErrors(ref map[string]any, p *field.Path, errs field.ErrorList) field.ErrorList {
	v, ok := ref["sectionName"]
	if !ok || v == nil {
		return errs
	}
	sp := p.Child("sectionName")
	s, ok := v.(string)
	if !ok {
		return append(errs, field.Invalid(sp, v, "must be a string"))
	}
	return append(errs, naming.FieldSection.Validate(s, sp)...)
}
