// Package listeners hands the paths to v3's configurer and writes none of their fields.
package listeners

import (
	"github.com/kriguard/kriguard/test/envoyvet/fwd/paths"
	v3 "github.com/kriguard/kriguard/test/envoyvet/fwd/v3"
)

// Configurer configures a listener.
type Configurer interface{ Configure() }

type staticEndpoints struct{ c *v3.StaticEndpoints }

func (s staticEndpoints) Configure() { _ = s.c.Configure() }

// StaticEndpoints serves the paths on the listener.
func StaticEndpoints(virtualHost string, ps []*paths.Path) Configurer {
	return staticEndpoints{&v3.StaticEndpoints{VirtualHost: virtualHost, Paths: ps}}
}
