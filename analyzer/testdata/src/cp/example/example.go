package example

import (
	"fmt"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
)

type builder struct{ name string }

func newBuilder(name string) *builder { return &builder{name: name} }

func (b *builder) build() *listenerv3.Listener { return &listenerv3.Listener{Name: b.name} }

func Listeners(addr string, port int) {
	newBuilder(fmt.Sprintf("inbound:%s:%d", addr, port)).build()
	newBuilder(fmt.Sprintf("kri_dp_default__%s_web_%d", addr, port)).build()
}
