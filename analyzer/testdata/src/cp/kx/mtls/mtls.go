package mtls // want package:`implements .*SecretsTracker.RequestCa=\(envoy.tracker\).RequestCa returns envoy.caRequest`

// mtls hands the secrets tracker's requests to cp/kx/tls, which names secrets after their
// Name(): the name is checked here, against the implementations this package sees (forwarded by
// cp/kx/wire), and reported with the path into cp/kx/tls.

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"cp/kx/core"
	"cp/kx/tls"
	"cp/kx/wire"
)

func Server(mesh string, unified bool) *tlsv3.CommonTlsContext {
	p := wire.NewProxy()
	return tls.Downstream(
		p.SecretsTracker.RequestCa(mesh),       // want `tlsv3\.SdsSecretConfig\.Name gets "mesh_ca:secret:\*" \(result of \(envoy\.caRequest\)\.Name\) through the Name\(\) of tls\.Downstream parameter ca: contains ':'.*\(a reference to a secret named elsewhere\)`
		p.SecretsTracker.RequestIdentityCert(), // want `tlsv3\.SdsSecretConfig\.Name gets "identity_cert:secret:\*" \(result of \(\*?envoy\.identityCertRequest\)\.Name\) through the Name\(\) of tls\.Downstream parameter id: contains ':'`
		unified,
	)
}

func Gateway(p core.Proxy, unified bool) *tlsv3.CommonTlsContext {
	ca := p.SecretsTracker.RequestAllInOneCa()
	return tls.Downstream(ca, p.SecretsTracker.RequestIdentityCert(), unified) // want `tlsv3\.SdsSecretConfig\.Name gets "mesh_ca:secret:all" \(result of \(\*envoy\.allInOneCaRequest\)\.Name\) through the Name\(\) of tls\.Downstream parameter ca` `"identity_cert:secret:\*"`
}

// safeCa is a request of this package whose name is a KRI-free system name: quiet.
type safeCa struct{}

func (safeCa) Name() string       { return "system_mesh_ca_default" }
func (safeCa) MeshName() []string { return []string{"default"} }

type safeID struct{}

func (safeID) Name() string     { return "system_identity_default" }
func (safeID) MeshName() string { return "default" }

func Safe(unified bool) *tlsv3.CommonTlsContext {
	return tls.Downstream(safeCa{}, safeID{}, unified)
}

// Sanitized and Described do not write Name() as it is: nothing to check.
func Sanitized(p core.Proxy) (*tlsv3.SdsSecretConfig, string) {
	ca := p.SecretsTracker.RequestCa("default")
	return tls.Sanitized(ca), tls.Described(ca)
}

// An interface call runs the methods of the types its receiver may hold, when they are known.
type namer interface{ Name() string }

type badNamer struct{}

func (badNamer) Name() string { return "bad:name" } // want Name:`result "bad:name"`

type goodNamer struct{}

func (goodNamer) Name() string { return "good_name" }

func pick() namer { return goodNamer{} }

func Narrowed() *tlsv3.Secret { return &tlsv3.Secret{Name: pick().Name()} }

func Wide(n namer) *tlsv3.Secret {
	return &tlsv3.Secret{Name: n.Name()} // want `tlsv3\.Secret\.Name gets "bad:name" \(result of \(mtls\.badNamer\)\.Name\): contains ':'`
}
