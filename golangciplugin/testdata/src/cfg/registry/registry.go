// Package registry has a function that names Envoy resources without writing a go-control-plane field:
// krilint knows it as a sink only when the settings name it.
package registry

var names = map[string]bool{}

func Register(name string) { names[name] = true }
