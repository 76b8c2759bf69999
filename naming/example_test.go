package naming_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	obj := &metav1.ObjectMeta{
		Name:      "t1",
		Namespace: "kuma-system",
		Labels:    map[string]string{naming.LabelMesh: "Mesh_1"},
	}
	k, errs := naming.ForObject(obj, "MeshTimeout")
	fmt.Println(k.Type, k.Namespace, k.Name)
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// mt kuma-system t1
	// metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M', '_')
}

func ExampleRegistry_Register() {
	reg := naming.Default.Clone()
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
