// Package core declares the interfaces; their implementations live in a package that the
// generators do not import.
package core

type CaRequest interface {
	MeshName() []string
	Name() string
}

type SecretsTracker interface {
	RequestCa(mesh string) CaRequest
}

type Proxy struct {
	SecretsTracker SecretsTracker
}
