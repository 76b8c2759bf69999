package testenv_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/kriguard/kriguard/internal/testenv"
)

// A package whose tests need an API server starts one control plane in TestMain and shares it.
func ExampleMain() {
	var env *testenv.Env
	testMain := func(m *testing.M) {
		os.Exit(testenv.Main(m, testenv.Options{}, &env))
	}
	_ = testMain // in a _test.go file: func TestMain(m *testing.M) { … }
}

// NewObject builds an object the apiserver accepts under the real upstream schema, here for a Kong kind
// whose CRD requires a spec naming a Konnect control plane.
func ExampleNewObject() {
	k := testenv.Kind{Group: "configuration.konghq.com", Version: "v1alpha1", Kind: "KongUpstream", Namespaced: true}
	obj := testenv.NewObject(k, "demo", "upstream-1")
	ref := obj.Object["spec"].(map[string]any)["controlPlaneRef"].(map[string]any)
	fmt.Println(obj.GetNamespace(), obj.GetName(), obj.GroupVersionKind() == k.GroupVersionKind())
	fmt.Println(ref["type"])
	// Output:
	// demo upstream-1 true
	// konnectNamespacedRef
}
