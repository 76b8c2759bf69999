package webhook

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming/kong"
)

var (
	namePath        = field.NewPath("metadata", "name")
	upstreamRefPath = field.NewPath("spec", "upstreamRef", "name")
	routeRefPath    = field.NewPath("spec", "targets", "routeRef", "name")
	pluginRefPath   = field.NewPath("spec", "pluginRef", "name")
)

// kongErrors checks a Kong object's name with naming/kong: a name that claims a generated shape
// must have it, and the object-local relations must hold. This function only maps object fields
// to the validators' inputs.
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
		route, plugin := bindingRefs(obj)
		errs := kong.ValidatePluginBindingName(name, route, plugin, namePath)
		if _, generated := kong.ParsePluginBindingName(name); len(errs) > 0 && generated && (route == "" || plugin == "") {
			errs = nil
			if route == "" {
				errs = append(errs, field.Required(routeRefPath, "a KongPluginBinding with a generated name must bind a route"))
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
// "" when there is none: KongRoute, KongUpstream and KongTarget names need the HTTPRoute and its
// endpoints, and a KongPlugin configured from a Secret (configFrom, configPatches) is not
// identified by what the object holds.
func kongName(kind string, obj *admitted) string {
	switch kind {
	case "KongPluginBinding":
		if route, plugin := bindingRefs(obj); route != "" && plugin != "" {
			return kong.PluginBindingName(route, plugin)
		}
	case "KongService":
		if host := stringAt(obj, "spec", "host"); host != "" {
			if _, ok := kong.ParseUpstreamName(host); ok {
				return host
			}
		}
	case "KongPlugin":
		plugin, _ := obj.full["plugin"].(string)
		_, hasFrom := obj.full["configFrom"]
		_, hasPatches := obj.full["configPatches"]
		if plugin == "" || hasFrom || hasPatches {
			return ""
		}
		var config []byte
		if c, ok := obj.full["config"]; ok && c != nil {
			b, err := json.Marshal(c)
			if err != nil {
				return ""
			}
			config = b
		}
		name, err := kong.PluginNameFor(plugin, config)
		if err != nil {
			return ""
		}
		return name
	}
	return ""
}

// bindingRefs returns the names of the route and plugin a KongPluginBinding binds.
func bindingRefs(obj *admitted) (route, plugin string) {
	return stringAt(obj, "spec", "targets", "routeRef", "name"), stringAt(obj, "spec", "pluginRef", "name")
}

// stringAt returns the string at path in obj, which was decoded in full, or "" when there is none.
func stringAt(obj *admitted, path ...string) string {
	v, _, _ := unstructured.NestedString(obj.full, path...)
	return v
}
