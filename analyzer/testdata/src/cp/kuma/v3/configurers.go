package v3 // want package:"has sinks"

// Configurers in the style of Kuma's: each one fills part of a Listener, is reached through an
// interface, and holds its names in exported fields.

import (
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

type ListenerConfigurer interface {
	Configure(l *listenerv3.Listener) error
}

type InboundListenerConfigurer struct {
	ListenerName string // want ListenerName:`sink field ->listenerv3.Listener.Name`
	Address      string
	Port         uint32
}

func (c *InboundListenerConfigurer) Configure(l *listenerv3.Listener) error {
	l.Name = c.ListenerName
	return nil
}

type HttpConnectionManagerConfigurer struct {
	StatsName string // want StatsName:`sink field ->http_connection_managerv3.HttpConnectionManager.StatPrefix`
}

func (c *HttpConnectionManagerConfigurer) Manager() *hcmv3.HttpConnectionManager {
	return &hcmv3.HttpConnectionManager{StatPrefix: c.StatsName}
}
