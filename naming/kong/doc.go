// Package kong computes and recognises the names Kong's hybrid gateway gives
// the Kong objects it builds from Gateway API HTTPRoutes, and validates the
// names of such objects.
//
// # Names
//
// One HTTPRoute rule becomes a KongRoute, a KongService and KongUpstream
// pair, a KongTarget per endpoint of each backend, a KongPlugin per filter
// and a KongPluginBinding per route and plugin:
//
//	KongRoute          <namespace>-<name>.cp<H(cp)>.<H(matches)>   RouteName
//	KongService        cp<H(cp)>.<H(backendRefs)>                  ServiceName
//	KongUpstream       cp<H(cp)>.<H(backendRefs)>                  UpstreamName
//	KongTarget         <upstream>.<H(backendRef, ip, port)>        TargetName
//	KongPlugin         pl<H(filter)>                               PluginName, PluginNameFor
//	KongPluginBinding  <route>.<plugin>                            PluginBindingName
//
// for example default-httproute-echo.cp431ef96.1b69eced,
// cp431ef96.5a7cc34c, cp431ef96.5a7cc34c.46cb9d28, pl72ae1b9a and
// default-httproute-echo.cp431ef96.1b69eced.pl72ae1b9a.
//
// The control plane cp is one string: "<namespace>/<name>" of the control
// plane object the gateway's configuration refers to (ControlPlaneID), or
// the Konnect ID of a control plane known only by that.
//
// Names are valid DNS-1123 subdomains of at most 253 characters for valid
// inputs (a route's namespace and name, an upstream name, generated names).
// Only a KongRoute's "<namespace>-<name>" prefix is free text: it is cut to
// MaxRoutePrefixLen (222) characters and loses trailing '.' and '-', which
// leaves room for the hashes and for the ".pl<hash>" of a binding, so that a
// binding of generated names is never cut. Hashes are never cut.
//
// # The hash H
//
// H(x) is FNV-1a 32-bit over the bytes of the canonical JSON encoding of x,
// written as exactly 8 lower-case hex digits. The canonical encoding is:
//
//   - no white space; object members sorted bytewise by name;
//   - strings escaped as Go's encoding/json escapes them with HTML escaping
//     off: \" \\ \b \f \n \r \t, \u00xx (lower-case hex) for other bytes
//     below 0x20, \u2028 and \u2029; everything else as itself, with each
//     byte of invalid UTF-8 replaced by U+FFFD;
//   - integers in decimal; booleans true and false;
//   - optional fields that are absent, and empty lists, are omitted;
//   - API-server defaults applied first: a rule without matches has one
//     match {"path":{"type":"PathPrefix","value":"/"}}; a path match's type
//     is PathPrefix and value "/"; a header or query parameter match's type
//     is Exact; a backend reference's group is "", kind Service and weight
//     1; a redirect's statusCode 302; a mirror fraction's denominator 100; a
//     CORS maxAge 5.
//   - sets are sorted bytewise by their elements' canonical encodings, and
//     duplicates are dropped: a rule's matches, a match's headers and query
//     parameters, and a rule's backend references. Every other list keeps
//     its order.
//
// The encoded values, with Gateway API (sigs.k8s.io/gateway-api/apis/v1)
// field names:
//
//   - H(cp): cp as a JSON string.
//   - H(matches): {"matches":[HTTPRouteMatch…],"name":route name,
//     "namespace":route namespace,"rule":rule name}, "rule" only for a named
//     rule. The route's identity is hashed, so routes a-b/c and a/b-c differ.
//   - H(backendRefs): [HTTPBackendRef…], each with its namespace defaulted to
//     the route's (a backend reference says the same thing with or without
//     its default namespace).
//   - H(backendRef, ip, port): {"backendRef":HTTPBackendRef,"ip":ip,
//     "port":port}, the namespace defaulted as above and the IP address in
//     its net/netip text form when it parses ("::0001" is "::1").
//   - H(filter): HTTPRouteFilter. No namespace is defaulted inside a filter:
//     a plugin is identified by its configuration alone, and a KongPlugin
//     lives in a namespace anyway.
//   - PluginNameFor hashes {"config":config,"plugin":plugin} from a KongPlugin
//     object itself, the configuration being any JSON re-encoded in the
//     canonical form (numbers as written; duplicate member names are an
//     error; "config" omitted when absent or null). A KongPlugin has no
//     record of the filter it came from, so this is a different name from
//     PluginName's for the same plugin; both have the "pl<hash>" shape.
//
// # Recognising names
//
// ParseRouteName, ParseServiceName, ParseUpstreamName, ParseTargetName,
// ParsePluginName and ParsePluginBindingName tell whether a name has a
// generated shape and split it into its parts without allocating. They accept
// hashes of 1 to 8 hex digits, since Kong's operator writes them without
// zero padding; the generators here always write 8.
//
// # Validating Kong objects
//
// A name claims the generated shape when the label that carries its kind's
// marker is the marker followed by hex digits, however many:
//
//   - KongRoute: any label is "cp<hex>";
//   - KongService, KongUpstream, KongTarget: the first label is "cp<hex>";
//   - KongPlugin: the whole name is "pl<hex>";
//   - KongPluginBinding: the last label is "pl<hex>", or any label is
//     "cp<hex>".
//
// A name that claims the shape must have it, and then the relations hold
// that ValidatePluginBindingName (name = "<route>.<plugin>" of the
// binding's own references) and ValidateTargetName (name = upstream name,
// a dot, a hash) check. ValidateServiceName checks that a KongService whose
// host is a generated upstream name is named after it, whatever its name
// claims. Names that claim nothing are the users' business.
package kong
