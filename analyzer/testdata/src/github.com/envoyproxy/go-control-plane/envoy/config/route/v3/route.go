// Package routev3 is a stub of github.com/envoyproxy/go-control-plane/envoy/config/route/v3.
package routev3

type RouteConfiguration struct {
	Name         string
	VirtualHosts []*VirtualHost
}

type VirtualHost struct {
	Name    string
	Domains []string
	Routes  []*Route
}

type Route struct {
	Name   string
	Match  *RouteMatch
	Action isRoute_Action
}

type isRoute_Action interface{ isRoute_Action() }

type Route_Route struct {
	Route *RouteAction
}

func (*Route_Route) isRoute_Action() {}

type RouteMatch struct {
	PathSpecifier isRouteMatch_PathSpecifier
	Headers       []*HeaderMatcher
}

type isRouteMatch_PathSpecifier interface{ isRouteMatch_PathSpecifier() }

type RouteMatch_Prefix struct {
	Prefix string
}

func (*RouteMatch_Prefix) isRouteMatch_PathSpecifier() {}

// HeaderMatcher.Name is a header name: ":method" is what Envoy expects for a pseudo-header.
type HeaderMatcher struct {
	Name string
}

type RouteAction struct {
	ClusterSpecifier      isRouteAction_ClusterSpecifier
	RequestMirrorPolicies []*RouteAction_RequestMirrorPolicy
}

func (x *RouteAction) GetCluster() string {
	if x, ok := x.ClusterSpecifier.(*RouteAction_Cluster); ok {
		return x.Cluster
	}
	return ""
}

type isRouteAction_ClusterSpecifier interface{ isRouteAction_ClusterSpecifier() }

type RouteAction_Cluster struct {
	Cluster string
}

func (*RouteAction_Cluster) isRouteAction_ClusterSpecifier() {}

type RouteAction_WeightedClusters struct {
	WeightedClusters *WeightedCluster
}

func (*RouteAction_WeightedClusters) isRouteAction_ClusterSpecifier() {}

type WeightedCluster struct {
	Clusters []*WeightedCluster_ClusterWeight
}

type WeightedCluster_ClusterWeight struct {
	Name string
}

type RouteAction_RequestMirrorPolicy struct {
	Cluster string
}
