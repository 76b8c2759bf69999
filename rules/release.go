package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/naming"
)

// The rules a Kuma release adds to the naming rules: what it refuses, or silently changes, that an
// earlier release admitted. Each reads its facts from the naming.Release it is given
// (docs/releases.md, docs/rules.md); none compares versions.

var (
	kindPath            = field.NewPath("kind")
	ownerReferencesPath = field.NewPath("metadata", "ownerReferences")
	ownerReferencesKey  = []byte(`"ownerReferences"`)
	// removedRefKinds are the targetRef kinds a release removed, in any release.
	removedRefKinds = func() map[string]bool {
		out := map[string]bool{}
		for _, rel := range naming.Releases() {
			for _, k := range rel.RemovedTargetRefKinds() {
				out[k] = true
			}
		}
		return out
	}()
	meshOwnerAPIVersions = KumaGroup + "/"
)

// forRelease returns the Config that judges against rel: c with rel's registry (its kinds and the
// configured types). The zero Release is the configuration's (kuma.version).
func (c *Config) forRelease(rel naming.Release) *Config {
	if rel == (naming.Release{}) {
		rel = c.configured
	}
	if rel == c.release {
		return c
	}
	return c.forOtherRelease(rel)
}

// forOtherRelease is forRelease for a release other than c's. It is apart from forRelease, which
// decide inlines for every review, nearly all under c's release (docs/performance.md, "The code a
// review touches").
//
//go:noinline
func (c *Config) forOtherRelease(rel naming.Release) *Config {
	if rc, ok := c.byRelease[rel.String()]; ok {
		return rc
	}
	return c
}

// guardFor returns the guard of gk: its configured one, or for a Kuma kind c.release removed and
// the configuration does not guard (the legacy policies, MeshGatewayInstance, …), one under the
// default enforcement, so that such an object is refused as removed.
func (c *Config) guardFor(gk schema.GroupKind) (*guard, bool) {
	if g, ok := c.guarded(gk); ok {
		return g, true
	}
	return c.removedGuard(gk)
}

// removedGuard is guardFor's guard of a kind c does not guard. It is apart from guardFor, which
// every review runs, so that the code of its common case is contiguous (docs/performance.md,
// "Change 21").
//
//go:noinline
func (c *Config) removedGuard(gk schema.GroupKind) (*guard, bool) {
	if _, removed := c.release.Removed(gk.Kind); gk.Group == KumaGroup && removed {
		g := &guard{gk: gk, version: "v1alpha1", enforcement: c.DefaultEnforcement, kri: true, kds: kdsSyncOf(gk.Kind), kriValues: hasKRIValues(gk)}
		g.setFacts(c.release)
		return g, true
	}
	return nil, false
}

// guarded returns the guard of gk, a guarded kind.
func (c *Config) guarded(gk schema.GroupKind) (*guard, bool) {
	for _, g := range c.guards[gk.Kind] {
		if g.gk.Group == gk.Group {
			return g, true
		}
	}
	return nil, false
}

// removedKinds are the Kuma kinds a known release removed (naming.Release.RemovedKinds).
var removedKinds = func() map[string]bool {
	m := map[string]bool{}
	for _, rel := range naming.Releases() {
		for _, k := range rel.RemovedKinds() {
			m[k] = true
		}
	}
	return m
}()

// removedByARelease reports whether gk is a Kuma kind a known release removed. The webhook is sent
// such kinds also when the configuration does not guard them (MeshGatewayInstance, the legacy
// policies: they have no KRI), so that a release that removed them refuses them; under a release
// that ships them, Decide admits them untouched (docs/releases.md, "Removed kinds at admission").
func removedByARelease(gk schema.GroupKind) bool {
	return gk.Group == KumaGroup && removedKinds[gk.Kind]
}

