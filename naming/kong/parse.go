package kong

import "strings"

// The recognisers accept hashes of 1 to 8 lower-case hex digits, as Kong's
// operator renders them without zero padding; the generators write 8. They
// return substrings of their input and never allocate.

// RouteNameParts are the parts of a generated KongRoute name
// "<prefix>.cp<ControlPlane>.<Matches>".
type RouteNameParts struct {
	// Prefix is the readable "<namespace>-<name>" part, possibly cut.
	Prefix string
	// ControlPlane is the hex hash of the control plane.
	ControlPlane string
	// Matches is the hex hash of the rule's matches and route.
	Matches string
}

// ServiceNameParts are the parts of a generated KongService or
// KongUpstream name "cp<ControlPlane>.<BackendRefs>".
type ServiceNameParts struct {
	ControlPlane string
	BackendRefs  string
}

// TargetNameParts are the parts of a generated KongTarget name
// "<Upstream>.<Target>".
type TargetNameParts struct {
	// Upstream is the generated upstream name, split in UpstreamParts.
	Upstream      string
	UpstreamParts ServiceNameParts
	// Target is the hex hash of the backend reference and endpoint.
	Target string
}

// PluginBindingNameParts are the parts of a generated KongPluginBinding
// name "<Route>.<Plugin>".
type PluginBindingNameParts struct {
	Route      string
	RouteParts RouteNameParts
	Plugin     string
	// PluginHash is the hex hash in Plugin.
	PluginHash string
}

// isHash reports whether s is 1 to 8 lower-case hex digits.
func isHash(s string) bool {
	if len(s) == 0 || len(s) > hashLen {
		return false
	}
	return isHexDigits(s)
}

func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// markedHash returns the hash after marker ("cp" or "pl") in label.
func markedHash(label, marker string) (string, bool) {
	h, ok := strings.CutPrefix(label, marker)
	return h, ok && isHash(h)
}

// claimsMarker reports whether label is marker followed by any number of
// hex digits: the label that says a name is meant to be generated, even
// when the hash is too long.
func claimsMarker(label, marker string) bool {
	h, ok := strings.CutPrefix(label, marker)
	return ok && len(h) > 0 && isHexDigits(h)
}

// ParseRouteName splits a KongRoute name of the generated shape
// "<prefix>.cp<hex>.<hex>". The prefix must not be empty nor end in '.' or
// '-', which the generator trims.
func ParseRouteName(s string) (RouteNameParts, bool) {
	last := strings.LastIndexByte(s, '.')
	if last < 0 || !isHash(s[last+1:]) {
		return RouteNameParts{}, false
	}
	prev := strings.LastIndexByte(s[:last], '.')
	if prev <= 0 || s[prev-1] == '.' || s[prev-1] == '-' {
		return RouteNameParts{}, false
	}
	cp, ok := markedHash(s[prev+1:last], "cp")
	if !ok {
		return RouteNameParts{}, false
	}
	return RouteNameParts{Prefix: s[:prev], ControlPlane: cp, Matches: s[last+1:]}, true
}

// ParseServiceName splits a KongService or KongUpstream name of the
// generated shape "cp<hex>.<hex>".
func ParseServiceName(s string) (ServiceNameParts, bool) {
	label, rest, ok := strings.Cut(s, ".")
	if !ok || !isHash(rest) {
		return ServiceNameParts{}, false
	}
	cp, ok := markedHash(label, "cp")
	if !ok {
		return ServiceNameParts{}, false
	}
	return ServiceNameParts{ControlPlane: cp, BackendRefs: rest}, true
}

// ParseUpstreamName is ParseServiceName: the names are the same.
func ParseUpstreamName(s string) (ServiceNameParts, bool) { return ParseServiceName(s) }

// ParseTargetName splits a KongTarget name of the generated shape
// "cp<hex>.<hex>.<hex>".
func ParseTargetName(s string) (TargetNameParts, bool) {
	last := strings.LastIndexByte(s, '.')
	if last < 0 || !isHash(s[last+1:]) {
		return TargetNameParts{}, false
	}
	up, ok := ParseServiceName(s[:last])
	if !ok {
		return TargetNameParts{}, false
	}
	return TargetNameParts{Upstream: s[:last], UpstreamParts: up, Target: s[last+1:]}, true
}

// ParsePluginName returns the hash of a KongPlugin name of the generated
// shape "pl<hex>".
func ParsePluginName(s string) (hash string, ok bool) {
	return markedHash(s, "pl")
}

// ParsePluginBindingName splits a KongPluginBinding name of the generated
// shape "<route>.pl<hex>", where route is a generated KongRoute name. The
// split is unambiguous: the plugin is the last label.
func ParsePluginBindingName(s string) (PluginBindingNameParts, bool) {
	last := strings.LastIndexByte(s, '.')
	if last < 0 {
		return PluginBindingNameParts{}, false
	}
	ph, ok := ParsePluginName(s[last+1:])
	if !ok {
		return PluginBindingNameParts{}, false
	}
	rp, ok := ParseRouteName(s[:last])
	if !ok {
		return PluginBindingNameParts{}, false
	}
	return PluginBindingNameParts{Route: s[:last], RouteParts: rp, Plugin: s[last+1:], PluginHash: ph}, true
}

// The claims below decide which names must have a generated shape: a name
// claims it when the label that carries the kind's marker is the marker
// followed by hex digits, however many.

// claimsRoute: any label is "cp<hex>".
func claimsRoute(s string) bool {
	for s != "" {
		var label string
		label, s, _ = strings.Cut(s, ".")
		if claimsMarker(label, "cp") {
			return true
		}
	}
	return false
}

// claimsService (KongService, KongUpstream and KongTarget): the first label
// is "cp<hex>".
func claimsService(s string) bool {
	label, _, _ := strings.Cut(s, ".")
	return claimsMarker(label, "cp")
}

// claimsPlugin: the name is "pl<hex>".
func claimsPlugin(s string) bool {
	return claimsMarker(s, "pl")
}

// claimsPluginBinding: the last label is "pl<hex>", or the rest claims to be
// a route name.
func claimsPluginBinding(s string) bool {
	return claimsMarker(s[strings.LastIndexByte(s, '.')+1:], "pl") || claimsRoute(s)
}
