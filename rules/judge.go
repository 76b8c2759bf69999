package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	jsonpatchapply "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Verdict is the webhook's decision on one object, as Judge returns it.
type Verdict struct {
	// Enforcement is how the object's kind is enforced.
	Enforcement Enforcement
	// Allowed is false when the webhook would deny the object.
	Allowed bool
	// Name is the object's name once admitted: its own, the deterministic name the mutator gives a
	// generateName object, or "" when the API server would pick a random one.
	Name string
	// GenerateName and Namespace are the object's.
	GenerateName, Namespace string
	// KRI is the object's KRI as Kuma computes it, valid or not (KRIValid says); empty for kinds
	// without one.
	KRI      string
	KRIValid bool
	// Causes lists every problem, each at the object field that holds the offending value. An
	// allowed object has causes when its kind is enforced with warn or dryrun.
	Causes field.ErrorList
	// Warnings are values the webhook admits with a warning (a hand-typed Envoy name with ':', for
	// instance), whatever the enforcement.
	Warnings field.ErrorList
}

// ErrNotGuarded is returned by Judge for a kind the configuration does not guard.
var ErrNotGuarded = errors.New("kind is not guarded")

// Judge decides raw, one JSON object of kind gk, as the webhooks decide its CREATE by a requester
// no override names (the kind's own enforcement applies): first the mutator's patch (so that a generateName object is judged under the
// name it gets), then the validator's checks, over the same code the handlers run. Judge counts
// no metric and logs nothing. It is what the kriguard command runs over manifests and clusters.
func (c *Config) Judge(gk schema.GroupKind, raw []byte) (Verdict, error) {
	g, ok := c.guards[gk]
	if !ok {
		return Verdict{}, fmt.Errorf("%s: %w", gk.String(), ErrNotGuarded)
	}
	obj, err := decodeObject(runtime.RawExtension{Raw: raw}, "object", gk, g.wholeSpec)
	if err != nil {
		return Verdict{}, err
	}
	// The mutator patches nothing for a kind in dryrun: it only counts what it would do.
	if ops := c.patch(g, obj, true); len(ops) > 0 && g.enforcement != EnforcementDryRun {
		if patched, ok := patchMetadata(obj, ops); ok {
			obj = patched
		} else if obj, err = applyPatch(raw, ops, gk, g.wholeSpec); err != nil {
			return Verdict{}, err
		}
	}
	if obj.name == "" && obj.generateName != "" {
		// The API server names the object before validating webhooks see it: generateName cut to
		// 58 bytes and five random characters of its alphabet, here a fixed five.
		n := obj.generateName
		if len(n) > 58 {
			n = n[:58]
		}
		cp := *obj
		cp.name = n + "xxxxx"
		kri, valid, errs, notes := c.check(g, &cp)
		return verdict(g, obj, "", kri.String(), valid, errs, notes), nil
	}
	kri, valid, errs, notes := c.check(g, obj)
	return verdict(g, obj, obj.name, kri.String(), valid, errs, notes), nil
}

func verdict(g *guard, obj *admitted, name, kri string, valid bool, errs, notes field.ErrorList) Verdict {
	v := Verdict{Enforcement: g.enforcement, Name: name, GenerateName: obj.generateName,
		Namespace: obj.namespace, Causes: boundValues(errs)}
	if g.enforcement != EnforcementDryRun {
		v.Warnings = boundValues(notes) // dry-run kinds give no warnings
	}
	if g.kri {
		v.KRI, v.KRIValid = kri, valid
	}
	v.Allowed = len(v.Causes) == 0 || g.enforcement != EnforcementDeny
	return v
}

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
			m, cloned = &cp.labels, &clonedLabels
			cp.hasLabels = true
		case rest == "annotations" || strings.HasPrefix(rest, "annotations/"):
			m, cloned = &cp.annotations, &clonedAnnotations
			cp.hasAnnotations = true
		default:
			return nil, false
		}
		if !*cloned {
			*m, *cloned = maps.Clone(*m), true
			if *m == nil {
				*m = map[string]string{}
			}
		}
		_, key, member := strings.Cut(rest, "/")
		if !member {
			whole, ok := op.Value.(map[string]string)
			if !ok {
				return nil, false
			}
			*m = maps.Clone(whole)
			continue
		}
		v, ok := op.Value.(string)
		if !ok {
			return nil, false
		}
		(*m)[strings.ReplaceAll(strings.ReplaceAll(key, "~1", "/"), "~0", "~")] = v
	}
	return &cp, true
}