// Judges reports whether Decide judges objects of gk under rel: gk is guarded, or a Kuma kind rel
// removed. A Kuma kind only another release removed is not judged under rel (Decide admits it
// untouched), so the command and the audit leave its objects out.
func (c *Config) Judges(gk schema.GroupKind, rel naming.Release) bool {
	_, ok := c.forRelease(rel).guardFor(gk)
	return ok
}

// checkFor is checkWith under the release of c, for the request r, into ck (zero): a kind c.release
// removed is refused as such and nothing else is looked at; otherwise the release's own rules
// follow the naming rules.
func (c *Config) checkFor(g *guard, obj *admitted, w *refWalk, r *Request, ck *checked) {
	if g.removed {
		c.removedKind(g, ck)
		return
	}
	c.checkWith(g, obj, w, ck)
	if !g.kri || g.gk.Group != KumaGroup {
		return
	}
	if r.User == KumaControlPlaneUser {
		c.checkReleasePrivileged(g, obj, ck)
		return
	}
	c.checkRelease(g, obj, r, ck)
}

// removedKind sets in ck the one finding of an object of a kind c.release removed. It and
// checkReleasePrivileged are apart from checkFor and checkRelease, which every review of a Kuma
// kind runs, so that their common case's code is contiguous (docs/performance.md, "Change 21").
//
//go:noinline
func (c *Config) removedKind(g *guard, ck *checked) {
	e := field.Invalid(kindPath, g.gk.Kind, fmt.Sprintf("removed in Kuma %s: %s", c.release, g.removedNote))
	ck.kri, ck.valid, ck.before, ck.after, ck.notes = naming.KRI{}, false, tag(field.ErrorList{e}, 0, RuleRemovedKind), nil, nil
}

// checkRelease adds to ck, checkWith's findings of obj, those of the rules of c's release, for a
// request of anyone but the control plane. It is apart from checkFor, whose frame is on the stack
// while checkWith runs, for its own frame (docs/performance.md, "Change 19").
func (c *Config) checkRelease(g *guard, obj *admitted, r *Request, ck *checked) {
	// Each rule adds to ck's findings in place: a review without findings writes none back
	// (docs/performance.md, "Change 21").
	name := validatedName(c.release, obj)
	if g.rfc1035 {
		ck.before = c.releaseName(g, name, ck.before)
	}
	if c.meshOwnerReference {
		n := len(ck.before)
		ck.before = tag(c.meshOwnerReferences(g, &ck.kri, obj, r.Object, ck.before), n, RuleMeshOwnerReference)
	}
	if len(c.overwrites) > 0 {
		n := len(ck.notes)
		ck.notes = tag(overwritten(c.release, c.overwrites, obj, ck.notes), n, RuleOverwrittenKey)
	}
	// The control plane writes KDS copies itself (checkReleasePrivileged).
	if !skipUnfound || c.kdsMayFind(g, obj, &ck.kri, false, name) {
		ck.before, ck.notes = c.kdsFindingsNamed(g, obj, &ck.kri, false, name, ck.before, ck.notes)
	}
}

// checkReleasePrivileged is checkRelease for a request of the control plane, which keeps the labels
// and annotations of what it writes when the object did not originate on it (a KDS copy: the
// origin label says where it did). kriguard does not know the control plane's mode, so every such
// write is taken as one.
//
//go:noinline
func (c *Config) checkReleasePrivileged(g *guard, obj *admitted, ck *checked) {
	if !g.rfc1035 {
		return
	}
	name := validatedName(c.release, obj)
	if _, synced := obj.labels.noted(notedOrigin); synced {
		name = c.release.ValidatedNameAsSent(obj)
	}
	ck.before = c.releaseName(g, name, ck.before)
}

// releaseName adds to errs the problems of name, the ValidatedName of an object guarded by g, under
// the RFC 1035 rule of c.release: the one rule of the name that is the release's own (the 63
// characters 2.14 holds two kinds to are left to their KRI rule, as before releases were known).
func (c *Config) releaseName(g *guard, name string, errs field.ErrorList) field.ErrorList {
	n := len(errs)
	return tag(append(errs, c.release.ValidateName(g.gk.Kind, name, namePath)...), n, RuleReleaseName)
}

