package kong

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The validators take plain strings, so that the webhook only maps object
// fields to values, and p, the path of the name (metadata.name). They deny
// only what no scheme of the operator produces: a name that is not a
// DNS-1123 subdomain, and a name that breaks a relation with the object's
// own fields. A name whose shape is ambiguous is accepted: a false denial
// blocks the operator, a missed check costs nothing.

// ValidateName reports a name that is not a DNS-1123 subdomain: what the name of every Kong kind
// must be.
func ValidateName(name string, p *field.Path) field.ErrorList { return validateSubdomain(name, p) }

// validateSubdomain reports a name that is not a DNS-1123 subdomain.
func validateSubdomain(name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	return errs
}

// ValidateRouteName checks a KongRoute name: a DNS-1123 subdomain.
func ValidateRouteName(name string, p *field.Path) field.ErrorList {
	return validateSubdomain(name, p)
}

// ValidateUpstreamName checks a KongUpstream name: a DNS-1123 subdomain.
func ValidateUpstreamName(name string, p *field.Path) field.ErrorList {
	return validateSubdomain(name, p)
}

// ValidatePluginName checks a KongPlugin name: a DNS-1123 subdomain.
func ValidatePluginName(name string, p *field.Path) field.ErrorList {
	return validateSubdomain(name, p)
}

// ValidateServiceName checks a KongService name against its host
// (spec.host): a DNS-1123 subdomain, and when host is a generated upstream
// name, the name the operator gives a KongService of that upstream (see
// IsServiceOfUpstream).
func ValidateServiceName(name, host string, p *field.Path) field.ErrorList {
	if errs := validateSubdomain(name, p); errs != nil {
		return errs
	}
	if _, ok := ParseUpstreamName(host); ok && !IsServiceOfUpstream(name, host) {
		return field.ErrorList{NotServiceOfHost(p, name, host)}
	}
	return nil
}

// NotServiceOfHost is the problem of a KongService named name whose host, a generated upstream
// name, is not its upstream's.
func NotServiceOfHost(p *field.Path, name, host string) *field.Error {
	return field.Invalid(p, name, fmt.Sprintf("must equal the service's host %q, a generated KongUpstream name", host))
}

// IsServiceOfUpstream reports whether a KongService named name may have
// the generated upstream name upstream as its host: the operator names it
// after the upstream (since v2.1.0), "http." and the upstream
// (v2.1.0-alpha.0), or, for a backend-not-found service, the upstream's
// control plane and hash with a "bnf" hash between them and the readable
// part possibly cut shorter.
func IsServiceOfUpstream(name, upstream string) bool {
	if IsServiceNamedAfter(name, upstream) {
		return true
	}
	s, ok := ParseServiceName(name)
	u, _ := ParseUpstreamName(upstream)
	return ok && IsBackendNotFoundServiceOf(s, u)
}

// IsServiceNamedAfter reports whether a KongService named name is named after the upstream name
// upstream: the same name, or "http." and the upstream's. It parses neither.
func IsServiceNamedAfter(name, upstream string) bool {
	return name == upstream || len(name) == len(protoHTTP)+1+len(upstream) &&
		name[:len(protoHTTP)+1] == protoHTTP+"." && name[len(protoHTTP)+1:] == upstream
}

// IsBackendNotFoundServiceOf reports whether the parts s of a generated KongService name are those
// of the backend-not-found service of the generated upstream of parts u: the same control plane and
// hash, a "bnf" hash, and the readable part the upstream's, possibly cut shorter.
func IsBackendNotFoundServiceOf(s, u ServiceNameParts) bool {
	return s.BackendNotFound != "" && u.BackendNotFound == "" && s.ControlPlane == u.ControlPlane && s.Hash == u.Hash &&
		len(s.Readable) <= len(u.Readable) && u.Readable[:len(s.Readable)] == s.Readable
}

// ValidateTargetName checks a KongTarget name against the name of its
// upstream (spec.upstreamRef.name): a DNS-1123 subdomain, and a name of
// the generated shape "<upstream>.<hash>" must be under its own upstream.
func ValidateTargetName(name, upstream string, p *field.Path) field.ErrorList {
	if errs := validateSubdomain(name, p); errs != nil {
		return errs
	}
	if t, ok := ParseTargetName(name); ok && t.Upstream != upstream {
		return field.ErrorList{NotUnderUpstream(p, name, upstream)}
	}
	return nil
}

// NotUnderUpstream is the problem of a KongTarget named name, of the generated shape, that is not
// under its upstream's name.
func NotUnderUpstream(p *field.Path, name, upstream string) *field.Error {
	return field.Invalid(p, name, fmt.Sprintf("must start with the name of its upstream %q and a dot", upstream))
}

// ValidatePluginBindingName checks a KongPluginBinding name against the
// names of what it binds: target, the KongRoute or KongService
// (spec.targets.routeRef.name or serviceRef.name), and plugin
// (spec.pluginRef.name). The name must be a DNS-1123 subdomain, and a name
// of the generated shape "<route or service>.<plugin>" must be
// PluginBindingName(target, plugin).
func ValidatePluginBindingName(name, target, plugin string, p *field.Path) field.ErrorList {
	if errs := validateSubdomain(name, p); errs != nil {
		return errs
	}
	if IsPluginBindingName(name, target, plugin) {
		return nil
	}
	if _, ok := ParsePluginBindingName(name); ok {
		return field.ErrorList{NotBindingOf(p, name, target, plugin)}
	}
	return nil
}

// NotBindingOf is the problem of a KongPluginBinding named name, of the generated shape, that is
// not named after the target and plugin it binds.
func NotBindingOf(p *field.Path, name, target, plugin string) *field.Error {
	return field.Invalid(p, name, fmt.Sprintf("must be the name of its route or service, a dot and the name of its plugin: %q", PluginBindingName(target, plugin)))
}

// IsPluginBindingName reports whether name == PluginBindingName(target,
// plugin), without building the name when it needs no fallback.
func IsPluginBindingName(name, target, plugin string) bool {
	if len(target)+1+len(plugin) > MaxNameLen {
		return name == PluginBindingName(target, plugin)
	}
	return len(name) == len(target)+1+len(plugin) &&
		name[:len(target)] == target && name[len(target)] == '.' && name[len(target)+1:] == plugin
}
