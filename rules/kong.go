package rules

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming/kong"
)

var (
	namePath        = field.NewPath("metadata", "name")
	upstreamRefPath = field.NewPath("spec", "upstreamRef", "name")
	routeRefPath    = field.NewPath("spec", "targets", "routeRef", "name")
	serviceRefPath  = field.NewPath("spec", "targets", "serviceRef", "name")
	pluginRefPath   = field.NewPath("spec", "pluginRef", "name")
)

// kongErrors checks a Kong object's name with naming/kong: a DNS-1123 subdomain of any scheme
// Kong's operator uses, and the object-local relations hold (docs/kong-names.md). This function
// only maps object fields to the validators' inputs.
func kongErrors(kind string, obj *admitted) field.ErrorList {
	name := obj.name
	switch kind {
	case "KongRoute":
		return kong.ValidateRouteName(name, namePath)
	case "KongService":
		return kong.ValidateServiceName(name, stringAt(obj, "spec", "host"), namePath)
	case "KongUpstream":
		return kong.ValidateUpstreamName(name, namePath)
	case "KongTarget":
		upstream := stringAt(obj, "spec", "upstreamRef", "name")
		errs := kong.ValidateTargetName(name, upstream, namePath)
		if _, generated := kong.ParseTargetName(name); len(errs) > 0 && generated && upstream == "" {
			// The name has the generated shape; what is missing is the reference it relates to.
			return field.ErrorList{field.Required(upstreamRefPath, "a KongTarget with a generated name must reference its upstream")}
		}
		return errs
	case "KongPlugin":
		return kong.ValidatePluginName(name, namePath)
	case "KongPluginBinding":
		target, plugin := bindingRefs(obj)
		errs := kong.ValidatePluginBindingName(name, target, plugin, namePath)
		if _, generated := kong.ParsePluginBindingName(name); len(errs) > 0 && generated && (target == "" || plugin == "") {
			errs = nil
			if target == "" {
				errs = append(errs, field.Required(routeRefPath, "a KongPluginBinding with a generated name must bind a route or, with "+serviceRefPath.String()+", a service"))
			}
			if plugin == "" {
				errs = append(errs, field.Required(pluginRefPath, "a KongPluginBinding with a generated name must bind a plugin"))
			}
		}
		return errs
	}
	return nil
}

// kongName returns the generated name of a Kong object whose inputs are all in the object, or
// "" when there is none: a KongPluginBinding (its target and plugin) and a KongService whose host
// is a generated upstream name. The other names need the route, its filters and endpoints; a
// KongPlugin's name hashes the Gateway API filter it was translated from, which the object does
// not hold.
func kongName(kind string, obj *admitted) string {
	switch kind {
	case "KongPluginBinding":
		if target, plugin := bindingRefs(obj); target != "" && plugin != "" {
			return kong.PluginBindingName(target, plugin)
		}
	case "KongService":
		if host := stringAt(obj, "spec", "host"); host != "" {
			if _, ok := kong.ParseUpstreamName(host); ok {
				return host
			}
		}
	}
	return ""
}

// bindingRefs returns the names of what a KongPluginBinding binds: its route, or its service
// when it binds no route, and its plugin.
func bindingRefs(obj *admitted) (target, plugin string) {
	target = stringAt(obj, "spec", "targets", "routeRef", "name")
	if target == "" {
		target = stringAt(obj, "spec", "targets", "serviceRef", "name")
	}
	return target, stringAt(obj, "spec", "pluginRef", "name")
}

// stringAt returns the string at path in obj, whose spec was decoded, or "" when there is none.
func stringAt(obj *admitted, path ...string) string {
	if len(path) == 0 || path[0] != "spec" {
		return ""
	}
	v, _, _ := unstructured.NestedString(obj.specMap(), path[1:]...)
	return v
}
