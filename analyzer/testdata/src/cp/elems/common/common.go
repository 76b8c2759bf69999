// Package common is the shape of Kuma's pkg/xds/envoy: clusters known by an interface, their name
// kept in an unexported field set by an option, and the splits of a TCP proxy.
package common

type Cluster interface {
	Name() string
	Service() string
}

type Split interface {
	ClusterName() string
	Weight() uint32
}

type ClusterImpl struct {
	name, service string
}

func (c *ClusterImpl) Name() string    { return c.name }    // want Name:`returns field name`
func (c *ClusterImpl) Service() string { return c.service } // want Service:`returns field service`

type Opt func(*ClusterImpl)

func WithService(service string) Opt { // want WithService:`copies 0->service 0->name`
	return func(c *ClusterImpl) {
		c.service = service
		if c.name == "" {
			c.name = service
		}
	}
}

func NewCluster(opts ...Opt) *ClusterImpl {
	c := &ClusterImpl{}
	for _, o := range opts {
		o(c)
	}
	return c
}
