// Package http_connection_managerv3 is a stub of
// github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3.
package http_connection_managerv3

import corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

type HttpConnectionManager struct {
	StatPrefix     string
	RouteSpecifier isHttpConnectionManager_RouteSpecifier
}

type isHttpConnectionManager_RouteSpecifier interface{ isHttpConnectionManager_RouteSpecifier() }

type HttpConnectionManager_Rds struct {
	Rds *Rds
}

func (*HttpConnectionManager_Rds) isHttpConnectionManager_RouteSpecifier() {}

type Rds struct {
	ConfigSource    *corev3.ConfigSource
	RouteConfigName string
}
