package fix

import (
	"fmt"
	"slices"
	"strings"

	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/kriguard/kriguard/naming"
)

// Label and annotation keys (Kuma api/mesh/v1alpha1/dataplane_helpers.go).
const (
	displayNameLabel = "kuma.io/display-name"
	namespaceLabel   = "k8s.kuma.io/namespace"
	meshKey          = "kuma.io/mesh"
)

// kuma30 holds the facts of the release fix rewrites for: its removed kinds and ref kinds and the
// kinds whose name must be an RFC 1035 label (docs/releases.md).
var kuma30 = naming.Kuma3_0

// A refSite is a place a policy references another object, with the kinds Kuma 3.0 accepts there
// (the enums of its CRDs).
type refSite struct {
	what  string
	kinds []string
	// injectsNamespace: for MeshService, MeshExternalService and MeshMultiZoneService, 3.0 adds
	// the policy's own namespace to a display-name selector that has none (api/common/v1alpha1
	// targetref.go realResourceSelector), as 2.14 did for a name without a namespace.
	injectsNamespace bool
}

var (
	topLevelRef = refSite{what: "top-level targetRef", kinds: []string{"Mesh", "Dataplane"}}
	toRef       = refSite{what: "to[].targetRef", kinds: []string{"Mesh", "MeshService", "MeshExternalService", "MeshMultiZoneService", "MeshHTTPRoute"}}
	backendRef  = refSite{what: "backendRef", kinds: []string{"MeshService", "MeshExternalService", "MeshMultiZoneService"}, injectsNamespace: true}
)

// podMeshKinds are the objects whose kuma.io/mesh annotation Kuma 2.14 read when the label was
// missing (pkg/plugins/runtime/k8s/util/util.go MeshOfByLabelOrAnnotation), by group/kind, with
// the path of the metadata that carries it.
var meshAnnotationKinds = map[string][]string{
	"/Pod":                                {"metadata"},
	"/Service":                            {"metadata"},
	"/Namespace":                          {"metadata"},
	"gateway.networking.k8s.io/Gateway":   {"metadata"},
	"gateway.networking.k8s.io/HTTPRoute": {"metadata"},
	// Pods take their annotations from their template.
	"/PodTemplate":           {"template", "metadata"},
	"/ReplicationController": {"spec", "template", "metadata"},
	"apps/Deployment":        {"spec", "template", "metadata"},
	"apps/StatefulSet":       {"spec", "template", "metadata"},
	"apps/DaemonSet":         {"spec", "template", "metadata"},
	"apps/ReplicaSet":        {"spec", "template", "metadata"},
	"batch/Job":              {"spec", "template", "metadata"},
	"batch/CronJob":          {"spec", "jobTemplate", "spec", "template", "metadata"},
}

// rewriter walks one document, editing its tree and recording the same edits as line edits of
// its text.
type rewriter struct {
	offset   int // lines of the stream before the chunk
	text     *lineEdits
	src      []byte
	obj      Object
	changes  []Change
	findings []Finding
	// universalRes: the resource rewritten is a Universal one, which has no namespace of its
	// own: a by-name reference without a namespace selects by display name alone.
	universalRes bool
}

