package rules

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/naming"
)

// admitted is what the rules read of an admitted object. decodeObject fills it from a partial
// decode (decodePartial) and, when that is unsure, from the whole object (decodeFull); the two
// read every object the partial one accepts alike (FuzzDecodeObject compares them).
type admitted struct {
	name, generateName, namespace string
	// mesh is the top-level mesh field of Kuma's legacy kinds (Dataplane, Mesh, …), "" when absent.
	mesh                string
	labels, annotations map[string]string
	// hasLabels and hasAnnotations say whether metadata holds that map, even empty: a patch then
	// adds one member rather than the whole map.
	hasLabels, hasAnnotations bool
	// spec is the object's spec, decoded, for the kinds whose rules read more of it than target
	// references (wholeSpec), else nil.
	spec any
	// rawSpec is the object's spec as sent, when it may hold a target reference's section name,
	// else nil. Target references are found in it without decoding it (refWalk).
	rawSpec []byte
	// originKRI is status.origin.kri, when hasOriginKRI.
	originKRI    any
	hasOriginKRI bool
}

// GetName, GetNamespace, GetLabels, GetAnnotations and GetMesh make an admitted object a
// naming.Object.
func (o *admitted) GetName() string                   { return o.name }
func (o *admitted) GetNamespace() string              { return o.namespace }
func (o *admitted) GetLabels() map[string]string      { return o.labels }
func (o *admitted) GetAnnotations() map[string]string { return o.annotations }
func (o *admitted) GetMesh() string                   { return o.mesh }

// decodeObject decodes one object of a request and checks that it is of the requested kind.
// wholeSpec asks for spec whatever it holds: the kind's rules read more of it than target
// references.
func decodeObject(raw runtime.RawExtension, what string, gk schema.GroupKind, wholeSpec bool) (*admitted, error) {
	if len(raw.Raw) == 0 {
		return nil, fmt.Errorf("admission request has no %s", what)
	}
	if o, err := decodePartial(raw.Raw, gk, wholeSpec); err == nil {
		return o, nil
	}
	// The full decode says what is wrong, or reads what the partial one was unsure of.
	return decodeFull(raw.Raw, what, gk, wholeSpec)
}

// decodeFull decodes the object into an unstructured map, as the API server decodes a custom
// resource, but for spec and status, of which it decodes only what the rules read (decodeReads):
// they may be megabytes of any shape. It is the reference decodePartial is held to, and its
// errors are the 400 answers.
func decodeFull(raw []byte, what string, gk schema.GroupKind, wholeSpec bool) (*admitted, error) {
	var top map[string]span
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, &top); err != nil {
		// Not an object: the unstructured decoder says what is wrong.
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", what, err)
		}
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	rest := make(map[string]span, len(top))
	for k, v := range top {
		if k != "spec" && k != "status" {
			rest[k] = v
		}
	}
	restJSON, err := stdjson.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(restJSON); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	if got := u.GroupVersionKind().GroupKind(); got != gk {
		return nil, fmt.Errorf("%s is a %s, but the request is for %s", what, got.String(), gk.String())
	}
	// Unstructured's getters read a malformed label map as no labels at all, which would hide
	// a label from the rules: refuse such objects instead.
	o := &admitted{}
	if o.labels, o.hasLabels, err = unstructured.NestedStringMap(u.Object, "metadata", "labels"); err != nil {
		return nil, fmt.Errorf("decoding %s: metadata.labels: %w", what, err)
	}
	if o.annotations, o.hasAnnotations, err = unstructured.NestedStringMap(u.Object, "metadata", "annotations"); err != nil {
		return nil, fmt.Errorf("decoding %s: metadata.annotations: %w", what, err)
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{"name", &o.name}, {"generateName", &o.generateName}, {"namespace", &o.namespace}} {
		if *f.to, _, err = unstructured.NestedString(u.Object, "metadata", f.name); err != nil {
			return nil, fmt.Errorf("decoding %s: metadata.%s: %w", what, f.name, err)
		}
	}
	if v, ok := u.Object["mesh"]; ok && v != nil {
		if o.mesh, ok = v.(string); !ok {
			return nil, fmt.Errorf("decoding %s: mesh: must be a string, not %T", what, v)
		}
	}
	if spec := top["spec"]; spec != nil && string(spec) != "null" {
		if wholeSpec {
			o.spec = decodeReads(spec, newReadTree(specReads(gk)))
		}
		o.rawSpec = mayHoldSections(spec)
	}
	o.originKRI, o.hasOriginKRI = originKRI(top["status"])
	return o, nil
}

// statusReads is what the rules read of status.
var statusReads = newReadTree([][]string{{"origin", "kri"}})

// originKRI reads status.origin.kri of status, raw JSON (nil: none).
func originKRI(status span) (any, bool) {
	if status == nil || !bytes.Contains(status, kriKey) && !bytes.Contains(status, unicodeEscape) {
		return nil, false
	}
	st, _ := decodeReads(status, statusReads).(map[string]any)
	origin, _ := st["origin"].(map[string]any)
	v, found := origin["kri"]
	return v, found
}

// partialObject is the part of an object the rules read. spec and status stay raw: decoding them
// into maps cost more than everything else the webhook does per request, and most objects hold
// nothing there that a rule reads.
type partialObject struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Mesh       string       `json:"mesh"`
	Metadata   *partialMeta `json:"metadata"`
	Spec       span         `json:"spec"`
	Status     span         `json:"status"`
}

