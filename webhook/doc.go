// Package webhook is kriguard's admission webhook: the transport around package rules, which holds
// every rule (docs/architecture.md). It serves the two admission endpoints over TLS, bounds what a
// client can make it hold, decodes the AdmissionReview, hands each request to rules.Config.Decide,
// counts the decision and writes the answer.
//
// Two handlers, built from one rules.Config:
//
//   - NewValidator (/validate) answers the rules' denials with HTTP 422, reason Invalid, one cause
//     per problem at the real field, in the API server's own words:
//
//     MeshTimeout.kuma.io "t1" is invalid: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": …
//
//     On UPDATE only the problems the update introduces are denied; DELETE is never blocked.
//
//   - NewMutator (/mutate) answers with the rules' JSON patch: deterministic names for generateName
//     objects and the kriguard.io/kri annotation.
//
//   - PeerCache (--peer-cache-max-objects) is the bounded, indexed cache of KongSNIs and
//     KongCertificates the validator compares an admitted KongSNI with (rules.Peers); cold,
//     unreachable or over its bound it never denies (docs/unique.md); its memory at its bound,
//     PeerCacheMemory, is taken from the Budget (docs/limits.md).
//
// Each kind is enforced with deny (the default), warn (admitted with admission warnings) or
// dryrun (admitted, only logged and counted). Requester overrides (rules.Config.Requesters) replace a
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
// rules.LoadConfig reads the YAML configuration (docs/contracts.md); Options and NewManager build the
// whole server process: controller-runtime manager, TLS webhook server, cert-controller,
// health and readiness checks, metrics and a shutdown delay. cmd/webhook only wires them up.
//
// Nothing a client sends can take a replica past a bound (docs/limits.md): a request body is read
// once, by the deadline the API server gives (?timeout=), within a memory budget derived from the
// container's limit (NewBudget, --memory-limit; a request that does not fit waits, then gets a 429;
// a body takes the budget as it arrives, and must keep arriving at a floor rate); bodies over 7 MiB
// get a 413 and "request entity is too large; limit is 7340032 bytes", then the connection closes.
// A decision that cannot finish by the deadline is answered 504; a uid longer than a UID is a 400. A body that
// is not an admission.k8s.io/v1 or v1beta1 AdmissionReview, or a review without a usable object,
// gets a 400 with the reason. A denial carries at most MaxCauses causes, the last counting the
// rest, and no answer exceeds MaxResponseBytes; values longer than 256 bytes are cut in causes and
// warnings, which say how long they were. On UPDATE a problem is pre-existing only when the old
// object holds the same value at the same field (ratcheting by value).
//
// Objects are decoded by package rules; what the rules cannot decode is a 400 with the reason.
package webhook
