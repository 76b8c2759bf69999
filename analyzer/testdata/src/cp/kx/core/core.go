// Package core declares the interfaces; their implementations live in a package that the
// generators do not import.
package core

type CaRequest interface {
	MeshName() []string
	Name() string
}

type IdentityCertRequest interface {
	MeshName() string
	Name() string
}

type SecretsTracker interface {
	RequestCa(mesh string) CaRequest
	RequestAllInOneCa() CaRequest
	RequestIdentityCert() IdentityCertRequest
}

type Proxy struct {
	SecretsTracker SecretsTracker
}
