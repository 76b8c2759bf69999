package webhook

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kriguard/kriguard/naming"
)

// admitted is what the rules read of an admitted object. It comes from one of two decoders that
// agree on every object the fast one accepts (FuzzDecodeObject compares them):
//
//   - decodeFast scans the raw bytes once, building only metadata's strings and maps; it checks
//     the section names of target references while scanning, and decodes spec (or status) only
//     when one of them may be invalid (or status may hold origin.kri). Decoding the whole object
//     into maps cost more than everything else the webhook does per request;
//   - decodeFull decodes the whole object into an unstructured map, the reference. It answers
//     every object decodeFast is unsure of: invalid JSON, malformed metadata, repeated keys,
//     numbers the full decode may fail to convert, very deep nesting, another kind, and Kong
//     kinds, whose checks read more of the object. Its errors are the 400 answers.
type admitted struct {
	name, generateName, namespace string
	// mesh is the top-level mesh field of Kuma's legacy kinds (Dataplane, Mesh, …), "" when absent.
	mesh                string
	labels, annotations map[string]string
	// hasLabels and hasAnnotations say whether metadata holds that map, even empty: a patch then
	// adds one member rather than the whole map.
	hasLabels, hasAnnotations bool
	// spec is the object's spec when a target reference check may find something in it, else
	// nil: decodeFast leaves it out when every section name in it is valid.
	spec any
	// originKRI is status.origin.kri, when hasOriginKRI.
	originKRI    any
	hasOriginKRI bool
	// full is the whole object, from decodeFull only.
	full map[string]any
}

// GetName, GetNamespace, GetLabels, GetAnnotations and GetMesh make an admitted object a
// naming.Object.
func (o *admitted) GetName() string                   { return o.name }
func (o *admitted) GetNamespace() string              { return o.namespace }
func (o *admitted) GetLabels() map[string]string      { return o.labels }
func (o *admitted) GetAnnotations() map[string]string { return o.annotations }
func (o *admitted) GetMesh() string                   { return o.mesh }

// decodeObject decodes one object of a request and checks that it is of the requested kind.
// full asks for the whole object in admitted.full.
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
	if v, ok := u.Object["mesh"]; ok && v != nil {
		if o.mesh, ok = v.(string); !ok {
			return nil, fmt.Errorf("decoding %s: mesh: must be a string, not %T", what, v)
		}
	}
	o.spec = u.Object["spec"]
	if v, found, err := unstructured.NestedFieldNoCopy(u.Object, "status", "origin", "kri"); found && err == nil {
		o.originKRI, o.hasOriginKRI = v, true
	}
	return o, nil
}

var (
	// unicodeEscape and kriKey find a status that may hold origin.kri.
	unicodeEscape = []byte(`\u`)
	kriKey        = []byte(`"kri"`)
)

