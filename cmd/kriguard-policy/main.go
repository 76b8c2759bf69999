// Command kriguard-policy prints the ValidatingAdmissionPolicies and bindings that enforce the naming
// rules of a kriguard configuration without the validating webhook (see docs/policy.md):
//
//	go run ./cmd/kriguard-policy --config config.yaml > policy.yaml
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/kriguard/kriguard/admissionpolicy"
)

func main() {
	config := flag.String("config", "", "kriguard configuration file (default: the built-in configuration)")
	prefix := flag.String("prefix", "kriguard", "prefix of the generated object names")
	exclude := flag.String("exclude-namespaces", "", "comma-separated namespaces never guarded, besides kube-system (the webhook's own, typically)")
	optOut := flag.String("opt-out-label", "", "namespace label that, set to \"true\", keeps a namespace unguarded")
	out := flag.String("o", "-", "file to write, - for standard output")
	flag.Parse()
	var ns []string
	if *exclude != "" {
		ns = strings.Split(*exclude, ",")
	}
	if err := admissionpolicy.WriteFor(*config, admissionpolicy.Options{Prefix: *prefix, ExcludeNamespaces: ns, OptOutLabel: *optOut}, *out); err != nil {
		fmt.Fprintln(os.Stderr, "kriguard-policy:", err)
		os.Exit(2)
	}
}
