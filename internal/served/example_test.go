package served_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kriguard/kriguard/internal/served"
	"github.com/kriguard/kriguard/rules"
)

// The continuous audit watches the guarded kinds a cluster serves with list and watch.
func ExampleKinds() {
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	kinds, err := served.Kinds(context.Background(), dc, rules.DefaultConfig(), false, "list", "watch")
	if err != nil {
		fmt.Println("no cluster here")
		return
	}
	for _, k := range kinds {
		fmt.Println(k.GroupKind(), k.GVR.Resource, k.Namespaced)
	}
	// Output:
	// no cluster here
}
