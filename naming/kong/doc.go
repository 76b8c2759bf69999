// Package kong computes and recognises the names Kong's operator
// (Kong/kong-operator, hybrid gateway) gives the Kong objects it builds
// from Gateway API routes, byte-identical to the operator's own
// controller/hybridgateway/namegen, and validates the names of such
// objects.
//
// # Hash
//
// Hash32 and Hash64 are the operator's: FNV-1a over the go-spew dump
// k8s.io/utils/dump.ForHash writes of a Go value, type names included, in
// unpadded lower-case hex. ControlPlaneHash is the hash of the operator's
// ControlPlaneRef for a KonnectGatewayControlPlane: ControlPlaneHash("test-cp")
// is "1fbfa93f".
//
// # Names (current scheme)
//
//	KongService, KongUpstream  <proto>[.<backend>.<N>].cp<H>.<H(backendRefs)>   ServiceNameFor…RouteRule
//	  backend not found        <proto>[.<backend>.<N>].cp<H>.bnf<H>.<H>         ServiceNameFor…RouteRuleBackendNotFound
//	KongRoute (HTTP)           http.<ns>-<name>.cp<H>[.pr<H>].<H(match)>.m<NN>  RouteNameForHTTPRouteMatch
//	KongRoute (gRPC)           grpc.<ns>-<name>.cp<H>[.pr<H>].<H>.r<NN>.m<NN>   RouteNameForGRPCRouteMatch
//	KongRoute (TLS, TCP, UDP)  <proto>.<ns>-<name>.cp<H>[.pr<H>].<H(rule)>      RouteNameFor…RouteRule
//	KongTarget                 <upstream>.<H(endpoint, port, backendRef)>       TargetName
//	KongPlugin                 <ns>.<type>.<H(filter)>, <service>.<type>        PluginNameFor…
//	KongPluginBinding          <route or service>.<plugin>                      PluginBindingName
//
// Names longer than 253 characters lose the end of their readable part;
// names without hashes to keep become "ngn" and a Hash64. The Legacy…
// functions compute the operator's first released scheme (v2.1.0-alpha.0).
//
// # Recognising and validating
//
// ParseRouteName, ParseServiceName, ParseTargetName, IsPluginName and
// ParsePluginBindingName recognise the names of every scheme the operator
// has shipped. The Validate… functions deny only a name that is not a
// DNS-1123 subdomain or that breaks a relation with the object's own
// fields: a KongPluginBinding of the generated shape named after other
// refs than its own, a KongService whose host is a generated upstream name
// but which is not named after it, a KongTarget of the generated shape
// under another upstream. Ambiguous names are accepted.
//
// docs/kong-names.md has the details, the operator's examples and the
// scheme's known weaknesses.
package kong
