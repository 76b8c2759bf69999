// Package gen writes the tracker's secret names into SDS secret configs and secrets through the
// interfaces of secrets/core. go vet gives it no fact of secrets/tracker (its type information
// does not reach it); the implementations reach it as a fact that secrets/tracker exports and
// secrets/wire forwards.
package gen

import (
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/kriguard/kriguard/test/envoyvet/secrets/core"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/mtls"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/options"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/tls"
	"github.com/kriguard/kriguard/test/envoyvet/secrets/wire"
)

func Proxy(mesh string) core.Proxy { return wire.NewProxy(mesh) }

func CaSecretConfig(p core.Proxy) *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: p.SecretsTracker.RequestCa(p.Mesh).Name()} // krilint: colon [SdsSecretConfig.Name]
}

func CaSecret(p core.Proxy, mesh string) *tlsv3.Secret {
	name := p.SecretsTracker.RequestCa(mesh).Name()
	return secret(name) // krilint: colon [Secret.Name]
}

func IdentitySecret(p core.Proxy) *tlsv3.Secret {
	return secret(p.SecretsTracker.RequestIdentity().Name())
}

func secret(name string) *tlsv3.Secret {
	return &tlsv3.Secret{Name: name}
}

// AllInOneSecretConfig calls the other implementation of CaRequest.Name, whose name is safe.
func AllInOneSecretConfig(p core.Proxy) *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: p.SecretsTracker.RequestAllInOneCa().Name()}
}

// ServerContext hands the requests to secrets/tls, which writes their Name() to SDS secret
// configs: the CA's is reported here, the identity's is safe.
func ServerContext(p core.Proxy) *tlsv3.CommonTlsContext {
	return tls.Context(
		p.SecretsTracker.RequestCa(p.Mesh), // krilint: colon [SdsSecretConfig.Name]
		p.SecretsTracker.RequestIdentity(),
	)
}

// GatewayContext: the all-in-one CA's name is safe.
func GatewayContext(p core.Proxy) *tlsv3.CommonTlsContext {
	return tls.Context(p.SecretsTracker.RequestAllInOneCa(), p.SecretsTracker.RequestIdentity())
}

// ClientSide hands the tracker to the client-side configurer through an option: the CA's name is
// reported where the tracker is handed over, the identity's is safe.
func ClientSide(p core.Proxy) options.Opt {
	return options.ClientSideMTLS(p.SecretsTracker, p.Mesh) // krilint: colon [SdsSecretConfig.Name]
}

// ClientSideDirect writes the field itself.
func ClientSideDirect(p core.Proxy) *mtls.ClientSideConfigurer {
	return &mtls.ClientSideConfigurer{SecretsTracker: p.SecretsTracker, Mesh: p.Mesh} // krilint: colon [SdsSecretConfig.Name]
}
