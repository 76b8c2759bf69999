package rules

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/naming"
)

// admitted is what the rules read of an admitted object. decodeObject fills it from a partial
// decode (decodePartial) and, when that is unsure, from the whole object (decodeFull); the two
// read every object the partial one accepts alike (FuzzDecodeObject compares them).
type admitted struct {
	name, generateName, namespace string
	// mesh is the top-level mesh field of Kuma's legacy kinds (Dataplane, Mesh, …), "" when absent.
	mesh   string
	labels labelSet
	// annotations are the annotations the rules read (readAnnotations), nil when there is none of
	// them: the others, often large (kubectl's last-applied-configuration holds the whole object),
	// are not decoded.
	annotations map[string]string
	// hasLabels and hasAnnotations say whether metadata holds that map, even empty: a patch then
	// adds one member rather than the whole map.
	hasLabels, hasAnnotations bool
	// spec is the object's spec, decoded, for the kinds whose rules read more of it than target
	// references (wholeSpec), else nil.
	spec any
	// rawSpec is the object's spec as sent, nil when absent or null. What the reference checks
	// read of it is found without decoding it (refSpecs).
	rawSpec []byte
	// sections and refs are rawSpec when it may hold a target reference's section name (refWalk),
	// and one by name or of a kind a release removed (refsFor), once scanned is set.
	sections, refs []byte
	scanned        bool
	// originKRI is status.origin.kri, when hasOriginKRI.
	originKRI    any
	hasOriginKRI bool
	// ownerRefs says that metadata may hold ownerReferences (meshOwnerReferences reads them from
	// the object's bytes): it does when the partial decode met the member, or, for an object of the
	// full decode, when the bytes hold its key.
	ownerRefs bool
}

// GetName, GetNamespace, GetLabels, GetAnnotations and GetMesh make an admitted object a
// naming.Object.
func (o *admitted) GetName() string                   { return o.name }
func (o *admitted) GetNamespace() string              { return o.namespace }
func (o *admitted) GetAnnotations() map[string]string { return o.annotations }
func (o *admitted) GetMesh() string                   { return o.mesh }

// GetLabels returns a map of the object's labels, built for the call: empty when metadata holds
// an empty map, nil when it holds none. The rules read labels with Label.
func (o *admitted) GetLabels() map[string]string {
	m := o.labels.asMap()
	if m == nil && o.hasLabels {
		m = map[string]string{}
	}
	return m
}

// KRILabels returns the labels a KRI is built from, noted by the decode: naming.ForObject reads
// them so, without a map.
func (o *admitted) KRILabels() (mesh string, hasMesh bool, zone, namespace string) {
	mesh, hasMesh = o.labels.noted(notedMesh)
	return mesh, hasMesh, o.labels.notedValue(notedZone), o.labels.notedValue(notedNamespace)
}

// decodeObject decodes one object of a request and checks that it is of the requested kind.
// wholeSpec asks for spec whatever it holds: the kind's rules read more of it than target
// references.
func decodeObject(raw runtime.RawExtension, what string, gk schema.GroupKind, wholeSpec bool) (*admitted, error) {
	return decodeObjectRefs(raw, what, gk, wholeSpec, specInDecode)
}

// specInDecode has decodeObject find what refSpecs returns in the decode's pass (specScan). The
// differential tests turn it off to decide the same requests with specHolds, as before
// (TestDecideSameAsBefore).
var specInDecode = true

// decodeObjectRefs is decodeObject, finding what refSpecs returns in the decode's pass when refs
// is set; else refSpecs reads spec when it is first called, if ever (the mutating webhook never
// calls it).
func decodeObjectRefs(raw runtime.RawExtension, what string, gk schema.GroupKind, wholeSpec, refs bool) (*admitted, error) {
	return decodeRead(nil, raw, what, gk, wholeSpec, refs)
}

