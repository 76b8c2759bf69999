// Package rules is what kriguard checks: every rule that judges a Kuma or Kong object, the
// ratcheting of UPDATEs, the names the mutating webhook gives, and the configuration that says how
// strictly each kind is enforced. Every front end (the admission webhook, the generated
// ValidatingAdmissionPolicies, the kriguard command and its cluster audit) calls it; it serves,
// counts and logs nothing. The layers and the path of a request through them are in
// docs/architecture.md; the rules, one id each, in docs/rules.md.
//
// One call decides one object: Config.Decide takes a Request (the object, the operation, the
// requester, the Kuma release) and returns a Decision: allowed or denied, the Findings, the
// requester override that applied and, for the mutating phase, the patch.
//
// The rules of a Kuma kind, all from package naming:
//   - the object's KRI, exactly as Kuma computes it (naming.Registry.ForObject; docs/kri.md);
//   - a kuma.io/display-name label, which older Kuma releases read the name from;
//   - every sectionName of a target reference (a "targetRef" map, or a "backendRefs" element, at any
//     depth of spec);
//   - the SNI of every MeshService, MeshMultiZoneService and MeshExternalService port;
//   - the hand-typed Envoy names of MeshProxyPatch matches, and the names its modifications' values
//     give Envoy resources where Envoy's stats read them (a warning);
//   - the values documented to hold a KRI: the kriguard.io/kri annotation and status.origin.kri.
//
// The rules of a Kong kind are the generated-name shapes and object-local relations of naming/kong
// (docs/kong-names.md).
//
// On UPDATE only the problems an update introduces count: a problem is pre-existing when the old
// object had a problem of the same type at the same field and holds the same value there.
//
// The mutating phase gives generateName objects their deterministic name on CREATE (Kuma's KDS
// hash-suffix name, or the Kong generated name when its inputs are in the object), keeping the
// original in the kuma.io/display-name annotation, and, with Request.RecordKRI set to
// RecordKRIAdmission (the opt-in; off by default), records every Kuma object's KRI in the
// kriguard.io/kri annotation.
//
// An object is decoded partially, with sigs.k8s.io/json as the API server decodes it: metadata,
// apiVersion, kind and the top-level mesh field. spec is never decoded whole: target references
// are found in it as raw JSON (refWalk), and of the kinds whose rules read ports, patch names or
// Kong references only those fields are decoded (specReads); of status only origin.kri. So what a
// decision costs follows the size of the object, not its shape (docs/limits.md). What the partial
// decode cannot vouch for goes through the unstructured decode of the rest of the object, whose
// errors are the ones returned.
//
// Some names clash only between objects (docs/unique.md): Unique gathers objects of one or several
// zones and reports each clash naming both objects (KDS copy names, Kong SNIs and generated names,
// Kuma's MeshHTTPRoute names); at admission a Request's Peers compare a KongSNI with the existing
// ones, and peers that cannot answer only add a note.
//
// LoadConfig reads the YAML configuration (docs/contracts.md); DefaultConfig is the built-in one.
package rules
