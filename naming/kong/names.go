package kong

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The generators compute the names Kong's operator gives the objects it
// builds from Gateway API routes (Kong/kong-operator,
// controller/hybridgateway/namegen, main of 2026-08-21), byte for byte.
// Each one names the operator function it matches. cp is the name of the
// KonnectGatewayControlPlane (see ControlPlaneHash). The values hashed are
// gateway-api v1.6.1 values as the API server stores them, defaults
// applied; see docs/kong-names.md.

const (
	// MaxNameLen is the longest name a generator returns: a Kubernetes
	// object name.
	MaxNameLen = 253

	cpPrefix             = "cp"
	parentRefPrefix      = "pr"
	backendNotFoundPrefx = "bnf"
	fallbackPrefix       = "ngn"

	// RequestTerminationPlugin is the plugin the operator attaches to a
	// KongService whose backends cannot be reached.
	RequestTerminationPlugin = "request-termination"

	// maxKongServiceTimeout is the longest timeout Kong accepts, in
	// milliseconds: what a backendRequest timeout of 0s ("none") becomes.
	maxKongServiceTimeout int64 = 2147483646
)

// The readable first label of a generated name, by route kind.
const (
	protoHTTP = "http"
	protoGRPC = "grpc"
	protoTLS  = "tls"
	protoTCP  = "tcp"
	protoUDP  = "udp"
)

// backendRef is the set of backend reference types a route rule holds.
type backendRef interface {
	gwv1.BackendRef | gwv1.HTTPBackendRef | gwv1.GRPCBackendRef
}

// joinedName is the operator's newName: the elements joined by dots, or
// "ngn" and Hash64 of the elements when that is longer than MaxNameLen.
func joinedName(elements ...string) string {
	if name := strings.Join(elements, "."); len(name) <= MaxNameLen {
		return name
	}
	return fallbackPrefix + Hash64(elements)
}

// hashSuffixedName is the operator's newNameWithHashSuffix: readable and
// hash elements joined by dots; too long, the readable part is cut (and
// loses trailing '.' and '-') so that the hashes stay whole.
func hashSuffixedName(readable, hashes []string) string {
	all := append(append(make([]string, 0, len(readable)+len(hashes)), readable...), hashes...)
	name := strings.Join(all, ".")
	if len(name) <= MaxNameLen {
		return name
	}
	hashPart := strings.Join(hashes, ".")
	if len(hashes) == 0 || len(hashPart) > MaxNameLen {
		return fallbackPrefix + Hash64(all)
	}
	room := MaxNameLen - len(hashPart) - 1
	if room <= 0 || len(readable) == 0 {
		return hashPart
	}
	readablePart := strings.Join(readable, ".")
	if len(readablePart) > room {
		readablePart = strings.TrimRight(readablePart[:room], ".-")
	}
	return readablePart + "." + hashPart
}

// serviceLikeName is the operator's serviceLikeName: "<proto>", the
// display name of the lowest backend and the number of backends, then the
// hashes.
func serviceLikeName[T backendRef](proto, namespace string, refs []T, hashes ...string) string {
	return hashSuffixedName(append([]string{proto}, backendDisplay(namespace, refs)...), hashes)
}

func cpElement(cp string) string { return cpPrefix + ControlPlaneHash(cp) }

// ServiceNameForHTTPRouteRule returns the name of the KongService, and of
// its KongUpstream, for rule of route: NewKongServiceNameForHTTPRouteRule
// and NewKongUpstreamNameForHTTPRouteRule, for example
// "http.default-http-backend-8080.1.cp1fbfa93f.29652d0c".
func ServiceNameForHTTPRouteRule(cp string, route *gwv1.HTTPRoute, rule gwv1.HTTPRouteRule) string {
	namespace, name := routeNamespaceName(route)
	return serviceLikeName(protoHTTP, namespace, rule.BackendRefs, cpElement(cp), httpRuleServiceHash(namespace, name, rule))
}

// UpstreamNameForHTTPRouteRule is ServiceNameForHTTPRouteRule: a generated
// KongService and its KongUpstream share the name.
func UpstreamNameForHTTPRouteRule(cp string, route *gwv1.HTTPRoute, rule gwv1.HTTPRouteRule) string {
	return ServiceNameForHTTPRouteRule(cp, route, rule)
}

// ServiceNameForHTTPRouteRuleBackendNotFound returns the name of the
// KongService of a rule whose backends give no target, which answers with
// a request-termination plugin instead:
// NewKongServiceNameForHTTPRouteRuleBackendNotFound, for example
// "http.default-http-backend-8080.1.cp1fbfa93f.bnfa610931f.29652d0c".
func ServiceNameForHTTPRouteRuleBackendNotFound(cp string, route *gwv1.HTTPRoute, rule gwv1.HTTPRouteRule) string {
	namespace, name := routeNamespaceName(route)
	return serviceLikeName(protoHTTP, namespace, rule.BackendRefs,
		cpElement(cp), backendNotFoundElement(namespace, name), httpRuleServiceHash(namespace, name, rule))
}

