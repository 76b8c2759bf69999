package rules

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// ratchet splits the problems errs of an updated object into those the update introduces and
// those it keeps, by value, as Kubernetes' validation ratcheting does: a problem is kept when the
// old object had a problem of the same type at the same field (oldErrs) and holds the same value
// at that field as the new one. Comparing values rather than error texts matters: some errors
// omit their value (field.TooLong), so that two different too-long values read alike. The field
// of a problem that depends on other fields (a KRI too long for its mesh) is kept only when the
// old object had that problem too.
//
// obj and old are the two objects as the checks read them: what the checks decoded is compared,
// and nothing is decoded again. The problems of target references are not compared here: refWalk
// compares them as it finds them, ratchetRefs those of refsFor.
func ratchet(errs, oldErrs field.ErrorList, obj, old *admitted) (added, kept field.ErrorList) {
	if len(errs) == 0 || len(oldErrs) == 0 {
		return errs, nil
	}
	type at struct {
		field string
		typ   field.ErrorType
	}
	had := make(map[at]bool, len(oldErrs))
	for _, fe := range oldErrs {
		had[at{fe.Field, fe.Type}] = true
	}
	a, b := &view{o: obj}, &view{o: old}
	for _, fe := range errs {
		if had[at{fe.Field, fe.Type}] && sameValueAt(a.at(fe.Field), b.at(fe.Field), fe.Field) {
			kept = append(kept, fe)
			continue
		}
		added = append(added, fe)
	}
	return added, kept
}

// keepUnchangedKRIAnnotation moves from added to kept the problems of the kriguard.io/kri annotation
// of an update that leaves the annotation as the old object had it: the update did not write it.
// The annotation goes stale when an update changes what the KRI is made of (a mesh, zone or
// namespace label, the display name) and nobody records it again: with --record-kri=off, or when
// the webhook was not called. Kuma's own stores keep an object's annotations on every update they
// make (pkg/plugins/resources/k8s/store.go, Update), so denying such an update would deny what
// Kuma writes (docs/kri.md, "The kriguard.io/kri annotation").
func keepUnchangedKRIAnnotation(added, kept field.ErrorList, obj, old *admitted) (field.ErrorList, field.ErrorList) {
	v, ok := obj.annotations[naming.AnnotationKRI]
	if ov, had := old.annotations[naming.AnnotationKRI]; !ok || !had || ov != v {
		return added, kept
	}
	out := added[:0:0]
	for _, fe := range added {
		if fe.Origin == string(RuleKRIAnnotation) {
			kept = append(kept, fe)
			continue
		}
		out = append(out, fe)
	}
	return out, kept
}

// view is an admitted object as a JSON value for valuesAt: the parts the checks decoded, which
// hold every field a problem other than a target reference's can be at (metadata, mesh, the parts
// of spec specReads names, status.origin.kri). Nothing is decoded again: that could cost what the
// decode avoided.
type view struct {
	o    *admitted
	fast map[string]any
}

func (v *view) at(string) any {
	if v.o == nil {
		return nil
	}
	if v.fast == nil {
		meta := map[string]any{}
		for k, s := range map[string]string{"name": v.o.name, "generateName": v.o.generateName, "namespace": v.o.namespace} {
			if s != "" {
				meta[k] = s
			}
		}
		if v.o.hasLabels {
			meta["labels"] = stringsAny(v.o.GetLabels())
		}
		if v.o.hasAnnotations {
			meta["annotations"] = stringsAny(v.o.annotations)
		}
		v.fast = map[string]any{"metadata": meta}
		if v.o.spec != nil {
			v.fast["spec"] = v.o.spec
		}
		if v.o.mesh != "" {
			v.fast["mesh"] = v.o.mesh
		}
		if v.o.hasOriginKRI {
			v.fast["status"] = map[string]any{"origin": map[string]any{"kri": v.o.originKRI}}
		}
	}
	return v.fast
}

func stringsAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, s := range m {
		out[k] = s
	}
	return out
}

// sameValueAt reports whether a and b hold the same value at the field path p (a
// field.Path.String()), absence included. A path that names more than one place in either
// object (map keys with dots or brackets can make two paths print alike) is never the same.
func sameValueAt(a, b any, p string) bool {
	va, na := valuesAt(a, p, true)
	vb, nb := valuesAt(b, p, true)
	if na > 1 || nb > 1 || na != nb {
		return false
	}
	return na == 0 || reflect.DeepEqual(va, vb)
}

// valuesAt finds the value at p in v, a decoded JSON value, and reports how many places p names
// (0, 1, or 2 for "more than one"). root says p starts with a name without a dot. Child names
// print as ".name", map keys as "[key]" and list indices as "[i]", unescaped, so every split
// point is tried; each node of v is visited at most once per call.
func valuesAt(v any, p string, root bool) (any, int) {
	if p == "" {
		return v, 1
	}
	var found any
	n := 0
	add := func(x any, c int) {
		if c > 0 && n == 0 {
			found = x
		}
		n += c
	}
	switch t := v.(type) {
	case map[string]any:
		switch {
		case root || p[0] == '.':
			start := 1
			if root {
				start = 0
			}
			for j := start; j <= len(p) && n < 2; j++ {
				if j < len(p) && p[j] != '.' && p[j] != '[' {
					continue
				}
				if child, ok := t[p[start:j]]; ok && j > start {
					add(valuesAt(child, p[j:], false))
				}
			}
		case p[0] == '[':
			for j := 1; j < len(p) && n < 2; j++ {
				if p[j] != ']' || (j+1 < len(p) && p[j+1] != '.' && p[j+1] != '[') {
					continue
				}
				if child, ok := t[p[1:j]]; ok {
					add(valuesAt(child, p[j+1:], false))
				}
			}
		}
	case []any:
		if p[0] != '[' {
			return nil, 0
		}
		i, j := 0, 1
		for ; j < len(p) && isDigit(p[j]) && i < len(t); j++ {
			i = i*10 + int(p[j]-'0')
		}
		if j == 1 || j >= len(p) || p[j] != ']' || i >= len(t) {
			return nil, 0
		}
		return valuesAt(t[i], p[j+1:], false)
	}
	if n > 2 {
		n = 2
	}
	return found, n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ratchetRefs splits the problems refsFor finds in an updated object into those the update adds and
// those it keeps: a problem is kept when the old object had one of the same rule at the same field,
// with the same value and the same message (which words the name, namespace and kind it is about).
func ratchetRefs(errs, oldErrs field.ErrorList) (added, kept field.ErrorList) {
	if len(errs) == 0 || len(oldErrs) == 0 {
		return errs, nil
	}
	type at struct{ field, origin, detail, value string }
	key := func(fe *field.Error) at {
		return at{fe.Field, fe.Origin, fe.Detail, fmt.Sprint(fe.BadValue)}
	}
	had := make(map[at]bool, len(oldErrs))
	for _, fe := range oldErrs {
		had[key(fe)] = true
	}
	for _, fe := range errs {
		if had[key(fe)] {
			kept = append(kept, fe)
			continue
		}
		added = append(added, fe)
	}
	return added, kept
}
