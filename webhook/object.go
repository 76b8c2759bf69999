package webhook

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// admitted is what the rules read of an admitted object. It comes from one of two decoders that
// agree on every object the fast one accepts (FuzzDecodeObject compares them):
//
//   - decodeFast reads metadata and, only when its raw bytes can hold what the checks look for,
//     spec and status. Decoding the whole object into maps cost more than everything else the
//     webhook does per request (SPEC §6);
//   - decodeFull decodes the whole object into an unstructured map, the reference. It answers
//     every object decodeFast is unsure of: malformed metadata, escapes that could hide a key,
//     duplicate keys, numbers the full decode would reject, and Kong kinds, whose checks read
//     more of the object.
type admitted struct {
	name, generateName, namespace string
	labels, annotations           map[string]string
	// hasLabels and hasAnnotations say whether metadata holds that map, even empty: a patch then
	// adds one member rather than the whole map.
	hasLabels, hasAnnotations bool
	// spec is the object's spec when a target reference check may find something in it, else
	// nil: a spec without a "sectionName" key has no reference to check.
	spec any
	// originKRI is status.origin.kri, when hasOriginKRI.
	originKRI    any
	hasOriginKRI bool
	// full is the whole object, from decodeFull only.
	full map[string]any
}

// GetName, GetNamespace and GetLabels make an admitted object a naming.Object.
func (o *admitted) GetName() string              { return o.name }
func (o *admitted) GetNamespace() string         { return o.namespace }
func (o *admitted) GetLabels() map[string]string { return o.labels }

// decodeObject decodes one object of a request and checks that it is of the requested kind.
// full asks for the whole object in object.full.
func decodeObject(raw runtime.RawExtension, what string, gk schema.GroupKind, full bool) (*admitted, error) {
	if len(raw.Raw) == 0 {
		return nil, fmt.Errorf("admission request has no %s", what)
	}
	if !full {
		if o, ok := decodeFast(raw.Raw, gk); ok {
			return o, nil
		}
	}
	return decodeFull(raw.Raw, what, gk)
}

// decodeFull decodes the whole object.
func decodeFull(raw []byte, what string, gk schema.GroupKind) (*admitted, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	if got := u.GroupVersionKind().GroupKind(); got != gk {
		return nil, fmt.Errorf("%s is a %s, but the request is for %s", what, got.String(), gk.String())
	}
	// Unstructured's getters read a malformed label map as no labels at all, which would hide
	// a label from the rules: refuse such objects instead.
	o := &admitted{full: u.Object}
	var err error
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
	o.spec = u.Object["spec"]
	if v, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "origin", "kri"); found && err == nil {
		o.originKRI, o.hasOriginKRI = v, true
	}
	return o, nil
}

var (
	// unicodeEscape can spell any key; without one in the object, a key is its raw bytes.
	unicodeEscape  = []byte(`\u`)
	metadataKey    = []byte(`"metadata"`)
	sectionNameKey = []byte(`"sectionName"`)
	kriKey         = []byte(`"kri"`)
	null           = []byte("null")
	errNotFast     = errors.New("left to the full decode")
)

// decodeFast decodes what the checks of a KRI kind read, or reports false when only decodeFull
// can be trusted with raw. It accepts only an object of kind gk whose metadata is well formed.
func decodeFast(raw []byte, gk schema.GroupKind) (*admitted, bool) {
	// Key matching below is on raw bytes, so no key may be escaped; and the typed decode would
	// merge a repeated metadata where the full one keeps the last.
	if bytes.Contains(raw, unicodeEscape) || bytes.Count(raw, metadataKey) > 1 || !numbersFit(raw) {
		return nil, false
	}
	var v objectView
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	if v.Kind.v == "" {
		return nil, false
	}
	gv, err := schema.ParseGroupVersion(v.APIVersion.v)
	if err != nil || gv.Group != gk.Group || v.Kind.v != gk.Kind {
		return nil, false
	}
	o := &admitted{}
	if m := v.Metadata; m != nil {
		o.name, o.generateName, o.namespace = m.Name.v, m.GenerateName.v, m.Namespace.v
		o.labels, o.hasLabels = m.Labels.m, m.Labels.seen
		o.annotations, o.hasAnnotations = m.Annotations.m, m.Annotations.seen
	}
	if v.Spec.raw != nil && bytes.Contains(v.Spec.raw, sectionNameKey) && !sectionNamesValid(v.Spec.raw) {
		if err := utiljson.Unmarshal(v.Spec.raw, &o.spec); err != nil {
			return nil, false
		}
	}
	if v.Status.raw != nil && bytes.Contains(v.Status.raw, kriKey) {
		var status any
		if err := utiljson.Unmarshal(v.Status.raw, &status); err != nil {
			return nil, false
		}
		o.originKRI, o.hasOriginKRI, err = unstructured.NestedFieldNoCopy(map[string]any{"status": status}, "status", "origin", "kri")
		if err != nil {
			o.originKRI, o.hasOriginKRI = nil, false
		}
	}
	return o, true
}

// objectView is the part of an object decodeFast reads. Its field types refuse what the full
// decode reads differently: null, a repeated key, a value of the wrong type.
type objectView struct {
	APIVersion optString `json:"apiVersion"`
	Kind       optString `json:"kind"`
	// A null metadata is no metadata, as in the full decode; a repeated one is ruled out before.
	Metadata *metaView `json:"metadata"`
	Spec     rawValue  `json:"spec"`
	Status   rawValue  `json:"status"`
}

