// Package traps holds strings that look like Envoy names, or sit next to them, but are not names. krilint
// must stay quiet on every line of this package.
package traps

import (
	"errors"
	"fmt"
	"log"
	"log/slog"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	"github.com/kriguard/kriguard/test/envoyvet/builders"
	"github.com/kriguard/kriguard/test/envoyvet/names"
)

// errUnknown is an error message, not a name.
var errUnknown = errors.New("cluster: unknown")

// PseudoHeaders matches on HTTP/2 pseudo-headers: HeaderMatcher.Name is a header name, and ':method' is
// what Envoy expects there.
func PseudoHeaders() *routev3.RouteMatch {
	return &routev3.RouteMatch{
		PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/api:v1"},
		Headers: []*routev3.HeaderMatcher{
			{
				Name: ":method",
				HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: &matcherv3.StringMatcher{
					MatchPattern: &matcherv3.StringMatcher_Exact{Exact: "GET"},
				}},
			},
			{Name: ":authority"},
		},
	}
}

// Addresses holds IPv6 addresses: SocketAddress.Address is not a name.
func Addresses() *corev3.Address {
	return &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
		Address:       "::1",
		PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: 8080},
	}}}
}

// SanitizedStatPrefixes go through a sanitizer before they reach the stat prefix, directly or through a
// builder parameter.
func SanitizedStatPrefixes(addr string, port uint32) (*hcmv3.HttpConnectionManager, *listenerv3.Listener) {
	hcm := &hcmv3.HttpConnectionManager{StatPrefix: names.Sanitize("inbound:" + addr)}
	l := builders.NewListenerBuilder("v3", names.Internal("sanitized")).
		WithStatPrefix(names.Sanitize(names.Inbound(addr, port))).
		Build()
	l.StatPrefix = strings.ReplaceAll(fmt.Sprintf("outbound:%s:%d", addr, port), ":", "_")
	return hcm, l
}

// Index keys clusters by their legacy names: map keys are not Envoy names.
func Index(clusters []*clusterv3.Cluster) map[string]*clusterv3.Cluster {
	byName := map[string]*clusterv3.Cluster{
		"outbound:default": nil,
	}
	for _, c := range clusters {
		byName["outbound:"+c.GetName()] = c
	}
	return byName
}

// Compare reads names and compares them with legacy ones.
func Compare(l *listenerv3.Listener, c *clusterv3.Cluster) (string, error) {
	if l.Name == "inbound:legacy" || strings.HasPrefix(l.GetName(), "inbound:") {
		return "", errUnknown
	}
	switch c.Name {
	case "outbound:legacy", names.Outbound("old"):
		return "", fmt.Errorf("cluster %q: legacy name %s:%s", c.Name, "outbound", c.Name)
	}
	name := l.Name
	return name + ":suffix", nil
}

// Logs mentions names in log and error messages.
func Logs(l *listenerv3.Listener, addr string, port uint32) error {
	log.Printf("building listener %s:%d", addr, port)
	slog.Info("built listener", "listener", "inbound:"+addr, "name", l.Name)
	return fmt.Errorf("listener %s: %w", names.Inbound(addr, port), errUnknown)
}

// OnePartJoin uses the join helper with a single part: there is nothing to join, so no ':'.
func OnePartJoin(service string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: names.Join(service)}
}

// listener is the fixture's own type: a field called Name is not a sink because of its spelling.
type listener struct {
	Name string
}

// LookAlikes writes ':' names into fields that are not go-control-plane sinks, and into sinks through calls
// that rewrite or drop the ':'.
func LookAlikes(l *listenerv3.Listener) []any {
	own := listener{Name: "inbound:own"}
	trimmed := &listenerv3.Listener{Name: strings.TrimPrefix(l.Name, "inbound:")}
	sanitized := builders.NewSanitizedListener("inbound:sanitized")
	single := &clusterv3.Cluster{Name: names.Join("backend")}
	return []any{own, trimmed, sanitized, single}
}
