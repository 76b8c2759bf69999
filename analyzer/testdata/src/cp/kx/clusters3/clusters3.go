package clusters3 // want package:"has sinks"

// clusters3 is the shape of Kuma's ClientSideMTLSConfigurer: it hands the requests of the secrets
// tracker kept in a field to cp/kx/tls, which names SDS secrets after their Name(). It depends on
// no implementation of the tracker, so the result of RequestCa(…).Name() of the field is a sink
// (a fact on the field), checked where the field is written.

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"cp/kx/core"
	"cp/kx/tls"
)

type MTLSConfigurer struct {
	SecretsTracker core.SecretsTracker // want SecretsTracker:`sink methods RequestCa\(\)\.Name\(\)->tlsv3\.SdsSecretConfig\.Name RequestIdentityCert\(\)\.Name\(\)->tlsv3\.SdsSecretConfig\.Name`
	Mesh           string
	Unified        bool
	// Logger's results are only logged: no sink.
	Logger core.SecretsTracker
}

func (c *MTLSConfigurer) Configure() *tlsv3.CommonTlsContext {
	ca := c.SecretsTracker.RequestCa(c.Mesh)
	identity := c.SecretsTracker.RequestIdentityCert()
	_ = tls.Described(c.Logger.RequestCa(c.Mesh))
	return tls.Downstream(ca, identity, c.Unified)
}
