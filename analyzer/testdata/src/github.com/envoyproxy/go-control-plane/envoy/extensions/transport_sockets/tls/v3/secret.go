// Package tlsv3 is a stub of github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3.
package tlsv3

type Secret struct {
	Name string
}

type SdsSecretConfig struct {
	Name string
}

type CommonTlsContext struct {
	TlsCertificateSdsSecretConfigs []*SdsSecretConfig
}
