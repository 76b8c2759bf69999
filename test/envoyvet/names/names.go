// Package names builds Envoy resource names for the fixture control plane. It mixes the legacy style, which
// joins parts with ':', with KRI names and a sanitizer, as a control plane does halfway through a migration.
package names

import (
	"fmt"
	"strings"
)

// sep is the legacy separator; every helper that joins with it yields names Envoy stats cannot parse.
const sep = ":"

// Join is a join helper: with two parts or more its result holds ':'.
func Join(parts ...string) string {
	return strings.Join(parts, sep)
}

// Inbound is the legacy name of an inbound listener.
func Inbound(addr string, port uint32) string {
	return fmt.Sprintf("inbound:%s:%d", addr, port)
}

// Outbound is the legacy name of an outbound cluster.
func Outbound(service string) string {
	return "outbound:" + service
}

// Secret is the legacy name of a secret, built by a join helper.
func Secret(mesh, service string) string {
	return Join("secret", mesh, service)
}

// KRI formats a resource identifier; its parts are joined with '_' and its result holds no ':'.
func KRI(short, mesh, zone, namespace, name, section string) string {
	return strings.Join([]string{"kri", short, mesh, zone, namespace, name, section}, "_")
}

// Internal names a resource that only the control plane itself uses.
func Internal(name string) string {
	return "_" + name
}

// Sanitize makes any string safe to use as an Envoy name or stat prefix.
func Sanitize(s string) string {
	return strings.ReplaceAll(s, sep, "_")
}