// ServiceNameForGRPCRouteRule matches NewKongServiceNameForGRPCRouteRule and
// NewKongUpstreamNameForGRPCRouteRule.
func ServiceNameForGRPCRouteRule(cp string, route *gwv1.GRPCRoute, rule gwv1.GRPCRouteRule) string {
	namespace, name := grpcRouteNamespaceName(route)
	return serviceLikeName(protoGRPC, namespace, rule.BackendRefs, cpElement(cp), grpcRuleServiceHash(namespace, name, rule))
}

// UpstreamNameForGRPCRouteRule is ServiceNameForGRPCRouteRule.
func UpstreamNameForGRPCRouteRule(cp string, route *gwv1.GRPCRoute, rule gwv1.GRPCRouteRule) string {
	return ServiceNameForGRPCRouteRule(cp, route, rule)
}

// ServiceNameForGRPCRouteRuleBackendNotFound matches
// NewKongServiceNameForGRPCRouteRuleBackendNotFound.
func ServiceNameForGRPCRouteRuleBackendNotFound(cp string, route *gwv1.GRPCRoute, rule gwv1.GRPCRouteRule) string {
	namespace, name := grpcRouteNamespaceName(route)
	return serviceLikeName(protoGRPC, namespace, rule.BackendRefs,
		cpElement(cp), backendNotFoundElement(namespace, name), grpcRuleServiceHash(namespace, name, rule))
}

// ServiceNameForTLSRouteRule matches NewKongServiceNameForTLSRouteRule and
// NewKongUpstreamNameForTLSRouteRule.
func ServiceNameForTLSRouteRule(cp string, route *gwv1.TLSRoute, rule gwv1.TLSRouteRule) string {
	var namespace string
	if route != nil {
		namespace = route.Namespace
	}
	return serviceLikeName(protoTLS, namespace, rule.BackendRefs, cpElement(cp), Hash32(rule.BackendRefs))
}

// ServiceNameForTCPRouteRule matches NewKongServiceNameForTCPRouteRule and
// NewKongUpstreamNameForTCPRouteRule.
func ServiceNameForTCPRouteRule(cp string, route *gwv1.TCPRoute, rule gwv1.TCPRouteRule) string {
	var namespace string
	if route != nil {
		namespace = route.Namespace
	}
	return serviceLikeName(protoTCP, namespace, rule.BackendRefs, cpElement(cp), Hash32(rule.BackendRefs))
}

// ServiceNameForUDPRouteRule matches NewKongServiceNameForUDPRouteRule and
// NewKongUpstreamNameForUDPRouteRule.
func ServiceNameForUDPRouteRule(cp string, route *gwv1.UDPRoute, rule gwv1.UDPRouteRule) string {
	var namespace string
	if route != nil {
		namespace = route.Namespace
	}
	return serviceLikeName(protoUDP, namespace, rule.BackendRefs, cpElement(cp), Hash32(rule.BackendRefs))
}

func routeNamespaceName(route *gwv1.HTTPRoute) (string, string) {
	if route == nil {
		return "", ""
	}
	return route.Namespace, route.Name
}

func grpcRouteNamespaceName(route *gwv1.GRPCRoute) (string, string) {
	if route == nil {
		return "", ""
	}
	return route.Namespace, route.Name
}

// backendNotFoundElement is "bnf" and the hash of the route's identity.
func backendNotFoundElement(namespace, name string) string {
	return backendNotFoundPrefx + Hash32(struct {
		Namespace string
		Name      string
	}{namespace, name})
}

// httpRuleServiceHash is the operator's hashForHTTPRouteRuleServiceLikeName:
// the hash of the backend references, or for a rule without any, of the
// route's identity, the matches and the filters; folded with the
// backendRequest timeout when the rule has one.
func httpRuleServiceHash(namespace, name string, rule gwv1.HTTPRouteRule) string {
	var h string
	if len(rule.BackendRefs) > 0 {
		h = Hash32(rule.BackendRefs)
	} else {
		h = Hash32(struct {
			RouteNamespace string
			RouteName      string
			Matches        []gwv1.HTTPRouteMatch
			Filters        []gwv1.HTTPRouteFilter
		}{namespace, name, rule.Matches, rule.Filters})
	}
	if ms, ok := backendRequestTimeoutMS(rule); ok {
		h = Hash32(struct {
			Base                    string
			BackendRequestTimeoutMS int64
		}{h, ms})
	}
	return h
}

