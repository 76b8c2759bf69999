package v1alpha1_test

import (
	"fmt"

	"k8s.io/utils/dump"

	"github.com/kriguard/kriguard/naming/kong/internal/v1alpha1"
)

// The dump names the type as Kong's operator's dump does.
func ExampleControlPlaneRef() {
	fmt.Println(dump.ForHash(&v1alpha1.ControlPlaneRef{
		Type:                 v1alpha1.ControlPlaneRefKonnectNamespacedRef,
		KonnectNamespacedRef: &v1alpha1.KonnectNamespacedRef{Name: "test-cp"},
	}))
	// Output: (*v1alpha1.ControlPlaneRef){Type:(string)konnectNamespacedRef KonnectNamespacedRef:(*v1alpha1.KonnectNamespacedRef){Name:(string)test-cp Namespace:(string)}}
}
