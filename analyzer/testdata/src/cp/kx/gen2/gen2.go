package gen2 // want package:`has sinks foreign envoy.ClusterImpl.name->clusterv3.Cluster.Name` package:`implements cp/kx/core.CaRequest.Name=\(\*envoy.allInOneCaRequest\).Name "mesh_ca:secret:all" cp/kx/core.CaRequest.Name=\(envoy.caRequest\).Name "mesh_ca:secret:\*" cp/kx/core.IdentityCertRequest.Name=\(envoy.identityCertRequest\).Name "identity_cert:secret:\*" .*cp/kx/core.SecretsTracker.RequestCa=\(envoy.tracker\).RequestCa returns envoy.caRequest`

import (
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"cp/kx/core"
	"cp/kx/envoy"
)

func Outbound(svc string) *clusterv3.Cluster {
	var c envoy.Cluster = envoy.NewCluster(envoy.WithService(svc), envoy.WithName("outbound:"+svc)) // want `clusterv3\.Cluster\.Name gets "outbound:\*" \(literal "outbound:"\) through envoy\.WithName parameter name: contains ':'`
	return &clusterv3.Cluster{Name: c.Name()}
}

// Secret calls two interfaces in a row, the second's implementation in a package gen2 imports.
func Secret(p core.Proxy, mesh string) *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: p.SecretsTracker.RequestCa(mesh).Name()} // want `tlsv3\.SdsSecretConfig\.Name gets "mesh_ca:secret:\*" \(result of \(envoy\.caRequest\)\.Name\): contains ':'.*\(a reference to a secret named elsewhere\)`
}

// AllInOne runs the Name of what RequestAllInOneCa returns, the other implementation of CaRequest.
func AllInOne(p core.Proxy) *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: p.SecretsTracker.RequestAllInOneCa().Name()} // want `tlsv3\.SdsSecretConfig\.Name gets "mesh_ca:secret:all" \(result of \(\*envoy\.allInOneCaRequest\)\.Name\)`
}
