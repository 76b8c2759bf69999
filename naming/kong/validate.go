package kong

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The validators check the name of a Kong object against SPEC §5: a name
// that claims the generated shape must have it, and the relations between
// the name and the object's own fields must hold. They take plain strings
// so that the webhook only maps object fields to values and p, the path of
// the name (metadata.name). A name that does not claim the generated shape
// is left alone: users may name their own objects freely.

const (
	routeShape   = "<namespace>-<name>.cp<hash>.<hash>"
	serviceShape = "cp<hash>.<hash>"
	targetShape  = "cp<hash>.<hash>.<hash>"
	pluginShape  = "pl<hash>"
	bindingShape = "<namespace>-<name>.cp<hash>.<hash>.pl<hash>"
)

func shapeError(p *field.Path, name, kind, shape string) *field.Error {
	return field.Invalid(p, name, fmt.Sprintf("looks like a generated %s name but is not of the shape %s, each hash 1 to 8 lower-case hex digits", kind, shape))
}

// ValidateRouteName checks a KongRoute name: one with a "cp<hex>" label
// must be of the generated shape.
func ValidateRouteName(name string, p *field.Path) field.ErrorList {
	if !claimsRoute(name) {
		return nil
	}
	if _, ok := ParseRouteName(name); !ok {
		return field.ErrorList{shapeError(p, name, "KongRoute", routeShape)}
	}
	return nil
}

// ValidateServiceName checks a KongService name against its host
// (spec.host): a name starting with a "cp<hex>" label must be of the
// generated shape, and when host is a generated upstream name the service
// must be named after it.
func ValidateServiceName(name, host string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if claimsService(name) {
		if _, ok := ParseServiceName(name); !ok {
			errs = append(errs, shapeError(p, name, "KongService", serviceShape))
		}
	}
	if _, ok := ParseUpstreamName(host); ok && name != host {
		errs = append(errs, field.Invalid(p, name, fmt.Sprintf("must equal the service's host %q, a generated KongUpstream name", host)))
	}
	return errs
}

// ValidateUpstreamName checks a KongUpstream name: one starting with a
// "cp<hex>" label must be of the generated shape.
func ValidateUpstreamName(name string, p *field.Path) field.ErrorList {
	if claimsService(name) {
		if _, ok := ParseUpstreamName(name); !ok {
			return field.ErrorList{shapeError(p, name, "KongUpstream", serviceShape)}
		}
	}
	return nil
}

// ValidateTargetName checks a KongTarget name against the name of its
// upstream (spec.upstreamRef.name): a name starting with a "cp<hex>" label
// must be of the generated shape and start with the upstream's name and a
// dot.
func ValidateTargetName(name, upstream string, p *field.Path) field.ErrorList {
	if !claimsService(name) {
		return nil
	}
	parts, ok := ParseTargetName(name)
	if !ok {
		return field.ErrorList{shapeError(p, name, "KongTarget", targetShape)}
	}
	if parts.Upstream != upstream {
		return field.ErrorList{field.Invalid(p, name, fmt.Sprintf("must start with the name of its upstream %q and a dot", upstream))}
	}
	return nil
}

// ValidatePluginName checks a KongPlugin name: one that is "pl" and hex
// digits must have 1 to 8 of them.
func ValidatePluginName(name string, p *field.Path) field.ErrorList {
	if claimsPlugin(name) {
		if _, ok := ParsePluginName(name); !ok {
			return field.ErrorList{shapeError(p, name, "KongPlugin", pluginShape)}
		}
	}
	return nil
}

// ValidatePluginBindingName checks a KongPluginBinding name against the
// names of the route and plugin it binds (spec.targets.routeRef.name and
// spec.pluginRef.name): a name whose last label is "pl<hex>", or that has a
// "cp<hex>" label, must be of the generated shape and equal
// PluginBindingName(route, plugin).
func ValidatePluginBindingName(name, route, plugin string, p *field.Path) field.ErrorList {
	if !claimsPluginBinding(name) {
		return nil
	}
	if _, ok := ParsePluginBindingName(name); !ok {
		return field.ErrorList{shapeError(p, name, "KongPluginBinding", bindingShape)}
	}
	if !isBindingName(name, route, plugin) {
		return field.ErrorList{field.Invalid(p, name, fmt.Sprintf("must be the name of its route, a dot and the name of its plugin: %q", PluginBindingName(route, plugin)))}
	}
	return nil
}

// isBindingName reports whether name == PluginBindingName(route, plugin),
// without building the name when it needs no cut.
func isBindingName(name, route, plugin string) bool {
	if len(route)+1+len(plugin) > MaxNameLen {
		return name == PluginBindingName(route, plugin)
	}
	return len(name) == len(route)+1+len(plugin) &&
		name[:len(route)] == route && name[len(route)] == '.' && name[len(route)+1:] == plugin
}
