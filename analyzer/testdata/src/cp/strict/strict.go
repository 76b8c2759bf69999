package strict // want package:"has sinks"

// Checked with -strict -prefixes=self_,system_,mine_.

import (
	"fmt"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
)

func Listeners(addr string, port uint32) { // want Listeners:"sink params 0->listenerv3.Listener.Name"
	_ = &listenerv3.Listener{Name: "inbound-8080"}                                  // want `listenerv3\.Listener\.Name gets "inbound-8080" \(literal "inbound-8080"\): is a legacy name: not a KRI, not internal and not under an accepted prefix \("kri_…", "_…", "self_…", "system_…", "mine_…"\)`
	_ = &listenerv3.Listener{StatPrefix: fmt.Sprintf("outbound_%s_%d", addr, port)} // want `listenerv3\.Listener\.StatPrefix gets "outbound_\*_\*" .*: is a legacy name`
	_ = &listenerv3.Listener{Name: "self_inbound"}
	_ = &listenerv3.Listener{Name: "system_admin"}
	_ = &listenerv3.Listener{Name: "mine_" + addr}
	_ = &listenerv3.Listener{Name: "_internal"}
	_ = &listenerv3.Listener{Name: "kri_dp_default___web_http"}
	_ = &listenerv3.Listener{Name: "kri_mw_default___widget_"} // registered with -types
	_ = &listenerv3.Listener{Name: "kri_mx_default___widget_"} // want `starts with "kri_" but is not a KRI: kri\.type: Unsupported value: "mx"`
	_ = &listenerv3.Listener{Name: addr}
	_ = &listenerv3.Listener{Name: "se" + addr}
	_ = &listenerv3.Listener{Name: "legacy:name"} // want `gets "legacy:name" \(literal "legacy:name"\): contains ':', which Envoy resource names must not \(use '_'\); and is a legacy name`
}
