// Package envoyvet is the root of krilint's integration fixture: a small xDS control plane written against
// the real go-control-plane types, shaped the way real control planes build Envoy configuration.
//
//   - names: name helpers, some joining parts with ':' (the legacy style krilint exists to catch)
//   - builders: builder types that keep names in fields and write them into go-control-plane types
//   - generator: code that computes names and hands them to the builders, two packages from the sink
//   - direct: names written straight into go-control-plane fields
//   - traps: strings that look like names but are not, which krilint must leave alone
//   - registry, configured: a function that is a sink only when -sinks names it, and its callers
//   - namefn: helpers that return name functions, and resources that name themselves through an
//     interface with a legacy and a KRI implementation
//   - shapes: names reaching Envoy through closures returned by namefn, method values, interface
//     methods, fields filled in a constructor and read in Build, and a map of name functions
//   - secrets: a secrets tracker known by its interfaces, its implementation in a package that the
//     generator depends on only through another, whose API mentions none of the implementation's
//     types: go vet gives the generator no fact of it, the forwarded implementations fact does
//   - fwd: a field of paths that v3 copies to a route's cluster, written in gen, which imports v3 only
//     through listeners: go vet gives gen no fact of v3, the forwarded foreign fields fact does
//
// Every line where krilint must report a name carries a marker comment of the form
//
//	// krilint: RULE
//
// optionally followed by the Envoy field, in brackets, that the message must name; the lines reported only
// with -strict carry
//
//	// krilint(strict): RULE
//
// and those reported only with -sinks=github.com/kriguard/kriguard/test/envoyvet/registry.Register:1 carry
//
//	// krilint(sinks): RULE
//
// test/integration runs krilint over this module and asserts that the markers and the findings are the
// same set. Lines without a marker must stay quiet.
//
// Keep the packages that carry markers (direct, generator, configured, shapes) leaves that no other package imports: Go 1.26's
// go vet caches a package vetted only as a dependency under the same key as the package vetted for itself,
// without its findings, and would replay that empty result (see docs/krilint.md).
package envoyvet
