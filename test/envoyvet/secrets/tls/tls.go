// Package tls names the SDS secrets of a TLS context after the Name() of the requests it is
// handed, as Kuma's pkg/xds/envoy/tls/v3 does. It depends on secrets/core only and sees no
// implementation of the requests: the result of Name() of its parameters is a sink (a fact), which
// the callers check against the implementations they see.
package tls

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/kriguard/kriguard/test/envoyvet/secrets/core"
)

func Context(ca core.CaRequest, id core.IdentityRequest) *tlsv3.CommonTlsContext {
	return &tlsv3.CommonTlsContext{
		TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{secretConfig(id.Name())},
		ValidationContextType: &tlsv3.CommonTlsContext_ValidationContextSdsSecretConfig{
			ValidationContextSdsSecretConfig: secretConfig(ca.Name()),
		},
	}
}

func secretConfig(name string) *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: name}
}
