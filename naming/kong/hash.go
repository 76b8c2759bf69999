package kong

import (
	"hash/fnv"
	"strconv"

	"k8s.io/utils/dump"

	"github.com/kriguard/kriguard/naming/kong/internal/v1alpha1"
)

// Hash32 is the hash Kong's operator writes into generated names
// (controller/hybridgateway/utils.Hash32): FNV-1a 32-bit over
// dump.ForHash(v), the go-spew dump Kubernetes' DeepHashObject hashes, as
// lower-case hex without zero padding (1 to 8 digits). The dump includes
// type names and every field, so v must be the very Go type the operator
// hashes (a gateway-api v1.6.1 value, a pointer where it passes one); see
// docs/kong-names.md.
func Hash32(v any) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(dump.ForHash(v)))
	return strconv.FormatUint(uint64(h.Sum32()), 16)
}

// Hash64 is Hash32 with FNV-1a 64-bit (1 to 16 hex digits), the hash of the
// operator's "ngn" fallback names (controller/hybridgateway/utils.Hash64).
func Hash64(v any) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(dump.ForHash(v)))
	return strconv.FormatUint(h.Sum64(), 16)
}

// ControlPlaneHash returns the digits after "cp" in a generated name for
// the KonnectGatewayControlPlane named name: Hash32 of the operator's
// *ControlPlaneRef{Type: "konnectNamespacedRef", KonnectNamespacedRef:
// {Name: name}}, its namespace cleared as the operator clears it
// (controller/hybridgateway/converter/gateway.go).
func ControlPlaneHash(name string) string {
	return Hash32(controlPlaneRef(name))
}

func controlPlaneRef(name string) *v1alpha1.ControlPlaneRef {
	return &v1alpha1.ControlPlaneRef{
		Type:                 v1alpha1.ControlPlaneRefKonnectNamespacedRef,
		KonnectNamespacedRef: &v1alpha1.KonnectNamespacedRef{Name: name},
	}
}
