// Package vetbench measures what krilint costs as a vet tool against a vet tool that does nothing
// (docs/krilint.md, "Cost as a vet tool": the bar is 1.10×).
//
// [Corpus] writes a module shaped like an xDS control plane over the real go-control-plane types, and
// BenchmarkVetTool runs `go vet -vettool=X ./...` on it with krilint and with nopvet (./nopvet, a
// unitchecker whose analyzer returns at once), interleaved, and reports krilint's time over nopvet's.
//
// go vet caches its results by an action ID that covers the vet tool's ID (the hash of the binary that
// `-V=full` prints), the tool flags, the package's build action and its dependencies' vet results. The
// benchmark therefore never clears the whole build cache; it invalidates only vet results:
//
//   - cold: each round runs a fresh copy of each tool with a few bytes appended, which changes the tool ID
//     and so every vet action — the corpus and all its dependencies (go-control-plane, gRPC, protobuf, the
//     standard library) are analyzed again, while compiled packages stay cached. This is a CI run on an
//     empty vet cache, and the case where a tool that exports facts pays most.
//   - incremental: each round rewrites a stamp file in every generator package, so only those packages are
//     analyzed again; the facts of their dependencies come from the cache. This is an edit-and-vet loop.
//
// Run it with hack/bench.sh, or:
//
//	go test -run '^$' -bench VetTool -benchtime 6x ./test/vetbench
package vetbench