// grpcRuleServiceHash is the operator's hashForGRPCRouteRuleServiceLikeName.
func grpcRuleServiceHash(namespace, name string, rule gwv1.GRPCRouteRule) string {
	if len(rule.BackendRefs) > 0 {
		return Hash32(rule.BackendRefs)
	}
	return Hash32(struct {
		RouteNamespace string
		RouteName      string
		Matches        []gwv1.GRPCRouteMatch
		Filters        []gwv1.GRPCRouteFilter
	}{namespace, name, rule.Matches, rule.Filters})
}

// backendRequestTimeoutMS is the operator's
// BackendRequestTimeoutMilliseconds matches the rule's backendRequest timeout in
// milliseconds, 0s meaning Kong's longest; false when there is none or it
// does not parse.
func backendRequestTimeoutMS(rule gwv1.HTTPRouteRule) (int64, bool) {
	if rule.Timeouts == nil || rule.Timeouts.BackendRequest == nil {
		return 0, false
	}
	d, err := time.ParseDuration(string(*rule.Timeouts.BackendRequest))
	if err != nil {
		return 0, false
	}
	if d == 0 {
		return maxKongServiceTimeout, true
	}
	return d.Milliseconds(), true
}

// backendDisplay is the operator's backendRefDisplayNames: the lowest
// display name of the references and their number, or nothing when no
// reference has a name.
func backendDisplay[T backendRef](namespace string, refs []T) []string {
	var lowest string
	for i := range refs {
		var ref *gwv1.BackendRef
		switch r := any(&refs[i]).(type) {
		case *gwv1.HTTPBackendRef:
			ref = &r.BackendRef
		case *gwv1.GRPCBackendRef:
			ref = &r.BackendRef
		case *gwv1.BackendRef:
			ref = r
		}
		if d := displayName(namespace, ref); d != "" && (lowest == "" || d < lowest) {
			lowest = d
		}
	}
	if lowest == "" {
		return nil
	}
	return []string{lowest, strconv.Itoa(len(refs))}
}

// displayName is the operator's backendRefDisplayName:
// "[<kind>-]<namespace>-<name>[-<port>]", the kind lower-cased and left
// out when it is Service.
func displayName(routeNamespace string, ref *gwv1.BackendRef) string {
	if ref.Name == "" {
		return ""
	}
	namespace := routeNamespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		namespace = string(*ref.Namespace)
	}
	parts := make([]string, 0, 4)
	if ref.Kind != nil {
		if kind := strings.ToLower(string(*ref.Kind)); kind != "" && kind != "service" {
			parts = append(parts, kind)
		}
	}
	if namespace != "" {
		parts = append(parts, namespace)
	}
	parts = append(parts, string(ref.Name))
	if ref.Port != nil {
		parts = append(parts, strconv.Itoa(int(*ref.Port)))
	}
	return strings.Join(parts, "-")
}

// routeName is the operator's kongRouteName: "<proto>.<namespace>-<name>",
// the control plane hash, the parent reference hash when parentRef is not
// nil, then extra.
func routeName(proto, namespace, name, cp string, parentRef *gwv1.ParentReference, extra ...string) string {
	hashes := make([]string, 0, 2+len(extra))
	hashes = append(hashes, cpElement(cp))
	if parentRef != nil {
		hashes = append(hashes, parentRefPrefix+Hash32(*parentRef))
	}
	hashes = append(hashes, extra...)
	return hashSuffixedName([]string{proto, namespace + "-" + name}, hashes)
}

// index is the operator's fmt.Sprintf("<prefix>%02d", i).
func index(prefix string, i int) string {
	return fmt.Sprintf("%s%02d", prefix, i)
}

// RouteNameForHTTPRouteMatch returns the name of the KongRoute for match,
// the index-th match of its rule: NewKongRouteNameForMatch, for example
// "http.default-http-route.cp1fbfa93f.pr4557fd4c.5cff32e8.m02". parentRef
// is the parent reference the KongRoute is for when the route has more
// than one (the operator hashes it only then), else nil.
func RouteNameForHTTPRouteMatch(cp string, route *gwv1.HTTPRoute, parentRef *gwv1.ParentReference, match gwv1.HTTPRouteMatch, matchIndex int) string {
	namespace, name := routeNamespaceName(route)
	return routeName(protoHTTP, namespace, name, cp, parentRef, Hash32(match), index("m", matchIndex))
}

// RouteNameForGRPCRouteMatch returns the name of the KongRoute for match,
// the matchIndex-th match of the ruleIndex-th rule:
// NewKongRouteNameForGRPCRouteMatch, for example
// "grpc.default-grpc-route.cp1fbfa93f.pr4557fd4c.a7d8418e.r01.m03".
func RouteNameForGRPCRouteMatch(cp string, route *gwv1.GRPCRoute, parentRef *gwv1.ParentReference, match gwv1.GRPCRouteMatch, ruleIndex, matchIndex int) string {
	namespace, name := grpcRouteNamespaceName(route)
	return routeName(protoGRPC, namespace, name, cp, parentRef, Hash32(match), index("r", ruleIndex), index("m", matchIndex))
}

