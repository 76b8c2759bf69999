// Package pxds is the shape of Kuma's pkg/plugins/policies/core/xds: a second cluster type, named
// by a builder, that the package of the TCP proxy options never sees.
package pxds

type Cluster struct {
	name string
}

func (c *Cluster) Name() string    { return c.name } // want Name:`returns field name`
func (c *Cluster) Service() string { return "" }

type ClusterBuilder struct {
	opts []func(*Cluster)
}

func NewClusterBuilder() *ClusterBuilder { return &ClusterBuilder{} }

func (b *ClusterBuilder) WithName(name string) *ClusterBuilder { // want WithName:`copies 0->name`
	b.opts = append(b.opts, func(c *Cluster) { c.name = name })
	return b
}

func (b *ClusterBuilder) Build() *Cluster {
	c := &Cluster{}
	for _, o := range b.opts {
		o(c)
	}
	return c
}
