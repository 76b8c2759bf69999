package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// FuzzUniqueAdd: any bytes, as any kind the rules across objects read (Kubernetes or Universal), are an error or an
// object, never a panic, and Findings holds up after them.
func FuzzUniqueAdd(f *testing.F) {
	for _, in := range []input{
		kumaObj("MeshService", "abc", "backend", `,"kuma.io/zone":"zone-1"`),
		kongCert("default", "c", "cp-a"), kongSNI("default", "s", "*", "c"),
		gateway("default", "g.1", "kong", listener("x", 2, "", "tls")),
		httpRoute("ns", "r", `{"group":"","kind":"Service","name":"s"}`),
		universalObj("MeshService", "backend", `,"kuma.io/zone":"zone-1","k8s.kuma.io/namespace":"abc"`),
	} {
		f.Add(in.raw)
	}
	kinds := []schema.GroupKind{{Group: KumaGroup, Kind: "MeshService"}, kongCertificateGK, kongSNIGK, gatewayKind, gatewayClassKind, httpRouteKind}
	c := DefaultConfig()
	f.Fuzz(func(t *testing.T, raw string) {
		u := c.NewUnique(naming.Release{})
		for _, gk := range kinds {
			_, _ = u.Add("z", gk, []byte(raw))
			_, _ = u.Add("", gk, []byte(raw))
			_, _ = u.AddUniversal("z", gk, []byte(raw))
		}
		for _, cl := range u.Findings() {
			if cl.Problem == nil || cl.Name == "" {
				t.Fatalf("clash without a problem or a name: %+v", cl)
			}
		}
	})
}
