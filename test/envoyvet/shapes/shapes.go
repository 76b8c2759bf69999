// Package shapes builds names the way they mostly reach Envoy in real control planes: through
// closures returned by helpers, method values, interface methods, fields filled in constructors and
// read in Build, and maps of name functions. Each shape has a twin that must stay quiet.
package shapes

import (
	"fmt"
	"log"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tracev3 "github.com/envoyproxy/go-control-plane/envoy/config/trace/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	healthv3 "github.com/envoyproxy/go-control-plane/envoy/service/health/v3"

	"github.com/kriguard/kriguard/test/envoyvet/namefn"
)

// InboundListener asks for the unified name, with the legacy one as the default.
func InboundListener(unified bool, kri, addr string) *listenerv3.Listener {
	name := namefn.Unified(unified, kri)("inbound:" + addr)
	return &listenerv3.Listener{Name: name} // krilint: colon [Listener.Name]
}

func InboundListenerSanitized(unified bool, kri, addr string) *listenerv3.Listener {
	pick := namefn.Unified(unified, kri)
	return &listenerv3.Listener{Name: pick(namefn.Sanitize("inbound:" + addr))}
}

// OutboundCluster names the cluster with a closure over the mesh.
func OutboundCluster(mesh, service string) *clusterv3.Cluster {
	outbound := namefn.Legacy(mesh)
	return &clusterv3.Cluster{Name: outbound(service)} // krilint: colon [Cluster.Name]
}

func OutboundClusterSanitized(mesh, service string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: namefn.Sanitize(namefn.Legacy(mesh)(service))}
}

// Secret names the secret through the Resource interface: one of its two implementations is legacy.
func Secret(r namefn.Resource) *tlsv3.Secret {
	return &tlsv3.Secret{Name: r.ResourceName()} // krilint: colon [Secret.Name]
}

// ResourceHeader uses the same names as a header value, which is no Envoy name.
func ResourceHeader(r namefn.Resource) *routev3.HeaderMatcher {
	log.Printf("resource %s", r.ResourceName())
	return &routev3.HeaderMatcher{Name: r.ResourceName()}
}

type zipkinRef struct{ mesh string }

func (z zipkinRef) cluster() string { return "zipkin:" + z.mesh }
func (z zipkinRef) safe() string    { return "zipkin_" + z.mesh }

// Tracing takes the collector cluster from a method value.
func Tracing(mesh string) (*tracev3.ZipkinConfig, *tracev3.ZipkinConfig) {
	cluster, safe := zipkinRef{mesh}.cluster, zipkinRef{mesh}.safe
	return &tracev3.ZipkinConfig{CollectorCluster: cluster()}, // krilint: colon [ZipkinConfig.CollectorCluster]
		&tracev3.ZipkinConfig{CollectorCluster: safe()}
}

// ClusterGen keeps the name it is constructed with, and a function for its stat name.
type ClusterGen struct {
	name     string
	statName func() string
	label    string
}

func NewClusterGen(service string, port uint32) *ClusterGen {
	g := &ClusterGen{label: "cluster:" + service}
	g.name = "outbound:" + service // krilint: colon [Cluster.Name]
	g.statName = func() string { return fmt.Sprintf("%s:%d", service, port) }
	return g
}

func NewSafeClusterGen(service string) *ClusterGen {
	g := &ClusterGen{label: "cluster:" + service, statName: func() string { return "_" + service }}
	g.name = namefn.Sanitize("outbound:" + service)
	return g
}

func (g *ClusterGen) Build() *clusterv3.Cluster {
	if g.label == "cluster:legacy" {
		log.Printf("building %s", g.label)
	}
	return &clusterv3.Cluster{Name: g.name, AltStatName: g.statName()} // krilint: colon [Cluster.AltStatName]
}

var healthCheckNames = map[string]func(string) string{
	"legacy": func(s string) string { return "hds:" + s },
	"kri":    func(s string) string { return "kri_msvc_default__kuma-demo_" + s + "_" },
}

var safeHealthCheckNames = map[string]func(string) string{
	"legacy": func(s string) string { return "hds_" + s },
}

// HealthChecks names the health-checked cluster with a function picked from a map.
func HealthChecks(kind, service string) []*healthv3.ClusterHealthCheck {
	out := []*healthv3.ClusterHealthCheck{
		{ClusterName: healthCheckNames[kind](service)}, // krilint: colon [ClusterHealthCheck.ClusterName]
	}
	if f, ok := safeHealthCheckNames[kind]; ok {
		out = append(out, &healthv3.ClusterHealthCheck{ClusterName: f(service)})
	}
	return out
}

// nameSet keeps names in a slice, filled by a method and read back by another: the ':' is reported
// where it is added.
type nameSet struct{ names []string }

func (s *nameSet) add(name string) { s.names = append(s.names, name) }

func (s *nameSet) routes() []*routev3.RouteConfiguration {
	var out []*routev3.RouteConfiguration
	for _, n := range s.names {
		out = append(out, &routev3.RouteConfiguration{Name: n})
	}
	return out
}

func RouteConfigurations(port string) []*routev3.RouteConfiguration {
	s := &nameSet{}
	s.add("outbound:" + port) // krilint: colon [RouteConfiguration.Name]
	s.add("system_outbound_" + port)
	return s.routes()
}

// RouteConfigurationsQuiet reads a slice of safe names; the slice with ':' is only logged.
func RouteConfigurationsQuiet(port string) []*routev3.RouteConfiguration {
	safe := []string{"system_outbound_" + port}
	logged := []string{"outbound:" + port}
	log.Print(logged)
	var out []*routev3.RouteConfiguration
	for _, n := range safe {
		out = append(out, &routev3.RouteConfiguration{Name: n})
	}
	return out
}
