package rules

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/naming"
)

var (
	annotationKRIPath    = naming.AnnotationPath(naming.AnnotationKRI)
	displayNameLabelPath = naming.LabelPath(naming.LabelDisplayName)
	specPath             = field.NewPath("spec")
	originKRIPath        = field.NewPath("status", "origin", "kri")
)

// readsWholeSpec reports whether the checks of a Kuma kind read more of spec than target references:
// the ports of the kinds Kuma names SNIs after, and MeshProxyPatch's hand-typed names.
func readsWholeSpec(kind string) bool {
	_, sni := naming.SNIPortsOf(kind)
	return sni || kind == "MeshProxyPatch"
}

// checked is what checkWith and checkFor find of an object: the problems found before and after
// those of the walk of spec's target references, which come between, the notes (values that are
// admitted but deserve a warning) and, for KRI kinds, the object's KRI and whether it is valid. They
// write it in place: returned, it would take a copy in each caller's frame, on the stack of every
// review's decision (docs/performance.md, "Change 19").
type checked struct {
	kri                  naming.KRI
	valid                bool
	before, after, notes field.ErrorList
}

// none reports whether ck holds no finding.
func (ck *checked) none() bool { return len(ck.before) == 0 && len(ck.after) == 0 && ck.notes == nil }

// checkWith lists every naming problem of obj, a guarded object, each at the object field that
// holds the offending value, with the target references of spec left to w (nil: not looked at),
// into ck, a zero checked (each caller's own).
//
// The rules, all from the naming core (docs/rules.md):
//   - the object's own KRI, exactly as Kuma computes it (naming.Registry.ForObject; docs/kri.md);
//   - the kuma.io/display-name label, which older Kuma releases read the name from: when present
//     it must be a valid KRI name;
//   - the SNIs Kuma builds from the KRIs of MeshService, MeshMultiZoneService and
//     MeshExternalService ports (sniErrors);
//   - MeshProxyPatch's hand-typed Envoy names (proxyPatchErrors);
//   - every sectionName of a target reference: a map under a "targetRef" key, or an element of a
//     "backendRefs" list (Kuma's BackendRef embeds a TargetRef), at any depth of spec (refWalk);
//   - the values documented to hold a KRI: the kriguard.io/kri annotation, which must parse and
//     equal the object's KRI, and status.origin.kri (MeshTrust), which must parse. In the upstream
//     CRDs no targetRef kind takes a KRI: references select by kind, labels and sectionName;
//   - for Kong kinds, the generated-name shapes and object-local relations of naming/kong.
func (c *Config) checkWith(g *guard, obj *admitted, w *refWalk, ck *checked) {
	if !g.kri {
		checkKong(g, obj, ck)
		return
	}
	var before field.ErrorList
	if g.hasRT {
		// The KRI labels as the read noted them: naming need not look for their reader on obj
		// (docs/performance.md, "Change 22").
		var l naming.KRILabels
		l.Mesh, l.HasMesh, l.Zone, l.Namespace = obj.KRILabels()
		ck.kri, before = naming.ForObjectLabelled(obj, g.rt, l)
	} else {
		ck.kri, before = c.registry.ForObject(obj, g.gk.Kind)
	}
	ck.valid = len(before) == 0
	tag(before, 0, RuleKRI)
	if v, ok := obj.labels.noted(notedDisplayName); ok {
		before = displayNameErrors(v, before)
	}
	ck.before = before
	if sections, _ := obj.refSpecs(); w != nil && sections != nil {
		if w.limit > 0 {
			w.limit = max(w.limit-len(before), 0)
		}
		w.walkSpec(sections)
	}
	// Most objects hold no value built from or holding a KRI: kriValueErrors would find nothing
	// (docs/performance.md, "Change 21").
	if !skipUnfound || g.kriValues || obj.annotations != nil || obj.hasOriginKRI {
		c.kriValueErrors(g, obj, ck)
	}
}

