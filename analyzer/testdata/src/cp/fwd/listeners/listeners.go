package listeners // want package:`forwards cfg\.Path\.ClusterName->routev3\.RouteAction_Cluster\.Cluster`

// listeners wraps the configurer of v3 and writes no field of cfg: it only passes on what
// v3 found, so that its importers, which do not import v3, check their writes.

import (
	"cp/fwd/cfg"
	"cp/fwd/v3"
)

type Option interface{ apply() }

type configurer struct{ c *v3.StaticEndpoints }

func (configurer) apply() {}

func StaticEndpoints(paths []*cfg.Path) Option {
	return configurer{&v3.StaticEndpoints{Paths: paths}}
}
