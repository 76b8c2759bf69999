package naming

import "strings"

// SNIMaxLen is the DNS host-name limit Kuma holds an SNI to (docs/kri.md, "SNI budget").
const SNIMaxLen = 253

// SNIPorts says where a kind that Kuma names SNIs after keeps its ports, and which value names a
// port's section. Exactly one of List and Single is set.
type SNIPorts struct {
	// List is the path of the list of ports (each with "name" and "port").
	List []string
	// Single is the path of the one port number (MeshExternalService's spec.match.port).
	Single []string
	// EmptyNameIsSection: a port name that is set is the section even when empty (MeshService);
	// otherwise an empty or absent name gives way to the port number.
	EmptyNameIsSection bool
}

var sniPorts = map[string]SNIPorts{
	"MeshService":          {List: []string{"spec", "ports"}, EmptyNameIsSection: true},
	"MeshMultiZoneService": {List: []string{"spec", "ports"}},
	"MeshExternalService":  {Single: []string{"spec", "match", "port"}},
}

// SNIPortsOf returns where kind keeps the ports Kuma names SNIs after, and false for the kinds it
// names none after (Kuma v2.14, pkg/core/resources/sni; docs/kri.md).
func SNIPortsOf(kind string) (SNIPorts, bool) {
	p, ok := sniPorts[kind]
	return p, ok
}

// SNI is the SNI Kuma builds from k with section as the port:
// sni.<type>.<mesh>[.<zone>[.<namespace>]].<name>.<section>. The namespace appears only with a zone.
func SNI(k KRI, section string) string {
	segs := []string{"sni", k.Type, k.Mesh}
	if k.Zone != "" {
		segs = append(segs, k.Zone)
		if k.Namespace != "" {
			segs = append(segs, k.Namespace)
		}
	}
	return strings.Join(append(segs, k.Name, section), ".")
}