type metaView struct {
	Name         optString `json:"name"`
	GenerateName optString `json:"generateName"`
	Namespace    optString `json:"namespace"`
	Labels       stringMap `json:"labels"`
	Annotations  stringMap `json:"annotations"`
}

// optString is a string member that appears at most once and is not null.
type optString struct {
	v    string
	seen bool
}

func (s *optString) UnmarshalJSON(b []byte) error {
	if s.seen || len(b) < 2 || b[0] != '"' {
		return errNotFast
	}
	s.seen = true
	// Without escapes or invalid UTF-8, the decoded string is the raw bytes between the quotes.
	if in := b[1 : len(b)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		s.v = string(in)
		return nil
	}
	return utiljson.Unmarshal(b, &s.v)
}

// stringMap is a string-to-string object member that appears at most once and holds no null.
type stringMap struct {
	m    map[string]string
	seen bool
}

func (s *stringMap) UnmarshalJSON(b []byte) error {
	if s.seen || len(b) == 0 || b[0] != '{' {
		return errNotFast
	}
	s.seen = true
	if err := utiljson.Unmarshal(b, &s.m); err != nil {
		return err
	}
	if s.m == nil {
		s.m = map[string]string{}
	}
	// A null member decodes as "" here; the full decode refuses it.
	if bytes.Contains(b, null) {
		for _, v := range s.m {
			if v == "" {
				return errNotFast
			}
		}
	}
	return nil
}

// rawValue is a member that appears at most once, kept undecoded. It refers into the decoded
// bytes, which stay unchanged for the request's lifetime.
type rawValue struct {
	raw []byte
}

func (r *rawValue) UnmarshalJSON(b []byte) error {
	if r.raw != nil {
		return errNotFast
	}
	r.raw = b
	return nil
}

// numbersFit reports whether every number in raw surely converts: the full decode refuses a
// number beyond float64's range, which the fast one would skip unseen. Such a number needs an
// exponent of three digits or more, or a run of more than 200 digits. Strings are not told
// apart from numbers, so this is conservative.
func numbersFit(raw []byte) bool {
	run := 0
	for i, c := range raw {
		switch {
		case '0' <= c && c <= '9':
			if run++; run > 200 {
				return false
			}
			continue
		case (c == 'e' || c == 'E') && run > 0:
			j := i + 1
			if j < len(raw) && (raw[j] == '+' || raw[j] == '-') {
				j++
			}
			if j+2 < len(raw) && isDigit(raw[j]) && isDigit(raw[j+1]) && isDigit(raw[j+2]) {
				return false
			}
		}
		run = 0
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// sectionProbe is the path sectionNamesValid validates at; its errors are dropped.
var sectionProbe = field.NewPath("spec")

// sectionNamesValid reports whether every sectionName of a target reference in spec, the raw
// bytes of a valid JSON value without \u escapes, is a string with a valid section name. It
// reads the references walkRefs reads, and also those a repeated key hides from it, so true
// means walkRefs finds nothing. False means only that walkRefs must decide: it builds the
// causes, at their paths and in their order.
func sectionNamesValid(spec []byte) bool {
	s := refScanner{b: spec}
	return s.value(roleNone) && s.i <= len(s.b)
}

// The role of a JSON value for target references.
const (
	roleNone = iota
	roleRef  // a map here is a target reference
	roleRefs // the objects of a list here are target references
)

// refScanner walks a valid JSON value without building it. On anything it does not expect it
// stops and reports false, never reading out of bounds.
type refScanner struct {
	b []byte
	i int
}

func (s *refScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// next skips white space and returns the byte there, or 0 at the end.
func (s *refScanner) next() byte {
	s.space()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *refScanner) value(role int) bool {
	switch s.next() {
	case '{':
		return s.object(role == roleRef)
	case '[':
		return s.array(role == roleRefs)
	case '"':
		_, _, ok := s.str()
		return ok
	case 0:
		return false
	}
	// A number, true, false or null.
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return true
		}
		s.i++
	}
	return true
}

// str reads the string at s.i and returns its raw content and whether that has escapes.
func (s *refScanner) str() (raw []byte, escaped, ok bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			s.i = j + 1
			return s.b[start:j], escaped, true
		}
	}
	return nil, false, false
}

func (s *refScanner) object(isRef bool) bool {
	s.i++ // {
	for {
		switch s.next() {
		case '}':
			s.i++
			return true
		case ',':
			s.i++
			continue
		case '"':
		default:
			return false
		}
		key, _, ok := s.str()
		if !ok || s.next() != ':' {
			return false
		}
		s.i++
		role := roleNone
		switch string(key) {
		case "targetRef":
			role = roleRef
		case "backendRefs":
			role = roleRefs
		case "sectionName":
			if isRef {
				if !s.section() {
					return false
				}
				continue
			}
		}
		if !s.value(role) {
			return false
		}
	}
}

func (s *refScanner) array(refs bool) bool {
	s.i++ // [
	role := roleNone
	if refs {
		role = roleRef
	}
	for {
		switch s.next() {
		case ']':
			s.i++
			return true
		case ',':
			s.i++
			continue
		case 0:
			return false
		}
		if !s.value(role) {
			return false
		}
	}
}

// section reads the value of a reference's sectionName: null (no section) or a valid section
// name without escapes.
func (s *refScanner) section() bool {
	switch s.next() {
	case 'n':
		return s.value(roleNone)
	case '"':
		raw, escaped, ok := s.str()
		return ok && !escaped && utf8.Valid(raw) && len(naming.FieldSection.Validate(string(raw), sectionProbe)) == 0
	}
	return false
}
