// Package traps holds strings that look like Envoy names, or sit next to them, but are not names.
// krilint must stay quiet on every line.
package traps

import (
	"errors"
	"fmt"
	"log"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"cp/builders"
	"cp/names"
)

var errUnknown = errors.New("cluster: unknown")

// HeaderMatcher.Name is a header name; ":method" is what Envoy expects there.
func PseudoHeaders() *routev3.RouteMatch {
	return &routev3.RouteMatch{
		PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/api:v1"},
		Headers:       []*routev3.HeaderMatcher{{Name: ":method"}, {Name: ":authority"}},
	}
}

// SocketAddress.Address is not a name; Filter.Name is an extension name.
func Addresses() (*corev3.Address, *listenerv3.Filter) {
	return &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{Address: "::1"}}},
		&listenerv3.Filter{Name: "envoy.filters.network:odd"}
}

func SanitizedStatPrefixes(addr string, port uint32) (*hcmv3.HttpConnectionManager, *listenerv3.Listener) {
	hcm := &hcmv3.HttpConnectionManager{StatPrefix: names.Sanitize("inbound:" + addr)}
	l := builders.NewListenerBuilder("v3", names.Internal("sanitized")).
		WithStatPrefix(names.Sanitize(names.Inbound(addr, port))).
		Build()
	l.StatPrefix = strings.ReplaceAll(fmt.Sprintf("outbound:%s:%d", addr, port), ":", "_")
	return hcm, l
}

func Index(clusters []*clusterv3.Cluster) map[string]*clusterv3.Cluster {
	byName := map[string]*clusterv3.Cluster{"outbound:default": nil}
	for _, c := range clusters {
		byName["outbound:"+c.GetName()] = c
	}
	return byName
}

func Compare(l *listenerv3.Listener, c *clusterv3.Cluster) (string, error) {
	if l.Name == "inbound:legacy" || strings.HasPrefix(l.GetName(), "inbound:") {
		return "", errUnknown
	}
	switch c.Name {
	case "outbound:legacy", names.Outbound("old"):
		return "", fmt.Errorf("cluster %q: legacy name %s:%s", c.Name, "outbound", c.Name)
	}
	return l.Name, nil
}

func Logs(l *listenerv3.Listener, addr string, port uint32) error {
	log.Printf("building listener %s:%d", addr, port)
	return fmt.Errorf("listener %s: %w", names.Inbound(addr, port), errUnknown)
}

// A one-part join has nothing to join.
func OnePartJoin(service string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: names.Join(service)}
}

// Reading a name field and copying it elsewhere is no new name.
func Copy(src *clusterv3.Cluster) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: src.Name, AltStatName: src.GetName()}
}
