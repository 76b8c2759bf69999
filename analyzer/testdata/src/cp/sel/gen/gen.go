package gen

import (
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"

	"cp/sel/naming"
)

// Passthrough is Kuma's inbound passthrough listener: the stat prefix is "" without unified naming,
// the contextual name with it, never the legacy name.
func Passthrough(unified, ipv6 bool) *listenerv3.Listener {
	nameOrDefault := naming.GetNameOrFallbackFunc(unified)
	inboundName := nameOrDefault("self_inbound_ipv4", "inbound:passthrough:ipv4")
	if ipv6 {
		inboundName = nameOrDefault("self_inbound_ipv6", "inbound:passthrough:ipv6")
	}
	statPrefix := nameOrDefault(inboundName, "")
	return &listenerv3.Listener{Name: inboundName, StatPrefix: statPrefix} // want `listenerv3\.Listener\.Name gets "inbound:passthrough:ipv4"`
}

// Predicate chooses by a function, which may answer the two calls differently.
func Predicate(unified func() bool) *listenerv3.Listener {
	f := naming.GetNameOrFallbackFunc(unified)
	name := f("self_inbound", "inbound:a:b")
	return &listenerv3.Listener{Name: "self_inbound", StatPrefix: f(name, "")} // want `listenerv3\.Listener\.StatPrefix gets "inbound:a:b"`
}

// ByArgument chooses by its argument: the second call may take the first's legacy name.
func ByArgument() *listenerv3.Listener {
	f := naming.OrDefault()
	name := f("", "inbound:c:d")
	return &listenerv3.Listener{Name: "self_inbound", StatPrefix: f(name, "")} // want `listenerv3\.Listener\.StatPrefix gets "inbound:c:d"`
}

// ByGlobal chooses by a variable that may change between the calls.
func ByGlobal() *listenerv3.Listener {
	f := naming.ByGlobal()
	name := f("self_inbound", "inbound:e:f")
	return &listenerv3.Listener{Name: "self_inbound", StatPrefix: f(name, "")} // want `listenerv3\.Listener\.StatPrefix gets "inbound:e:f"`
}

// Loop makes a closure per flag: the call of the previous round chose by another flag.
func Loop(flags []bool) *listenerv3.Listener {
	prev, statPrefix := "self_x", ""
	for _, u := range flags {
		f := naming.GetNameOrFallbackFunc(u)
		statPrefix = f(prev, "")
		prev = f("self_y", "inbound:g:h")
	}
	return &listenerv3.Listener{Name: "self_inbound", StatPrefix: statPrefix} // want `listenerv3\.Listener\.StatPrefix gets "inbound:g:h"`
}