// mayHoldSections returns spec when it may hold a "sectionName" member or a reference of a kind a
// release removed (the refWalk judges both), else nil. An escaped key or value may spell either.
func mayHoldSections(spec span) []byte {
	if spec == nil || string(spec) == "null" {
		return nil
	}
	if bytes.Contains(spec, sectionNameKey) || bytes.Contains(spec, unicodeEscape) {
		return spec
	}
	for _, k := range removedRefKindValues {
		if bytes.Contains(spec, k) {
			return spec
		}
	}
	return nil
}

// removedRefKindValues are the targetRef kinds a release removed, as JSON strings.
var removedRefKindValues = func() [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, rel := range naming.Releases() {
		for _, k := range rel.RemovedTargetRefKinds() {
			if !seen[k] {
				seen[k] = true
				out = append(out, []byte(`"`+k+`"`))
			}
		}
	}
	return out
}()

// span is a JSON value left undecoded: the bytes of raw it spans, not a copy. decodePartial owns
// raw for as long as it reads them.
type span []byte

func (s *span) UnmarshalJSON(b []byte) error {
	*s = b
	return nil
}

// MarshalJSON writes the value as it was read.
func (s span) MarshalJSON() ([]byte, error) { return s, nil }

type partialMeta struct {
	Name         metaString `json:"name"`
	GenerateName metaString `json:"generateName"`
	Namespace    metaString `json:"namespace"`
	Labels       metaMap    `json:"labels"`
	Annotations  metaMap    `json:"annotations"`
}

// errUnsure makes decodeObject ask the full decode.
var errUnsure = errors.New("left to the full decode")

// metaString is a metadata string. null, which the full decode refuses there, is refused.
type metaString string

func (s *metaString) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' {
		return errUnsure
	}
	if in := b[1 : len(b)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		*s = metaString(in)
		return nil
	}
	var v string
	if err := json.UnmarshalCaseSensitivePreserveInts(b, &v); err != nil {
		return err
	}
	*s = metaString(v)
	return nil
}

// metaMap is a metadata map of strings: labels or annotations. null and a value that is not a
// string, which the full decode refuses, are refused; a repeated key keeps its last value in both.
type metaMap struct {
	m   map[string]string
	set bool
}

func (m *metaMap) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return errUnsure
	}
	// A null value would read as "": let the full decode see it. Only a real null member counts:
	// "null" inside a string (a last-applied-configuration annotation holds many) does not.
	var ptrs map[string]*string
	if err := json.UnmarshalCaseSensitivePreserveInts(b, &ptrs); err != nil {
		return errUnsure
	}
	m.m = make(map[string]string, len(ptrs))
	for k, v := range ptrs {
		if v == nil {
			return errUnsure
		}
		m.m[k] = *v
	}
	m.set = true
	return nil
}

var (
	// unicodeEscape, sectionNameKey and kriKey find a spec that may hold a target reference's
	// section name and a status that may hold origin.kri. An escaped key may spell either.
	unicodeEscape  = []byte(`\u`)
	sectionNameKey = []byte(`"sectionName"`)
	kriKey         = []byte(`"kri"`)
)

// decodePartial reads what the rules read through sigs.k8s.io/json, the case-sensitive decoder
// the API server uses, or returns an error when only decodeFull can be trusted with raw: invalid
// JSON (trailing bytes and NUL included), another kind, a repeated member, a metadata field of
// the wrong type or null. spec is decoded when wholeSpec is set, and kept raw when it may hold a
// section name; status is decoded when it may hold origin.kri.
//
// It accepts one thing the full decode refuses: a number beyond float64's range in a part of the
// object it leaves raw. The API server decodes every object it sends with the same decoder, so no
// such object reaches the webhook.
func decodePartial(raw []byte, gk schema.GroupKind, wholeSpec bool) (*admitted, error) {
	var p partialObject
	strict, err := json.UnmarshalStrict(raw, &p, json.DisallowDuplicateFields)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errUnsure
	}
	if p.Kind != gk.Kind {
		return nil, errUnsure
	}
	if gv, err := schema.ParseGroupVersion(p.APIVersion); err != nil || gv.Group != gk.Group || p.APIVersion == "" {
		return nil, errUnsure
	}
	o := &admitted{mesh: p.Mesh}
	if m := p.Metadata; m != nil {
		o.name, o.generateName, o.namespace = string(m.Name), string(m.GenerateName), string(m.Namespace)
		o.labels, o.hasLabels = m.Labels.m, m.Labels.set
		o.annotations, o.hasAnnotations = m.Annotations.m, m.Annotations.set
	}
	if p.Spec != nil && string(p.Spec) != "null" {
		if wholeSpec {
			o.spec = decodeReads(p.Spec, newReadTree(specReads(gk)))
		}
		o.rawSpec = mayHoldSections(p.Spec)
	}
	o.originKRI, o.hasOriginKRI = originKRI(p.Status)
	return o, nil
}

// specMap returns spec as a map, nil when it was not decoded or is not one.
func (o *admitted) specMap() map[string]any {
	m, _ := o.spec.(map[string]any)
	return m
}
