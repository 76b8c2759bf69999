// Package listenerv3 is a stub of go-control-plane's listener package: krilint matches the path of the
// package, the type and the field.
package listenerv3

type Listener struct {
	Name       string
	StatPrefix string
}
