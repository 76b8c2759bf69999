package naming

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// GatewayAPIGroup is the group of the Gateway API (gateway.networking.k8s.io).
const GatewayAPIGroup = "gateway.networking.k8s.io"

// ParentRef is an HTTPRoute's spec.parentRefs element as Kuma's Gateway API controller reads it
// from the API server: Group and Kind hold the CRD's defaults (GatewayAPIGroup, "Gateway") when the
// route leaves them out; Namespace, SectionName and Port are empty or 0 when it does.
type ParentRef struct {
	Group, Kind, Namespace, Name, SectionName string
	Port                                      int32
}

// routeParent is a kind of parentRef a release turns into a MeshHTTPRoute.
type routeParent struct{ group, kind string }

// routeScheme names the MeshHTTPRoute of the HTTPRoute namespace/name for ref, whose namespace
// (ref's, else the route's) is refNS.
type routeScheme func(namespace, name, refNS string, ref ParentRef) string

// MeshHTTPRouteName returns the name r's Gateway API controller gives the MeshHTTPRoute it makes,
// in the system namespace, of the HTTPRoute namespace/name for its parentRef ref; false when r
// makes none for a parent of ref's group and kind (docs/unique.md, "Kuma's route names"). The
// name is computed as Kuma computes it, whether or not it can be stored.
func (r Release) MeshHTTPRouteName(namespace, name string, ref ParentRef) (string, bool) {
	scheme, ok := r.facts().routeNames[routeParent{ref.Group, ref.Kind}]
	if !ok {
		return "", false
	}
	refNS := ref.Namespace
	if refNS == "" {
		refNS = namespace
	}
	return scheme(namespace, name, refNS, ref), true
}

// serviceRouteName: v2.14.3 pkg/plugins/runtime/k8s/controllers/gatewayapi/http_route_controller.go:241-247,
// master 348b652 :248-254.
func serviceRouteName(namespace, name, refNS string, ref ParentRef) string {
	return name + "-" + namespace + "-" + ref.Name + "." + refNS
}

// meshServiceRouteName: master 348b652 http_route_controller.go:300-306.
func meshServiceRouteName(namespace, name, refNS string, ref ParentRef) string {
	return name + "-" + namespace + "-meshservice-" + ref.Name + "." + refNS
}

// gatewayRouteName is v2.14.3's generateMeshHTTPRouteName (http_route_controller.go:114-143):
// "<route>-<namespace>" cut to 244 runes, one trailing "-" trimmed, then "-" and the FNV-32 (not
// 32a) of the parentRef's port ("0" when absent), sectionName, name, namespace, kind and group
// joined with no separator, as 8 hex digits.
func gatewayRouteName(namespace, name, refNS string, ref ParentRef) string {
	h := fnv.New32()
	_, _ = h.Write([]byte(strconv.Itoa(int(ref.Port)) + ref.SectionName + ref.Name + refNS + ref.Kind + ref.Group))
	cut := strings.TrimSuffix(firstRunes(name+"-"+namespace, 244), "-")
	return fmt.Sprintf("%s-%x", cut, h.Sum(nil))
}

// firstRunes is s cut to n runes, as fmt's "%.ns" cuts it (an invalid byte is one rune).
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// MeshHTTPRouteKept reports whether the MeshHTTPRoute r makes of ref, a parentRef of an HTTPRoute
// of namespace, survives a later parentRef of the same route, last, of which r makes a MeshHTTPRoute
// of the same name (the last such one): r keeps one MeshHTTPRoute per name (docs/unique.md).
//
// 3.0 merges the destinations of all of them into it (master 348b652
// http_route_controller.go:271, :323, storeMeshHTTPRoute :332-365), so every parentRef's survives. 2.14
// stores last's in place of ref's (v2.14.3 http_route_controller.go:217, :249), so ref's survives
// only when last's gives the same: the same Gateway listener (name, namespace, sectionName and
// port), or the same Service with no port (all of its ports) or ref's port. 2.14 ignores a Service
// parentRef's sectionName.
func (r Release) MeshHTTPRouteKept(namespace string, ref, last ParentRef) bool {
	if r.facts().routesMerged {
		return true
	}
	pr, pl := routeParent{ref.Group, ref.Kind}, routeParent{last.Group, last.Kind}
	if cmp.Or(ref.Namespace, namespace) != cmp.Or(last.Namespace, namespace) || ref.Name != last.Name {
		return false
	}
	switch {
	case pr == pl && pr == (routeParent{GatewayAPIGroup, "Gateway"}):
		return ref.SectionName == last.SectionName && ref.Port == last.Port
	case pr.kind == "Service" && pl.kind == "Service":
		// Both groups name a Service (MeshHTTPRouteName has no other Service parent).
		return last.Port == 0 || last.Port == ref.Port
	}
	return false
}
