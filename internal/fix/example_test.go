package fix_test

import (
	"fmt"
	"os"

	"github.com/kriguard/kriguard/internal/fix"
	"github.com/kriguard/kriguard/naming"
)

func ExampleRewrite() {
	src := []byte(`apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: backend
  namespace: app
spec:
  to:
  - targetRef:
      kind: MeshService
      name: backend # the API
      sectionName: http
    default:
      idleTimeout: 1h
---
apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  name: api.v2
  namespace: app
`)
	res, err := fix.Rewrite(src, fix.Options{Release: naming.Kuma3_0})
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(res.Output)
	for _, c := range res.Changes {
		fmt.Printf("line %d: %s: %s: %s\n", c.Line, c.Object, c.Field, c.Message)
	}
	for _, f := range res.Findings {
		fmt.Printf("line %d: %s: %s: needs a human\n", f.Line, f.Object, f.Field)
	}
	// Output:
	// apiVersion: kuma.io/v1alpha1
	// kind: MeshTimeout
	// metadata:
	//   name: backend
	//   namespace: app
	// spec:
	//   to:
	//   - targetRef:
	//       kind: MeshService
	//       labels:
	//         kuma.io/display-name: backend # the API
	//         k8s.kuma.io/namespace: app
	//       sectionName: http
	//     default:
	//       idleTimeout: 1h
	// ---
	// apiVersion: kuma.io/v1alpha1
	// kind: MeshService
	// metadata:
	//   name: api.v2
	//   namespace: app
	// line 9: MeshTimeout app/backend: spec.to[0].targetRef: selects by the labels kuma.io/display-name and k8s.kuma.io/namespace instead of name and namespace
	// line 18: MeshService app/api.v2: metadata.name: needs a human
}
