// Package hashsuffix computes the names Kuma's KDS gives resources it syncs
// between control planes, byte for byte, and recognises them.
//
// A synced resource keeps its name and gets a hash suffix so that resources
// with one name in different meshes, zones or namespaces do not collide in
// a single Kubernetes namespace (Kuma's MADR "Use hash-suffix for policy
// naming during KDS sync"):
//
//	hashsuffix.Name("default", "backend", "east", "kuma-demo") // "backend-4dv9w4x47w8w98v4"
//
// The algorithm, as Kuma runs it:
//
//  1. FNV-1a 64-bit over the bytes of the mesh, then the full name, then
//     each extra value (the zone, then the namespace, each only when
//     present), with no separator in between.
//  2. The 8-byte big-endian sum as 16 lower-case hex digits, each mapped
//     through rand.SafeEncodeString of k8s.io/apimachinery/pkg/util/rand:
//     the digit's byte value modulo 27 indexes "bcdfghjklmnpqrstvwxz2456789".
//  3. The name cut to its first 236 bytes, "-", the 16 characters: at most
//     253 bytes, the limit of a Kubernetes object name.
//
// As the values are hashed without separators, an empty value adds
// nothing: callers may pass the zone and namespace whether or not they are
// set.
//
// Split, HasSuffix and Matches recognise such names without allocating:
// Split and HasSuffix by shape only, Matches by recomputing the hash.
//
// # Known weaknesses
//
// The scheme has flaws that this package reproduces on purpose: a name
// computed here must equal the one Kuma computes for the same resource on
// another control plane, so compatibility is the point, not repair.
//
//   - The hashed values are concatenated without a separator, so
//     (mesh "ab", name "c") and (mesh "a", name "bc") hash alike, and so do
//     a zone and namespace whose boundary moves.
//   - The alphabet mapping is lossy: hex digits '0' (byte 48) and 'f'
//     (byte 102) are both 21 modulo 27 and both become '4'. Only 15 of the
//     27 characters ever appear, and a suffix keeps 62 of the 64
//     bits of the hash.
//   - The cut keeps bytes, not characters or labels: names longer than 236
//     bytes that share their first 236 bytes differ only by their hashes, a
//     cut can split a multi-byte UTF-8 character, and a cut that ends in
//     "." gives ".-", which is not a valid DNS-1123 subdomain.
//   - A suffix-shaped ending is not proof: any name may end in "-" and 16
//     such characters. Only Matches, given the inputs, tells for sure.
package hashsuffix
