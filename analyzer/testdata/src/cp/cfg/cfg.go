// Package cfg declares configuration types and nothing else: it cannot know that another package
// writes their fields to go-control-plane names.
package cfg

type RouteOptions struct {
	ClusterName string
	Note        string
}