// decodeRead is decodeObjectRefs, taking the object read when read holds it as decodeObjectRefs
// would decode raw (read being raw's ReadObject).
func decodeRead(read *Read, raw runtime.RawExtension, what string, gk schema.GroupKind, wholeSpec, refs bool) (*admitted, error) {
	if o := read.readFor(gk, wholeSpec, refs); o != nil {
		return o, nil
	}
	if len(raw.Raw) == 0 {
		return nil, fmt.Errorf("admission request has no %s", what)
	}
	if o, err := decodePartialRefs(raw.Raw, gk, wholeSpec, refs); err == nil {
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
	o := &admitted{ownerRefs: bytes.Contains(raw, ownerReferencesKey)}
	labels, hasLabels, err := unstructured.NestedStringMap(u.Object, "metadata", "labels")
	if err != nil {
		return nil, fmt.Errorf("decoding %s: metadata.labels: %w", what, err)
	}
	o.labels, o.hasLabels = labelsOf(labels), hasLabels
	if o.annotations, o.hasAnnotations, err = unstructured.NestedStringMap(u.Object, "metadata", "annotations"); err != nil {
		return nil, fmt.Errorf("decoding %s: metadata.annotations: %w", what, err)
	}
	maps.DeleteFunc(o.annotations, func(k, _ string) bool { return !slices.Contains(readAnnotations, k) })
	if len(o.annotations) == 0 {
		o.annotations = nil
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
			o.spec = decodeReads(spec, specReadTree(gk))
		}
		o.rawSpec = spec
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

// refSpecs returns the object's spec when it may hold a target reference's section name
// (sections: refWalk walks it) and when it may hold a reference by name or of a kind a release
// removed (refs: refsFor decodes it), else nil for either. The spec is read for both at the first
// call, and only then: the mutating webhook never asks.
func (o *admitted) refSpecs() (sections, refs []byte) {
	if !o.scanned {
		o.sections, o.refs = specHolds(o.rawSpec)
		o.scanned = true
	}
	return o.sections, o.refs
}

// specHolds reads spec, valid JSON, once for the strings the reference checks look for, each
// compared whole: the key sectionName; a reference key (targetRef, backendRefs, backendRef) and one
// of the keys name and namespace or a targetRef kind a release removed. A string with a \u escape
// may spell any of them: it returns spec for both.
func specHolds(spec []byte) (sections, refs []byte) {
	if spec == nil || string(spec) == "null" {
		return nil, nil
	}
	var refKey, byName bool
	for i := 0; i < len(spec); {
		q := bytes.IndexByte(spec[i:], '"')
		if q < 0 {
			break
		}
		start := i + q + 1
		end := start
		for ; end < len(spec) && spec[end] != '"'; end++ {
			if spec[end] == '\\' {
				if end+1 < len(spec) && spec[end+1] == 'u' {
					return spec, spec
				}
				end++ // the escaped byte
			}
		}
		switch s := spec[start:min(end, len(spec))]; string(s) {
		case "sectionName":
			sections = spec
		case "targetRef", "backendRefs", "backendRef":
			refKey = true
		case "name", "namespace":
			byName = true
		default:
			if len(s) > 0 && 'A' <= s[0] && s[0] <= 'Z' && removedRefKinds[string(s)] {
				byName = true
			}
		}
		i = end + 1
	}
	if refKey && byName {
		refs = spec
	}
	return sections, refs
}

// span is a JSON value left undecoded: the bytes of raw it spans, not a copy. decodePartial owns
// raw for as long as it reads them.
type span []byte

func (s *span) UnmarshalJSON(b []byte) error {
	*s = b
	return nil
}

// MarshalJSON writes the value as it was read.
func (s span) MarshalJSON() ([]byte, error) { return s, nil }

// errUnsure makes decodeObject ask the full decode.
var errUnsure = errors.New("left to the full decode")

var (
	// unicodeEscape and kriKey find a status that may hold origin.kri. An escaped key may spell
	// it.
	unicodeEscape = []byte(`\u`)
	kriKey        = []byte(`"kri"`)
)

// decodePartial reads what the rules read in one pass over raw (jsonscan), or returns errUnsure
// when only decodeFull can be trusted with raw: invalid JSON (trailing bytes and NUL included),
// another kind, a repeated member the rules read, a key with an escape at the top level or in
// metadata, a metadata field of the wrong type or null. spec is decoded when wholeSpec is set, and
// kept raw when it may hold a section name; status is decoded when it may hold origin.kri.
//
// It accepts one thing the full decode refuses: a number beyond float64's range in a part of the
// object it leaves raw. The API server decodes every object it sends with the same decoder, so no
// such object reaches the webhook.
func decodePartial(raw []byte, gk schema.GroupKind, wholeSpec bool) (*admitted, error) {
	return decodePartialRefs(raw, gk, wholeSpec, true)
}

// decodePartialRefs is decodePartial, finding what refSpecs returns in its pass over spec when refs
// is set (specScan).
func decodePartialRefs(raw []byte, gk schema.GroupKind, wholeSpec, refs bool) (*admitted, error) {
	s := &jsonscan.Scanner{Known: knownString}
	s.Reset(raw)
	o := &admitted{}
	var top topSpans
	if !readTop(s, o, gk, refs, &noExpect, &top) || !s.End() {
		return nil, errUnsure
	}
	o.finish(&top, gk, wholeSpec, refs)
	return o, nil
}

// topSpans is what readTop leaves of an object for finish: spec and status, as the spans of the
// scanner's input, and what specScan found in spec. It holds no pointer to the scanner, so that a
// caller's scanner stays where the caller has it (on its stack: docs/performance.md).
type topSpans struct {
	spec, status span
	// specAt and statusAt are the offsets of spec and status in the input.
	specAt, statusAt int
	found            specFound
}

// readTop reads the object s is at into o and top, as decodePartialRefs reads it: it reports false where
// that returns errUnsure, but for what follows the object. s is then anywhere in it. The name and
// namespace it reads are those of expect when they are spelled the same.
func readTop(s *jsonscan.Scanner, o *admitted, gk schema.GroupKind, refs bool, expect *expected, top *topSpans) bool {
	var apiVersion, kind string
	var hasAPIVersion, hasKind bool // not absent, nor null
	holds := specScan{s: s}
	var seen uint8 // the members read, once each
	const (
		seenAPIVersion = 1 << iota
		seenKind
		seenMesh
		seenMetadata
		seenSpec
		seenStatus
	)
	// The members in a loop of this function, not a callback of Object's (docs/performance.md,
	// "Change 23"). A member read twice is refused once it is read again.
	key, ok := s.FirstKey()
	for ; ok && key != nil; key, ok = s.NextKey() {
		if s.Escaped() {
			return false
		}
		var bit uint8
		switch string(key[1 : len(key)-1]) {
		case "apiVersion":
			bit, ok = seenAPIVersion, stringOrNullHas(s, &apiVersion, &hasAPIVersion)
		case "kind":
			bit, ok = seenKind, stringOrNullHas(s, &kind, &hasKind)
		case "mesh":
			bit, ok = seenMesh, stringOrNull(s, &o.mesh)
		case "metadata":
			bit, ok = seenMetadata, metadata(s, o, expect)
		case "spec":
			var v []byte
			if refs {
				v, ok = s.ValueStrings(specStrings, holds.str)
			} else {
				v, ok = s.Value()
			}
			top.spec, top.specAt = v, s.Pos()-len(v)
			bit = seenSpec
		case "status":
			bit, ok = seenStatus, readStatus(s, top)
		default:
			_, ok = s.Value()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	top.found = holds.specFound
	return ok && hasKind && hasAPIVersion && isKind(kind, apiVersion, gk)
}

// readStatus passes the status member, noting its span in top: readTop's rare member (an object
// sent to the webhook seldom has a status), out of its loop.
//
//go:noinline
func readStatus(s *jsonscan.Scanner, top *topSpans) bool {
	v, ok := s.Value()
	top.status, top.statusAt = v, s.Pos()-len(v)
	return ok
}

// finish reads into o, read by readTop, what the rules read of its spec and status.
func (o *admitted) finish(top *topSpans, gk schema.GroupKind, wholeSpec, refs bool) {
	if spec := top.spec; spec != nil && string(spec) != "null" {
		if wholeSpec {
			o.spec = wholeSpecOf(spec, gk)
		}
		o.rawSpec = spec
		o.sections, o.refs = top.found.result(spec)
	}
	o.scanned = refs
	if top.status != nil { // most objects sent have none: originKRI's call skipped
		o.originKRI, o.hasOriginKRI = originKRI(top.status)
	} else {
		o.originKRI, o.hasOriginKRI = nil, false
	}
}

// wholeSpecOf is spec decoded as the rules of gk read it whole: finish's rare work (only a few
// kinds' rules read the decoded spec), out of its common path.
//
//go:noinline
func wholeSpecOf(spec []byte, gk schema.GroupKind) any { return decodeReads(spec, specReadTree(gk)) }

// knownStrings are strings most Kuma objects hold, kept once so that reading them allocates nothing
// (jsonscan.Scanner.Known): the labels Kuma sets on every object (labels/compute.go) and their usual
// values, the system namespace, the types of every release, which a Universal resource names, and
// the kinds and API versions the webhook is called for; and the keys of Kubernetes' recommended
// labels (app.kubernetes.io/...) and Helm's, which the tools that apply objects set on them.
// They are found by knownHash: a few instructions for a string that is none of them (most of an
// object's), one comparison for one that is; a map's hash cost more either way.
var knownStrings = func() *[256][]string {
	var t [256][]string
	add := func(s string) {
		h := knownHash([]byte(s))
		if !slices.Contains(t[h], s) {
			t[h] = append(t[h], s)
		}
	}
	for _, s := range []string{
		naming.LabelMesh, naming.LabelZone, naming.LabelNamespace, naming.LabelDisplayName, naming.LabelOrigin,
		"kuma.io/env", "kuma.io/policy-role", "kuma.io/managed-by",
		naming.DefaultMesh, DefaultSystemNamespace, "zone", "global", "universal", "kubernetes", "producer", "consumer",
		"workload-owner", "system", KumaGroup + "/v1alpha1",
		"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
		"app.kubernetes.io/component", "app.kubernetes.io/part-of", "app.kubernetes.io/managed-by",
		"helm.sh/chart", "Helm",
	} {
		add(s)
	}
	for _, k := range kongKinds {
		add(k.Kind)
		add(k.Group + "/" + k.Version)
	}
	for _, r := range naming.Releases() {
		for _, t := range r.Registry().Types() {
			add(t.Kind)
		}
	}
	return &t
}()

// knownHash is the bucket of knownStrings that in, not empty, would be in: of its length and its
// first and last bytes.
func knownHash(in []byte) uint8 {
	return uint8(len(in)*13) ^ in[0] ^ in[len(in)-1]<<3
}

// knownString is a jsonscan.Scanner's Known: the kept string of in, when it is one of knownStrings.
func knownString(in []byte) (string, bool) {
	if len(in) == 0 {
		return "", false
	}
	for _, s := range knownStrings[knownHash(in)] {
		if string(in) == s {
			return s, true
		}
	}
	return "", false
}

// specScan finds, in the pass of decodePartial over spec (jsonscan.Scanner.ValueStrings), what
// refSpecs says of it, without a pass of its own. Its sections are narrower than specHolds': spec
// only when a sectionName member holds a value that may be a problem of refWalk's (neither null
// nor a string that is a valid section name, wherever the member is), since the walk finds none
// else; its refs are specHolds' (TestDecideSameAsBefore and FuzzDecideSameAsBefore hold the
// decisions to specHolds'). A string with an escape may spell anything: spec is then returned for
// both.
type specScan struct {
	s *jsonscan.Scanner
	specFound
}

// specFound is what specScan found.
type specFound struct {
	sectionProblem, refKey, byName, escape bool
}

// specStrings are the strings specScan.str compares: the scanner passes it no others (but for
// strings with an escape), most strings of a spec.
var specStrings = func() *jsonscan.Strings {
	t := &jsonscan.Strings{}
	for _, s := range append([]string{"sectionName", "targetRef", "backendRefs", "backendRef", "name", "namespace"}, removedRefKindList...) {
		t.Add(s)
	}
	return t
}()

// removedRefKindList is removedRefKinds as a list.
var removedRefKindList = slices.Sorted(maps.Keys(removedRefKinds))

func (h *specScan) str(lit []byte, key bool) bool {
	if h.s.Escaped() {
		h.escape = true
		return true
	}
	switch s := lit[1 : len(lit)-1]; string(s) {
	case "sectionName":
		if !key {
			break
		}
		if v, ok := h.s.StringAhead(); ok {
			// The value is passed next; with an escape, it sets escape then.
			if bytes.IndexByte(v, '\\') < 0 && !naming.FieldSection.Valid(string(v[1:len(v)-1])) {
				h.sectionProblem = true
			}
		} else if c, _ := h.s.Peek(); c != '"' && c != 'n' {
			// Not a string, nor null; a string or null that is not JSON decodePartial refuses.
			h.sectionProblem = true
		}
	case "targetRef", "backendRefs", "backendRef":
		h.refKey = true
	case "name", "namespace":
		h.byName = true
	default:
		for _, k := range removedRefKindList { // three: a map's look-up costs more
			if string(s) == k {
				h.byName = true
			}
		}
	}
	return true
}

// result is what refSpecs returns of spec, once it is passed.
func (h *specFound) result(spec []byte) (sections, refs []byte) {
	if h.escape {
		return spec, spec
	}
	if h.sectionProblem {
		sections = spec
	}
	if h.refKey && h.byName {
		refs = spec
	}
	return sections, refs
}

// isKind reports whether the strings kind and apiVersion name the kind gk: kind gk.Kind,
// apiVersion not empty and of gk.Group as schema.ParseGroupVersion reads it.
func isKind(kind, apiVersion string, gk schema.GroupKind) bool {
	if kind != gk.Kind || apiVersion == "" {
		return false
	}
	// ParseGroupVersion: no slash is a version of the core group, one slash divides group and
	// version, more are an error. A loop of its own rather than strings.Count's and IndexByte's
	// assembly, for a few bytes (docs/performance.md, "Change 21").
	slash := -1
	for i := 0; i < len(apiVersion); i++ {
		if apiVersion[i] == '/' {
			if slash >= 0 {
				return false
			}
			slash = i
		}
	}
	if slash < 0 {
		return gk.Group == ""
	}
	return apiVersion[:slash] == gk.Group
}

// stringOrNull reads a string, or null, which leaves to as it is.
func stringOrNull(s *jsonscan.Scanner, to *string) bool {
	if c, _ := s.Peek(); c == 'n' {
		return s.Literal("null")
	}
	v, ok := s.String()
	*to = v
	return ok
}

// stringOrNullHas reads a string into to, setting has, or null, which leaves both as they are.
func stringOrNullHas(s *jsonscan.Scanner, to *string, has *bool) bool {
	if c, _ := s.Peek(); c == 'n' {
		return s.Literal("null")
	}
	v, ok := s.String()
	*to, *has = v, true
	return ok
}

// expected are strings an object read is likely to hold that its reader holds already: the
// request's name and namespace, which are the object's in most reviews. metadata takes them rather
// than copies of the object's (docs/performance.md, "Change 20").
type expected struct{ name, namespace string }

// noExpect expects nothing.
var noExpect expected

// metadata reads the metadata object, or null, into o: its name, generateName and namespace must
// be strings (null, which the full decode refuses there, is refused), its labels and annotations
// maps of strings, each given once. A name or namespace spelled as expect's is expect's string.
func metadata(s *jsonscan.Scanner, o *admitted, expect *expected) bool {
	if c, _ := s.Peek(); c == 'n' {
		return s.Literal("null")
	}
	var seen uint8 // the members read, once each
	key, ok := s.FirstKey()
	for ; ok && key != nil; key, ok = s.NextKey() {
		if s.Escaped() {
			return false
		}
		var bit uint8
		switch string(key[1 : len(key)-1]) {
		case "name":
			bit = 1
			o.name, ok = s.StringOr(expect.name)
		case "generateName":
			bit = 2
			o.generateName, ok = s.String()
		case "namespace":
			bit = 4
			o.namespace, ok = s.StringOr(expect.namespace)
		case "labels":
			bit = 8
			o.hasLabels = true
			ok = readLabels(s, &o.labels)
		case "annotations":
			bit = 16
			o.annotations, ok = annotations(s)
			o.hasAnnotations = true
		case "ownerReferences":
			o.ownerRefs = true // passed: meshOwnerReferences reads them, rarely
			_, ok = s.Value()
		default:
			_, ok = s.Value()
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return ok
}

// readLabels reads metadata.labels into l. null and a value that is not a string, which the full
// decode refuses, are refused; a repeated key keeps its last value in both. The key of a noted
// label (notedKeys) is not decoded: it is the constant.
func readLabels(s *jsonscan.Scanner, l *labelSet) bool {
	key, ok := s.FirstKey() // refuses what is not an object
	for ; ok && key != nil; key, ok = s.NextKey() {
		var k string
		n := -1
		switch {
		case s.Escaped(): // may spell a noted key
			k, n, ok = escapedLabelKey(s, key)
		default:
			if n = notedIndexBytes(key[1 : len(key)-1]); n >= 0 {
				k = notedKeys[n]
			} else {
				k, ok = s.Unquote(key)
			}
		}
		if !ok {
			return false
		}
		v, ok := s.String()
		if !ok {
			return false
		}
		l.setNoted(k, v, n)
	}
	return ok
}

// escapedLabelKey decodes a label's key with an escape and finds its notedIndex: readLabels' rare
// key, out of its loop, with notedIndex's switch (docs/performance.md, "The code a review touches").
//
//go:noinline
func escapedLabelKey(s *jsonscan.Scanner, key []byte) (k string, n int, ok bool) {
	k, ok = s.Unquote(key)
	return k, notedIndex(k), ok
}

// metaMap reads a map of strings as readLabels reads labels, into a map: the labels of a Universal
// resource (universal.go).
func metaMap(s *jsonscan.Scanner) (map[string]string, bool) {
	if c, _ := s.Peek(); c != '{' {
		return nil, false
	}
	m := map[string]string{}
	return m, s.Object(true, func(key []byte) bool {
		k, ok := s.Unquote(key)
		if !ok {
			return false
		}
		v, ok := s.String()
		if !ok {
			return false
		}
		m[k] = v
		return true
	})
}

// readAnnotations are the annotations the rules read, the only ones admitted keeps.
var readAnnotations = []string{naming.AnnotationDisplayName, naming.AnnotationKRI}

// annotations reads metadata.annotations as readLabels reads labels, into a map, but decodes only the values of
// readAnnotations (nil when there is none of them): every other value is checked to be a string
// and passed.
func annotations(s *jsonscan.Scanner) (map[string]string, bool) {
	var m map[string]string
	key, ok := s.FirstKey() // refuses what is not an object
	for ; ok && key != nil; key, ok = s.NextKey() {
		k := readAnnotation(key[1 : len(key)-1])
		if s.Escaped() {
			k = escapedAnnotation(key)
		}
		if c, _ := s.Peek(); c != '"' {
			return m, false
		}
		if k == "" {
			if _, ok := s.Value(); !ok {
				return m, false
			}
			continue
		}
		if m, ok = readAnnotationValue(s, m, k); !ok {
			return m, false
		}
	}
	return m, ok
}

// escapedAnnotation returns the annotation of readAnnotations that the literal key, with an
// escape, spells, or "": annotations' rare key, out of its loop.
//
//go:noinline
func escapedAnnotation(key []byte) string { return readAnnotation(unescapedKey(key)) }

// readAnnotationValue reads the value of k, one of readAnnotations, into m, made when nil:
// annotations' rare member (most objects have none of them), out of its loop.
//
//go:noinline
func readAnnotationValue(s *jsonscan.Scanner, m map[string]string, k string) (map[string]string, bool) {
	v, ok := s.String()
	if !ok {
		return m, false
	}
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m, true
}

// unescapedKey decodes the literal of a key with an escape, which the scanner passed (nil: it does
// not decode).
func unescapedKey(lit []byte) []byte {
	var k string
	if stdjson.Unmarshal(lit, &k) != nil {
		return nil
	}
	return []byte(k)
}

// readAnnotation returns the annotation of readAnnotations that key spells, or "".
func readAnnotation(key []byte) string {
	for _, a := range readAnnotations {
		if string(key) == a {
			return a
		}
	}
	return ""
}

// specMap returns spec as a map, nil when it was not decoded or is not one.
func (o *admitted) specMap() map[string]any {
	m, _ := o.spec.(map[string]any)
	return m
}

// Read is an object read in the pass of its reader's scanner over the document that holds it
// (Config.ReadObject): what the decision would decode of the bytes it spans. The zero Read holds
// none. Request.ObjectRead
// and OldObjectRead carry it to the decision, which then does not decode those bytes again.
type Read struct {
	obj *admitted
	// g is the guard of the kind obj was read for in cfg, the Config that read it: the decision of
	// that Config takes it rather than look it up again (Request.guard). Its kind and wholeSpec,
	// and refs, are what obj was read for: a decision that reads the object for another kind or
	// more of it decodes the bytes (readFor). Not a copy of them: each pointer a review's read
	// stores costs a write barrier's code (docs/performance.md, "Change 21").
	cfg  *Config
	g    *guard
	refs bool
}

// ReadObject reads the object s is at, a member of data (the document s reads: an
// AdmissionReview, whose request.object or oldObject s is at), as a decision of phase on an object
// of kind gk decodes it, and returns the bytes it spans, copied, with what it read in read, for the
// decision (Request.ObjectRead). It reads the object in s's pass over data: no second pass over
// its bytes (docs/performance.md, "Change 16").
//
// ok false says that s is where it was, and read as it was: the object is for its caller to pass. That is the case of
// a kind the configuration does not guard, and of every object decodePartial is unsure of (an
// escaped key, a member given twice, another kind, invalid JSON, ...), which the decision then
// decodes from the bytes as before.
func (c *Config) ReadObject(s *jsonscan.Scanner, data []byte, gk schema.GroupKind, phase Phase, read *Read) (raw []byte, ok bool) {
	return c.ReadObjectIn(s, data, gk, phase, read, nil)
}

// ReadSpace is room for an object ReadObjectIn reads, for a caller that keeps it with the rest of
// what it holds for a review, in one allocation (docs/performance.md, "Change 18").
type ReadSpace struct {
	obj admitted
	// expect is what Expect noted for the next read.
	expect expected
}

// Expect notes the name and namespace the next object read into sp likely has, strings its caller
// holds (the request's): when the object's are spelled the same, the read takes them rather than
// copies.
func (sp *ReadSpace) Expect(name, namespace string) { sp.expect = expected{name, namespace} }

// ReadObjectIn is ReadObject reading the object into space, when not nil, rather than into an
// allocation of its own. What space held before is dropped: the Read of it no longer holds it.
func (c *Config) ReadObjectIn(s *jsonscan.Scanner, data []byte, gk schema.GroupKind, phase Phase, read *Read, space *ReadSpace) (raw []byte, ok bool) {
	g, guarded := c.guardFor(gk)
	if !guarded || phase == Admit {
		return nil, false
	}
	refs := phase == Validate && specInDecode
	saved := *s
	if c, _ := s.Peek(); c != '{' {
		restore(s, &saved)
		return nil, false
	}
	known := s.Known
	s.Known = knownString
	start := s.Pos()
	var o *admitted
	expect := &noExpect
	if space != nil {
		space.obj = admitted{}
		o, expect = &space.obj, &space.expect
	} else {
		o = &admitted{}
	}
	var top topSpans
	ok = readTop(s, o, gk, refs, expect, &top)
	s.Known = known
	if !ok {
		restore(s, &saved)
		return nil, false
	}
	end := s.Pos()
	raw = make([]byte, end-start) // not append's growslice: less code to run (docs/performance.md, "Change 21")
	copy(raw, data[start:end])
	// spec and status are spans of data: the same spans of raw, which the object keeps.
	top.spec = rebase(top.spec, top.specAt-start, raw)
	top.status = rebase(top.status, top.statusAt-start, raw)
	o.finish(&top, gk, g.wholeSpec, refs)
	*read = Read{obj: o, cfg: c, g: g, refs: refs}
	return raw, true
}

// restore sets s to saved: ReadObjectIn's rare return, a copy of a Scanner with the write
// barrier's code, apart from its common one (docs/performance.md, "Change 21", "Second round").
//
//go:noinline
func restore(s, saved *jsonscan.Scanner) { *s = *saved }

// readBy returns the object read, when it was read as decodeObjectRefs would decode it for the
// kind of g, its guard in the Config that read it, and refs: readFor with one comparison for the
// kind and wholeSpec, g's (docs/performance.md, "Change 21"); else nil.
func (r *Read) readBy(g *guard, refs bool) *admitted {
	if r == nil || r.g != g || r.refs != refs {
		return nil
	}
	return r.obj
}

// rebase returns the span of to at off as long as v, a span of what to is a copy of.
func rebase(v span, off int, to []byte) span {
	if v == nil {
		return nil
	}
	return to[off : off+len(v)]
}

// readFor returns the object read, when it was read as decodeObjectRefs would decode it for gk,
// wholeSpec and refs, else nil.
func (r *Read) readFor(gk schema.GroupKind, wholeSpec, refs bool) *admitted {
	if r == nil || r.obj == nil || r.g.gk != gk || r.g.wholeSpec != wholeSpec || r.refs != refs {
		return nil
	}
	return r.obj
}
