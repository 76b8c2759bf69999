// Package namefn hands out name functions: helpers that return a func(string) string, the way a
// control plane switches between its legacy names and KRIs.
package namefn

import "strings"

// Unified returns the KRI when it is enabled, else the default the caller passes.
func Unified(enabled bool, kri string) func(def string) string { // want Unified:`returns func with result "\{outer 1\}" "\{0\}"`
	return func(def string) string {
		if enabled {
			return kri
		}
		return def
	}
}

// Legacy builds the legacy outbound name from the mesh it closes over.
func Legacy(mesh string) func(service string) string { // want Legacy:`returns func with result "outbound:\{outer 0\}:\{0\}"`
	return func(service string) string { return "outbound:" + mesh + ":" + service }
}

// Sanitized rewrites ':' in whatever name it is given.
func Sanitized() func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, ":", "_") }
}
