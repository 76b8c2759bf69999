package kong

import gwv1 "sigs.k8s.io/gateway-api/apis/v1"

// The legacy generators compute the names of the operator's first
// released scheme, v2.1.0-alpha.0 (controller/hybridgateway/namegen at
// that tag), for HTTPRoutes only: one KongRoute per rule, hashes without a
// readable backend part. Clusters whose objects the operator named then
// still hold them. KongTarget and KongPluginBinding names were already
// those of TargetName and PluginBindingName.

// LegacyUpstreamName matches NewKongUpstreamName of v2.1.0-alpha.0,
// "cp<Hash32(cp)>.<Hash32(backendRefs)>".
func LegacyUpstreamName(cp string, rule gwv1.HTTPRouteRule) string {
	return joinedName(cpElement(cp), Hash32(rule.BackendRefs))
}

// LegacyServiceName matches NewKongServiceName of v2.1.0-alpha.0, "http." and the
// upstream's name (which is also the KongService's spec.host).
func LegacyServiceName(cp string, rule gwv1.HTTPRouteRule) string {
	return joinedName(protoHTTP, cpElement(cp), Hash32(rule.BackendRefs))
}

// LegacyRouteName matches NewKongRouteName of v2.1.0-alpha.0,
// "http.<namespace>-<name>.cp<Hash32(cp)>.<Hash32(matches)>".
func LegacyRouteName(cp string, route *gwv1.HTTPRoute, rule gwv1.HTTPRouteRule) string {
	namespace, name := routeNamespaceName(route)
	return joinedName(protoHTTP, namespace+"-"+name, cpElement(cp), Hash32(rule.Matches))
}

// LegacyPluginName matches NewKongPluginName of v2.1.0-alpha.0,
// "pl<Hash32(filter)>".
func LegacyPluginName(filter gwv1.HTTPRouteFilter) string {
	return joinedName("pl" + Hash32(filter))
}
