// Package admissionpolicy turns kriguard's naming rules into ValidatingAdmissionPolicies
// (admissionregistration.k8s.io/v1), so that a cluster can enforce them without the validating
// webhook: the API server evaluates the policies' CEL in-process. It is a front end over package
// rules (docs/architecture.md).
//
// Generate takes a rules configuration (the guarded kinds and their enforcement) and emits, per
// guarded kind, a policy and its binding: the KRI inputs of the object as Kuma computes them (the
// kuma.io/mesh label, or the top-level mesh of Kuma's legacy kinds; the kuma.io/zone and
// k8s.kuma.io/namespace labels; the kuma.io/display-name annotation and label), every sectionName
// of a target reference at the paths the kind's CRD schema has, the kriguard.io/kri annotation,
// MeshTrust's status.origin.kri, and the Kong names' shapes and relations. The character sets,
// first and last characters and lengths come from naming.Field; the schema paths from the
// upstream CRDs, read at generation time into KnownSchemas. Enforcement becomes the binding's
// validation actions (deny → Deny, warn → Warn, dryrun → Audit); requester overrides become match
// conditions on copies of a kind's policy.
//
// What CEL cannot do (the hash-suffix and Kong hashes, generateName) stays in the webhook: the
// mutating webhook is still needed. docs/policy.md lists what the policy does not judge.
//
// The chart's policies are generated with go generate (the upstream CRDs beside the repository, in
// ../shared/upstream/<project>/<version>/crds: Kuma's 2.14 release, whose schemas hold every path
// the 3.0 line's have and its removed kinds', and kong-operator) and checked in; a test fails when
// they are stale. They are the built-in
// configuration's without requester overrides (chart-rules.yaml): the chart adds the overrides of
// its values.
package admissionpolicy

//go:generate go run ./internal/schemagen -o schemas_generated.go ../../shared/upstream/kuma/v2.14.3/crds ../../shared/upstream/kong-operator/cefc384/crds
//go:generate go run ../cmd/kriguard-policy -config chart-rules.yaml -o ../charts/kriguard/files/policies.yaml
