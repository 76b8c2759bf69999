package kong

import "strings"

// The recognisers accept the names of every scheme the operator has
// shipped (docs/kong-names.md lists them): hashes of 1 to 8 lower-case hex
// digits (the operator does not pad them), the readable part possibly cut.
// They return substrings of their input, never allocate and never panic.

// ServiceNameParts are the parts of a generated KongService or
// KongUpstream name "[<Readable>.]cp<ControlPlane>[.bnf<BackendNotFound>].<Hash>".
type ServiceNameParts struct {
	// Readable is "<proto>[.<backend>.<count>]", possibly cut, or empty
	// (v2.1.0-alpha.0 upstreams).
	Readable        string
	ControlPlane    string
	BackendNotFound string
	Hash            string
}

// RouteNameParts are the parts of a generated KongRoute name
// "<Readable>.cp<ControlPlane>[.pr<ParentRef>].<Hash>[.r<Rule>][.m<Match>]".
type RouteNameParts struct {
	// Readable is "[<proto>.]<namespace>-<name>", possibly cut.
	Readable     string
	ControlPlane string
	ParentRef    string
	Hash         string
	Rule         string
	Match        string
}

// TargetNameParts are the parts of a generated KongTarget name
// "<Upstream>.<Hash>".
type TargetNameParts struct {
	Upstream string
	Hash     string
}

// PluginBindingNameParts are the parts of a generated KongPluginBinding
// name "<Target>.<Plugin>": Target a generated KongRoute or KongService
// name, Plugin a generated KongPlugin name.
type PluginBindingNameParts struct {
	Target string
	Plugin string
}