// RouteNameForTLSRouteRule matches NewKongRouteNameForTLSRouteRule, the rule
// hashed whole.
func RouteNameForTLSRouteRule(cp string, route *gwv1.TLSRoute, parentRef *gwv1.ParentReference, rule gwv1.TLSRouteRule) string {
	var namespace, name string
	if route != nil {
		namespace, name = route.Namespace, route.Name
	}
	return routeName(protoTLS, namespace, name, cp, parentRef, Hash32(rule))
}

// RouteNameForTCPRouteRule matches NewKongRouteNameForTCPRouteRule.
func RouteNameForTCPRouteRule(cp string, route *gwv1.TCPRoute, parentRef *gwv1.ParentReference, rule gwv1.TCPRouteRule) string {
	var namespace, name string
	if route != nil {
		namespace, name = route.Namespace, route.Name
	}
	return routeName(protoTCP, namespace, name, cp, parentRef, Hash32(rule))
}

// RouteNameForUDPRouteRule matches NewKongRouteNameForUDPRouteRule.
func RouteNameForUDPRouteRule(cp string, route *gwv1.UDPRoute, parentRef *gwv1.ParentReference, rule gwv1.UDPRouteRule) string {
	var namespace, name string
	if route != nil {
		namespace, name = route.Namespace, route.Name
	}
	return routeName(protoUDP, namespace, name, cp, parentRef, Hash32(rule))
}

// PluginNameForHTTPRouteFilter returns the name of the KongPlugin of type
// pluginType translated from filter, in namespace:
// "<namespace>.<pluginType>.<Hash32(filter)>", NewKongPluginName.
func PluginNameForHTTPRouteFilter(filter gwv1.HTTPRouteFilter, namespace, pluginType string) string {
	return joinedName(namespace, pluginType, Hash32(filter))
}

// PluginNameForHTTPRouteFilters returns the name of one KongPlugin merged
// from filters that translate to the same plugin type:
// NewKongPluginNameForFilters. One filter is named as by
// PluginNameForHTTPRouteFilter; more hash the slice, in order.
func PluginNameForHTTPRouteFilters(filters []gwv1.HTTPRouteFilter, namespace, pluginType string) string {
	if len(filters) == 1 {
		return PluginNameForHTTPRouteFilter(filters[0], namespace, pluginType)
	}
	return joinedName(namespace, pluginType, Hash32(filters))
}

// PluginNameForGRPCRouteFilter matches NewKongPluginNameForGRPCRouteFilter.
func PluginNameForGRPCRouteFilter(filter gwv1.GRPCRouteFilter, namespace, pluginType string) string {
	return joinedName(namespace, pluginType, Hash32(filter))
}

// PluginNameForService returns the name of a KongPlugin of type pluginType
// tied to the KongService named service: "<service>.<pluginType>",
// NewKongPluginNameForService. The request-termination plugin of a
// backend-not-found service is PluginNameForService(service,
// RequestTerminationPlugin).
func PluginNameForService(service, pluginType string) string {
	return joinedName(service, pluginType)
}

// PluginBindingName returns the name of the KongPluginBinding of the
// KongPlugin named plugin to target, a KongRoute or KongService name:
// "<target>.<plugin>", NewKongPluginBindingName.
func PluginBindingName(target, plugin string) string {
	return joinedName(target, plugin)
}

// TargetName returns the name of the KongTarget for the endpoint (an IP
// address as the EndpointSlice has it) and port of ref in upstream:
// "<upstream>.<hash>", NewKongTargetName. ref is the rule's backend
// reference, of the type the route holds; it is hashed with its type name,
// so the same reference from an HTTPRoute and a GRPCRoute differ.
func TargetName[T backendRef](upstream, endpoint string, port int, ref *T) string {
	var h string
	switch r := any(ref).(type) {
	case *gwv1.HTTPBackendRef:
		h = Hash32(struct {
			endpointID string
			port       int
			backend    *gwv1.HTTPBackendRef
		}{endpoint, port, r})
	case *gwv1.GRPCBackendRef:
		h = Hash32(struct {
			endpointID string
			port       int
			backend    *gwv1.GRPCBackendRef
		}{endpoint, port, r})
	case *gwv1.BackendRef:
		h = Hash32(struct {
			endpointID string
			port       int
			backend    *gwv1.BackendRef
		}{endpoint, port, r})
	}
	return joinedName(upstream, h)
}
