// Package typev3 is a stub of github.com/envoyproxy/go-control-plane/envoy/type/v3.
package typev3

type Percent struct {
	Value float64
}
