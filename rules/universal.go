package rules

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/internal/jsonscan"
	"github.com/kriguard/kriguard/naming"
)

// zoneRequestPath names the zone of the request (Request.Zone) in a problem with it: it is not a
// field of the resource.
var zoneRequestPath = field.NewPath("<zone>")

// universalResource is the part of a Kuma Universal resource the rules read: what kumactl writes
// and the control plane's REST API lists (docs/universal.md).
type universalResource struct {
	Type   string            `json:"type"`
	Mesh   string            `json:"mesh"`
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
	Spec   span              `json:"spec"`
	// sections and refs are what refSpecs says of Spec, found in the decode's pass when scanned.
	sections, refs []byte
	scanned        bool
}

// decodeUniversal decodes raw, a Universal resource of type kind, with the case-sensitive decoder
// the rest of the rules use.
func decodeUniversal(raw []byte, kind string) (*universalResource, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("the request has no resource")
	}
	var holds specScan
	u, ok := decodeUniversalTop(raw, &holds)
	if ok {
		u.scanned = true
		if u.Spec != nil && string(u.Spec) != "null" {
			u.sections, u.refs = holds.result(u.Spec)
		}
	} else {
		// The full decode says what is wrong, or reads what the fast one was unsure of.
		u = universalResource{}
		if err := json.UnmarshalCaseSensitivePreserveInts(raw, &u); err != nil {
			return nil, fmt.Errorf("decoding the Universal resource: %w", err)
		}
	}
	if u.Type != kind {
		return nil, fmt.Errorf("the resource is a %q, but the request is for %q", u.Type, kind)
	}
	return &u, nil
}

// decodeUniversalTop reads the members of raw the rules read (type, mesh, name, labels, spec) in
// one pass that checks raw's syntax (jsonscan), stepping over the others without decoding them: an
// audit reads every resource of a control plane. It reads what the full decode reads, or reports
// that it is unsure (ok false): raw is not valid JSON, not an object, or has one of those members
// of another type or null, repeated, or with escapes in its key (FuzzDecodeUniversal holds it to the
// full decode). What refSpecs says of spec is found in the same pass (specScan), into holds.
func decodeUniversalTop(raw []byte, holds *specScan) (u universalResource, ok bool) {
	s := &jsonscan.Scanner{Known: knownString}
	s.Reset(raw)
	holds.s = s
	var seen uint8
	once := func(bit uint8) bool {
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	}
	ok = s.Object(false, func(key []byte) bool {
		var ok bool
		switch string(key[1 : len(key)-1]) {
		case "type":
			u.Type, ok = s.String()
			return once(1) && ok
		case "mesh":
			u.Mesh, ok = s.String()
			return once(2) && ok
		case "name":
			u.Name, ok = s.String()
			return once(4) && ok
		case "labels":
			u.Labels, ok = metaMap(s)
			return once(8) && ok
		case "spec":
			var v []byte
			v, ok = s.ValueStrings(specStrings, holds.str)
			u.Spec = span(v)
			return once(16) && ok
		}
		_, ok = s.Value()
		return ok
	})
	return u, ok && s.End()
}

