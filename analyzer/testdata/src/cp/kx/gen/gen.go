package gen // want package:"has sinks"

import (
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"cp/kx/core"
	"cp/kx/naming"
	"cp/kx/sysnames"
)

func Generic(unified bool, kri, addr string) *listenerv3.Listener { // want Generic:`sink params 1->listenerv3.Listener.Name`
	getName := naming.GetNameOrFallbackFunc(unified)
	return &listenerv3.Listener{Name: getName(kri, "inbound:"+addr)} // want `listenerv3\.Listener\.Name gets "inbound:\*" \(result of the function naming\.GetNameOrFallbackFunc returns\): contains ':'`
}

func Default(unified bool, kri, addr string) *clusterv3.Cluster { // want Default:`sink params 1->clusterv3.Cluster.Name`
	getNameOrDefault := sysnames.GetNameOrDefault(unified)
	return &clusterv3.Cluster{Name: getNameOrDefault(kri, "outbound:"+addr)} // want `clusterv3\.Cluster\.Name gets "outbound:\*" \(result of the function sysnames\.GetNameOrDefault returns\): contains ':'`
}

func Passed(unified bool, kri, addr string) *clusterv3.Cluster { // want Passed:`sink params 1->clusterv3.Cluster.Name`
	return build(naming.GetNameOrFallbackFunc(unified), kri, addr)
}

func build(getName func(string, string) string, kri, addr string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: getName(kri, "passed:"+addr)} // want `clusterv3\.Cluster\.Name gets "passed:\*" \(result of the function naming\.GetNameOrFallbackFunc returns\): contains ':'`
}

// SecretUnseen calls an interface whose only implementation is in a package gen does not import,
// directly or not: no analysis of gen alone can see it, and krilint stays quiet (docs/krilint.md).
func SecretUnseen(p core.Proxy, mesh string) *tlsv3.SdsSecretConfig {
	return &tlsv3.SdsSecretConfig{Name: p.SecretsTracker.RequestCa(mesh).Name()}
}
