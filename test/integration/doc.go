// Package integration runs krilint the way users do — as a vet tool (`go vet -vettool`) and standalone
// (`krilint -json`) — over test/envoyvet, a module that imports the real go-control-plane types from the
// module proxy, and asserts that the findings are exactly the ones marked in that module's comments.
//
// A marker sits at the end of the line where krilint must report:
//
//	Name: "inbound:10.0.0.1:8080", // krilint: colon
//	Name: "inbound-8080",          // krilint(strict): legacy
//
//	builders.NewInboundListener("lazy:" + s.Name) // krilint: colon [Listener.Name]
//
// The first form is expected in every mode, the second only with -strict; "krilint(sinks): RULE" is
// expected only with -sinks=…/registry.Register:1. A field in brackets is the
// Envoy field the message must name, where the value finally lands (alternatives separated by '|').
// Several rules may be listed, separated by commas, when one line holds several findings. A line without
// a marker must stay quiet.
//
// The package holds no code besides its tests; it exists so that `go test ./...` from the repository root
// runs them.
package integration