// decideUniversal decides r, a Universal resource, as the release's REST API decides its creation,
// with the naming rules on top: Kuma's own name rules for Universal (naming.Release.ValidateUniversal),
// the KRI the release gives the resource (naming.Release.ForUniversal), and the rules the
// Kubernetes objects of the same kind are held to that are not about Kubernetes: section names of
// target references, SNIs, MeshProxyPatch names, the release's RFC 1035 names and label-only
// references, and the labels the release overwrites.
func (c *Config) decideUniversal(ctx context.Context, g *guard, r *Request, d *Decision) error {
	u, err := decodeUniversal(r.Object, g.gk.Kind)
	if err != nil {
		return err
	}
	d.universal = u
	d.Object = Object{Kind: g.gk, Name: u.Name, Mesh: u.Mesh}
	rel := c.release
	if note, removed := rel.Removed(u.Type); removed {
		e := field.Invalid(field.NewPath("type"), u.Type, fmt.Sprintf("removed in Kuma %s: %s", rel, note))
		d.set(g, &naming.KRI{}, false, tag(field.ErrorList{e}, 0, RuleRemovedKind), nil, nil)
		return nil
	}
	nu := naming.Universal{Type: u.Type, Mesh: u.Mesh, Name: u.Name, Labels: u.Labels}
	kri, errs := rel.ForUniversal(nu)
	if r.Zone != "" {
		kri = rel.StoredUniversal(kri, nu, r.Zone)
		errs = append(errs, naming.FieldZone.Validate(kri.Zone, zoneRequestPath)...)
	}
	valid := len(errs) == 0
	tag(errs, 0, RuleKRI)
	n := len(errs)
	errs = tag(append(errs, rel.ValidateUniversal(nu)...), n, RuleUniversalName)
	n = len(errs)
	dn, from := nu.DisplayName()
	errs = tag(append(errs, rel.ValidateName(u.Type, dn, from)...), n, RuleReleaseName)
	n = len(errs)
	originErrs, originNotes := c.universalOrigin(rel, nu, r.Zone)
	errs = tag(append(errs, originErrs...), n, RuleUniversalName)

	obj := &admitted{name: u.Name, mesh: u.Mesh, labels: labelsOf(u.Labels), hasLabels: u.Labels != nil}
	if u.Spec != nil && string(u.Spec) != "null" {
		if g.wholeSpec {
			obj.spec = decodeReads(u.Spec, specReadTree(g.gk))
		}
		obj.rawSpec = u.Spec
		// What the reference checks read of spec was found in the decode's pass (specScan).
		obj.sections, obj.refs, obj.scanned = u.sections, u.refs, u.scanned && specInDecode
	}
	w := &refWalk{ctx: ctx, limit: -1}
	if sections, _ := obj.refSpecs(); sections != nil {
		w.walkSpec(sections)
		if w.err != nil {
			return w.err
		}
	}
	var after, notes field.ErrorList
	switch g.gk.Kind {
	case "MeshService", "MeshMultiZoneService", "MeshExternalService":
		after = tag(sniErrors(g.gk.Kind, kri, obj, after), 0, RuleSNI)
	case "MeshProxyPatch":
		var pn field.ErrorList
		after, pn = c.proxyPatchErrors(obj, after)
		tag(after, 0, RuleProxyPatchKRI)
		notes = proxyPatchStatNotes(obj, tag(pn, 0, RuleProxyPatchLegacyName))
	}
	refErrs, refNotes := c.refsFor(g, obj)
	notes = append(notes, refNotes...)
	n = len(notes)
	notes = tag(universalOverwritten(rel, u, notes), n, RuleOverwrittenKey)
	n = len(notes)
	notes = tag(append(notes, originNotes...), n, RuleUniversalName)
	// A Universal name is stored as written; its KDS copy is what a Kubernetes receiver refuses.
	if !unzoned(nu, r.Zone) {
		kobj, ckri := universalSent(rel, obj, nu, kri, r.Zone)
		errs, notes = c.kdsFindings(g, kobj, &ckri, true, errs, notes)
	}
	d.set(g, &kri, valid, slices.Concat(errs, w.errs, refErrs, after), nil, notes)
	return nil
}

