package admissionpolicy

import (
	"fmt"
	"strings"
)

// Kong's generated names, as RE2 expressions that accept exactly what naming/kong's recognisers
// accept (TestKongExpressionsMatchRecognisers holds them to that). CEL has no other way to run
// those recognisers; the names' hashes themselves are beyond it and stay in the webhook.
const (
	kongHash  = `[0-9a-f]{1,8}`
	kongProto = `(?:http|grpc|tls|tcp|udp)`
	// kongService is ParseServiceName: "cp<h>.<h>", or a readable part starting with a protocol
	// label, "cp<h>", an optional "bnf<h>" and "<h>".
	kongService = `(?:cp` + kongHash + `\.` + kongHash + `|` + kongProto + `(?:\..*)?\.cp` + kongHash + `(?:\.bnf` + kongHash + `)?\.` + kongHash + `)`
	// kongServiceBNF is a generated service name with a backend-not-found hash.
	kongServiceBNF = kongProto + `(?:\..*)?\.cp` + kongHash + `\.bnf` + kongHash + `\.` + kongHash
	// kongRoute is ParseRouteName: a non-empty readable part, "cp<h>", an optional "pr<h>", "<h>",
	// then optionally ".m<NN>", itself optionally after ".r<NN>".
	kongRoute = `(?:.+\.cp` + kongHash + `(?:\.pr` + kongHash + `)?\.` + kongHash + `(?:(?:\.r[0-9]{2,})?\.m[0-9]{2,})?)`
	// kongPlugin is IsPluginName: "pl<h>", "ngn" and up to 16 hex digits, one or two labels and a
	// hash, or a generated service name and a label that is not a hash.
	kongPlugin = `(?:pl` + kongHash + `|ngn[0-9a-f]{1,16}|[^.]+(?:\.[^.]+)?\.` + kongHash + `|` + kongService + `\.(?:[^.]*[^0-9a-f.][^.]*|[0-9a-f]{9,}))`
	// kongTarget is ParseTargetName: a generated upstream name and a hash.
	kongTarget = kongService + `\.` + kongHash
	// kongBinding is ParsePluginBindingName (for names of at most 253 bytes): a generated route or
	// service name, a dot and a generated plugin name.
	kongBinding = `(?:` + kongRoute + `|` + kongService + `)\.` + kongPlugin
	// dns1123Subdomain is apimachinery's IsDNS1123Subdomain, length aside.
	dns1123Label     = `[a-z0-9](?:[-a-z0-9]*[a-z0-9])?`
	dns1123Subdomain = dns1123Label + `(?:\.` + dns1123Label + `)*`
	kongMaxName      = 253
)

// whole anchors an expression; (?s) lets '.' match every character, as the recognisers do.
func whole(re string) string { return "(?s)^" + re + "$" }

// kongChecks returns the checks of a Kong kind's name: a DNS-1123 subdomain (the API server already
// demands it of every name) and the relations a name has with the object's own fields.
func kongChecks(kind string) []check {
	name := "object.metadata.name"
	checks := []check{{
		ok:      fmt.Sprintf("size(%s) <= %d && %s.matches(%s)", name, kongMaxName, name, lit(whole(dns1123Subdomain))),
		message: fmt.Sprintf("'metadata.name: Invalid value: \"' + %s + '\": must be a lowercase RFC 1123 subdomain'", shown(name)),
	}}
	switch kind {
	case "KongService":
		// A service whose host is a generated upstream name is named after it (IsServiceOfUpstream):
		// the upstream's name, "http." and it, or a backend-not-found service of the same control
		// plane and hash whose readable part starts the upstream's.
		host := "object.spec.host"
		checks = append(checks, check{
			ok: fmt.Sprintf("!has(object.spec) || !has(object.spec.host) || !%[1]s.matches(%[2]s) || %[3]s == %[1]s || %[3]s == 'http.' + %[1]s ||\n"+
				"(%[3]s.matches(%[4]s) && !%[1]s.matches(%[5]s) && %[6]s)",
				host, lit(whole(kongService)), name, lit(whole(kongServiceBNF)), lit(whole(`.*\.bnf`+kongHash+`\.`+kongHash)),
				bnfOfUpstream(name, host)),
			message: fmt.Sprintf("'metadata.name: Invalid value: \"' + %s + '\": must equal the service\\'s host \"' + %s + '\", a generated KongUpstream name'", shown(name), shown(host)),
		})
	case "KongTarget":
		up := "object.spec.upstreamRef.name"
		hasUp := "has(object.spec) && has(object.spec.upstreamRef) && has(object.spec.upstreamRef.name)"
		prefix := name + ".substring(0, " + name + ".lastIndexOf('.'))"
		checks = append(checks, check{
			ok: fmt.Sprintf("!%s.matches(%s) || (%s && %s == %s)", name, lit(whole(kongTarget)), hasUp, prefix, up),
			message: fmt.Sprintf("%s ? 'metadata.name: Invalid value: \"' + %s + '\": must start with the name of its upstream \"' + %s + '\" and a dot' : 'spec.upstreamRef.name: Required value: a KongTarget with a generated name must reference its upstream'",
				hasUp, shown(name), up),
		})
	case "KongPluginBinding":
		// The target is the route, or the service when no route is bound.
		route := "has(object.spec) && has(object.spec.targets) && has(object.spec.targets.routeRef) && has(object.spec.targets.routeRef.name)"
		service := "has(object.spec) && has(object.spec.targets) && has(object.spec.targets.serviceRef) && has(object.spec.targets.serviceRef.name)"
		plugin := "has(object.spec) && has(object.spec.pluginRef) && has(object.spec.pluginRef.name)"
		target := fmt.Sprintf("((%s) ? object.spec.targets.routeRef.name : ((%s) ? object.spec.targets.serviceRef.name : ''))", route, service)
		pluginName := fmt.Sprintf("((%s) ? object.spec.pluginRef.name : '')", plugin)
		expected := target + " + '.' + " + pluginName
		checks = append(checks, check{
			// Beyond 253 bytes the operator hashes the name (ngn…): only the webhook can tell.
			ok: fmt.Sprintf("size(%[1]s) > %[2]d || !%[1]s.matches(%[3]s) || size(%[4]s) > %[2]d || %[1]s == %[4]s",
				name, kongMaxName, lit(whole(kongBinding)), expected),
			message: fmt.Sprintf("'metadata.name: Invalid value: \"' + %s + '\": must be the name of its route or service, a dot and the name of its plugin: \"' + %s + '\"'",
				shown(name), expected),
		})
	}
	return checks
}

// bnfOfUpstream is the CEL condition that name, a backend-not-found service name, and upstream, a
// generated upstream name without one, have the same control plane and hash, and that name's
// readable part starts upstream's.
func bnfOfUpstream(name, upstream string) string {
	n, u := name+".split('.')", upstream+".split('.')"
	last := func(l string, i int) string { return fmt.Sprintf("%s[size(%s) - %d]", l, l, i) }
	readable := func(s, l string, labels int) string {
		// Everything before the last `labels` labels, without the dot.
		return fmt.Sprintf("(size(%[2]s) > %[3]d ? %[2]s.slice(0, size(%[2]s) - %[3]d).join('.') : '')", s, l, labels)
	}
	return strings.Join([]string{
		last(n, 1) + " == " + last(u, 1),
		last(n, 3) + " == " + last(u, 2),
		readable(name, u, 2) + ".startsWith(" + readable(name, n, 3) + ")",
	}, " && ")
}
