package cli_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kriguard/kriguard/internal/cli"
)

// check reads manifests from standard input with "-"; the exit status says whether anything is
// denied.
func ExampleMain() {
	manifests := `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: timeouts
  namespace: kuma-demo
  labels:
    kuma.io/mesh: Payments_Mesh
`
	code := cli.Main(context.Background(), []string{"check", "-"}, cli.Streams{
		In: strings.NewReader(manifests), Out: os.Stdout, Err: os.Stdout,
	})
	fmt.Println("exit", code)
	// Output:
	// -:7:5: MeshTimeout kuma-demo/timeouts: metadata.labels[kuma.io/mesh]: Invalid value: "Payments_Mesh": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'P', '_', 'M')
	// exit 1
}
