package gen // want package:"has sinks"

import (
	"cp/kuma/listeners"
	v3 "cp/kuma/v3"
)

func Inbound(address string, port uint32, kri string) { // want Inbound:`sink params 2->listenerv3.Listener.Name`
	listeners.NewListenerBuilder().Configure(listeners.InboundListener(kri, address, port)).Build()
	listeners.NewListenerBuilder().Configure(listeners.InboundListener(listeners.InboundListenerName(address, port), address, port)).Build() // want `listenerv3\.Listener\.Name gets "inbound:\*:\*" \(result of listeners\.InboundListenerName\) through listeners\.InboundListener parameter listenerName`
	_ = &v3.HttpConnectionManagerConfigurer{StatsName: "http:" + address}                                                                    // want `http_connection_managerv3\.HttpConnectionManager\.StatPrefix gets "http:\*" \(literal "http:"\) through v3\.HttpConnectionManagerConfigurer\.StatsName: contains ':'`
}