// checkKong is checkWith for a Kong kind. It and displayNameErrors are apart from checkWith, which
// every review runs, so that the code of a Kuma object's common case is contiguous
// (docs/performance.md, "Change 21").
//
//go:noinline
func checkKong(g *guard, obj *admitted, ck *checked) {
	ck.before = tag(kongErrors(g.gk.Kind, obj), 0, kongRules[g.gk.Kind])
}

// displayNameErrors adds to errs the problems of v, the value of the kuma.io/display-name label.
//
//go:noinline
func displayNameErrors(v string, errs field.ErrorList) field.ErrorList {
	return tag(append(errs, naming.FieldName.Validate(v, displayNameLabelPath)...), len(errs), RuleDisplayNameLabel)
}

// kriValueErrors is checkWith's rules of the values built from or holding a KRI, after the walk,
// into ck.after and ck.notes: SNIs, MeshProxyPatch's names, the kriguard.io/kri annotation and
// status.origin.kri. They are apart from checkWith, whose frame is on the stack while the rules of
// the object's name and spec run, for their frames (docs/performance.md, "Change 19").
func (c *Config) kriValueErrors(g *guard, obj *admitted, ck *checked) {
	var errs, notes field.ErrorList
	if g.kriValues {
		switch g.gk.Kind {
		case "MeshService", "MeshMultiZoneService", "MeshExternalService":
			errs = tag(sniErrors(g.gk.Kind, ck.kri, obj, errs), 0, RuleSNI)
		case "MeshProxyPatch":
			errs, notes = c.proxyPatchErrors(obj, errs)
			tag(errs, 0, RuleProxyPatchKRI)
			tag(notes, 0, RuleProxyPatchLegacyName)
			notes = proxyPatchStatNotes(obj, notes)
		}
	}
	n := len(errs)
	if v, ok := obj.annotations[naming.AnnotationKRI]; ok {
		switch got, err := c.registry.Parse(v); {
		case err != nil:
			errs = append(errs, field.Invalid(annotationKRIPath, v, kriDetail(err)))
		case ck.valid && got != ck.kri:
			errs = append(errs, field.Invalid(annotationKRIPath, v,
				fmt.Sprintf("must equal the object's KRI %q", ck.kri.String())))
		}
	}
	tag(errs, n, RuleKRIAnnotation)
	n = len(errs)
	if v := obj.originKRI; obj.hasOriginKRI {
		if s, ok := v.(string); !ok {
			errs = append(errs, field.Invalid(originKRIPath, v, "must be a string"))
		} else if _, err := c.registry.Parse(s); err != nil {
			errs = append(errs, field.Invalid(originKRIPath, s, kriDetail(err)))
		}
	}
	ck.after, ck.notes = tag(errs, n, RuleOriginKRI), notes
}

// hasKRIValues reports whether objects of gk hold values built from a KRI that kriValueErrors
// checks whatever their annotations and status: the SNIs of ports, MeshProxyPatch's names.
func hasKRIValues(gk schema.GroupKind) bool {
	switch gk.Kind {
	case "MeshService", "MeshMultiZoneService", "MeshExternalService", "MeshProxyPatch":
		return gk.Group == KumaGroup
	}
	return false
}

// kriDetail turns a parse error into the detail of a field error. The paths inside (kri.mesh,
// …) name the segment; the outer path names the object field.
func kriDetail(err error) string {
	if pe, ok := err.(*naming.ParseError); ok {
		return "must be a valid KRI: " + pe.Errs.ToAggregate().Error()
	}
	return "must be a valid KRI: " + err.Error()
}

// omittedProblem stands for each problem a capped check found but did not build.
var omittedProblem = &field.Error{Type: field.ErrorTypeInvalid, Field: "spec", BadValue: "", Detail: "(one more problem, not built)",
	Origin: string(RuleSectionName)}

// ctxCheckNodes is how many containers a walk visits between two looks at its context.
const ctxCheckNodes = 1024

