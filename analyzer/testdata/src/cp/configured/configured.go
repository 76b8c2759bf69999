// Package configured has builder APIs named with -sinks=cp/configured.Register:1,cp/configured.Registry.Add:0.
package configured

type Registry struct{ names []string }

// Register keeps name somewhere krilint cannot see; the flag says it is an Envoy name.
func Register(kind, name string) {}

func (r *Registry) Add(name string) { r.names = append(r.names, name) }

func Use(r *Registry, svc string) {
	Register("kind:x", "cluster:"+svc) // want `argument 1 of configured\.Register \(-sinks\) gets "cluster:\*" \(literal "cluster:"\): contains ':'`
	r.Add("route:" + svc)              // want `argument 0 of \(\*configured\.Registry\)\.Add \(-sinks\) gets "route:\*"`
	forward("fwd:" + svc)              // want `argument 1 of configured\.Register \(-sinks\) gets "fwd:\*" \(literal "fwd:"\) through configured\.forward parameter name`
}

func forward(name string) { Register("k", name) }