// decodeFast reads what the checks of a KRI kind read, or reports false when only decodeFull
// can be trusted with raw. It accepts only a valid JSON object of kind gk with well-formed
// metadata in which no member it reads is repeated (the full decode keeps the last one).
func decodeFast(raw []byte, gk schema.GroupKind) (*admitted, bool) {
	s := scanner{b: raw}
	if s.next() != '{' {
		return nil, false
	}
	o := &admitted{}
	var apiVersion, kind string
	var haveVersion, haveKind, haveMeta, haveMesh bool
	var spec, status []byte
	ok := s.members(func(key []byte) bool {
		switch string(key) {
		case "apiVersion":
			return once(&haveVersion) && s.string(&apiVersion)
		case "kind":
			return once(&haveKind) && s.string(&kind)
		case "metadata":
			return once(&haveMeta) && s.metadata(o)
		case "mesh":
			return once(&haveMesh) && s.string(&o.mesh)
		case "spec":
			if spec != nil {
				return false
			}
			start := s.i
			s.refs = true
			ok := s.value(roleNone)
			s.refs = false
			spec = s.b[start:s.i]
			return ok
		case "status":
			if status != nil {
				return false
			}
			start := s.i
			ok := s.value(roleNone)
			status = s.b[start:s.i]
			return ok
		}
		return s.value(roleNone)
	})
	if !ok || s.next() != 0 || kind == "" {
		return nil, false
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Group != gk.Group || kind != gk.Kind {
		return nil, false
	}
	if s.refsUnsure {
		if err := utiljson.Unmarshal(spec, &o.spec); err != nil {
			return nil, false
		}
	}
	if status != nil && (bytes.Contains(status, kriKey) || bytes.Contains(status, unicodeEscape)) {
		var v any
		if err := utiljson.Unmarshal(status, &v); err != nil {
			return nil, false
		}
		o.originKRI, o.hasOriginKRI, err = unstructured.NestedFieldNoCopy(map[string]any{"status": v}, "status", "origin", "kri")
		if err != nil {
			o.originKRI, o.hasOriginKRI = nil, false
		}
	}
	return o, true
}

// once reports whether *seen was false, and sets it.
func once(seen *bool) bool {
	first := !*seen
	*seen = true
	return first
}

// The role of a JSON value for target references.
const (
	roleNone = iota
	roleRef  // a map here is a target reference
	roleRefs // the objects of a list here are target references
)

// maxScanDepth bounds the nesting the scanner follows; deeper objects go to the full decode.
const maxScanDepth = 100

// scanner reads JSON without building it, and refuses what the full decode may read
// differently. It is stricter than the JSON grammar, never looser: whatever it accepts,
// json.Valid accepts, and the full decode converts every number in it (one beyond float64's
// range fails there). On anything else it stops and reports false, never reading out of
// bounds.
//
// While refs is set it also checks the sectionName of every target reference, the way walkRefs
// finds them, and of those a repeated key hides from walkRefs: refsUnsure stays false only
// when each is null or a valid section name, so that walkRefs would find nothing. Otherwise
// walkRefs decides, and builds the causes at their paths and in their order.
type scanner struct {
	b          []byte
	i          int
	depth      int
	refs       bool
	refsUnsure bool
}

// next skips white space and returns the byte there, or 0 at the end.
func (s *scanner) next() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

func (s *scanner) value(role int) bool {
	switch c := s.next(); {
	case c == '{':
		isRef := role == roleRef
		return s.members(func(key []byte) bool {
			if s.refs && isRef && string(key) == "sectionName" {
				return s.section()
			}
			r := roleNone
			if s.refs {
				switch string(key) {
				case "targetRef":
					r = roleRef
				case "backendRefs":
					r = roleRefs
				}
			}
			return s.value(r)
		})
	case c == '[':
		return s.array(role == roleRefs)
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || isDigit(c):
		return s.number()
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// number reads a number. It refuses one the full decode may fail to convert: an exponent of
// three digits or more, or more than 200 integer digits (float64 ends near 1.8e308).
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	start := s.i
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && isDigit(s.b[s.i]):
		s.digits()
	default:
		return false
	}
	if s.i-start > 200 {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if n := s.digits(); n == 0 || n > 2 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && isDigit(s.b[s.i]) {
		s.i++
	}
	return s.i - start
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// str reads the string at s.i and returns its raw content and whether that has escapes.
func (s *scanner) str() (raw []byte, escaped, ok bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], escaped, true
		case c == '\\':
			escaped = true
			if j+1 >= len(s.b) {
				return nil, false, false
			}
			j++
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) || !isHex(s.b[j+1]) || !isHex(s.b[j+2]) || !isHex(s.b[j+3]) || !isHex(s.b[j+4]) {
					return nil, false, false
				}
				j += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

// decoded returns the string whose raw content and quoted form are given, as the full decode
// decodes it; without escapes or invalid UTF-8 that is the raw content itself.
func decoded(raw, quoted []byte, escaped bool) (string, bool) {
	if !escaped && utf8.Valid(raw) {
		return string(raw), true
	}
	var v string
	return v, utiljson.Unmarshal(quoted, &v) == nil
}

// string reads a string value into *to. null and other values are refused.
func (s *scanner) string(to *string) bool {
	if s.next() != '"' {
		return false
	}
	start := s.i
	raw, escaped, ok := s.str()
	if !ok {
		return false
	}
	*to, ok = decoded(raw, s.b[start:s.i], escaped)
	return ok
}

// members reads the object at s.i, calling member with each key, decoded, the scanner on its
// value.
func (s *scanner) members(member func(key []byte) bool) bool {
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	defer func() { s.depth-- }()
	s.i++ // {
	if s.next() == '}' {
		s.i++
		return true
	}
	for {
		if s.next() != '"' {
			return false
		}
		start := s.i
		raw, escaped, ok := s.str()
		if !ok {
			return false
		}
		key := raw
		if escaped || !utf8.Valid(raw) {
			k, ok := decoded(raw, s.b[start:s.i], escaped)
			if !ok {
				return false
			}
			key = []byte(k)
		}
		if s.next() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *scanner) array(refs bool) bool {
	if s.depth++; s.depth > maxScanDepth {
		return false
	}
	defer func() { s.depth-- }()
	s.i++ // [
	if s.next() == ']' {
		s.i++
		return true
	}
	role := roleNone
	if refs {
		role = roleRef
	}
	for {
		if !s.value(role) {
			return false
		}
		switch s.next() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// section reads the value of a reference's sectionName.
func (s *scanner) section() bool {
	start := s.i
	if s.next() == '"' {
		raw, escaped, ok := s.str()
		if !ok {
			return false
		}
		if !escaped && (len(raw) == 0 || naming.FieldSection.Valid(string(raw))) {
			return true
		}
		s.i = start
	}
	if s.next() != 'n' { // null is no section
		s.refsUnsure = true
	}
	return s.value(roleNone)
}

// metadata reads the metadata at s.i into o. A null metadata is none, as in the full decode.
func (s *scanner) metadata(o *admitted) bool {
	switch s.next() {
	case 'n':
		return s.value(roleNone)
	case '{':
	default:
		return false
	}
	var haveName, haveGenerate, haveNamespace bool
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "name":
			return once(&haveName) && s.string(&o.name)
		case "generateName":
			return once(&haveGenerate) && s.string(&o.generateName)
		case "namespace":
			return once(&haveNamespace) && s.string(&o.namespace)
		case "labels":
			return once(&o.hasLabels) && s.stringMap(&o.labels)
		case "annotations":
			return once(&o.hasAnnotations) && s.stringMap(&o.annotations)
		}
		return s.value(roleNone)
	})
}

// stringMap reads an object of strings into *to. A repeated key keeps its last value, as in
// the full decode; null or any other value is refused.
func (s *scanner) stringMap(to *map[string]string) bool {
	if s.next() != '{' {
		return false
	}
	m := map[string]string{}
	*to = m
	return s.members(func(key []byte) bool {
		var v string
		if !s.string(&v) {
			return false
		}
		m[string(key)] = v
		return true
	})
}
