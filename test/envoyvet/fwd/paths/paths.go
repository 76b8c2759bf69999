// Package paths declares the path of a static endpoint, as Kuma's pkg/xds/envoy does; nothing in
// it is an Envoy name.
package paths

// Path routes requests under Path to the cluster ClusterName.
type Path struct {
	Path        string
	ClusterName string
}