func isHexN(s string, n int) bool {
	if len(s) == 0 || len(s) > n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isHash reports whether s is a Hash32: 1 to 8 lower-case hex digits.
func isHash(s string) bool { return isHexN(s, 8) }

// marked returns the hash after prefix in label.
func marked(label, prefix string) (string, bool) {
	h, ok := strings.CutPrefix(label, prefix)
	return h, ok && isHash(h)
}

// isIndex reports whether label is prefix and at least two decimal digits,
// as "%02d" writes a non-negative index.
func isIndex(label, prefix string) bool {
	d, ok := strings.CutPrefix(label, prefix)
	if !ok || len(d) < 2 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// cutLast splits s at its last dot: the part before and the last label.
func cutLast(s string) (rest, label string, ok bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}

func isProto(label string) bool {
	switch label {
	case protoHTTP, protoGRPC, protoTLS, protoTCP, protoUDP:
		return true
	}
	return false
}

// ParseServiceName splits a KongService or KongUpstream name of a
// generated shape: "cp<hex>.<hex>" (v2.1.0-alpha.0 upstream, and the
// seed's), "http.cp<hex>.<hex>" (v2.1.0-alpha.0 service), and
// "<proto>[.<backend>.<count>].cp<hex>[.bnf<hex>].<hex>" (since v2.1.0).
func ParseServiceName(s string) (ServiceNameParts, bool) {
	var p ServiceNameParts
	rest, last, ok := cutLast(s)
	if !ok || !isHash(last) {
		return p, false
	}
	p.Hash = last
	rest, label, more := cutLast(rest)
	if h, ok := marked(label, backendNotFoundPrefx); ok && more {
		p.BackendNotFound = h
		rest, label, more = cutLast(rest)
	}
	cp, ok := marked(label, cpPrefix)
	if !ok {
		return ServiceNameParts{}, false
	}
	p.ControlPlane = cp
	if !more {
		return p, p.BackendNotFound == ""
	}
	first, _, _ := strings.Cut(rest, ".")
	if !isProto(first) {
		return ServiceNameParts{}, false
	}
	p.Readable = rest
	return p, true
}

// ParseUpstreamName is ParseServiceName: a generated KongUpstream has the
// name of its KongService.
func ParseUpstreamName(s string) (ServiceNameParts, bool) { return ParseServiceName(s) }

// ParseRouteName splits a KongRoute name of a generated shape:
// "<namespace>-<name>.cp<hex>.<hex>" (the seed's),
// "http.<namespace>-<name>.cp<hex>.<hex>" (v2.1.0-alpha.0 to v2.1),
// "<proto>.<namespace>-<name>.cp<hex>[.pr<hex>].<hex>[.r<NN>][.m<NN>]"
// (since v2.2). The readable part must not be empty.
func ParseRouteName(s string) (RouteNameParts, bool) {
	var p RouteNameParts
	rest, label, ok := cutLast(s)
	if ok && isIndex(label, "m") {
		p.Match = label
		rest, label, ok = cutLast(rest)
		if ok && isIndex(label, "r") {
			p.Rule = label
			rest, label, ok = cutLast(rest)
		}
	}
	if !ok || !isHash(label) {
		return RouteNameParts{}, false
	}
	p.Hash = label
	rest, label, ok = cutLast(rest)
	if h, isPR := marked(label, parentRefPrefix); isPR && ok {
		p.ParentRef = h
		rest, label, ok = cutLast(rest)
	}
	cp, isCP := marked(label, cpPrefix)
	if !ok || !isCP || rest == "" {
		return RouteNameParts{}, false
	}
	p.ControlPlane, p.Readable = cp, rest
	return p, true
}

// ParseTargetName splits a KongTarget name of the generated shape
// "<upstream>.<hex>", upstream a generated KongUpstream name.
func ParseTargetName(s string) (TargetNameParts, bool) {
	rest, last, ok := cutLast(s)
	if !ok || !isHash(last) {
		return TargetNameParts{}, false
	}
	if _, ok := ParseUpstreamName(rest); !ok {
		return TargetNameParts{}, false
	}
	return TargetNameParts{Upstream: rest, Hash: last}, true
}

// IsPluginName reports whether s has a generated KongPlugin shape:
// "pl<hex>" (v2.1.0-alpha.0), "<type>.<hex>" (v2.1.0-beta.0),
// "<namespace>.<type>.<hex>" (since v2.1.0), "<service>.<type>" (a
// service's plugin, since v2.1.8) or "ngn<hex>" (too long).
func IsPluginName(s string) bool {
	if _, ok := marked(s, "pl"); ok {
		return true
	}
	if h, ok := strings.CutPrefix(s, fallbackPrefix); ok && isHexN(h, 16) {
		return true
	}
	rest, last, ok := cutLast(s)
	if !ok || last == "" || rest == "" {
		return false
	}
	if isHash(last) {
		// "<type>" or "<namespace>.<type>"
		return strings.Count(rest, ".") <= 1 && !strings.HasPrefix(rest, ".") && !strings.HasSuffix(rest, ".")
	}
	_, ok = ParseServiceName(rest)
	return ok
}

// ParsePluginBindingName splits a KongPluginBinding name of the generated
// shape "<target>.<plugin>", target a generated KongRoute or KongService
// name and plugin a generated KongPlugin name. Where several splits fit,
// the one with the shortest plugin is returned. Names longer than
// MaxNameLen are never generated ones.
func ParsePluginBindingName(s string) (PluginBindingNameParts, bool) {
	if len(s) > MaxNameLen {
		// No generated name is longer; the bound keeps the search linear.
		return PluginBindingNameParts{}, false
	}
	for i := len(s) - 1; i > 0; i-- {
		if s[i] != '.' {
			continue
		}
		target, plugin := s[:i], s[i+1:]
		if !IsPluginName(plugin) {
			continue
		}
		if _, ok := ParseRouteName(target); ok {
			return PluginBindingNameParts{Target: target, Plugin: plugin}, true
		}
		if _, ok := ParseServiceName(target); ok {
			return PluginBindingNameParts{Target: target, Plugin: plugin}, true
		}
	}
	return PluginBindingNameParts{}, false
}
