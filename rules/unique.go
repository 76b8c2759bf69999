package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/json"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
	"github.com/kriguard/kriguard/naming/kong"
)

// The names that must stay unique across objects and clusters (docs/unique.md).

// GatewayGroup is the group of the Gateway API, whose Gateways Kong's operator turns into
// KongCertificates and KongSNIs.
const GatewayGroup = "gateway.networking.k8s.io"

// kongOperatorControllers is the prefix of the controllerName of the GatewayClasses Kong's
// operator serves (pkg/vars/gateway.go DefaultControllerName "konghq.com/gateway-operator").
const kongOperatorControllers = "konghq.com/"

var (
	sniNamePath       = field.NewPath("spec", "name")
	listenersPath     = field.NewPath("spec", "listeners")
	gatewayClassKind  = schema.GroupKind{Group: GatewayGroup, Kind: "GatewayClass"}
	gatewayKind       = schema.GroupKind{Group: GatewayGroup, Kind: "Gateway"}
	httpRouteKind     = schema.GroupKind{Group: GatewayGroup, Kind: "HTTPRoute"}
	kongCertificateGK = schema.GroupKind{Group: KongGroup, Kind: "KongCertificate"}
	kongSNIGK         = schema.GroupKind{Group: KongGroup, Kind: "KongSNI"}
)

// Clash is a finding across two objects: Finding is about one object, and its message names the
// other, Peer. Of and PeerOf are the ids Unique.Add returned for them, so that a front end can
// place both; Name is the name they share.
type Clash struct {
	Finding
	Peer       Object
	Of, PeerOf int
	Zone       string
	PeerZone   string
	Name       string
}

// Unique gathers, object by object, what must stay unique across objects and clusters, and
// Findings reports each clash, naming both objects:
//   - two zone objects of one kind whose KDS copies get one name on global (kuma/kds-collision);
//   - two KongSNIs with one spec.name whose certificates share a control plane (kong/sni-unique);
//   - two objects Kong's operator generates from Gateways with one name (kong/generated-unique);
//   - two HTTPRoutes whose MeshHTTPRoutes Kuma names alike, or a name it cannot store
//     (kuma/route-name).
//
// Each object comes with the zone (cluster) it was read from, "" when there is one; a Kuma object's
// kuma.io/zone label names its zone when it has one. A Unique is not safe for concurrent use.
type Unique struct {
	c *Config

	n       int
	kuma    []kumaEntry
	certs   map[zoneRef]string // KongCertificate → its control plane
	snis    []sniEntry
	classes map[zoneRef]string // GatewayClass (no namespace) → controllerName
	// gwClasses are the gatewayClassName of every Gateway read (Kuma names the MeshHTTPRoutes of
	// routes of its own Gateways only).
	gwClasses map[zoneRef]string
	gws       []gatewayEntry
	routes    []routeEntry
}

// zoneRef is an object of one zone, by namespace and name.
type zoneRef struct{ zone, namespace, name string }

type kumaEntry struct {
	id         int
	zone, copy string
	obj        Object
	// orig is what the copy name is computed from: one object read twice (from two control planes,
	// a zone's and global's copy of it) has one orig, two objects that clash have two.
	orig kdsOrigin
	// name is where the object's name is written.
	name *field.Path
}

// kdsOrigin is what Kuma hashes into a copy name (pkg/kds/context/context.go HashSuffixMapper).
type kdsOrigin struct{ mesh, name, zone, namespace string }

type sniEntry struct {
	id        int
	zone      string
	obj       Object
	sni, cert string
	certNS    string
}

type gatewayEntry struct {
	id    int
	zone  string
	obj   Object
	class string
	// names are the generated names of the listeners' certificateRefs, in order, and snis the
	// spec.name of the KongSNI of each listener with a certificateRef.
	names []generated
}

type generated struct {
	name, sni string
	listener  int
	field     *field.Path
}

// NewUnique returns an empty Unique judging Kuma objects under rel (the zero Release: the
// configuration's).
func (c *Config) NewUnique(rel naming.Release) *Unique {
	return &Unique{c: c.forRelease(rel), certs: map[zoneRef]string{}, classes: map[zoneRef]string{}, gwClasses: map[zoneRef]string{}}
}