// validatedName is rel.ValidatedName(obj), but without its look-ups for an object without the
// annotations it reads, whose name it is (docs/performance.md, "Change 21").
func validatedName(rel naming.Release, obj *admitted) string {
	if obj.annotations == nil {
		return obj.name
	}
	return rel.ValidatedName(obj)
}

// meshOwnerReferences reports each ownerReference of raw, an object of a mesh-scoped kind read as
// obj, to a kuma.io Mesh that is not the object's mesh: Kuma 3.0's validating webhook refuses it
// (docs/releases.md, "Mesh ownerReference"). References of another group are left alone, as Kuma
// leaves them. Only an object whose read met ownerReferences is decoded again, rather than every
// object's bytes searched for them (docs/performance.md, "Change 21").
func (c *Config) meshOwnerReferences(g *guard, kri *naming.KRI, obj *admitted, raw []byte, errs field.ErrorList) field.ErrorList {
	if !obj.ownerRefs {
		return errs
	}
	if rt, ok := g.kriType(c.registry); !ok || rt.Scope != naming.ScopeMesh || kri.Mesh == "" {
		return errs
	}
	var o struct {
		Metadata struct {
			OwnerReferences []struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Name       string `json:"name"`
			} `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, &o); err != nil {
		return errs // decodeObject has read raw: only a field of the wrong type ends here
	}
	for i, ref := range o.Metadata.OwnerReferences {
		if ref.Kind != "Mesh" || !strings.HasPrefix(ref.APIVersion, meshOwnerAPIVersions) || ref.Name == kri.Mesh {
			continue
		}
		errs = append(errs, field.Invalid(ownerReferencesPath.Index(i).Child("name"), ref.Name,
			fmt.Sprintf("must be the same as the mesh of the resource %q: Kuma %s refuses an owner Mesh of another mesh", kri.Mesh, c.release)))
	}
	return errs
}

// overwritten notes each key of keys, rel.Overwritten, that the object sets to a value the control
// plane replaces: the kuma.io/display-name annotation when it is not metadata.name (which rel
// writes there), the kuma.io/origin label whatever it holds.
func overwritten(rel naming.Release, keys []string, obj *admitted, notes field.ErrorList) field.ErrorList {
	for _, key := range keys {
		switch key {
		case naming.AnnotationDisplayName:
			if v, ok := obj.annotations[key]; ok && v != obj.name {
				notes = append(notes, field.Invalid(naming.AnnotationPath(key), v,
					fmt.Sprintf("Kuma %s overwrites it with metadata.name %q: the object's KRI and display name are %q", rel, obj.name, obj.name)))
			}
		default:
			if v, ok := obj.labels.get(key); ok {
				notes = append(notes, field.Invalid(naming.LabelPath(key), v,
					fmt.Sprintf("Kuma %s's control plane sets this label itself, whatever it holds", rel)))
			}
		}
	}
	return notes
}

// refsFor reports, for a release whose references select by labels only, every targetRef and
// backendRef of obj's spec that still selects by name or namespace, or by a kind the release
// removed. The API server of such a release prunes name and namespace (or refuses them, and its
// enums refuse the removed kinds) before any webhook sees the object; a cluster whose control
// plane runs the release while it still serves an earlier release's CRDs lets them through. So
// these are found offline (check, audit) and by the validating webhook alike (docs/releases.md,
// "targetRef and backendRef forms").
//
// A reference by name is an error that gives the labels replacing it, but for a top-level
// targetRef of kind Dataplane, which the release admits once pruned and which then selects every
// Dataplane: a note. Kind Mesh takes no name in any release, and a Dataplane's own spec keeps
// its by-name outbound references: both are left alone, as kriguard fix leaves them.
func (c *Config) refsFor(g *guard, obj *admitted) (errs, notes field.ErrorList) {
	rel := c.release
	if !c.refsByLabelsOnly || !g.kri || g.gk.Group != KumaGroup || g.gk.Kind == "Dataplane" {
		return nil, nil
	}
	_, raw := obj.refSpecs()
	if raw == nil {
		return nil, nil
	}
	var spec any
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, &spec); err != nil {
		return nil, nil
	}
	ns := obj.labels.notedValue(notedNamespace)
	if ns == "" {
		ns = obj.namespace
	}
	rw := refsWalk{rel: rel, namespace: ns}
	rw.walk(spec, specPath, true)
	return rw.errs, rw.notes
}

// refsMayFind reports whether refsFor may find anything in obj: false under a release whose
// references select by name too, and for an object whose spec was read and holds no reference by
// name or of a removed kind (refSpecs).
func (c *Config) refsMayFind(obj *admitted) bool {
	return c.refsByLabelsOnly && (!obj.scanned || obj.refs != nil)
}

// refsWalk collects the by-name and removed-kind references of a decoded spec.
type refsWalk struct {
	rel         naming.Release
	namespace   string
	errs, notes field.ErrorList
}

func (w *refsWalk) walk(v any, p *field.Path, top bool) {
	switch t := v.(type) {
	case map[string]any:
		// Sorted, so that the problems come out in a stable order.
		for _, k := range slices.Sorted(maps.Keys(t)) {
			c := t[k]
			cp := p.Child(k)
			switch k {
			case "targetRef", "backendRef":
				if ref, ok := c.(map[string]any); ok {
					w.ref(ref, cp, top && k == "targetRef")
				}
			case "backendRefs":
				if refs, ok := c.([]any); ok {
					for i, r := range refs {
						if ref, ok := r.(map[string]any); ok {
							w.ref(ref, cp.Index(i), false)
						}
					}
				}
			}
			w.walk(c, cp, false)
		}
	case []any:
		for i, c := range t {
			w.walk(c, p.Index(i), false)
		}
	}
}

// ref checks one reference at p; top says it is the policy's top-level targetRef.
func (w *refsWalk) ref(ref map[string]any, p *field.Path, top bool) {
	kind, _ := ref["kind"].(string)
	if note, ok := w.rel.RemovedTargetRefKind(kind); ok {
		w.errs = append(w.errs, tag(field.ErrorList{removedRefKind(w.rel, kind, note, p.Child("kind"))}, 0, RuleRemovedRefKind)...)
		return
	}
	name, hasName := ref["name"]
	namespace, hasNS := ref["namespace"]
	if kind == "Mesh" || !hasName && !hasNS {
		return
	}
	labels := w.labels(name, namespace, hasNS)
	if top && kind == "Dataplane" {
		w.notes = append(w.notes, tag(field.ErrorList{field.Invalid(p, name,
			fmt.Sprintf("Kuma %s drops name and namespace here and then selects every Dataplane: select with labels %s", w.rel, labels))}, 0, RuleDataplaneRefByName)...)
		return
	}
	w.errs = append(w.errs, tag(field.ErrorList{field.Invalid(p, name,
		fmt.Sprintf("Kuma %s selects by labels only: replace name and namespace with labels %s", w.rel, labels))}, 0, RuleRefByName)...)
}

// labels words the labels that select what name and namespace select.
func (w *refsWalk) labels(name, namespace any, hasNS bool) string {
	ns, _ := namespace.(string)
	if !hasNS || ns == "" {
		ns = w.namespace
	}
	n, _ := name.(string)
	s := fmt.Sprintf("{%s: %q", naming.AnnotationDisplayName, n)
	if ns != "" {
		s += fmt.Sprintf(", %s: %q", naming.LabelNamespace, ns)
	}
	return s + "}"
}

// removedRefKind is the problem of a reference of kind, a targetRef kind rel removed, at p.
func removedRefKind(rel naming.Release, kind, note string, p *field.Path) *field.Error {
	return field.Invalid(p, kind, fmt.Sprintf("Kuma %s removed the targetRef kind %s: %s", rel, kind, note))
}
