// Package listenerv3 is a stub of github.com/envoyproxy/go-control-plane/envoy/config/listener/v3.
package listenerv3

import corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

type Listener struct {
	Name         string
	Address      *corev3.Address
	StatPrefix   string
	FilterChains []*FilterChain
}

func (x *Listener) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

func (x *Listener) GetStatPrefix() string {
	if x != nil {
		return x.StatPrefix
	}
	return ""
}

type FilterChain struct {
	Filters []*Filter
	Name    string
}

func (x *FilterChain) GetName() string {
	if x != nil {
		return x.Name
	}
	return ""
}

// Filter.Name is the name of a filter extension ("envoy.filters.network.tcp_proxy"), not a resource name.
type Filter struct {
	Name       string
	ConfigType isFilter_ConfigType
}

type isFilter_ConfigType interface{ isFilter_ConfigType() }