// Add reads one object of kind gk, of zone (or ""), and returns its id; -1 with no error when the
// object takes no part in any of the names. The error is that of an object that cannot be decoded.
func (u *Unique) Add(zone string, gk schema.GroupKind, raw []byte) (int, error) {
	switch {
	case gk.Group == KumaGroup:
		return u.addKuma(zone, gk, raw)
	case gk == kongCertificateGK:
		var o struct {
			Metadata objectMeta `json:"metadata"`
			Spec     struct {
				ControlPlaneRef *controlPlaneRef `json:"controlPlaneRef"`
			} `json:"spec"`
		}
		if err := decodeInto(raw, &o); err != nil {
			return -1, err
		}
		if cp := o.Spec.ControlPlaneRef.key(zone, o.Metadata.Namespace); cp != "" {
			u.certs[zoneRef{zone, o.Metadata.Namespace, o.Metadata.Name}] = cp
		}
		return u.next(), nil
	case gk == kongSNIGK:
		var o struct {
			Metadata objectMeta `json:"metadata"`
			Spec     struct {
				Name           string `json:"name"`
				CertificateRef struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"certificateRef"`
			} `json:"spec"`
		}
		if err := decodeInto(raw, &o); err != nil {
			return -1, err
		}
		ns := cmp.Or(o.Spec.CertificateRef.Namespace, o.Metadata.Namespace)
		id := u.next()
		u.snis = append(u.snis, sniEntry{id: id, zone: zone, obj: o.Metadata.object(gk), sni: o.Spec.Name, cert: o.Spec.CertificateRef.Name, certNS: ns})
		return id, nil
	case gk == gatewayClassKind:
		var o struct {
			Metadata objectMeta `json:"metadata"`
			Spec     struct {
				ControllerName string `json:"controllerName"`
			} `json:"spec"`
		}
		if err := decodeInto(raw, &o); err != nil {
			return -1, err
		}
		u.classes[zoneRef{zone: zone, name: o.Metadata.Name}] = o.Spec.ControllerName
		return u.next(), nil
	case gk == gatewayKind:
		return u.addGateway(zone, gk, raw)
	case gk == httpRouteKind:
		var o struct {
			Metadata objectMeta `json:"metadata"`
			Spec     struct {
				ParentRefs []parentRef `json:"parentRefs"`
			} `json:"spec"`
		}
		if err := decodeInto(raw, &o); err != nil {
			return -1, err
		}
		names := kumaRouteNames(u.c.release, zone, o.Metadata.Namespace, o.Metadata.Name, o.Spec.ParentRefs)
		if len(names) == 0 {
			return -1, nil
		}
		id := u.next()
		u.routes = append(u.routes, routeEntry{id: id, zone: zone, obj: o.Metadata.object(gk), names: names})
		return id, nil
	}
	return -1, nil
}

func (u *Unique) next() int { u.n++; return u.n - 1 }

// AddDecided is Add for an object d decided with Phase Admit: it reads the object as Decide
// decoded it instead of decoding raw a second time (an audit reads every object of a cluster).
// Without such a decision of a Kuma object, it is Add.
func (u *Unique) AddDecided(zone string, gk schema.GroupKind, raw []byte, d *Decision) (int, error) {
	if gk.Group != KumaGroup || d == nil || d.decoded == nil || d.Object.Kind != gk {
		return u.Add(zone, gk, raw)
	}
	if !kdsToGlobal[gk.Kind] || kdsUnhashed[gk.Kind] {
		return -1, nil
	}
	return u.addKumaObject(zone, gk, d.decoded)
}

// addKuma records the copy name on global of a zone's object of a kind zones send there. Objects
// of global are not kept: their copies in the zones differ by name unless their names do (a zone's
// namespace label is the system namespace), and a zone object that holds one's copy name is found
// from its own name (kuma/kds-squat), so a check of many objects does not hold them all.
func (u *Unique) addKuma(zone string, gk schema.GroupKind, raw []byte) (int, error) {
	if !kdsToGlobal[gk.Kind] || kdsUnhashed[gk.Kind] {
		return -1, nil
	}
	obj, err := decodeObject(runtime.RawExtension{Raw: raw}, "object", gk, false)
	if err != nil {
		return -1, err
	}
	return u.addKumaObject(zone, gk, obj)
}

// addKumaObject reads obj, a Kuma object of a kind KDS copies to global under a hashed name.
func (u *Unique) addKumaObject(zone string, gk schema.GroupKind, obj *admitted) (int, error) {
	e := kumaEntry{zone: cmp.Or(obj.labels.notedValue(notedZone), zone)}
	if obj.name == "" || e.zone == "" || obj.labels.notedValue(notedOrigin) == originGlobal {
		// generateName (the API server picks a random name), an object of global, or a copy of
		// one in a zone
		return -1, nil
	}
	kri, _ := u.c.registry.ForObject(obj, gk.Kind)
	e.obj = objectOf(gk, obj)
	name, namespace := copyHashed(u.c.release, obj)
	e.orig = kdsOrigin{kri.Mesh, name, e.zone, namespace}
	e.name = namePath
	return u.addCopy(e), nil
}

func (u *Unique) addCopy(e kumaEntry) int {
	e.copy = hashsuffix.Name(e.orig.mesh, e.orig.name, e.orig.zone, e.orig.namespace)
	e.id = u.next()
	u.kuma = append(u.kuma, e)
	return e.id
}

// AddUniversal reads one Kuma Universal resource of kind gk (type, mesh, name, labels: what a
// control plane's REST API lists), of zone (or "": its kuma.io/zone label says), and returns its
// id as Add does. A resource a zone sent to global is stored there under its copy name, with the
// labels that name was computed from (kuma.io/display-name, kuma.io/zone, k8s.kuma.io/namespace):
// its copy name is its own, and it is the same object as the zone's original.
func (u *Unique) AddUniversal(zone string, gk schema.GroupKind, raw []byte) (int, error) {
	if gk.Group != KumaGroup || !kdsToGlobal[gk.Kind] || kdsUnhashed[gk.Kind] {
		return -1, nil
	}
	r, err := decodeUniversal(raw, gk.Kind)
	if err != nil {
		return -1, err
	}
	return u.addUniversalResource(zone, gk, r), nil
}

// AddUniversalDecided is AddUniversal for a resource d decided (Request.Universal): it reads the
// resource as Decide decoded it instead of decoding raw a second time. Without such a decision, it
// is AddUniversal.
func (u *Unique) AddUniversalDecided(zone string, gk schema.GroupKind, raw []byte, d *Decision) (int, error) {
	if d == nil || d.universal == nil || d.Object.Kind != gk {
		return u.AddUniversal(zone, gk, raw)
	}
	if gk.Group != KumaGroup || !kdsToGlobal[gk.Kind] || kdsUnhashed[gk.Kind] {
		return -1, nil
	}
	return u.addUniversalResource(zone, gk, d.universal), nil
}

// addUniversalResource reads r, a Universal resource of a kind KDS copies to global under a hashed
// name, created on the zone control plane of zone, or as listed (zone ""). A zone sends global
// what it created, with its own name as the copy's zone (pkg/kds/context/context.go:104 in 2.14,
// :102 in 3.0); a resource it stores with kuma.io/origin: global it sends nowhere, and stores so
// only in a release that keeps that label (naming.Release.KeepsGlobalOrigin). A resource as
// listed is of the zone its kuma.io/zone label names, and one labelled kuma.io/origin: global is
// global's or its copy in a zone.
func (u *Unique) addUniversalResource(zone string, gk schema.GroupKind, r *universalResource) int {
	nu := naming.Universal{Type: r.Type, Mesh: r.Mesh, Name: r.Name, Labels: r.Labels}
	global := r.Labels[labelOrigin] == originGlobal
	if zone != "" {
		global = u.c.release.KeepsGlobalOrigin(nu, zone)
	}
	zone = cmp.Or(zone, r.Labels[naming.LabelZone])
	if r.Name == "" || zone == "" || global {
		return -1
	}
	namespace := r.Labels[naming.LabelNamespace]
	// global's copy of a zone's resource keeps the display-name label it was sent with
	display, _ := u.c.release.StoredDisplayName(nu)
	return u.addCopy(kumaEntry{
		zone: zone,
		obj:  Object{Kind: gk, Name: r.Name, Mesh: r.Mesh},
		orig: kdsOrigin{r.Mesh, display, zone, namespace},
		name: universalNamePath,
	})
}

var universalNamePath = field.NewPath("name")

func (u *Unique) addGateway(zone string, gk schema.GroupKind, raw []byte) (int, error) {
	var o struct {
		Metadata objectMeta `json:"metadata"`
		Spec     struct {
			GatewayClassName string `json:"gatewayClassName"`
			Listeners        []struct {
				Name     string  `json:"name"`
				Port     int32   `json:"port"`
				Hostname *string `json:"hostname"`
				TLS      *struct {
					CertificateRefs []struct {
						Name string `json:"name"`
					} `json:"certificateRefs"`
				} `json:"tls"`
			} `json:"listeners"`
		} `json:"spec"`
	}
	if err := decodeInto(raw, &o); err != nil {
		return -1, err
	}
	u.gwClasses[zoneRef{zone, o.Metadata.Namespace, o.Metadata.Name}] = o.Spec.GatewayClassName
	e := gatewayEntry{zone: zone, obj: o.Metadata.object(gk), class: o.Spec.GatewayClassName}
	for i, l := range o.Spec.Listeners {
		if l.TLS == nil {
			continue
		}
		name := kong.CertificateName(o.Metadata.Name, l.Port, l.Name)
		host := ""
		if l.Hostname != nil {
			host = *l.Hostname
		}
		for j := range l.TLS.CertificateRefs {
			e.names = append(e.names, generated{name: name, sni: kong.SNIName(host), listener: i,
				field: listenersPath.Index(i).Child("tls", "certificateRefs").Index(j)})
		}
	}
	if len(e.names) == 0 {
		return -1, nil
	}
	e.id = u.next()
	u.gws = append(u.gws, e)
	return e.id, nil
}

// Findings returns every clash among the objects added, each once: about the object added later,
// naming the earlier one.
func (u *Unique) Findings() []Clash {
	var out []Clash
	out = u.kdsClashes(out)
	out = u.sniClashes(out)
	out = u.generatedClashes(out)
	out = u.routeClashes(out)
	slices.SortStableFunc(out, func(a, b Clash) int { return cmp.Compare(a.Of, b.Of) })
	return out
}

func (u *Unique) kdsClashes(out []Clash) []Clash {
	type key struct{ kind, copy string }
	seen := map[key]kumaEntry{}
	for _, e := range u.kuma {
		k := key{e.obj.Kind.Kind, e.copy}
		first, ok := seen[k]
		switch {
		case !ok:
			seen[k] = e
		case first.orig == e.orig:
			// one object read twice: two versions of it in the files given, or the zone's and
			// global's copy of it
		default:
			detail := fmt.Sprintf("KDS gives it and %s one copy name %q on global: only one can be stored, and the other's sync fails and restarts (docs/kds.md)",
				describe(first.obj, first.zone), e.copy)
			out = append(out, clash(RuleKDSCollision, LevelError, e.name, e.obj.Name, detail, e.id, e.zone, e.obj, first.id, first.zone, first.obj, e.copy))
		}
	}
	return out
}

func (u *Unique) sniClashes(out []Clash) []Clash {
	type key struct{ cp, sni string }
	seen := map[key]sniEntry{}
	for _, e := range u.snis {
		cp, ok := u.certs[zoneRef{e.zone, e.certNS, e.cert}]
		if !ok || e.sni == "" {
			continue
		}
		k := key{cp, e.sni}
		if first, ok := seen[k]; ok {
			if first.zone == e.zone && first.obj == e.obj {
				continue // one object read twice
			}
			detail := fmt.Sprintf("%s has the same SNI, and its certificate %q the same control plane as this one's %q: Kong keeps SNI names unique, so one of them is not configured (docs/kong-names.md)",
				describe(first.obj, first.zone), first.cert, e.cert)
			out = append(out, clash(RuleKongSNIUnique, LevelError, sniNamePath, e.sni, detail, e.id, e.zone, e.obj, first.id, first.zone, first.obj, e.sni))
			continue
		}
		seen[k] = e
	}
	return out
}

// generatedClashes reports, among the Gateways Kong's operator serves, two certificateRefs that
// give one KongCertificate/KongSNI name (in one namespace), and two listeners of one Gateway that
// give one SNI (on its one control plane).
func (u *Unique) generatedClashes(out []Clash) []Clash {
	type at struct {
		gw *gatewayEntry
		g  generated
	}
	names := map[zoneRef]at{}
	for i := range u.gws {
		e := &u.gws[i]
		if !u.servedByKong(e) {
			continue
		}
		snis := map[string]generated{}
		for _, g := range e.names {
			k := zoneRef{e.zone, e.obj.Namespace, g.name}
			if first, ok := names[k]; ok && first.gw != e && first.gw.zone == e.zone && first.gw.obj == e.obj {
				// one Gateway read twice
			} else if ok {
				detail := fmt.Sprintf("Kong's operator names the KongCertificate and KongSNI of this certificateRef %q, as it names those of %s of %s: the last one written replaces the other (docs/kong-names.md)",
					g.name, first.g.field, describe(first.gw.obj, first.gw.zone))
				out = append(out, clash(RuleKongGeneratedUnique, LevelError, g.field, g.name, detail, e.id, e.zone, e.obj, first.gw.id, first.gw.zone, first.gw.obj, g.name))
			} else {
				names[k] = at{e, g}
			}
			if first, ok := snis[g.sni]; ok && first.listener != g.listener {
				p := listenersPath.Index(g.listener)
				detail := fmt.Sprintf("gives a KongSNI %q, as %s does, on the Gateway's one control plane: Kong keeps SNI names unique, so one of them is not configured (docs/kong-names.md)",
					g.sni, listenersPath.Index(first.listener))
				out = append(out, clash(RuleKongSNIUnique, LevelError, p, g.sni, detail, e.id, e.zone, e.obj, e.id, e.zone, e.obj, g.sni))
			} else if !ok {
				snis[g.sni] = g
			}
		}
	}
	return out
}

// servedByKong reports whether Kong's operator serves e: its GatewayClass's controller is Kong's,
// or no GatewayClass of its zone was read, and then any Gateway may be.
func (u *Unique) servedByKong(e *gatewayEntry) bool {
	if c, ok := u.classes[zoneRef{zone: e.zone, name: e.class}]; ok {
		return strings.HasPrefix(c, kongOperatorControllers)
	}
	for k := range u.classes {
		if k.zone == e.zone {
			return false // the zone's classes were read, and this one is not among them
		}
	}
	return true
}

func clash(r Rule, l Level, p *field.Path, value, detail string, of int, zone string, obj Object, peerOf int, peerZone string, peer Object, name string) Clash {
	fe := &field.Error{Type: field.ErrorTypeDuplicate, Field: p.String(), BadValue: value, Detail: detail, Origin: string(r)}
	return Clash{Finding: Finding{Rule: r, Level: l, Problem: fe, Object: obj}, Peer: peer, Of: of, PeerOf: peerOf, Zone: zone, PeerZone: peerZone, Name: name}
}

// describe names an object as the messages do: Kind namespace/name, and its zone when there are
// several.
func describe(o Object, zone string) string {
	s := o.Kind.Kind + " "
	if o.Namespace != "" {
		s += o.Namespace + "/"
	}
	s += o.Name
	if o.Mesh != "" {
		s += " of mesh " + o.Mesh
	}
	if zone != "" {
		s += " of zone " + zone
	}
	return s
}

type objectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

func (m objectMeta) object(gk schema.GroupKind) Object {
	return Object{Kind: gk, Namespace: m.Namespace, Name: m.Name}
}

// controlPlaneRef is a Kong object's spec.controlPlaneRef (common/v1alpha1.ControlPlaneRef).
type controlPlaneRef struct {
	Type                 string `json:"type"`
	KonnectID            string `json:"konnectID"`
	KonnectNamespacedRef *struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"konnectNamespacedRef"`
}

// key identifies the control plane r references from an object of namespace ns in zone: a
// Konnect id is the same everywhere, a namespaced reference is one of its cluster. "" when r
// names none.
func (r *controlPlaneRef) key(zone, ns string) string {
	switch {
	case r == nil:
		return ""
	case r.KonnectNamespacedRef != nil && r.KonnectNamespacedRef.Name != "":
		return "ref\x00" + zone + "\x00" + cmp.Or(r.KonnectNamespacedRef.Namespace, ns) + "\x00" + r.KonnectNamespacedRef.Name
	case r.KonnectID != "":
		return "id\x00" + r.KonnectID
	}
	return ""
}

func decodeInto(raw []byte, v any) error {
	if err := json.UnmarshalCaseSensitivePreserveInts(raw, v); err != nil {
		return fmt.Errorf("decoding object: %w", err)
	}
	return nil
}
