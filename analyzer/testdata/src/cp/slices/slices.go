// Package slices keeps names in slices: appended, indexed, ranged over, kept in a field and filled
// by a method, returned by a helper. Each has a quiet twin.
package slices

import (
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
)

func Appended(addr string) []*listenerv3.Listener {
	var names []string
	names = append(names, "inbound:"+addr)
	names = append(names, "system_inbound")
	var out []*listenerv3.Listener
	for _, n := range names {
		out = append(out, &listenerv3.Listener{Name: n}) // want `listenerv3\.Listener\.Name gets "inbound:\*" \(literal "inbound:"\): contains ':'`
	}
	return out
}

func Indexed(addr string) *clusterv3.Cluster {
	names := make([]string, 0, 2)
	names = append(names, "outbound:"+addr)
	return &clusterv3.Cluster{Name: names[0], AltStatName: "outbound_x"} // want `clusterv3\.Cluster\.Name gets "outbound:\*"`
}

// Spread: append(a, b...) takes b's elements.
func Spread(addr string) *clusterv3.Cluster {
	more := []string{"spread:" + addr}
	names := append([]string{"system_a"}, more...)
	return &clusterv3.Cluster{Name: names[1], AltStatName: "spread_x"} // want `clusterv3\.Cluster\.Name gets "spread:\*"`
}

// registry keeps names in a field, filled by a method: the method's parameter becomes a sink, as a
// field's setter's does, and the ':' is reported where it is added.
type registry struct{ names []string }

func (r *registry) add(name string) { r.names = append(r.names, name) }

func (r *registry) listeners() []*listenerv3.Listener {
	var out []*listenerv3.Listener
	for _, n := range r.names {
		out = append(out, &listenerv3.Listener{Name: n})
	}
	return out
}

func Registered(addr string) []*listenerv3.Listener {
	r := &registry{}
	r.add("admin:" + addr) // want `listenerv3\.Listener\.Name gets "admin:\*" \(literal "admin:"\) through \(\*slices\.registry\)\.add parameter name: contains ':'`
	r.add("system_admin")
	return r.listeners()
}

// namesOf returns a slice made here: its callers' elements are its stores.
func namesOf(addr string) []string { return []string{"helper:" + addr, "system_helper"} }

func Returned(addr string) *listenerv3.Listener {
	return &listenerv3.Listener{Name: namesOf(addr)[0]} // want `listenerv3\.Listener\.Name gets "helper:\*"`
}

// Quiet: the safe slice is read, not the one with ':'; elements sanitized before the sink; a
// slice of ':' strings that is only joined for a log line.
func Quiet(addr string) []*listenerv3.Listener {
	bad := []string{"bad:" + addr}
	good := append([]string(nil), "system_good")
	out := []*listenerv3.Listener{{Name: good[0]}}
	for _, n := range bad {
		out = append(out, &listenerv3.Listener{Name: strings.ReplaceAll(n, ":", "_")})
	}
	logf(strings.Join(bad, ", "))
	return out
}

func logf(string) {}
