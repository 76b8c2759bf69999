package kong

import (
	"sync"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

const (
	// MaxNameLen is the longest name a generator returns: a Kubernetes
	// object name.
	MaxNameLen = 253

	// routeSuffixLen is the length of ".cp<8>.<8>" after a route's prefix.
	routeSuffixLen = len(".cp") + hashLen + len(".") + hashLen
	// pluginNameLen is the length of "pl<8>".
	pluginNameLen = len("pl") + hashLen
	// MaxRoutePrefixLen is the longest readable prefix of a generated
	// KongRoute name. It leaves room for the hashes and for the ".pl<8>" of
	// a KongPluginBinding, so a binding of generated names is never cut
	// and always equals "<route>.<plugin>".
	MaxRoutePrefixLen = MaxNameLen - routeSuffixLen - 1 - pluginNameLen
)

// scratchLen sizes the stack buffer hash inputs are encoded into; bigger
// inputs spill to the heap.
const scratchLen = 1024

// ControlPlaneID identifies a control plane by the namespace and name of
// its object (the KonnectGatewayControlPlane or ControlPlane the gateway's
// configuration refers to), as "<namespace>/<name>". A control plane known
// only by its Konnect ID is identified by that ID as is. Either way, the
// string is what the generators take as cp.
func ControlPlaneID(namespace, name string) string {
	return namespace + "/" + name
}

// cpHash is H(cp): the hash of cp as a JSON string.
func cpHash(cp string) uint32 {
	var scratch [256]byte
	return sum(appendString(scratch[:0], cp))
}

// RouteName returns the name of the KongRoute for one rule of route:
// "<namespace>-<name>.cp<H(cp)>.<H(matches)>", where the match hash covers
// the rule's matches (a set), the route's namespace and name, and the
// rule's name when it has one. The readable prefix is cut to
// MaxRoutePrefixLen and loses trailing '.' and '-'.
//
// The rule's position is not hashed, so reordering rules renames nothing;
// two unnamed rules of one route with equal matches get one name, as the
// first of them takes all their traffic anyway. A nil rule is a rule with
// no matches, which the API server defaults to one match of path prefix
// "/"; a nil route has an empty namespace and name, and no valid name.
func RouteName(cp string, route *gwv1.HTTPRoute, rule *gwv1.HTTPRouteRule) string {
	var namespace, name string
	if route != nil {
		namespace, name = route.Namespace, route.Name
	}
	var scratch [scratchLen]byte
	matches := sum(appendRouteInput(scratch[:0], namespace, name, rule))

	var buf [MaxNameLen]byte
	b := append(buf[:0], namespace...)
	b = append(b, '-')
	b = append(b, name[:min(len(name), max(0, MaxRoutePrefixLen-len(b)))]...)
	b = b[:min(len(b), MaxRoutePrefixLen)]
	b = trimSeparators(b)
	b = append(b, ".cp"...)
	b = appendHash(b, cpHash(cp))
	b = append(b, '.')
	b = appendHash(b, matches)
	return string(b)
}

// trimSeparators drops trailing '.' and '-', which a cut can leave and a
// DNS label cannot end with.
func trimSeparators(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '.' || b[len(b)-1] == '-') {
		b = b[:len(b)-1]
	}
	return b
}

// ServiceName returns the name of the KongService for one rule of route:
// "cp<H(cp)>.<H(backendRefs)>". The backend references are a set: their
// order and repetitions do not matter, and a reference without a namespace
// means the route's, so equal sets of backends in different rules or
// routes share one KongService.
func ServiceName(cp string, route *gwv1.HTTPRoute, rule *gwv1.HTTPRouteRule) string {
	var namespace string
	if route != nil {
		namespace = route.Namespace
	}
	var refs []gwv1.HTTPBackendRef
	if rule != nil {
		refs = rule.BackendRefs
	}
	var scratch [scratchLen]byte
	h := sum(appendBackendRefs(scratch[:0], namespace, refs))

	var buf [len("cp.") + 2*hashLen]byte
	b := append(buf[:0], "cp"...)
	b = appendHash(b, cpHash(cp))
	b = append(b, '.')
	b = appendHash(b, h)
	return string(b)
}

