package listeners // want package:"has sinks"

import (
	"fmt"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"

	v3 "cp/kuma/v3"
)

type ListenerBuilder struct {
	configurers []v3.ListenerConfigurer
}

type ListenerBuilderOpt interface {
	ApplyTo(b *ListenerBuilder)
}

type optFunc func(b *ListenerBuilder)

func (f optFunc) ApplyTo(b *ListenerBuilder) { f(b) }

func NewListenerBuilder() *ListenerBuilder { return &ListenerBuilder{} }

func (b *ListenerBuilder) Configure(opts ...ListenerBuilderOpt) *ListenerBuilder {
	for _, o := range opts {
		o.ApplyTo(b)
	}
	return b
}

func (b *ListenerBuilder) Build() (*listenerv3.Listener, error) {
	l := &listenerv3.Listener{}
	for _, c := range b.configurers {
		if err := c.Configure(l); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// InboundListener keeps its name in a configurer: the parameter reaches Listener.Name.
func InboundListener(listenerName, address string, port uint32) ListenerBuilderOpt { // want InboundListener:`sink params 0->listenerv3.Listener.Name`
	return optFunc(func(b *ListenerBuilder) {
		b.configurers = append(b.configurers, &v3.InboundListenerConfigurer{ListenerName: listenerName, Address: address, Port: port})
	})
}

// InboundListenerName is Kuma's legacy inbound name.
func InboundListenerName(address string, port uint32) string { // want InboundListenerName:`result "inbound:\{0\}:\*"`
	return fmt.Sprintf("inbound:%s:%d", address, port)
}

// NewInboundListenerBuilder names the listener itself, from a helper whose result holds ':'.
func NewInboundListenerBuilder(address string, port uint32) *ListenerBuilder {
	return NewListenerBuilder().Configure(InboundListener(InboundListenerName(address, port), address, port)) // want `listenerv3\.Listener\.Name gets "inbound:\*:\*" \(result of listeners\.InboundListenerName\) through listeners\.InboundListener parameter listenerName: contains ':'`
}