// refWalk finds the problems of the target references of spec, read as raw JSON: nothing of spec
// is decoded but the section names themselves, so that its cost does not depend on the shape of
// spec (a list of a million empty objects is 3 MB of JSON, and over 60 MB decoded). It allocates
// nothing per node it visits: the path of the node is a stack of the keys and indices of spec, and
// a problem's field path is printed, cut to MaxFieldBytes, only for the first limit problems; the
// others are counted, each as omittedProblem.
//
// On UPDATE the old object's spec is walked first (setOld), and the places and values of its
// problems kept as hashes: a problem of the new object is pre-existing, and goes to kept, when the
// old object has the same value at the same place (which gives it the same problem). Places are
// compared by their keys and indices, not by their printed paths, so a key with a dot is never
// taken for the nested path it prints like (docs/limits.md). The walk stops, with err set, once
// ctx is done.
//
// spec is valid JSON (the decoder read it first); should it not be, the walk stops where it stops
// making sense, without a panic. A key repeated in one map, which the API server never sends, is
// checked at each occurrence.
type refWalk struct {
	ctx context.Context
	err error
	// limit and keepLimit are how many more problems of errs and kept to build (-1: all).
	limit, keepLimit int
	errs, kept       field.ErrorList

	// old holds the problems of the old object, by place and value; nil on CREATE.
	old       map[refProblem]struct{}
	recording bool // walking the old object
	seed      maphash.Seed

	data  []byte
	stack []frame
	nodes int
}

// refProblem is where a problem is and what value it holds, as hashes.
type refProblem struct{ place, value uint64 }

// frame is a container being walked: its step from its parent and what it is.
type frame struct {
	step  pathStep
	place uint64 // the hash of the path down to here
	list  bool
	role  role
	index int // of the next element, in a list
}

type role uint8

const (
	anyValue role = iota
	refMap        // a target reference: a map under "targetRef", or an element of "backendRefs"
	refList       // a "backendRefs" list
)

// pathStep is one step of the path of a node: a map key, or a list index when isKey is not set.
// A key of spec is raw, the bytes between its quotes, escapes and all: it is unescaped only to be
// hashed, when it has escapes.
type pathStep struct {
	key   string
	raw   []byte
	index int
	isKey bool
}

// name is the key of a step, unescaped.
func (s pathStep) name() string {
	if s.raw == nil {
		return s.key
	}
	if bytes.IndexByte(s.raw, '\\') < 0 {
		return string(s.raw)
	}
	k, _ := unquote(s.raw)
	return k
}

// is reports whether the step is the key k.
func (s pathStep) is(k string) bool {
	if bytes.IndexByte(s.raw, '\\') < 0 {
		return string(s.raw) == k
	}
	return s.name() == k
}

// walkSpec walks spec, a JSON value, for the problems of the target references in it.
func (w *refWalk) walkSpec(spec []byte) {
	if w.old != nil && w.seed == (maphash.Seed{}) {
		w.seed = maphash.MakeSeed()
	}
	w.data = spec
	w.stack = w.stack[:0]
	i := skipSpace(spec, 0)
	if i >= len(spec) {
		return
	}
	w.value(i, pathStep{key: "spec", isKey: true}, w.hashStep(0, pathStep{key: "spec", isKey: true}), anyValue)
}

// setOld walks the old object's spec and keeps its problems for the walk of the new one.
func (w *refWalk) setOld(spec []byte) {
	w.old = map[refProblem]struct{}{}
	if spec == nil {
		return
	}
	w.recording = true
	w.walkSpec(spec)
	w.recording = false
	w.data = nil
}

// hashStep is the place of step s under the place parent. Places are compared only with the old
// object's (w.old, set on UPDATE): without one they are not computed.
func (w *refWalk) hashStep(parent uint64, s pathStep) uint64 {
	if w.old == nil {
		return 0
	}
	var h maphash.Hash
	h.SetSeed(w.seed)
	var b [9]byte
	binary.LittleEndian.PutUint64(b[:8], parent)
	switch {
	case s.isKey && (s.raw == nil || bytes.IndexByte(s.raw, '\\') >= 0):
		b[8] = 'k'
		h.Write(b[:])
		h.WriteString(s.name())
	case s.isKey:
		b[8] = 'k'
		h.Write(b[:])
		h.Write(s.raw)
	default:
		b[8] = 'i'
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:8], uint64(s.index))
		h.Write(b[:8])
	}
	return h.Sum64()
}

