package statcfg // want package:"has sinks, sets alt_stat_name"

// A configurer in the style of Kuma's AltStatNameConfigurer: it sets the alt_stat_name of a
// cluster made elsewhere, so any cluster of its importers may be covered.

import (
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
)

type AltStatNameConfigurer struct{}

func (AltStatNameConfigurer) Configure(c *clusterv3.Cluster) error {
	if s := strings.ReplaceAll(c.Name, ".", "_"); s != c.Name {
		c.AltStatName = s
	}
	return nil
}