// UpstreamName returns the name of the KongUpstream for one rule of route.
// It is the name of the rule's KongService: the two come in pairs.
func UpstreamName(cp string, route *gwv1.HTTPRoute, rule *gwv1.HTTPRouteRule) string {
	return ServiceName(cp, route, rule)
}

// TargetName returns the name of the KongTarget for one endpoint (ip and
// port) of the backend ref of route in upstream:
// "<upstream>.<H(backendRef, ip, port)>". The route gives the default
// namespace of ref. An upstream name too long to leave room for the hash
// is cut, losing trailing '.' and '-'.
func TargetName(upstream string, route *gwv1.HTTPRoute, ref *gwv1.HTTPBackendRef, ip string, port int32) string {
	var namespace string
	if route != nil {
		namespace = route.Namespace
	}
	var scratch [scratchLen]byte
	h := sum(appendTargetInput(scratch[:0], namespace, ref, ip, port))

	var buf [MaxNameLen]byte
	b := append(buf[:0], upstream[:min(len(upstream), MaxNameLen-1-hashLen)]...)
	b = trimSeparators(b)
	b = append(b, '.')
	b = appendHash(b, h)
	return string(b)
}

// PluginName returns the name of the KongPlugin translated from a route
// filter: "pl<H(filter)>".
func PluginName(filter *gwv1.HTTPRouteFilter) string {
	if filter == nil {
		filter = &gwv1.HTTPRouteFilter{}
	}
	var scratch [scratchLen]byte
	return pluginName(sum(appendFilter(scratch[:0], filter)))
}

// PluginNameFor returns the name of a KongPlugin from what the object
// holds, its plugin type and its configuration (JSON, nil when it has
// none): "pl<H({"config": config, "plugin": plugin})>". It is what the
// webhook can compute for a KongPlugin it admits; a controller that
// translates a filter names the plugin with PluginName. The error reports
// configuration that is not a single JSON value.
func PluginNameFor(plugin string, config []byte) (string, error) {
	// The JSON parser is recursive, so escape analysis cannot keep its
	// buffer on the stack; a pool saves the allocation instead.
	buf := scratchPool.Get().(*[]byte)
	in, err := appendPluginInput((*buf)[:0], plugin, config)
	var name string
	if err == nil {
		name = pluginName(sum(in))
	}
	if cap(in) <= maxPooled {
		*buf = in
		scratchPool.Put(buf)
	}
	return name, err
}

// maxPooled keeps buffers grown by huge configurations out of the pool.
const maxPooled = 64 << 10

var scratchPool = sync.Pool{New: func() any {
	b := make([]byte, 0, scratchLen)
	return &b
}}

func pluginName(h uint32) string {
	var buf [pluginNameLen]byte
	b := append(buf[:0], "pl"...)
	return string(appendHash(b, h))
}

// PluginBindingName returns the name of the KongPluginBinding of a route
// and a plugin: "<route>.<plugin>". Should that exceed MaxNameLen (it does
// not for generated names), the readable prefix of a generated route name
// is cut, or else the end of the route name.
func PluginBindingName(route, plugin string) string {
	if len(route)+1+len(plugin) <= MaxNameLen {
		return route + "." + plugin
	}
	return string(appendLongBinding(make([]byte, 0, MaxNameLen), route, plugin))
}

// appendLongBinding appends a binding name that needs cutting.
func appendLongBinding(b []byte, route, plugin string) []byte {
	excess := len(route) + 1 + len(plugin) - MaxNameLen
	if p, ok := ParseRouteName(route); ok && len(p.Prefix) > excess {
		b = append(b, p.Prefix[:len(p.Prefix)-excess]...)
		b = trimSeparators(b)
		b = append(b, route[len(p.Prefix):]...)
	} else {
		b = append(b, route[:max(0, len(route)-excess)]...)
		b = trimSeparators(b)
	}
	if len(b) > 0 {
		b = append(b, '.')
	}
	// Only a plugin name too long to be one leaves no room for the route.
	b = append(b, plugin...)
	return trimSeparators(b[:min(len(b), MaxNameLen)])
}
