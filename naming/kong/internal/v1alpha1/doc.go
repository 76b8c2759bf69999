// Package v1alpha1 holds copies of the shape of the Kong API types whose
// go-spew dump feeds a name hash. go-spew writes a value's type as
// "<package name>.<type name>", so the package must be named v1alpha1 and
// the types must keep the operator's names and fields: the hash of a
// ControlPlaneRef here equals the hash Kong's operator computes of its own.
// See docs/kong-names.md.
package v1alpha1
