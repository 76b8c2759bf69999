// Package naming is kriguard's single source of truth for resource names in a Kuma / Kong mesh.
//
// It parses, formats and validates KRIs, Kuma's resource identifiers (docs/kri.md):
//
//	kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>
//
// Parse is strict: exactly seven segments, the prefix "kri", every field checked for length,
// characters and first and last character, the required fields present, the type known to a
// Registry and the mesh present or absent as the type's Scope demands. A string with extra
// segments is refused rather than glued into the section, so Parse(s).String() == s for every
// accepted s. Errors list every problem, each as a *field.Error at the path of its field
// ("kri.mesh"), in the form Kubernetes uses for its own validation.
//
// The per-field rules are exposed as Field values (FieldMesh.Validate(v, path)), so that callers
// can report a problem at the place the value came from, for example
// metadata.labels[kuma.io/mesh]. ForObject builds the KRI of a whole Kubernetes object exactly as
// Kuma computes it (the mesh of legacy kinds from the top-level mesh field, the name from the
// kuma.io/display-name annotation, the namespace only from the k8s.kuma.io/namespace label, …),
// with every problem at the object field it came from; the rules are in docs/kri.md, "How
// kriguard computes an object's KRI".
//
// Kuma's releases differ in the kinds they ship and in their name rules. A Release (Kuma2_14,
// Kuma3_0; ParseRelease reads "2.14" or "v3.0.1") holds one release's facts, each read from its code
// (docs/releases.md): its kinds (Release.Registry, Release.ForObject), the kinds and targetRef kinds
// it removed, the kinds whose names must be RFC 1035 labels, whether refs select by labels only,
// what its control plane overwrites. Rules take the release they judge against; none compares
// version strings.
//
// Parse and Field.Valid index bytes through one lookup table and do not allocate: they sit on the
// admission and lint hot paths. The rules are the seed's, not apimachinery's DNS-1123 validators:
// a KRI name may hold "a..b", which a DNS subdomain may not, and the regular expressions behind
// those validators are an order of magnitude slower than a table.
//
// Subpackages: hashsuffix computes the names Kuma gives to resources copied between clusters;
// kong computes the names Kong's hybrid gateway gives to the resources it derives from Gateway API
// routes.
//
// naming is the bottom layer of kriguard (docs/architecture.md): package rules builds on it, and
// it imports nothing of the project above it.
package naming
