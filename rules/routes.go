package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming"
)

// Kuma turns each HTTPRoute (gateway.networking.k8s.io) attached to a Service, and in 3.0 to a
// MeshService, into a MeshHTTPRoute of the system namespace named after the route and its parent,
// joined by "-" and "." without escaping (docs/unique.md, "Kuma's route names"):
//
//	<route>-<namespace>-<service>.<service namespace>                 2.14 and 3.0, parent kind Service
//	<route>-<namespace>-meshservice-<meshservice>.<its namespace>     3.0, parent kind MeshService
//
// Two routes that give one name leave the second without its MeshHTTPRoute and status; a name
// that is no DNS-1123 subdomain is never stored.

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
}

// kumaRouteNames returns the names Kuma's release rel gives the MeshHTTPRoutes of an HTTPRoute
// namespace/name with these parentRefs.
func kumaRouteNames(rel naming.Release, namespace, name string, refs []parentRef) []routeName {
	var out []routeName
	for i, ref := range refs {
		ns := namespace
		if ref.Namespace != nil {
			ns = *ref.Namespace
		}
		// The CRD defaults an absent group and kind to a Gateway's.
		group, kind := GatewayGroup, "Gateway"
		if ref.Group != nil {
			group = *ref.Group
		}
		if ref.Kind != nil {
			kind = *ref.Kind
		}
		p := parentRefsPath.Index(i)
		switch {
		case kind == "Service" && (group == "" || group == GatewayGroup):
			out = append(out, routeName{fmt.Sprintf("%s-%s-%s.%s", name, namespace, ref.Name, ns), p})
		case kind == "MeshService" && group == KumaGroup && rel == naming.Kuma3_0:
			out = append(out, routeName{fmt.Sprintf("%s-%s-meshservice-%s.%s", name, namespace, ref.Name, ns), p})
		}
	}
	return out
}

// parentRef is an HTTPRoute's spec.parentRefs element, as far as Kuma's names read it.
type parentRef struct {
	Group     *string `json:"group"`
	Kind      *string `json:"kind"`
	Namespace *string `json:"namespace"`
	Name      string  `json:"name"`
}

// routeClashes reports two HTTPRoutes that give one MeshHTTPRoute name (of one zone), and a name
// that cannot be stored.
func (u *Unique) routeClashes(out []Clash) []Clash {
	type key struct{ zone, name string }
	seen := map[key]*routeEntry{}
	for i := range u.routes {
		e := &u.routes[i]
		for _, n := range e.names {
			if msgs := validation.IsDNS1123Subdomain(n.name); len(msgs) > 0 {
				detail := fmt.Sprintf("Kuma names the MeshHTTPRoute of this parentRef %q, which cannot be stored (%s): the route gets neither policy nor status (Kuma #18262; docs/unique.md)", n.name, msgs[0])
				out = append(out, clash(RuleKumaRouteName, LevelError, n.field, n.name, detail, e.id, e.zone, e.obj, e.id, e.zone, e.obj, n.name))
				continue
			}
			k := key{e.zone, n.name}
			first, ok := seen[k]
			switch {
			case !ok:
				seen[k] = e
			case first == e || first.obj == e.obj:
				// one route, or one route read twice: Kuma merges what one route gives one name
			default:
				detail := fmt.Sprintf("Kuma names the MeshHTTPRoute of this parentRef %q, as it names one of %s: the second is never created, and the route gets neither policy nor status (Kuma #18262; docs/unique.md)",
					n.name, describe(first.obj, first.zone))
				out = append(out, clash(RuleKumaRouteName, LevelError, n.field, n.name, detail, e.id, e.zone, e.obj, first.id, first.zone, first.obj, n.name))
			}
		}
	}
	return out
}
