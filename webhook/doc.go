// Package webhook is kriguard's admission webhook: it keeps the names of Kuma and Kong custom
// resources well-formed at admission time. It is a thin shell over package naming, which holds
// every rule; nothing here re-implements one. How an object's KRI is computed (exactly as Kuma
// computes it), the SNI budget of service ports and the checks of hand-typed Envoy names are in
// docs/kri.md.
//
// Two handlers, built from one Config:
//
//   - NewValidator (/validate) builds each guarded object's KRI with naming.Registry.ForObject,
//     checks every sectionName of its target references, the values that hold a KRI (the
//     kriguard.io/kri annotation, MeshTrust's status.origin.kri), a kuma.io/display-name label,
//     the SNI of every MeshService, MeshExternalService and MeshMultiZoneService port and the
//     hand-typed names of MeshProxyPatch matches, and for Kong kinds the generated-name shapes and
//     relations of naming/kong. Problems come back as HTTP 422, reason
//     Invalid, one cause per problem at the real field, in the API server's own words:
//
//     MeshTimeout.kuma.io "t1" is invalid: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": …
//
//     On UPDATE only the problems the update introduces are denied; DELETE is never blocked.
//
//   - NewMutator (/mutate) gives generateName objects their deterministic name on CREATE
//     (Kuma's KDS hash-suffix name, or the Kong generated name when its inputs are in the
//     object), keeping the original in the kuma.io/display-name annotation, and records every
//     Kuma object's KRI in the kriguard.io/kri annotation.
//
// Each kind is enforced with deny (the default), warn (admitted with admission warnings) or
// dryrun (admitted, only logged and counted). Requester overrides (Config.Requesters) replace a
// kind's enforcement for the requests of some users, groups or service-account namespaces; by
// default Kuma's control plane and Kong's operator are warned, never denied, so that kriguard
// never stops their sync. The decision metric's override label and the log lines say which
// override applied. Requests with dryRun set are answered exactly like
// the others: the handlers have no side effects besides logs and the
// kriguard_admission_decisions_total counter.
//
// A kind the configuration does not guard is admitted with a warning and counted as
// kind="unguarded": it means the webhook configuration's rules and the kriguard configuration
// disagree, and breaking an unrelated kind would be worse than letting it through.
//
// The KRI annotation is computed from the labels the mutator sees. When another mutating webhook
// (Kuma's own, for instance) may change kuma.io/* labels after it, the MutatingWebhookConfiguration
// should set reinvocationPolicy: IfNeeded, or the validator will find the annotation stale and
// deny the object. Requests for subresources (status) are validated, never patched.
//
// LoadConfig reads the YAML configuration (docs/contracts.md); Options and NewManager build the
// whole server process: controller-runtime manager, TLS webhook server, cert-controller,
// health and readiness checks, metrics and a shutdown delay. cmd/webhook only wires them up.
//
// Nothing a client sends can take a replica past a bound (docs/limits.md): a request body is read
// once, by the deadline the API server gives (?timeout=), within a memory budget derived from the
// container's limit (NewBudget, --memory-limit; a request that does not fit waits, then gets a 429);
// bodies over 7 MiB get a 413 and "request entity is too large; limit is 7340032 bytes". A body that
// is not an admission.k8s.io/v1 or v1beta1 AdmissionReview, or a review without a usable object,
// gets a 400 with the reason. A denial carries at most MaxCauses causes, the last counting the
// rest, and no answer exceeds MaxResponseBytes; values longer than 256 bytes are cut in causes and
// warnings, which say how long they were. On UPDATE a problem is pre-existing only when the old
// object holds the same value at the same field (ratcheting by value).
//
// An object is decoded partially, with sigs.k8s.io/json as the API server decodes it: metadata,
// apiVersion, kind and the top-level mesh field; spec only when it may hold an invalid section
// name, status only when it may hold origin.kri. Anything else than one JSON object (trailing
// bytes, a NUL byte) is a 400. What the partial decode cannot vouch for (repeated members, null or
// mistyped metadata) goes through the full unstructured decode, so the answers are those of the
// full decode; the partial one only saves its cost. The kinds whose checks read ports, patches or
// Kong references (MeshService, MeshExternalService, MeshMultiZoneService, MeshProxyPatch, the Kong
// kinds) always have spec decoded.
//
// Config.Judge decides one object outside of a request, as the two handlers decide its CREATE by a
// requester no override names, over the same code; the kriguard command (docs/cli.md) runs it over
// manifests and the objects of a cluster.
package webhook
