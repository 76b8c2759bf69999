package gen

import (
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"

	"cfg/registry"
)

func Listeners() []*listenerv3.Listener {
	registry.Register("inbound:8080") // want `registry.Register.*contains ':'`
	return []*listenerv3.Listener{
		{Name: "inbound-8080"},      // want `is a legacy name`
		{Name: "self_inbound_8080"}, // want `is a legacy name`
		{Name: "mine_inbound_8080"},
		{Name: "_internal"},
		{Name: "kri_dp_mesh-1__kuma-demo_backend_http"},
		{Name: "kri_mw_mesh-1__kuma-demo_widget_"},
	}
}
