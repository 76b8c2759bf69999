package hashsuffix_test

import (
	"fmt"

	"github.com/kriguard/kriguard/naming/hashsuffix"
)

func ExampleName() {
	// A MeshTrafficPermission "backend" of mesh "default", created in
	// namespace "kuma-demo" of zone "east", as synced to another zone.
	fmt.Println(hashsuffix.Name("default", "backend", "east", "kuma-demo"))
	// A policy of mesh "default" synced from Global: only the mesh is hashed.
	fmt.Println(hashsuffix.Name("default", "without-namespace"))
	// Output:
	// backend-4dv9w4x47w8w98v4
	// without-namespace-c5v4498z5w4x9bcx
}

func ExampleSplit() {
	base, suffix, ok := hashsuffix.Split("backend-4dv9w4x47w8w98v4")
	fmt.Println(base, suffix, ok)
	_, _, ok = hashsuffix.Split("backend-v1")
	fmt.Println(ok)
	// Output:
	// backend 4dv9w4x47w8w98v4 true
	// false
}

func ExampleMatches() {
	name := "backend-4dv9w4x47w8w98v4"
	fmt.Println(hashsuffix.Matches(name, "default", "backend", "east", "kuma-demo"))
	fmt.Println(hashsuffix.Matches(name, "default", "backend", "west", "kuma-demo"))
	// Output:
	// true
	// false
}
