package rules

import (
	"cmp"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// Kuma turns each HTTPRoute (gateway.networking.k8s.io) attached to a Service, in 2.14 to a
// Gateway of its own GatewayClass, and in 3.0 to a MeshService, into a MeshHTTPRoute of the system
// namespace named after the route and its parent (naming.Release.MeshHTTPRouteName; docs/unique.md,
// "Kuma's route names"). Two routes that give one name leave the second without its MeshHTTPRoute
// and status; a name that is no DNS-1123 subdomain is never stored.

// kumaGatewayController is the controllerName of the GatewayClasses Kuma's built-in gateway
// serves (v2.14.3 pkg/plugins/runtime/k8s/controllers/gatewayapi/common/common.go:14).
const kumaGatewayController = "gateways.kuma.io/controller"

var parentRefsPath = field.NewPath("spec", "parentRefs")

type routeEntry struct {
	id   int
	zone string
	obj  Object
	// names are the MeshHTTPRoute names of the route's parentRefs, with the parentRef's path.
	names []routeName
}

type routeName struct {
	name  string
	field *field.Path
	ref   naming.ParentRef
	// gateway is the Gateway parent of a name of a Gateway parentRef: the name is Kuma's only when
	// the Gateway's class is (or, not read, may be).
	gateway *zoneRef
}

// kumaRouteNames returns the names Kuma's release rel gives the MeshHTTPRoutes of an HTTPRoute
// namespace/name of zone with these parentRefs.
func kumaRouteNames(rel naming.Release, zone, namespace, name string, refs []parentRef) []routeName {
	var out []routeName
	for i, r := range refs {
		// The CRD defaults an absent group and kind to a Gateway's.
		ref := naming.ParentRef{Group: GatewayGroup, Kind: "Gateway", Name: r.Name}
		if r.Group != nil {
			ref.Group = *r.Group
		}
		if r.Kind != nil {
			ref.Kind = *r.Kind
		}
		if r.Namespace != nil {
			ref.Namespace = *r.Namespace
		}
		if r.SectionName != nil {
			ref.SectionName = *r.SectionName
		}
		if r.Port != nil {
			ref.Port = *r.Port
		}
		n, ok := rel.MeshHTTPRouteName(namespace, name, ref)
		if !ok {
			continue
		}
		rn := routeName{name: n, field: parentRefsPath.Index(i), ref: ref}
		if ref.Group == GatewayGroup && ref.Kind == "Gateway" {
			rn.gateway = &zoneRef{zone: zone, namespace: cmp.Or(ref.Namespace, namespace), name: ref.Name}
		}
		out = append(out, rn)
	}
	return out
}

// parentRef is an HTTPRoute's spec.parentRefs element, as far as Kuma's names read it.
type parentRef struct {
	Group       *string `json:"group"`
	Kind        *string `json:"kind"`
	Namespace   *string `json:"namespace"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName"`
	Port        *int32  `json:"port"`
}

// kumaGateway reports whether the Gateway g may be one of Kuma's built-in gateway: its
// GatewayClass's controller is Kuma's, or the Gateway or its class was not read.
func (u *Unique) kumaGateway(g zoneRef) bool {
	class, ok := u.gwClasses[g]
	if !ok {
		return true
	}
	controller, ok := u.classes[zoneRef{zone: g.zone, name: class}]
	return !ok || controller == kumaGatewayController
}

// routeClashes reports two HTTPRoutes that give one MeshHTTPRoute name (of one zone), a
// parentRef whose MeshHTTPRoute a later one of its route replaces, and a name that cannot be
// stored.
func (u *Unique) routeClashes(out []Clash) []Clash {
	type key struct{ zone, name string }
	type named struct {
		e *routeEntry
		n routeName
	}
	seen := map[key]named{}
	for i := range u.routes {
		e := &u.routes[i]
		// last is, per name, the last parentRef of e that Kuma makes a MeshHTTPRoute of.
		last := map[string]routeName{}
		for _, n := range e.names {
			if n.gateway == nil || u.kumaGateway(*n.gateway) {
				last[n.name] = n
			}
		}
		for _, n := range e.names {
			if n.gateway != nil && !u.kumaGateway(*n.gateway) {
				continue
			}
			if msgs := validation.IsDNS1123Subdomain(n.name); len(msgs) > 0 {
				detail := fmt.Sprintf("Kuma names the MeshHTTPRoute of this parentRef %q, which cannot be stored (%s): the route gets neither policy nor status (Kuma #18262; docs/unique.md)", n.name, msgs[0])
				out = append(out, clash(RuleKumaRouteName, LevelError, n.field, n.name, detail, e.id, e.zone, e.obj, e.id, e.zone, e.obj, n.name))
				continue
			}
			if l := last[n.name]; l.field != n.field && !u.c.release.MeshHTTPRouteKept(e.obj.Namespace, n.ref, l.ref) {
				detail := fmt.Sprintf("Kuma %s names the MeshHTTPRoute of this parentRef %q, as it names that of %s, and keeps the later one's only: this parent gets none of the route (docs/unique.md)",
					u.c.release, n.name, l.field)
				out = append(out, clash(RuleKumaRouteName, LevelError, n.field, n.name, detail, e.id, e.zone, e.obj, e.id, e.zone, e.obj, n.name))
			}
			k := key{e.zone, n.name}
			first, ok := seen[k]
			switch {
			case !ok:
				seen[k] = named{e, n}
			case first.e == e || first.e.obj == e.obj:
				// one route (above), or one route read twice
			default:
				detail := fmt.Sprintf("Kuma names the MeshHTTPRoute of this parentRef %q, as it names one of %s: the second is never created, and the route gets neither policy nor status (Kuma #18262; docs/unique.md)",
					n.name, describe(first.e.obj, first.e.zone))
				out = append(out, clash(RuleKumaRouteName, LevelError, n.field, n.name, detail, e.id, e.zone, e.obj, first.e.id, first.e.zone, first.e.obj, n.name))
			}
		}
	}
	return out
}
