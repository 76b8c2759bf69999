package hashsuffix

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
)

// CopyProblems returns why a Kubernetes receiver cannot store a copy named name with the given
// labels: the name is not a DNS-1123 subdomain (a cut at MaxBaseLen that ends in ".", or a
// Universal name with "_" or upper case), or a label key or value is one the API server refuses (a
// Universal value over 63 characters, copied along). nil when it can.
func CopyProblems(name string, labels map[string]string) []string {
	var out []string
	if !IsDNS1123Subdomain(name) {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			out = append(out, fmt.Sprintf("metadata.name %q: %s", name, msg))
		}
	}
	for k, v := range labels {
		if !qualifiedName(k) {
			for _, msg := range validation.IsQualifiedName(k) {
				out = append(out, fmt.Sprintf("metadata.labels key %q: %s", k, msg))
			}
		}
		if !labelValue(v) {
			for _, msg := range validation.IsValidLabelValue(v) {
				out = append(out, fmt.Sprintf("metadata.labels[%s] %q: %s", k, v, msg))
			}
		}
	}
	return out
}

// Squats reports whether name is the copy name Kuma gives an object of its own base name in
// mesh with the given extra hash values: a name that holds the place of a copy to come (Kuma
// #10212). Only a base shorter than MaxBaseLen can be told: a longer display name was cut.
func Squats(name, mesh string, extra ...string) bool {
	base, _, ok := Split(name)
	return ok && len(base) < MaxBaseLen && Matches(name, mesh, base, extra...)
}
