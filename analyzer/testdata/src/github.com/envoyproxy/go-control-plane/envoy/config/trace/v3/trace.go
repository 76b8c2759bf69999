// Package tracev3 is a stub of github.com/envoyproxy/go-control-plane/envoy/config/trace/v3.
package tracev3

import corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

type ZipkinConfig struct {
	CollectorCluster  string
	CollectorEndpoint string
}

type DatadogConfig struct {
	CollectorCluster string
	ServiceName      string
}

type LightstepConfig struct {
	CollectorCluster string
}

type OpenTelemetryConfig struct {
	GrpcService *corev3.GrpcService
	HttpService *corev3.HttpUri
	ServiceName string
}
