// Package mtls is the shape of Kuma's clusters/v3.ClientSideMTLSConfigurer: it keeps the secrets
// tracker in a field and hands its requests to secrets/tls, which names SDS secrets after their
// Name(). It depends on secrets/core only: the result of RequestCa(…).Name() of the field is a sink
// (a fact on the field), checked where the field is written.
package mtls

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/kriguard/kriguard/test/envoyvet/secrets/core"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/tls"
)

type ClientSideConfigurer struct {
	SecretsTracker core.SecretsTracker
	Mesh           string
}

func (c *ClientSideConfigurer) Context() *tlsv3.CommonTlsContext {
	ca := c.SecretsTracker.RequestCa(c.Mesh)
	identity := c.SecretsTracker.RequestIdentity()
	return tls.Context(ca, identity)
}