// value walks the value at data[i], reached by step, whose place is place, in the role its parent
// gives it, and returns the index after it. Containers are walked with an explicit stack, so that
// deep nesting costs no Go stack.
func (w *refWalk) value(i int, step pathStep, place uint64, r role) int {
	data := w.data
	base := len(w.stack)
	for {
		if w.err != nil || i >= len(data) {
			w.stack = w.stack[:base]
			return len(data)
		}
		switch data[i] {
		case '{', '[':
			if w.nodes++; w.nodes%ctxCheckNodes == 0 {
				if w.err = w.ctx.Err(); w.err != nil {
					continue
				}
			}
			w.stack = append(w.stack, frame{step: step, place: place, list: data[i] == '[', role: r})
			i = skipSpace(data, i+1)
		default:
			i = skipScalar(data, i)
		}
		// Close finished containers and find the next value to walk.
		for {
			if len(w.stack) == base {
				return i
			}
			top := &w.stack[len(w.stack)-1]
			i = skipSpace(data, i)
			if i >= len(data) {
				w.err = errors.New("spec is not valid JSON")
				break
			}
			if c := data[i]; c == '}' || c == ']' {
				w.stack = w.stack[:len(w.stack)-1]
				i++
				continue
			}
			if data[i] == ',' {
				i = skipSpace(data, i+1)
			}
			if top.list {
				step = pathStep{index: top.index}
				top.index++
				r = anyValue
				if top.role == refList {
					r = refMap
				}
				place = w.hashStep(top.place, step)
				break
			}
			// A member: its key, then its value.
			keyStart := i
			end := skipString(data, i)
			i = skipSpace(data, end)
			if data[keyStart] != '"' || end-keyStart < 2 || i >= len(data) || data[i] != ':' {
				w.err = errors.New("spec is not valid JSON")
				break
			}
			i = skipSpace(data, i+1)
			if i >= len(data) {
				w.err = errors.New("spec is not valid JSON")
				break
			}
			step = pathStep{raw: data[keyStart+1 : end-1], isKey: true}
			place = w.hashStep(top.place, step)
			r = anyValue
			switch c := data[i]; {
			case top.role == refMap && step.is("sectionName"):
				w.ref(top, i)
			case c == '{' && step.is("targetRef"):
				r = refMap
			case c == '[' && step.is("backendRefs"):
				r = refList
			}
			break
		}
	}
}

// ref checks the section name at data[i], a member of the target reference top.
func (w *refWalk) ref(top *frame, i int) {
	data := w.data
	end := skipValue(data, i)
	raw := data[i:end]
	if string(raw) == "null" {
		return
	}
	var s string
	isString := raw[0] == '"'
	if isString {
		var ok bool
		if s, ok = unquote(raw); !ok || naming.FieldSection.Valid(s) {
			return
		}
	}
	w.problem(top, "sectionName", raw, s, isString, RuleSectionName, func(p *field.Path) field.ErrorList {
		if !isString {
			return field.ErrorList{field.Invalid(p, scalarValue(raw), "must be a string")}
		}
		return naming.FieldSection.Validate(s, p)
	})
}

// problem records the problems build makes of raw (s, unquoted, when isString), the member key of
// the target reference top: as the old object's when recording, else as pre-existing when the old
// object had them at the same place with the same value, else as new, within the limits.
func (w *refWalk) problem(top *frame, key string, raw []byte, s string, isString bool, rule Rule, build func(*field.Path) field.ErrorList) {
	list, limit := &w.errs, &w.limit
	if w.old != nil {
		at := refProblem{place: w.hashStep(top.place, pathStep{key: key, isKey: true}), value: w.hashValue(raw, s, isString)}
		if w.recording {
			w.old[at] = struct{}{}
			return
		}
		if _, ok := w.old[at]; ok {
			list, limit = &w.kept, &w.keepLimit
		}
	}
	if *limit == 0 {
		*list = append(*list, omittedProblem)
		return
	}
	n := len(*list)
	*list = append(*list, build(field.NewPath(w.field(key)))...)
	tag(*list, n, rule)
	if *limit > 0 {
		*limit = max(*limit-(len(*list)-n), 0)
	}
}

