package gen3 // want package:`implements .*\(gen3\.safeTracker\)\.RequestCa returns gen3\.safeCa`

// gen3 hands the proxy's secrets tracker to the configurer of cp/kx/clusters3, through the option
// of cp/kx/clusters and directly: the names are checked here, against the implementations cp/kx/wire
// forwards, and reported where the tracker is handed over.

import (
	"cp/kx/clusters"
	"cp/kx/clusters3"
	"cp/kx/core"
	"cp/kx/wire"
)

func Outbound(mesh string) clusters.Opt {
	p := wire.NewProxy()
	return clusters.ClientSideMTLS(p.SecretsTracker, mesh) // want `tlsv3\.SdsSecretConfig\.Name gets "mesh_ca:secret:\*" \(result of \(envoy\.caRequest\)\.Name\) through the RequestCa\(\)\.Name\(\) of clusters\.ClientSideMTLS parameter tracker: contains ':'.*\(a reference to a secret named elsewhere\)` `"identity_cert:secret:\*" \(result of \(\*?envoy\.identityCertRequest\)\.Name\) through the RequestIdentityCert\(\)\.Name\(\) of clusters\.ClientSideMTLS`
}

func Direct(p core.Proxy) *clusters3.MTLSConfigurer {
	return &clusters3.MTLSConfigurer{SecretsTracker: p.SecretsTracker} // want `tlsv3\.SdsSecretConfig\.Name gets "mesh_ca:secret:\*" \(result of \(envoy\.caRequest\)\.Name\) through the RequestCa\(\)\.Name\(\) of clusters3\.MTLSConfigurer\.SecretsTracker` `"identity_cert:secret:\*"`
}

// A tracker of this package whose requests have safe names: quiet, though cp/kx/envoy's tracker
// is forwarded too.
type safeTracker struct{}

type safeCa struct{}

func (safeCa) Name() string       { return "system_mesh_ca_default" }
func (safeCa) MeshName() []string { return []string{"default"} }

type safeID struct{}

func (safeID) Name() string     { return "system_identity_default" }
func (safeID) MeshName() string { return "default" }

func (safeTracker) RequestCa(string) core.CaRequest               { return safeCa{} }
func (safeTracker) RequestAllInOneCa() core.CaRequest             { return safeCa{} }
func (safeTracker) RequestIdentityCert() core.IdentityCertRequest { return safeID{} }

func Safe(mesh string) clusters.Opt {
	return clusters.ClientSideMTLS(safeTracker{}, mesh)
}

// Logged hands the proxy's tracker to a field whose results are only logged: quiet.
func Logged() *clusters3.MTLSConfigurer {
	return clusters.Logged(wire.NewProxy().SecretsTracker)
}