func (r *rewriter) change(n *yaml.Node, field, format string, args ...any) {
	r.changes = append(r.changes, Change{Line: r.offset + n.Line, Object: r.obj, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (r *rewriter) finding(n *yaml.Node, field, format string, args ...any) {
	r.findings = append(r.findings, Finding{Line: r.offset + n.Line, Object: r.obj, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (r *rewriter) document(doc *yaml.Node) {
	r.object(doc.Content[0], "")
}

// object rewrites one Kubernetes object, and the items of a List.
func (r *rewriter) object(n *yaml.Node, field string) {
	if n.Kind != yaml.MappingNode {
		return
	}
	apiVersion, kind := scalar(n, "apiVersion"), scalar(n, "kind")
	if kind == "" && apiVersion == "" && scalar(n, "type") != "" && scalar(n, "name") != "" {
		r.universal(n, field)
		return
	}
	if _, total := get(n, "total"); kind == "" && apiVersion == "" && total != nil {
		// A Kuma listing, as kumactl get -o yaml prints one: its items are Universal resources.
		if _, items := get(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for i, it := range items.Content {
				r.object(it, fmt.Sprintf("%sitems[%d].", field, i))
			}
		}
		return
	}
	if kind == "" {
		return
	}
	if _, items := get(n, "items"); items != nil && strings.HasSuffix(kind, "List") && items.Kind == yaml.SequenceNode {
		for i, it := range items.Content {
			r.object(it, fmt.Sprintf("%sitems[%d].", field, i))
		}
		return
	}
	_, meta := get(n, "metadata")
	r.obj = Object{APIVersion: apiVersion, Kind: kind, Namespace: scalar(meta, "namespace"), Name: scalar(meta, "name")}
	group := apiVersion[:max(strings.LastIndexByte(apiVersion, '/'), 0)]
	if group == "kuma.io" {
		if note, removed := kuma30.Removed(kind); removed {
			k, _ := get(n, "kind")
			r.finding(k, field+"kind", "%s is removed in Kuma %s (%s): delete or replace it before the upgrade", kind, kuma30, note)
			return
		}
		r.kumaObject(n, meta, field)
		r.ignoredMeshAnnotation(meta, field+"metadata")
		return
	}
	if path, ok := meshAnnotationKinds[group+"/"+kind]; ok {
		if m := lookup(n, path...); m != nil {
			r.meshAnnotation(m, field+strings.Join(path, "."))
		}
	}
}

func (r *rewriter) kumaObject(n, meta *yaml.Node, field string) {
	kind := r.obj.Kind
	if meta != nil {
		if k, v := get(meta, "name"); v != nil && v.Kind == yaml.ScalarNode {
			if errs := kuma30.ValidateName(kind, v.Value, fieldpath.NewPath("metadata", "name")); len(errs) > 0 {
				details := make([]string, len(errs))
				for i, e := range errs {
					details[i] = e.Detail
				}
				r.finding(k, field+"metadata.name", "%s; rename it: a rename changes its KRI, SNI and metric names, so fix never does it", strings.Join(details, "; "))
			}
		}
	}
	if kind == "Dataplane" {
		return // a Dataplane's outbound backendRef keeps selecting by name in 3.0
	}
	r.spec(n, field, policyNamespace(meta))
}

// universal rewrites a Kuma Universal resource, as kumactl applies it (type, mesh, name, labels,
// spec; docs/universal.md): as a Kubernetes object of the same kind, but for where its name and
// namespace are.
func (r *rewriter) universal(n *yaml.Node, field string) {
	typ := scalar(n, "type")
	if !isKumaType(typ) {
		return // type and name of something else: a Helm values file
	}
	name := scalar(n, "name")
	r.obj = Object{Kind: typ, Name: name, Mesh: scalar(n, "mesh")}
	if note, removed := kuma30.Removed(typ); removed {
		k, _ := get(n, "type")
		r.finding(k, field+"type", "%s is removed in Kuma %s (%s): delete or replace it before the upgrade", typ, kuma30, note)
		return
	}
	_, labels := get(n, "labels")
	// 3.0 checks the display name as submitted: the label when not empty, else name.
	nameK, _ := get(n, "name")
	at, p, dn := nameK, field+"name", name
	dnK, dnV := get(labels, displayNameLabel)
	if v, ok := stringValue(dnV); ok && v != "" {
		at, p, dn = dnK, field+"labels["+displayNameLabel+"]", v
	}
	if errs := kuma30.ValidateName(typ, dn, fieldpath.NewPath("name")); len(errs) > 0 {
		details := make([]string, len(errs))
		for i, e := range errs {
			details[i] = e.Detail
		}
		r.finding(at, p, "%s; rename it: a rename changes its KRI, SNI and metric names, so fix never does it", strings.Join(details, "; "))
	} else if dn != name {
		r.finding(dnK, p, "Kuma %s overwrites this label with name %q: the resource's KRI and display name become %q instead of %q; drop the label, or rename the resource", kuma30, name, name, dn)
	}
	if typ == "Dataplane" {
		return
	}
	ns := ""
	if labels != nil {
		ns = scalar(labels, namespaceLabel)
	}
	r.universalRes = true
	r.spec(n, field, ns)
	r.universalRes = false
}

// isKumaType reports whether t is a Kuma resource type of 2.14 or 3.0.
func isKumaType(t string) bool {
	for _, rel := range naming.Releases() {
		if _, ok := rel.Registry().ByKind(t); ok {
			return true
		}
		if _, ok := rel.Removed(t); ok {
			return true
		}
	}
	return false
}

// spec rewrites the references of n's spec; ns is the namespace a by-name reference without one
// is looked up in.
func (r *rewriter) spec(n *yaml.Node, field, ns string) {
	_, spec := get(n, "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return
	}
	if _, ref := get(spec, "targetRef"); ref != nil {
		r.ref(ref, field+"spec.targetRef", topLevelRef, ns)
	}
	if k, from := get(spec, "from"); from != nil && !(from.Kind == yaml.ScalarNode && from.Tag == "!!null") {
		r.finding(k, field+"spec.from", "spec.from is removed in Kuma 3.0 and dropped without an error: move its entries to spec.rules")
	}
	_, to := get(spec, "to")
	for i, item := range elements(to) {
		p := fmt.Sprintf("%sspec.to[%d]", field, i)
		if _, ref := get(item, "targetRef"); ref != nil {
			r.ref(ref, p+".targetRef", toRef, ns)
		}
		_, rules := get(item, "rules")
		for j, rule := range elements(rules) {
			rp := fmt.Sprintf("%s.rules[%d].default", p, j)
			def := lookup(rule, "default")
			_, brs := get(def, "backendRefs")
			for k, br := range elements(brs) {
				r.ref(br, fmt.Sprintf("%s.backendRefs[%d]", rp, k), backendRef, ns)
			}
			_, filters := get(def, "filters")
			for k, f := range elements(filters) {
				if br := lookup(f, "requestMirror", "backendRef"); br != nil {
					r.ref(br, fmt.Sprintf("%s.filters[%d].requestMirror.backendRef", rp, k), backendRef, ns)
				}
			}
		}
	}
}

// policyNamespace is the namespace Kuma resolves a by-name reference without a namespace in:
// the policy's own (its k8s.kuma.io/namespace label, which Kuma sets from metadata.namespace).
func policyNamespace(meta *yaml.Node) string {
	if _, labels := get(meta, "labels"); labels != nil {
		if ns := scalar(labels, namespaceLabel); ns != "" {
			return ns
		}
	}
	return scalar(meta, "namespace")
}

// ref rewrites a targetRef or backendRef that selects by name and namespace to select by labels.
func (r *rewriter) ref(ref *yaml.Node, field string, site refSite, policyNS string) {
	if ref.Kind != yaml.MappingNode {
		return
	}
	kindK, kindV := get(ref, "kind")
	if kindV == nil || kindV.Kind != yaml.ScalarNode || kindV.Value == "" {
		return
	}
	kind := kindV.Value
	if !slices.Contains(site.kinds, kind) {
		hint := "choose what replaces it"
		if note, ok := kuma30.RemovedTargetRefKind(kind); ok {
			hint = note
		}
		r.finding(kindK, field+".kind", "Kuma 3.0 does not accept kind %s in a %s (it accepts %s): %s", kind, site.what, strings.Join(site.kinds, ", "), hint)
		return
	}
	if k, v := get(ref, "proxyTypes"); v != nil && len(elements(v)) > 0 {
		r.finding(k, field+".proxyTypes", "proxyTypes is removed in Kuma 3.0 and dropped without an error: kind %s then selects gateways and sidecars alike", kind)
	}
	if kind == "Mesh" {
		return // 2.14 refused a name on kind Mesh; 3.0 selects the policy's mesh
	}
	nameK, nameV := get(ref, "name")
	nsK, nsV := get(ref, "namespace")
	if nameV == nil && nsV == nil {
		return
	}
	if labelsK, _ := get(ref, "labels"); labelsK != nil {
		r.finding(ref, field, "selects by name or namespace and by labels, which Kuma 2.14 refuses too: keep one selector, as labels")
		return
	}
	name, nameOK := stringValue(nameV)
	ns, nsOK := stringValue(nsV)
	switch {
	case !nameOK || !nsOK:
		r.finding(ref, field, "name or namespace is not a string: write the labels %s and %s by hand", displayNameLabel, namespaceLabel)
		return
	case name == "":
		r.finding(ref, field, "has no name to translate: write the labels it should select by hand")
		return
	case kind == "MeshService" && strings.Contains(name, "_"):
		r.finding(nameK, field+".name", "%q is a kuma.io/service value, which Kuma 2.14 resolved to a MeshService by name, namespace and port; Kuma 3.0 only selects by labels: write %s and %s, and the port's name as sectionName", name, displayNameLabel, namespaceLabel)
		return
	}
	if ns == "" {
		ns = policyNS
	}
	if ns == "" && !site.injectsNamespace && !r.universalRes {
		r.finding(nameK, field+".name", "Kuma 2.14 looks %q up in the policy's namespace, which this manifest does not set, and 3.0 would select every %s of that name in any namespace: set metadata.namespace (or the reference's namespace) and run fix again", name, kind)
		return
	}
	r.refToLabels(ref, field, nameK, nameV, nsK, nsV, name, ns)
	if ns == "" && r.universalRes {
		r.change(ref, field, "selects by the label %s instead of name", displayNameLabel)
		return
	}
	if ns == "" {
		r.change(ref, field, "selects by the label %s instead of name (Kuma 3.0 adds the policy's namespace, as 2.14 did)", displayNameLabel)
		return
	}
	r.change(ref, field, "selects by the labels %s and %s instead of name and namespace", displayNameLabel, namespaceLabel)
}

// refToLabels replaces the name and namespace entries of ref by a labels entry, where the first
// of them was, in the tree and in the text.
func (r *rewriter) refToLabels(ref *yaml.Node, field string, nameK, nameV, nsK, nsV *yaml.Node, name, ns string) {
	labels := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	dnK, dnV := newString(displayNameLabel, nil), newString(name, nameV)
	dnV.LineComment = firstComment(nameK, nameV)
	labels.Content = append(labels.Content, dnK, dnV)
	var nsLabelV *yaml.Node
	if ns != "" {
		nsLabelV = newString(ns, nsV)
		nsLabelV.LineComment = firstComment(nsK, nsV)
		labels.Content = append(labels.Content, newString(namespaceLabel, nil), nsLabelV)
	}
	firstK := nameK
	if firstK == nil || (nsK != nil && nsK.Line < firstK.Line) || (nsK != nil && nsK.Line == firstK.Line && nsK.Column < firstK.Column) {
		firstK = nsK
	}
	labelsK := newString("labels", nil)
	labelsK.HeadComment = firstK.HeadComment

	// The tree.
	var content []*yaml.Node
	for i := 0; i+1 < len(ref.Content); i += 2 {
		k := ref.Content[i]
		switch k {
		case firstK:
			content = append(content, labelsK, labels)
		case nameK, nsK:
		default:
			content = append(content, k, ref.Content[i+1])
		}
	}
	ref.Content = content

	// The text: the first entry's line becomes the labels, the other one's goes.
	firstV := nameV
	if firstK == nsK {
		firstV = nsV
	}
	prefix, ok := entryLine(r.src, ref, firstK, firstV)
	if !ok {
		r.text.ok = false
		return
	}
	pad := indentOf(prefix) + "  "
	lines := []string{prefix + "labels:", withComment(pad+displayNameLabel+": "+scalarText(name, nameV), nameK, nameV)}
	if nsLabelV != nil {
		lines = append(lines, withComment(pad+namespaceLabel+": "+scalarText(ns, nsV), nsK, nsV))
	}
	r.text.replaceLine(firstK.Line, lines...)
	switch {
	case firstK == nsK:
		r.deleteEntry(ref, nameK, nameV)
	case nsK != nil:
		r.deleteEntry(ref, nsK, nsV)
	}
}

// deleteEntry deletes the line of the entry k: v of mapping m.
func (r *rewriter) deleteEntry(m, k, v *yaml.Node) {
	if _, ok := entryLine(r.src, m, k, v); !ok {
		r.text.ok = false
		return
	}
	r.text.deleteLine(k.Line)
}

// meshAnnotation turns a kuma.io/mesh annotation without the label into the label, on the
// metadata m of an object whose mesh Kuma 2.14 read from the annotation.
func (r *rewriter) meshAnnotation(m *yaml.Node, field string) {
	annK, ann := get(m, "annotations")
	mk, mv := get(ann, meshKey)
	mesh, ok := stringValue(mv)
	if !ok || mesh == "" {
		return // 2.14 ignored an empty annotation too
	}
	_, labels := get(m, "labels")
	if _, l := get(labels, meshKey); l != nil {
		return // the label wins on 2.14 and is all 3.0 reads
	}
	if labels != nil && !(labels.Kind == yaml.ScalarNode && labels.Tag == "!!null") && labels.Kind != yaml.MappingNode {
		return
	}
	r.change(mk, field+".annotations["+meshKey+"]", "the annotation moves to the label %s: Kuma 3.0 reads only the label", meshKey)
	only := len(ann.Content) == 2
	switch {
	case labels == nil && only:
		// annotations: {kuma.io/mesh: x} is renamed labels: {kuma.io/mesh: x}.
		annK.Value = "labels"
		prefix, ok := linePrefix(r.src, annK)
		if !ok || ann.Style&yaml.FlowStyle != 0 || annK.Line == mk.Line {
			r.text.ok = false
			return
		}
		r.text.replaceLine(annK.Line, withComment(prefix+"labels:", annK))
		return
	case labels == nil:
		labelsK := newString("labels", nil)
		labels = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{newString(meshKey, nil), newString(mesh, mv)}}
		insertBefore(m, annK, labelsK, labels)
		if prefix, ok := linePrefix(r.src, annK); ok && strings.Trim(prefix, " ") == "" {
			r.text.insertBefore(annK.Line, prefix+"labels:", prefix+"  "+meshKey+": "+scalarText(mesh, mv))
		} else {
			r.text.ok = false
		}
	default:
		if labels.Kind != yaml.MappingNode || len(labels.Content) == 0 || labels.Style&yaml.FlowStyle != 0 {
			r.text.ok = false
		} else if prefix, ok := linePrefix(r.src, labels.Content[0]); ok && strings.Trim(prefix, " ") == "" {
			r.text.insertBefore(labels.Content[0].Line, prefix+meshKey+": "+scalarText(mesh, mv))
		} else {
			r.text.ok = false
		}
		if labels.Kind != yaml.MappingNode {
			*labels = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		labels.Content = append([]*yaml.Node{newString(meshKey, nil), newString(mesh, mv)}, labels.Content...)
	}
	// The annotation goes, and annotations with it when it was the only one.
	if only {
		remove(m, annK)
		if _, ok := linePrefix(r.src, annK); !ok || ann.Style&yaml.FlowStyle != 0 || annK.Line == mk.Line {
			r.text.ok = false
		} else {
			r.text.deleteLine(annK.Line)
			r.deleteEntry(ann, mk, mv)
		}
		return
	}
	remove(ann, mk)
	r.deleteEntry(ann, mk, mv)
}

// ignoredMeshAnnotation names a Kuma object with the kuma.io/mesh annotation and no label: no
// release reads that annotation on Kuma's own kinds, so the object is in the mesh "default", and
// moving the value to the label would move it to another mesh.
func (r *rewriter) ignoredMeshAnnotation(meta *yaml.Node, field string) {
	_, ann := get(meta, "annotations")
	mk, mv := get(ann, meshKey)
	mesh, ok := stringValue(mv)
	if !ok || mesh == "" {
		return
	}
	_, labels := get(meta, "labels")
	if _, l := get(labels, meshKey); l != nil {
		return
	}
	r.finding(mk, field+".annotations["+meshKey+"]", "Kuma never reads this annotation on its own kinds: the object is in the mesh \"default\", not %q; set the label %s to the mesh it belongs to and delete the annotation", mesh, meshKey)
}

// get returns the key and value nodes of key in mapping m (nil, nil when m is not a mapping or
// has no such key).
func get(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if c := m.Content[i]; c.Kind == yaml.ScalarNode && c.Value == key {
			return c, m.Content[i+1]
		}
	}
	return nil, nil
}

// lookup follows path through nested mappings.
func lookup(n *yaml.Node, path ...string) *yaml.Node {
	for _, p := range path {
		if _, n = get(n, p); n == nil {
			return nil
		}
	}
	return n
}

// scalar is the string value of key in m, "" when it is missing or not a scalar.
func scalar(m *yaml.Node, key string) string {
	_, v := get(m, key)
	s, _ := stringValue(v)
	return s
}

// stringValue is the value of a scalar node n; nil is "", true; anything else is not a string.
func stringValue(n *yaml.Node) (string, bool) {
	switch {
	case n == nil:
		return "", true
	case n.Kind != yaml.ScalarNode:
		return "", false
	case n.Tag == "!!null":
		return "", true
	}
	return n.Value, true
}

func elements(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

func remove(m, k *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] == k {
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return
		}
	}
}

func insertBefore(m, before, k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] == before {
			m.Content = append(m.Content[:i:i], append([]*yaml.Node{k, v}, m.Content[i:]...)...)
			return
		}
	}
	m.Content = append(m.Content, k, v)
}

func firstComment(nodes ...*yaml.Node) string {
	for _, n := range nodes {
		if n != nil && n.LineComment != "" {
			return n.LineComment
		}
	}
	return ""
}