func (w *refWalk) hashValue(raw []byte, s string, isString bool) uint64 {
	var h maphash.Hash
	h.SetSeed(w.seed)
	if isString {
		h.WriteByte('s')
		h.WriteString(s)
	} else {
		h.WriteByte('j')
		h.Write(raw)
	}
	return h.Sum64()
}

// scalarValue is the value of raw JSON a problem shows: a number or boolean as it decodes, an
// object or list as its JSON text, cut to MaxValueBytes.
func scalarValue(raw []byte) any {
	if c := raw[0]; c == '{' || c == '[' {
		return BoundValue(string(raw[:min(len(raw), MaxValueBytes+1)]))
	}
	var v any
	if json.UnmarshalCaseSensitivePreserveInts(raw, &v) != nil {
		return BoundValue(string(raw))
	}
	return v
}

// unquote returns the string a JSON string literal holds; only one with escapes allocates.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.UnmarshalCaseSensitivePreserveInts(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string literal at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipScalar returns the index after the string, number, true, false or null at data[i].
func skipScalar(data []byte, i int) int {
	if i < len(data) && data[i] == '"' {
		return skipString(data, i)
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipValue returns the index after the JSON value at data[i].
func skipValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i = skipString(data, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return i + 1
			}
		default:
			if depth == 0 {
				return skipScalar(data, i)
			}
		}
		i++
	}
	return len(data)
}

// field returns the field path of the member name of the container being walked, as field.Path
// prints it (spec.to[0].targetRef.sectionName), cut to MaxFieldBytes before anything longer is
// copied: a map key may be megabytes long. Keys are printed as they are written in spec: a key
// with escapes keeps them.
func (w *refWalk) field(name string) string {
	const root = "spec"
	steps := w.stack[1:] // the first is spec itself
	n := len(root) + 1 + len(name)
	for _, f := range steps {
		n += f.step.len()
	}
	if n <= MaxFieldBytes {
		buf := make([]byte, 0, n)
		buf = append(buf, root...)
		for _, f := range steps {
			buf = f.step.appendTo(buf, n)
		}
		buf = append(buf, '.')
		return string(append(buf, name...))
	}
	// Cut as boundString cuts, without building the whole path first, and short enough with the
	// note of its length that boundCause leaves it alone.
	more := "... (" + strconv.Itoa(n) + " bytes in all)"
	keep := MaxFieldBytes - len(more)
	buf := make([]byte, 0, MaxFieldBytes)
	buf = append(buf, root...)
	for _, f := range steps {
		if len(buf) >= keep {
			break
		}
		buf = f.step.appendTo(buf, keep-len(buf))
	}
	if len(buf) < keep {
		buf = append(buf, '.')
		buf = append(buf, name[:min(len(name), keep-len(buf))]...)
	}
	return strings.ToValidUTF8(string(buf), "") + more
}

func (s pathStep) keyBytes() []byte {
	if s.raw != nil {
		return s.raw
	}
	return []byte(s.key)
}

func (s pathStep) len() int {
	switch {
	case !s.isKey:
		return 2 + digits(s.index)
	case len(s.raw) == 0 && s.key == "":
		return 2 // field.Path prints an empty name as []
	default:
		return 1 + len(s.raw) + len(s.key)
	}
}

// appendTo appends the step to buf, at most n bytes of it.
func (s pathStep) appendTo(buf []byte, n int) []byte {
	switch {
	case !s.isKey:
		step := strconv.AppendInt(append(make([]byte, 0, 24), '['), int64(s.index), 10)
		return append(buf, append(step, ']')[:min(len(step)+1, n)]...)
	case len(s.raw) == 0 && s.key == "":
		return append(buf, "[]"[:min(2, n)]...)
	default:
		k := s.keyBytes()
		buf = append(buf, '.')
		return append(buf, k[:min(len(k), n-1)]...)
	}
}

