package statgen

// A control plane with an alt_stat_name configurer: its dotted cluster names are not reported,
// since the configurer may cover them; its stat prefixes still are.

import (
	"cp/statcfg"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

func Cluster() *clusterv3.Cluster {
	c := &clusterv3.Cluster{Name: "api.example.com_443"}
	_ = statcfg.AltStatNameConfigurer{}.Configure(c)
	_ = &hcmv3.HttpConnectionManager{StatPrefix: "api.example.com"} // want `holds '\.'`
	return c
}
