package tls // want package:"has sinks"

// tls names SDS secrets after the Name() of the requests it is handed, as Kuma's
// pkg/xds/envoy/tls/v3 does: it depends only on cp/kx/core, so it sees no implementation of the
// requests, and the result of Name() of its parameters is a sink its callers check.

import (
	"strings"

	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"cp/kx/core"
	"cp/kx/sysnames"
)

func Downstream(ca core.CaRequest, id core.IdentityCertRequest, unified bool) *tlsv3.CommonTlsContext { // want Downstream:`sink params 0.Name\(\)->tlsv3.SdsSecretConfig.Name 1.Name\(\)->tlsv3.SdsSecretConfig.Name`
	return common(id, ca, unified)
}

func common(own core.IdentityCertRequest, targetCa core.CaRequest, unified bool) *tlsv3.CommonTlsContext {
	getNameOrDefault := sysnames.GetNameOrDefault(unified)
	caSecret := SecretConfig(getNameOrDefault("system_mtls_ca_"+strings.Join(targetCa.MeshName(), "_"), targetCa.Name()))
	idSecret := SecretConfig(getNameOrDefault("system_mtls_identity_"+own.MeshName(), own.Name()))
	return &tlsv3.CommonTlsContext{TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{caSecret, idSecret}}
}

func SecretConfig(name string) *tlsv3.SdsSecretConfig { // want SecretConfig:`sink params 0->tlsv3.SdsSecretConfig.Name`
	return &tlsv3.SdsSecretConfig{Name: name}
}

// Sanitized and Described use the Name() of their parameter too, but not as it is: no sink.
func Sanitized(ca core.CaRequest) *tlsv3.SdsSecretConfig {
	return SecretConfig(strings.ReplaceAll(ca.Name(), ":", "_"))
}

func Described(ca core.CaRequest) string { return "CA " + ca.Name() }
