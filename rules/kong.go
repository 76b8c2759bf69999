package rules

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming/kong"
)

var (
	namePath        = field.NewPath("metadata", "name")
	upstreamRefPath = field.NewPath("spec", "upstreamRef", "name")
	routeRefPath    = field.NewPath("spec", "targets", "routeRef", "name")
	serviceRefPath  = field.NewPath("spec", "targets", "serviceRef", "name")
	pluginRefPath   = field.NewPath("spec", "pluginRef", "name")
	certRefPath     = field.NewPath("spec", "certificateRef", "name")
)

// kongParsers are the parsers of naming/kong the Kong rules use. The rules parse each name an
// object holds at most once and compare the parts; a test counts the calls through its own
// kongParsers.
type kongParsers struct {
	service func(string) (kong.ServiceNameParts, bool)
	target  func(string) (kong.TargetNameParts, bool)
	binding func(string) (kong.PluginBindingNameParts, bool)
}

var parseKong = kongParsers{service: kong.ParseServiceName, target: kong.ParseTargetName, binding: kong.ParsePluginBindingName}

// kongErrors checks a Kong object's name with naming/kong: a DNS-1123 subdomain of any scheme
// Kong's operator uses, and the object-local relations hold (docs/kong-names.md). Each kind's
// fields are picked and its rules applied side by side; every name is parsed at most once.
func kongErrors(kind string, obj *admitted) field.ErrorList {
	return kongErrorsWith(kind, obj, parseKong)
}

func kongErrorsWith(kind string, obj *admitted, parse kongParsers) field.ErrorList {
	name := obj.name
	errs := kong.ValidateName(name, namePath)
	switch kind {
	case "KongService":
		// Its host, when a generated upstream name, is the upstream it is named after.
		host := stringAt(obj, "spec", "host")
		if errs != nil || kong.IsServiceNamedAfter(name, host) {
			return errs
		}
		u, generated := parse.service(host)
		if !generated {
			return nil
		}
		if s, ok := parse.service(name); ok && kong.IsBackendNotFoundServiceOf(s, u) {
			return nil
		}
		return field.ErrorList{kong.NotServiceOfHost(namePath, name, host)}
	case "KongTarget":
		// A generated name is under its upstream's.
		upstream := stringAt(obj, "spec", "upstreamRef", "name")
		t, generated := parse.target(name)
		if errs == nil && generated && t.Upstream != upstream {
			errs = field.ErrorList{kong.NotUnderUpstream(namePath, name, upstream)}
		}
		if len(errs) > 0 && generated && upstream == "" {
			// The name has the generated shape; what is missing is the reference it relates to.
			return field.ErrorList{field.Required(upstreamRefPath, "a KongTarget with a generated name must reference its upstream")}
		}
		return errs
	case "KongPluginBinding":
		// A generated name is that of the route or service it binds, a dot, and its plugin's.
		target, plugin := bindingRefs(obj)
		parsed, generated := false, false
		isGenerated := func() bool {
			if !parsed {
				_, generated = parse.binding(name)
				parsed = true
			}
			return generated
		}
		if errs == nil && !kong.IsPluginBindingName(name, target, plugin) && isGenerated() {
			errs = field.ErrorList{kong.NotBindingOf(namePath, name, target, plugin)}
		}
		if len(errs) > 0 && (target == "" || plugin == "") && isGenerated() {
			errs = nil
			if target == "" {
				errs = append(errs, field.Required(routeRefPath, "a KongPluginBinding with a generated name must bind a route or, with "+serviceRefPath.String()+", a service"))
			}
			if plugin == "" {
				errs = append(errs, field.Required(pluginRefPath, "a KongPluginBinding with a generated name must bind a plugin"))
			}
		}
		return errs
	case "KongSNI":
		// A generated name is its KongCertificate's, which it references.
		if errs != nil {
			return errs
		}
		return kong.ValidateSNICertificate(name, stringAt(obj, "spec", "certificateRef", "name"), certRefPath)
	}
	// KongRoute, KongUpstream, KongPlugin, KongCertificate: the name is a DNS-1123 subdomain.
	return errs
}

// namedWithKRI reports whether objects of gk are named with a KRI: every guarded kind but Kong's.
func namedWithKRI(gk schema.GroupKind) bool { return gk.Group != KongGroup }

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
			if _, ok := parseKong.service(host); ok {
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

// kongReads are the paths under spec kongErrors reads (stringAt): all that is decoded of a Kong
// object's spec.
var kongReads = [][]string{{"host"}, {"upstreamRef", "name"}, {"targets", "routeRef", "name"}, {"targets", "serviceRef", "name"}, {"pluginRef", "name"}, {"certificateRef", "name"}, {"name"}}

// stringAt returns the string at path in obj, whose spec was decoded, or "" when there is none.
func stringAt(obj *admitted, path ...string) string {
	if len(path) == 0 || path[0] != "spec" {
		return ""
	}
	v, _, _ := unstructured.NestedString(obj.specMap(), path[1:]...)
	return v
}
