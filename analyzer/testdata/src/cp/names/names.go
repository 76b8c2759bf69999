// Package names builds Envoy resource names, half in the legacy ':' style and half as KRIs, as a
// control plane does in the middle of a migration.
package names

import (
	"fmt"
	"strings"
)

// sep is the legacy separator.
const sep = ":"

// Join is a join helper: with two parts or more its result holds ':'.
func Join(parts ...string) string { // want Join:`result "\{0\.\.\.:\}"`
	return strings.Join(parts, sep)
}

func Inbound(addr string, port uint32) string { // want Inbound:`result "inbound:\{0\}:\*"`
	return fmt.Sprintf("inbound:%s:%d", addr, port)
}

func Outbound(service string) string { // want Outbound:`result "outbound:\{0\}"`
	return "outbound:" + service
}

// Secret uses the join helper with three parts.
func Secret(mesh, service string) string { // want Secret:`result "secret:\{0\}:\{1\}"`
	return Join("secret", mesh, service)
}

func KRI(short, mesh, zone, namespace, name, section string) string { // want KRI:`result "kri_\{0\}_\{1\}_\{2\}_\{3\}_\{4\}_\{5\}"`
	return strings.Join([]string{"kri", short, mesh, zone, namespace, name, section}, "_")
}

func Internal(name string) string { // want Internal:`result "_\{0\}"`
	return "_" + name
}

// Sanitize rewrites ':': its result is unknown, never reported.
func Sanitize(s string) string {
	return strings.ReplaceAll(s, sep, "_")
}

// Legacy returns a name and an error; either return may hold the name.
func Legacy(mesh string) (string, error) { // want Legacy:`result "" "\{0\}:legacy"`
	if mesh == "" {
		return "", fmt.Errorf("no mesh")
	}
	name := mesh + sep + "legacy"
	return name, nil
}

// Plain is a name without ':' and no parameter: nothing worth a fact.
func Plain() string {
	return "plain"
}
