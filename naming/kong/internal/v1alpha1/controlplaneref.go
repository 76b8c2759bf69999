package v1alpha1

// ControlPlaneRefKonnectNamespacedRef is the type of a ControlPlaneRef that
// names a KonnectGatewayControlPlane in the referrer's namespace.
const ControlPlaneRefKonnectNamespacedRef = "konnectNamespacedRef"

// ControlPlaneRef has the name, package name and field layout of Kong's
// common/v1alpha1.ControlPlaneRef, so that its go-spew dump, and with it the
// hash the operator computes of it, is identical. Do not add, rename or
// reorder fields.
type ControlPlaneRef struct {
	Type                 string
	KonnectNamespacedRef *KonnectNamespacedRef
}

// KonnectNamespacedRef mirrors Kong's common/v1alpha1.KonnectNamespacedRef.
type KonnectNamespacedRef struct {
	Name      string
	Namespace string
}