// universalOverwritten notes a kuma.io/display-name label other than name when rel's control plane
// overwrites the label with the name: the resource's KRI and display name change. The
// kuma.io/origin label, which rel also sets, is not noted here: every stored resource carries the
// one its control plane set, and what the REST API refuses of it universalOrigin reports
// (docs/universal.md, "kuma.io/origin").
func universalOverwritten(rel naming.Release, u *universalResource, notes field.ErrorList) field.ErrorList {
	v, ok := u.Labels[naming.LabelDisplayName]
	if !ok || v == "" || v == u.Name || !slices.Contains(rel.Overwritten(), naming.LabelDisplayName) {
		return notes
	}
	if dn, _ := rel.StoredDisplayName(naming.Universal{Type: u.Type, Mesh: u.Mesh, Name: u.Name, Labels: u.Labels}); dn != u.Name {
		return notes // a KDS copy, which keeps its labels
	}
	return append(notes, field.Invalid(naming.UniversalLabelPath(naming.LabelDisplayName), v,
		fmt.Sprintf("Kuma %s overwrites it with name %q: the resource's KRI and display name are %q", rel, u.Name, u.Name)))
}

// universalOrigin lists what rel's REST API refuses in u's kuma.io/origin, kuma.io/zone and
// kuma.io/mesh labels on the control plane of zone ("": global, or none known), as errors and
// notes (docs/universal.md, "kuma.io/origin"). What only a federated zone refuses
// (naming.Release.ValidateUniversalOrigin) is an error under kuma.mode zone, nothing under
// standalone (a zone that is not federated takes it) and a note otherwise. A resource that says
// kuma.io/origin: zone judged without a zone (unzoned) was written for a zone control plane, which
// is not known: a note says so, an error under kuma.mode global, whose REST API refuses it.
func (c *Config) universalOrigin(rel naming.Release, u naming.Universal, zone string) (errs, notes field.ErrorList) {
	errs, federated := rel.ValidateUniversalOrigin(u, zone)
	switch c.Mode() {
	case ModeZone:
		errs = append(errs, federated...)
	case ModeStandalone:
	default:
		notes = append(notes, federated...)
	}
	if unzoned(u, zone) {
		e := field.Invalid(naming.UniversalLabelPath(naming.LabelOrigin), originZone,
			"written for a zone control plane (a global one refuses it: the origin label must be set to 'global'), "+
				"but judged without a zone: its KRI lacks the zone that control plane adds, and its KDS copy, named after that zone, is not checked "+
				"(kriguard check --kuma-zone ZONE judges it on that zone)")
		if c.Mode() == ModeGlobal {
			errs = append(errs, e)
		} else {
			notes = append(notes, e)
		}
	}
	return errs, notes
}

// unzoned reports whether u, judged on zone, says kuma.io/origin: zone with no zone to go by: no
// zone is given and u has no kuma.io/zone label, and its type is one a zone creates. A resource a
// zone control plane stored, and global's copy of one, always has the label.
func unzoned(u naming.Universal, zone string) bool {
	if zone != "" || u.Labels[labelOrigin] != originZone || !naming.ProvidedByZone(u.Type) {
		return false
	}
	_, labelled := u.Labels[naming.LabelZone]
	return !labelled
}

// universalSent returns obj, a Universal resource u with the KRI kri created on the zone control
// plane of zone, and that KRI as its zone's KDS sends it to global: a zone that overwrites the
// kuma.io/origin label (3.0) stores and sends a resource written with kuma.io/origin: global as
// its own, which one that keeps the label (2.14) sends nowhere (naming.Release.KeepsGlobalOrigin);
// and the zone's KDS labels the copy with the zone's own name, whatever zone label the resource
// kept (pkg/kds/context/context.go:104 in 2.14, :102 in 3.0). On global, or for none of these, obj
// and kri are returned as they are.
func universalSent(rel naming.Release, obj *admitted, u naming.Universal, kri naming.KRI, zone string) (*admitted, naming.KRI) {
	if zone == "" {
		return obj, kri
	}
	if kri.Zone != "" {
		kri.Zone = zone
	}
	if obj.labels.notedValue(notedOrigin) != originGlobal || rel.KeepsGlobalOrigin(u, zone) {
		return obj, kri
	}
	sent := *obj
	sent.labels = obj.labels.with(labelOrigin, originZone)
	return &sent, kri
}
