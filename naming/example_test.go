package naming_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kriguard/kriguard/naming"
)

func ExampleParse() {
	k, err := naming.Parse("kri_msvc_mesh-1_us-east-2_kuma-demo_backend_httpport")
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Type, k.Mesh, k.Zone, k.Namespace, k.Name, k.Section)

	_, err = naming.Parse("kri_mt_Mesh-1__kuma-system_t1_")
	fmt.Println(err)
	// Output:
	// msvc mesh-1 us-east-2 kuma-demo backend httpport
	// invalid KRI "kri_mt_Mesh-1__kuma-system_t1_": kri.mesh: Invalid value: "Mesh-1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M')
}

func ExampleKRI_String() {
	k := naming.KRI{Type: "mt", Mesh: "mesh-1", Namespace: "kuma-system", Name: "global-timeouts"}
	fmt.Println(k)
	// Output: kri_mt_mesh-1__kuma-system_global-timeouts_
}

func ExampleForObject() {
	// A MeshTimeout as Kuma's KDS stores its copy on Global: a hashed name, the original one in the
	// display-name annotation. Its KRI is the one Kuma computes: no hash in it.
	obj := &metav1.ObjectMeta{
		Name:        "timeout-1-zv8cd84664fc74w4",
		Namespace:   "kuma-system",
		Labels:      map[string]string{naming.LabelMesh: "default", naming.LabelZone: "zone-1", naming.LabelNamespace: "kuma-demo"},
		Annotations: map[string]string{naming.AnnotationDisplayName: "timeout-1"},
	}
	k, errs := naming.ForObject(naming.WithMesh(obj, ""), "MeshTimeout")
	fmt.Println(k, len(errs))

	// A Dataplane keeps its mesh in the top-level mesh field, here left empty.
	dp := &metav1.ObjectMeta{Name: "backend-7d9f", Namespace: "kuma-demo", Labels: map[string]string{naming.LabelMesh: "Mesh_1"}}
	k, errs = naming.ForObject(naming.WithMesh(dp, ""), "Dataplane")
	fmt.Println(k)
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// kri_mt_default_zone-1_kuma-demo_timeout-1_ 0
	// kri_dp____backend-7d9f_
	// mesh: Required value: Dataplane ("dp") is mesh-scoped
}

func ExampleRegistry_Register() {
	reg := naming.DefaultRegistry().Clone()
	if err := reg.Register(naming.ResourceType{Kind: "MeshWidget", ShortName: "mw", Scope: naming.ScopeMesh}); err != nil {
		panic(err)
	}
	k, err := reg.Parse("kri_mw_default__demo_w1_")
	fmt.Println(k.Name, err)
	// Output: w1 <nil>
}

func ExampleField_Validate() {
	// Report a sectionName problem at the field it came from.
	for _, e := range naming.FieldSection.Validate("HTTP.port-", nil) {
		fmt.Println(e.Type, e.Detail)
	}
	// Output: Invalid value must start with a lowercase letter or digit; must end with a lowercase letter or digit; must contain only lowercase letters, digits or '-' (found 'H', 'T', 'P', '.')
}

func ExampleSanitizeStatName() {
	cluster := "kri_extsvc_default__kuma-system_httpbin.org_443"
	alt := naming.SanitizeStatName(cluster)
	fmt.Println(alt)
	fmt.Println(naming.CheckStatName(cluster).Rule, naming.IsSanitizedAltStatName(alt, cluster))
	// Output:
	// kri_extsvc_default__kuma-system_httpbin_org_443
	// stat-unsafe true
}

// Each Kuma release names the kinds it ships; 3.0 no longer has MeshGateway.
func ExampleRelease_ForObject() {
	gw := &unstructured.Unstructured{}
	gw.SetName("edge")
	for _, r := range naming.Releases() {
		k, errs := r.ForObject(naming.WithMesh(gw, "default"), "MeshGateway")
		fmt.Println(r, k, errs.ToAggregate())
	}
	// Output:
	// 2.14 kri_mgw_default___edge_ <nil>
	// 3.0 kri_____edge_ kind: Invalid value: "MeshGateway": removed in Kuma 3.0: the built-in gateway is gone (delegated gateways remain)
}

// Kuma 2.14 names the MeshHTTPRoute of an HTTPRoute on one of its Gateways after the route and a
// hash of the parentRef: two routes whose "<route>-<namespace>" agree collide.
func ExampleRelease_MeshHTTPRouteName() {
	gw := naming.ParentRef{Group: naming.GatewayAPIGroup, Kind: "Gateway", Namespace: "gws", Name: "gw"}
	a, _ := naming.Kuma2_14.MeshHTTPRouteName("c", "a-b", gw)
	b, _ := naming.Kuma2_14.MeshHTTPRouteName("b-c", "a", gw)
	_, ok := naming.Kuma3_0.MeshHTTPRouteName("c", "a-b", gw)
	fmt.Println(a, b, ok)
	// Output: a-b-c-e1548f02 a-b-c-e1548f02 false
}
