package clusters // want package:"has sinks"

// clusters writes the tracker it is handed to the configurer's field, in a functional option as
// Kuma's ClientSideMTLS does: the field's sink becomes one of its parameter.

import (
	"cp/kx/clusters3"
	"cp/kx/core"
)

type Builder struct{ configurers []*clusters3.MTLSConfigurer }

type Opt func(*Builder)

func ClientSideMTLS(tracker core.SecretsTracker, mesh string) Opt { // want ClientSideMTLS:`sink params 0.RequestCa\(\)\.Name\(\)->tlsv3\.SdsSecretConfig\.Name 0.RequestIdentityCert\(\)\.Name\(\)->tlsv3\.SdsSecretConfig\.Name`
	return func(b *Builder) {
		b.configurers = append(b.configurers, &clusters3.MTLSConfigurer{SecretsTracker: tracker, Mesh: mesh})
	}
}

// Logged writes its tracker to a field whose results are only logged: no sink.
func Logged(tracker core.SecretsTracker) *clusters3.MTLSConfigurer {
	return &clusters3.MTLSConfigurer{Logger: tracker}
}