func digits(i int) int {
	n := 1
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// sniErrors checks the SNI Kuma builds for each port of a MeshService, MeshMultiZoneService or
// MeshExternalService from its KRI with the port as section (docs/kri.md, "SNI budget"):
//
//	sni.<type>.<mesh>[.<zone>[.<namespace>]].<name>.<section>
//
// Kuma v2.14 (pkg/core/resources/sni) wants mesh, name and section not empty; mesh, name, zone
// (when set), namespace (when zone and namespace are set) and section DNS-1123 labels; and the
// whole at most 253 characters. Kuma only warns; a port that breaks one is denied here, at the
// port's path. A part the KRI check already reports as invalid is not reported again.
func sniErrors(kind string, kri naming.KRI, obj *admitted, errs field.ErrorList) field.ErrorList {
	type port struct {
		section string
		path    *field.Path // of the port
		at      *field.Path // of the value the section comes from
	}
	where, ok := naming.SNIPortsOf(kind)
	if !ok {
		return errs
	}
	// Every SNI port is under spec, the part of the object that was decoded.
	var ports []port
	if where.Single != nil {
		parent, last := where.Single[:len(where.Single)-1], where.Single[len(where.Single)-1]
		v, _, _ := unstructured.NestedFieldNoCopy(obj.specMap(), parent[1:]...)
		holder, _ := v.(map[string]any)
		if n, ok := portNumber(holder[last]); ok {
			p := field.NewPath(parent[0], parent[1:]...)
			ports = append(ports, port{n, p, p.Child(last)})
		}
	} else {
		v, _, _ := unstructured.NestedFieldNoCopy(obj.specMap(), where.List[1:]...)
		list, _ := v.([]any)
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			p := field.NewPath(where.List[0], where.List[1:]...).Index(i)
			name, hasName := m["name"].(string)
			if hasName && (name != "" || where.EmptyNameIsSection) {
				ports = append(ports, port{name, p, p.Child("name")})
			} else if n, ok := portNumber(m["port"]); ok {
				ports = append(ports, port{n, p, p.Child("port")})
			}
		}
	}
	for _, pt := range ports {
		if pt.section == "" {
			errs = append(errs, field.Invalid(pt.at, pt.section, "must not be empty: Kuma names the port's SNI after it"))
			continue
		}
		if kri.Mesh == "" || kri.Name == "" {
			continue // the KRI check reports it
		}
		type part struct {
			what, value string
			reported    bool
		}
		parts := []part{{"mesh", kri.Mesh, !naming.FieldMesh.Valid(kri.Mesh)}, {"name", kri.Name, !naming.FieldName.Valid(kri.Name)}}
		if kri.Zone != "" {
			parts = append(parts, part{"zone", kri.Zone, !naming.FieldZone.Valid(kri.Zone)})
			if kri.Namespace != "" {
				parts = append(parts, part{"namespace", kri.Namespace, !naming.FieldNamespace.Valid(kri.Namespace)})
			}
		}
		sni := naming.SNI(kri, pt.section)
		for _, pa := range parts {
			if pa.reported {
				continue
			}
			if msgs := validation.IsDNS1123Label(pa.value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(pt.path, BoundValue(sni), fmt.Sprintf(
					"the port's SNI needs the object's %s %q to be a DNS-1123 label: %s", pa.what, pa.value, strings.Join(msgs, "; "))))
			}
		}
		if msgs := validation.IsDNS1123Label(pt.section); len(msgs) > 0 {
			errs = append(errs, field.Invalid(pt.at, pt.section, "the port's SNI needs a DNS-1123 label: "+strings.Join(msgs, "; ")))
		}
		if len(sni) > naming.SNIMaxLen {
			errs = append(errs, field.Invalid(pt.path, BoundValue(sni), fmt.Sprintf(
				"the port's SNI is %d characters, more than the DNS host-name limit of %d", len(sni), naming.SNIMaxLen)))
		}
	}
	return errs
}

