// Package policy tests the generated ValidatingAdmissionPolicies (package admissionpolicy) against a
// real kube-apiserver with the upstream Kuma and Kong CRDs:
//
//   - TestAgreement sends a corpus of objects (the examples, the public Kuma vectors, good and bad
//     objects of every guarded kind, fuzz-mutated variants) once to the policy alone and once to the
//     validating webhook alone, and requires the same allow/deny for every object the policy covers;
//   - TestMaximalObject holds the policy within the API server's CEL cost budget on the largest
//     MeshHTTPRoute the API server stores;
//   - BenchmarkCreate measures CREATE through the API server with nothing of kriguard's, the
//     webhook, the policy, both, and a do-nothing webhook registered the same way, side by side.
//
// The judges are told apart by an object label (agreement) or a namespace (benchmark), so that every
// configuration is installed once and the requests of each are interleaved.
package policy
