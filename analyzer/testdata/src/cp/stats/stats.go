package stats // want package:"has sinks"

// Names in Envoy's stats: cluster names without an alt_stat_name, virtual-host names and stat
// prefixes must be stat-safe; an alt_stat_name that sanitizes its cluster's name is Kuma's and is
// held to no KRI rule.

import (
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
)

const extsvc = "kri_extsvc_default__kuma-system_httpbin.org_443"

// sanitize is Kuma's metric sanitizer in spirit: krilint cannot see through strings.Map, so its
// result is unknown and never reported.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

func Clusters(host string) []*clusterv3.Cluster {
	return []*clusterv3.Cluster{
		{Name: extsvc}, // want `clusterv3\.Cluster\.Name gets "kri_extsvc_default__kuma-system_httpbin\.org_443" \(literal "kri_extsvc_default__kuma-system_httpbin\.org_443"\): holds '\.', outside Envoy's stat-safe set \[a-zA-Z0-9_-\]: '\.' splits the name .* \(set the cluster's alt_stat_name to`
		// Kuma's own: the alt_stat_name is the sanitized name. It starts with "kri_" and is no
		// KRI, and is not denied for it.
		{Name: extsvc, AltStatName: "kri_extsvc_default__kuma-system_httpbin_org_443"},
		{Name: "outbound_" + host + ".svc_80", AltStatName: sanitize("outbound_" + host + ".svc_80")},
		// An alt_stat_name that is not the cluster's name sanitized is held to the rules: it covers
		// the cluster's stats, and is itself checked.
		{Name: extsvc, AltStatName: "kri_bogus"},          // want `clusterv3\.Cluster\.AltStatName gets "kri_bogus" \(literal "kri_bogus"\): starts with "kri_" but is not a KRI`
		{Name: "backend.svc", AltStatName: "backend.svc"}, // want `clusterv3\.Cluster\.AltStatName gets "backend\.svc" \(literal "backend\.svc"\): holds '\.'`
		{Name: "backend_svc_80"},
		{Name: "outbound_" + host + "_80"}, // a hole may hold anything: never reported
	}
}

// Set later in the same function, the alt_stat_name still covers the name.
func Later() *clusterv3.Cluster {
	c := &clusterv3.Cluster{Name: "api.example.com_443"}
	c.AltStatName = sanitize(c.Name)
	return c
}

// Through a parameter: a builder that sets both names covers the name it is handed; one that does
// not leaves it in the stats.
func Covered(name string) *clusterv3.Cluster { // want Covered:`sink params 0->clusterv3.Cluster.Name`
	return &clusterv3.Cluster{Name: name, AltStatName: sanitize(name)}
}

func Bare(name string) *clusterv3.Cluster { // want Bare:`sink params 0->clusterv3.Cluster.Name`
	return &clusterv3.Cluster{Name: name}
}

func Built() {
	_ = Covered("api.example.com_443")
	_ = Bare("api.example.com_443") // want `clusterv3\.Cluster\.Name gets "api\.example\.com_443" \(literal "api\.example\.com_443"\) through stats\.Bare parameter name: holds '\.'`
}

func Prefixes(port string) {
	_ = &listenerv3.Listener{Name: "inbound_" + port, StatPrefix: "inbound.10_0_0_1"}       // want `listenerv3\.Listener\.StatPrefix gets "inbound\.10_0_0_1" \(literal "inbound\.10_0_0_1"\): holds '\.'.*\(replace every other character with '_'\)`
	_ = &hcmv3.HttpConnectionManager{StatPrefix: "backend.kuma-demo.svc." + port}           // want `http_connection_managerv3\.HttpConnectionManager\.StatPrefix gets "backend\.kuma-demo\.svc\.\*" \(literal "backend\.kuma-demo\.svc\."\): holds '\.'`
	_ = &tcpv3.TcpProxy{StatPrefix: sanitize("backend.kuma-demo.svc." + port)}              // sanitized: quiet
	_ = &tcpv3.TcpProxy{StatPrefix: "db/primary"}                                           // want `tcp_proxyv3\.TcpProxy\.StatPrefix gets "db/primary" \(literal "db/primary"\): holds '/', outside Envoy's stat-safe set \[a-zA-Z0-9_-\]: stats sinks rewrite it`
	_ = &routev3.VirtualHost{Name: "httpbin.org", Domains: []string{"httpbin.org"}}         // want `routev3\.VirtualHost\.Name gets "httpbin\.org" \(literal "httpbin\.org"\): holds '\.'`
	_ = &routev3.RouteConfiguration{Name: "outbound.routes"}                                // not in the stats: quiet
	_ = &listenerv3.Listener{Name: "inbound:10.0.0.1:8080", StatPrefix: "inbound_10_0_0_1"} // want `listenerv3\.Listener\.Name gets "inbound:10\.0\.0\.1:8080" .*: contains ':'`
}