// portNumber formats a port number as Kuma does for a section name.
func portNumber(v any) (string, bool) {
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10), true
	case float64:
		return strconv.FormatFloat(n, 'f', -1, 64), true
	}
	return "", false
}

// mapAt returns the map at path in m.
func mapAt(m map[string]any, path ...string) (map[string]any, bool) {
	for _, k := range path {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

// proxyPatchNames are the match fields of a MeshProxyPatch modification that name a generated
// Envoy resource, by modification type; proxyPatchTags the tag maps that may hold
// kuma.io/unified-name.
var (
	proxyPatchNames = map[string][]string{
		"cluster":       {"name"},
		"listener":      {"name"},
		"networkFilter": {"listenerName"},
		"httpFilter":    {"listenerName"},
		"virtualHost":   {"name", "routeConfigurationName"},
	}
	proxyPatchTags    = map[string]string{"listener": "tags", "networkFilter": "listenerTags", "httpFilter": "listenerTags"}
	modificationTypes = []string{"cluster", "httpFilter", "listener", "networkFilter", "virtualHost"}
)

// UnifiedNameTag is the listener tag that holds a listener's unified name (a KRI or a contextual
// name such as self_inbound_dp_http).
const UnifiedNameTag = "kuma.io/unified-name"

// proxyPatchErrors checks the names a MeshProxyPatch author types to select a generated Envoy
// resource (docs/kri.md, "Hand-typed identifiers"): one that starts with "kri_" must be a valid KRI,
// since Kuma only generates valid ones and a typo silently matches nothing; one that contains ':'
// is admitted with a note, since it is a legacy name that matches nothing on meshes with unified
// naming. Other names are left alone.
func (c *Config) proxyPatchErrors(obj *admitted, errs field.ErrorList) (field.ErrorList, field.ErrorList) {
	var notes field.ErrorList
	mods, _ := mapAt(obj.specMap(), "default")
	list, _ := mods["appendModifications"].([]any)
	base := specPath.Child("default", "appendModifications")
	for i, item := range list {
		mod, ok := item.(map[string]any)
		if !ok {
			continue
		}
		for _, typ := range modificationTypes {
			match, ok := mapAt(mod, typ, "match")
			if !ok {
				continue
			}
			mp := base.Index(i).Child(typ, "match")
			for _, key := range proxyPatchNames[typ] {
				if v, ok := match[key].(string); ok {
					errs, notes = c.handTyped(v, mp.Child(key), errs, notes)
				}
			}
			if tagsKey, ok := proxyPatchTags[typ]; ok {
				if tags, ok := match[tagsKey].(map[string]any); ok {
					if v, ok := tags[UnifiedNameTag].(string); ok {
						errs, notes = c.handTyped(v, mp.Child(tagsKey).Key(UnifiedNameTag), errs, notes)
					}
				}
			}
		}
	}
	return errs, notes
}

func (c *Config) handTyped(v string, p *field.Path, errs, notes field.ErrorList) (field.ErrorList, field.ErrorList) {
	if strings.HasPrefix(v, naming.Prefix+string(naming.Separator)) {
		if _, err := c.registry.Parse(v); err != nil {
			return append(errs, field.Invalid(p, v, kriDetail(err))), notes
		}
		return errs, notes
	}
	if strings.IndexByte(v, ':') >= 0 {
		notes = append(notes, field.Invalid(p, v,
			"contains ':': a legacy Envoy name, which matches nothing on a mesh with unified naming (use the resource's KRI there)"))
	}
	return errs, notes
}

// specReads lists the paths under spec the rules of a kind read besides target references, "*"
// standing for every element of a list: decodeObject decodes only these (readsWhere).
func specReads(gk schema.GroupKind) [][]string {
	if gk.Group == KongGroup {
		return kongReads
	}
	if gk.Group != KumaGroup {
		return nil
	}
	if where, ok := naming.SNIPortsOf(gk.Kind); ok {
		if where.Single != nil {
			return [][]string{where.Single[1:]}
		}
		list := append(slices.Clone(where.List[1:]), "*")
		return [][]string{append(slices.Clone(list), "name"), append(list, "port")}
	}
	if gk.Kind == "MeshProxyPatch" {
		var paths [][]string
		for _, typ := range modificationTypes {
			match := []string{"default", "appendModifications", "*", typ, "match"}
			for _, key := range proxyPatchNames[typ] {
				paths = append(paths, append(slices.Clone(match), key))
			}
			if tags, ok := proxyPatchTags[typ]; ok {
				paths = append(paths, append(slices.Clone(match), tags, UnifiedNameTag))
			}
		}
		for _, typ := range proxyPatchValueTypes {
			paths = append(paths, []string{"default", "appendModifications", "*", typ, "value"})
		}
		return paths
	}
	return nil
}

// readTree is a set of paths of specReads as a tree; a leaf has no children.
type readTree map[string]readTree

// readTrees holds the readTree of each kind's specReads, built at its first decode: an audit
// decodes thousands of objects of each kind. A tree is never changed once built.
var readTrees sync.Map // schema.GroupKind → readTree

// specReadTree returns newReadTree(specReads(gk)), built once per kind.
func specReadTree(gk schema.GroupKind) readTree {
	if t, ok := readTrees.Load(gk); ok {
		return t.(readTree)
	}
	t, _ := readTrees.LoadOrStore(gk, newReadTree(specReads(gk)))
	return t.(readTree)
}

func newReadTree(paths [][]string) readTree {
	t := readTree{}
	for _, p := range paths {
		n := t
		for _, k := range p {
			if n[k] == nil {
				n[k] = readTree{}
			}
			n = n[k]
		}
	}
	return t
}

// decodeReads decodes of the JSON value data only what the paths of t lead to, with the
// structure of the whole: maps hold only the members on a path, lists every element (nil for an
// element that holds nothing on a path), and a leaf that is a map or a list is left empty, since
// every rule reads a string or a number there. So that a spec of a million empty objects costs
// what its ports cost, not what decoding it would. data is valid JSON.
func decodeReads(data []byte, t readTree) any {
	v, _ := decodeReadsAt(data, skipSpace(data, 0), t, false)
	return v
}

// decodeReadsAt decodes the value at data[i] and reports whether it holds anything on a path.
func decodeReadsAt(data []byte, i int, t readTree, element bool) (any, bool) {
	if i >= len(data) {
		return nil, false
	}
	switch data[i] {
	case '{':
		if len(t) == 0 {
			return map[string]any{}, true
		}
		m := map[string]any{}
		for i = skipSpace(data, i+1); i < len(data) && data[i] != '}'; {
			if data[i] == ',' {
				i = skipSpace(data, i+1)
				continue
			}
			end := skipString(data, i)
			key, ok := unquote(data[i:end])
			i = skipSpace(data, end)
			if !ok || i >= len(data) || data[i] != ':' {
				break
			}
			i = skipSpace(data, i+1)
			if child, on := t[key]; on {
				if v, ok := decodeReadsAt(data, i, child, false); ok {
					m[key] = v
				}
			}
			i = skipSpace(data, skipValue(data, i))
		}
		if element && len(m) == 0 {
			return nil, false
		}
		return m, true
	case '[':
		child, on := t["*"]
		if !on {
			return []any{}, true
		}
		var list []any
		for i = skipSpace(data, i+1); i < len(data) && data[i] != ']'; {
			if data[i] == ',' {
				i = skipSpace(data, i+1)
				continue
			}
			v, _ := decodeReadsAt(data, i, child, true)
			list = append(list, v)
			i = skipSpace(data, skipValue(data, i))
		}
		if list == nil {
			list = []any{}
		}
		return list, true
	default:
		var v any
		if json.UnmarshalCaseSensitivePreserveInts(data[i:skipValue(data, i)], &v) != nil {
			return nil, false
		}
		return v, true
	}
}
