package kumarelease_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kriguard/kriguard/internal/kumarelease"
	"github.com/kriguard/kriguard/naming"
)

// The control plane's version is the tag of its container's image, as Kuma's chart sets it.
func ExampleVersionOf() {
	var cp appsv1.Deployment
	cp.Spec.Template.Spec.Containers = []corev1.Container{{Name: "control-plane", Image: "docker.io/kumahq/kuma-cp:2.14.3"}}
	version, source := kumarelease.VersionOf(&cp)
	rel, err := naming.ParseRelease(version)
	fmt.Println(version, source, rel, err)
	// Output: 2.14.3 image 2.14 <nil>
}
