// cfg declares a path of a static endpoint, as Kuma's pkg/xds/envoy does: it cannot know
// that a configurer two packages away copies ClusterName to a route's cluster.
package cfg

type Path struct {
	Path        string
	ClusterName string
}
