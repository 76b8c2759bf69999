// Package configured hands names to registry.Register, a sink only with
// -sinks=github.com/kriguard/kriguard/test/envoyvet/registry.Register:1: its markers are of the form
// "krilint(sinks): RULE" and must stay quiet without the flag.
package configured

import (
	"github.com/kriguard/kriguard/test/envoyvet/names"
	"github.com/kriguard/kriguard/test/envoyvet/registry"
)

// RegisterCluster passes its name on to the configured sink, so it becomes a sink itself.
func RegisterCluster(name string) {
	registry.Register("cluster", name)
}

// Register registers the service's resources.
func Register(service string, port uint32) {
	registry.Register("listener", names.Inbound("10.0.0.1", port)) // krilint(sinks): colon
	registry.Register("listener", names.KRI("dp", "mesh-1", "", "kuma-demo", service, ""))
	registry.Register("cluster:kind", names.Internal(service))
	RegisterCluster("outbound:" + service) // krilint(sinks): colon
	RegisterCluster(names.KRI("msvc", "mesh-1", "", "kuma-demo", service, ""))
	RegisterCluster("kri_MSVC_mesh-1__kuma-demo_" + service + "_") // krilint(sinks): not-kri
}
