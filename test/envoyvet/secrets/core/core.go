// Package core declares a secrets tracker by its interfaces only, as Kuma's pkg/core/xds does: the
// generators that write the secrets' names call these interfaces, and the implementation lives in
// a package (secrets/tracker) that the generators depend on only through secrets/wire, whose API
// mentions none of its request types. The two request interfaces differ in a method, as Kuma's do: an interface call
// is resolved against every type whose method set implements the interface, so two interfaces with
// the same methods would share their implementations.
package core

type CaRequest interface {
	MeshNames() []string
	Name() string
}

type IdentityRequest interface {
	MeshName() string
	Name() string
}

type SecretsTracker interface {
	RequestCa(mesh string) CaRequest
	RequestAllInOneCa() CaRequest
	RequestIdentity() IdentityRequest
}

type Proxy struct {
	Mesh           string
	SecretsTracker SecretsTracker
}
