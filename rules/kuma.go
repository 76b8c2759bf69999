package rules

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

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

// checkWith lists every naming problem of obj, a guarded object, each at the object field that
// holds the offending value, with the target references of spec left to w (nil: not looked at): it
// returns the problems found before and after them, which w's come between. For KRI kinds it also
// returns the object's KRI and whether it is valid, and the notes: values that are admitted but
// deserve a warning.
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
func (c *Config) checkWith(g *guard, obj *admitted, w *refWalk) (kri naming.KRI, valid bool, before, after, notes field.ErrorList) {
	if !g.kri {
		return naming.KRI{}, false, tag(kongErrors(g.gk.Kind, obj), 0, kongRules[g.gk.Kind]), nil, nil
	}
	kri, before = c.registry.ForObject(obj, g.gk.Kind)
	valid = len(before) == 0
	tag(before, 0, RuleKRI)
	if v, ok := obj.labels[naming.LabelDisplayName]; ok {
		before = tag(append(before, naming.FieldName.Validate(v, displayNameLabelPath)...), len(before), RuleDisplayNameLabel)
	}
	if w != nil && obj.spec != nil {
		if w.limit > 0 {
			w.limit = max(w.limit-len(before), 0)
		}
		w.walk(obj.spec, w.old, w.old != nil)
	}
	var errs field.ErrorList
	if g.gk.Group == KumaGroup {
		switch g.gk.Kind {
		case "MeshService", "MeshMultiZoneService", "MeshExternalService":
			errs = tag(sniErrors(g.gk.Kind, kri, obj, errs), 0, RuleSNI)
		case "MeshProxyPatch":
			errs, notes = c.proxyPatchErrors(obj, errs)
			tag(errs, 0, RuleProxyPatchKRI)
			tag(notes, 0, RuleProxyPatchLegacyName)
		}
	}
	n := len(errs)
	if v, ok := obj.annotations[naming.AnnotationKRI]; ok {
		switch got, err := c.registry.Parse(v); {
		case err != nil:
			errs = append(errs, field.Invalid(annotationKRIPath, v, kriDetail(err)))
		case valid && got != kri:
			errs = append(errs, field.Invalid(annotationKRIPath, v,
				fmt.Sprintf("must equal the object's KRI %q", kri.String())))
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
	return kri, valid, before, tag(errs, n, RuleOriginKRI), notes
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

// refWalk finds the problems of the target references of a decoded spec. Its cost does not depend
// on the shape of spec: it allocates nothing per node it visits (the path of the node is a stack
// of references to the keys and indices of spec, not a string), and a problem's field path is
// built, cut to MaxFieldBytes, only for the first limit problems; the others are counted, each as
// omittedProblem. On UPDATE it walks the old object's spec alongside (old) and keeps apart, in
// kept, the problems the old object has alike: the same value at the same place, which compares
// the places by their keys and indices, not their printed paths (docs/limits.md). It stops, with
// err set, once ctx is done.
type refWalk struct {
	ctx context.Context
	err error
	// limit and keepLimit are how many more problems of errs and kept to build (-1: all).
	limit, keepLimit int
	// old is the old object's spec, nil on CREATE.
	old        any
	errs, kept field.ErrorList
	path       []pathStep
	nodes      int
}

// pathStep is one step of the path of a node: a map key, or a list index when key is not set.
type pathStep struct {
	key   string
	index int
	isKey bool
}

// walk visits v and, when inOld, old: the value at the same place in the old object.
func (w *refWalk) walk(v, old any, inOld bool) {
	if w.err != nil {
		return
	}
	if w.nodes++; w.nodes%ctxCheckNodes == 0 {
		if w.err = w.ctx.Err(); w.err != nil {
			return
		}
	}
	switch t := v.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		keys := make([]string, 0, len(t))
		for k, child := range t {
			switch child.(type) {
			case map[string]any, []any:
				keys = append(keys, k)
			}
		}
		// Sorted, so that the problems come out in a stable order.
		slices.Sort(keys)
		for _, k := range keys {
			c := t[k]
			oc, inOldChild := oldMap[k]
			w.path = append(w.path, pathStep{key: k, isKey: true})
			switch k {
			case "targetRef":
				if ref, ok := c.(map[string]any); ok {
					w.ref(ref, oc, inOldChild)
				}
			case "backendRefs":
				if refs, ok := c.([]any); ok {
					oldRefs, _ := oc.([]any)
					for i, r := range refs {
						if ref, ok := r.(map[string]any); ok {
							w.path = append(w.path, pathStep{index: i})
							if i < len(oldRefs) {
								w.ref(ref, oldRefs[i], true)
							} else {
								w.ref(ref, nil, false)
							}
							w.path = w.path[:len(w.path)-1]
						}
					}
				}
			}
			w.walk(c, oc, inOldChild)
			w.path = w.path[:len(w.path)-1]
		}
	case []any:
		oldList, _ := old.([]any)
		for i, c := range t {
			switch c.(type) {
			case map[string]any, []any:
				w.path = append(w.path, pathStep{index: i})
				if i < len(oldList) {
					w.walk(c, oldList[i], true)
				} else {
					w.walk(c, nil, false)
				}
				w.path = w.path[:len(w.path)-1]
			}
		}
	}
}

// ref checks the section name of one target reference, at w.path; old is the value at the same
// place in the old object, when inOld.
func (w *refWalk) ref(ref map[string]any, old any, inOld bool) {
	v, ok := ref["sectionName"]
	if !ok || v == nil {
		return
	}
	s, isString := v.(string)
	if isString && naming.FieldSection.Valid(s) {
		return
	}
	list, limit := &w.errs, &w.limit
	if oldRef, ok := old.(map[string]any); ok && inOld {
		if ov, ok := oldRef["sectionName"]; ok && sameValue(ov, v) {
			list, limit = &w.kept, &w.keepLimit
		}
	}
	if *limit == 0 {
		*list = append(*list, omittedProblem)
		return
	}
	n := len(*list)
	p := field.NewPath(w.field("sectionName"))
	if !isString {
		*list = append(*list, field.Invalid(p, v, "must be a string"))
	} else {
		*list = append(*list, naming.FieldSection.Validate(s, p)...)
	}
	tag(*list, n, RuleSectionName)
	if *limit > 0 {
		*limit = max(*limit-(len(*list)-n), 0)
	}
}

// sameValue reports whether two decoded JSON values are equal. Section names are strings, which
// are compared without reflection.
func sameValue(a, b any) bool {
	if s, ok := a.(string); ok {
		t, ok := b.(string)
		return ok && s == t
	}
	return reflect.DeepEqual(a, b)
}

// field returns the field path of the member name of the node at w.path, as field.Path prints
// it (spec.to[0].targetRef.sectionName), cut to MaxFieldBytes before anything longer is copied:
// a map key may be megabytes long.
func (w *refWalk) field(name string) string {
	const root = "spec"
	n := len(root) + 1 + len(name)
	for _, s := range w.path {
		n += s.len()
	}
	if n <= MaxFieldBytes {
		var b strings.Builder
		b.Grow(n)
		b.WriteString(root)
		for _, s := range w.path {
			s.writeTo(&b)
		}
		b.WriteByte('.')
		b.WriteString(name)
		return b.String()
	}
	// Cut as boundString cuts, without building the whole path first, and short enough with the
	// note of its length that boundCause leaves it alone.
	more := "... (" + strconv.Itoa(n) + " bytes in all)"
	keep := MaxFieldBytes - len(more)
	buf := make([]byte, 0, MaxFieldBytes)
	buf = append(buf, root...)
	for _, s := range w.path {
		if len(buf) >= keep {
			break
		}
		buf = s.appendTo(buf, keep-len(buf))
	}
	if len(buf) < keep {
		buf = append(buf, '.')
		buf = append(buf, name[:min(len(name), keep-len(buf))]...)
	}
	return strings.ToValidUTF8(string(buf), "") + more
}

func (s pathStep) len() int {
	switch {
	case !s.isKey:
		return 2 + digits(s.index)
	case s.key == "":
		return 2 // field.Path prints an empty name as []
	default:
		return 1 + len(s.key)
	}
}

func (s pathStep) writeTo(b *strings.Builder) {
	switch {
	case !s.isKey:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(s.index))
		b.WriteByte(']')
	case s.key == "":
		b.WriteString("[]")
	default:
		b.WriteByte('.')
		b.WriteString(s.key)
	}
}

// appendTo appends the step to buf, at most n bytes of it.
func (s pathStep) appendTo(buf []byte, n int) []byte {
	var step []byte
	switch {
	case !s.isKey:
		step = strconv.AppendInt([]byte{'['}, int64(s.index), 10)
		step = append(step, ']')
	case s.key == "":
		step = []byte("[]")
	default:
		buf = append(buf, '.')
		return append(buf, s.key[:min(len(s.key), n-1)]...)
	}
	return append(buf, step[:min(len(step), n)]...)
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
