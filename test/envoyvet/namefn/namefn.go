// Package namefn hands out names the indirect way: functions that return name functions, and
// resources that name themselves through an interface. It carries no marker: what it returns is
// reported where it lands, in package shapes.
package namefn

import "strings"

// Unified returns the KRI when unified naming is on, else the default its caller passes.
func Unified(enabled bool, kri string) func(def string) string {
	return func(def string) string {
		if enabled {
			return kri
		}
		return def
	}
}

// Legacy names an outbound cluster of the mesh it closes over, the legacy way.
func Legacy(mesh string) func(service string) string {
	return func(service string) string { return "outbound:" + mesh + ":" + service }
}

// Sanitize rewrites ':' in a name.
func Sanitize(s string) string { return strings.ReplaceAll(s, ":", "_") }

// Resource is anything that names an Envoy resource.
type Resource interface{ ResourceName() string }

// MeshCA is the legacy CA secret of a mesh.
type MeshCA struct{ Mesh string }

func (m MeshCA) ResourceName() string { return "mesh_ca:secret:" + m.Mesh }

// KRISecret is the same secret named by its KRI.
type KRISecret struct{ Mesh string }

func (k *KRISecret) ResourceName() string { return "kri_secret_" + k.Mesh + "__kuma-system_ca_" }
