// Package registry records resource names that reach Envoy by a way krilint cannot see (here, a list a
// template renders later). krilint treats Register's name as a sink only when told so with -sinks.
package registry

import "sync"

var (
	mu      sync.Mutex
	entries []string
)

// Register records that a resource of the given kind is called name.
func Register(kind, name string) {
	mu.Lock()
	defer mu.Unlock()
	entries = append(entries, kind+"/"+name)
}

// Entries returns what was registered.
func Entries() []string {
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), entries...)
}
