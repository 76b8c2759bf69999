package envoy // want package:`implements cp/kx/core.CaRequest.Name=\(envoy.caRequest\).Name "mesh_ca:secret:\*"`

import (
	"strings"

	"cp/kx/core"
)

func join(parts ...string) string { return strings.Join(parts, ":") }

type caRequest struct{ mesh string }

func (r caRequest) Name() string       { return join("mesh_ca", "secret", r.mesh) } // want Name:`result "mesh_ca:secret:\*"`
func (r caRequest) MeshName() []string { return []string{r.mesh} }

type tracker struct{}

func (tracker) RequestCa(mesh string) core.CaRequest { return caRequest{mesh: mesh} }

func NewSecretsTracker() core.SecretsTracker { return tracker{} }

// Cluster is a cluster known by an interface, its name set by an option.
type Cluster interface {
	Name() string
	Service() string
}

type ClusterImpl struct {
	name, service string
}

func (c *ClusterImpl) Name() string    { return c.name }    // want Name:`returns field name`
func (c *ClusterImpl) Service() string { return c.service } // want Service:`returns field service`

type NewClusterOpt func(*ClusterImpl)

func NewCluster(opts ...NewClusterOpt) *ClusterImpl {
	c := &ClusterImpl{}
	for _, o := range opts {
		o(c)
	}
	return c
}

func WithName(name string) NewClusterOpt { // want WithName:`copies 0->name`
	return func(c *ClusterImpl) { c.name = name }
}

func WithService(service string) NewClusterOpt { // want WithService:`copies 0->service`
	return func(c *ClusterImpl) { c.service = service }
}
