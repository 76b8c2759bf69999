package envoy // want package:`implements cp/kx/core.CaRequest.Name=\(\*envoy.allInOneCaRequest\).Name "mesh_ca:secret:all" cp/kx/core.CaRequest.Name=\(envoy.caRequest\).Name "mesh_ca:secret:\*" cp/kx/core.IdentityCertRequest.Name=\(envoy.identityCertRequest\).Name "identity_cert:secret:\*" .*cp/kx/core.SecretsTracker.RequestCa=\(envoy.tracker\).RequestCa returns envoy.caRequest`

import (
	"strings"

	"cp/kx/core"
)

func join(parts ...string) string { return strings.Join(parts, ":") }

type caRequest struct{ mesh string }

func (r caRequest) Name() string       { return join("mesh_ca", "secret", r.mesh) } // want Name:`result "mesh_ca:secret:\*"`
func (r caRequest) MeshName() []string { return []string{r.mesh} }

// allInOneCaRequest is a second implementation of core.CaRequest: a call of RequestCa(…).Name()
// runs caRequest's, the nearest, and RequestAllInOneCa().Name() this one.
type allInOneCaRequest struct{ meshes []string }

func (r *allInOneCaRequest) Name() string       { return join("mesh_ca", "secret", "all") } // want Name:`result "mesh_ca:secret:all"`
func (r *allInOneCaRequest) MeshName() []string { return r.meshes }

type identityCertRequest struct{ mesh string }

func (r identityCertRequest) Name() string     { return "identity_cert:secret:" + r.mesh } // want Name:`result "identity_cert:secret:\*"`
func (r identityCertRequest) MeshName() string { return r.mesh }                           // want MeshName:`returns field mesh`

type tracker struct{ mesh string }

func (tracker) RequestCa(mesh string) core.CaRequest { return caRequest{mesh: mesh} }

func (tracker) RequestAllInOneCa() core.CaRequest { return &allInOneCaRequest{} }

func (t tracker) RequestIdentityCert() core.IdentityCertRequest {
	return &identityCertRequest{mesh: t.mesh}
}

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
