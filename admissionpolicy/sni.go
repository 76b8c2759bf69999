package admissionpolicy

import (
	"fmt"
	"strings"

	"github.com/kriguard/kriguard/naming"
)

// The SNIs Kuma builds from the KRI of a MeshService, MeshMultiZoneService or MeshExternalService
// port (docs/kri.md, "SNI budget"): sni.<type>.<mesh>[.<zone>[.<namespace>]].<name>.<section>.
// Kuma wants mesh, name and section not empty, every part a DNS-1123 label and the whole at most
// 253 characters; the webhook denies a port whose SNI breaks that, and so does the policy.
// Where each kind keeps its ports, which value names a port's section and the length limit are
// naming's (naming.SNIPortsOf, naming.SNIMaxLen), as for the webhook.
const (
	sniMaxLen  = naming.SNIMaxLen
	dns1123Max = 63
)

func dnsLabel(v string) string {
	return fmt.Sprintf("(size(%s) <= %d && %s.matches(%s))", v, dns1123Max, v, lit("^"+dns1123Label+"$"))
}

// sniCheck returns the check of a kind's port SNIs, and false for kinds Kuma names no SNI after.
func sniCheck(kind, short string) (check, bool) {
	ports, ok := naming.SNIPortsOf(kind)
	if !ok {
		return check{}, false
	}
	// The parts that do not depend on the port, checked once.
	zone, ns := "variables.kriZone", "variables.kriNamespace"
	prefix := fmt.Sprintf("'sni.%s.' + variables.kriMesh + (%s != '' ? '.' + %s + (%s != '' ? '.' + %s : '') : '') + '.' + variables.kriName",
		short, zone, zone, ns, ns)
	object := strings.Join([]string{
		dnsLabel("variables.kriMesh"), dnsLabel("variables.kriName"),
		fmt.Sprintf("(%s == '' || %s)", zone, dnsLabel(zone)),
		fmt.Sprintf("(%s == '' || %s == '' || %s)", zone, ns, dnsLabel(ns)),
	}, " && ")
	named := "variables.kriMesh != '' && variables.kriName != ''" // else the KRI check reports it
	if ports.Single != nil {
		port := "string(" + access("object", ports.Single) + ")"
		return check{
			ok: fmt.Sprintf("!(%s) || !(%s) || (%s && size(%s + '.' + %s) <= %d)", present("object", ports.Single), named, object, prefix, port, sniMaxLen),
			message: fmt.Sprintf("'%s: Invalid value: \"' + %s + '.' + %s + '\": the port\\'s SNI must be at most %d characters of DNS-1123 labels'",
				Path(ports.Single[:len(ports.Single)-1]), prefix, port, sniMaxLen),
			old:  sniUnchanged(ports.Single),
			list: true,
		}, true
	}
	hasName := "has(p.name)"
	if !ports.EmptyNameIsSection {
		hasName = "(has(p.name) && p.name != '')"
	}
	section := fmt.Sprintf("(%s ? p.name : string(p.port))", hasName)
	l := access("object", ports.List)
	return check{
		ok: fmt.Sprintf("!(%s) || (%s.all(p, !(has(p.name) || has(p.port)) || %s != '') && (!(%s) || size(%s) == 0 || (%s && %s.all(p, !(has(p.name) || has(p.port)) || (%s && size(%s + '.' + %s) <= %d)))))",
			present("object", ports.List), l, section, named, l, object, l, dnsLabel(section), prefix, section, sniMaxLen),
		message: fmt.Sprintf("'%s[*]: Invalid value: every port needs a section and an SNI ' + %s + '.<section> of at most %d characters of DNS-1123 labels'",
			Path(ports.List), prefix, sniMaxLen),
		old:  sniUnchanged(ports.List),
		list: true,
	}, true
}

// sniUnchanged is the update rule of the SNI check: nothing its SNIs are made of changed.
func sniUnchanged(p []string) string {
	return fmt.Sprintf("(%s) == (%s) && (!(%s) || %s == %s) && (has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}) == variables.labels && (has(oldObject.metadata.annotations) ? oldObject.metadata.annotations : {}) == variables.annotations && oldObject.metadata.name == object.metadata.name",
		present("oldObject", p), present("object", p), present("object", p), access("oldObject", p), access("object", p))
}
