// Command schemagen writes the table of upstream CRD facts that admissionpolicy generates policies
// from (KnownSchemas), reading the CRDs themselves from the folders it is given. It is run by go
// generate:
//
//	go run ./internal/schemagen -o schemas_generated.go ../../shared/upstream/kuma/master-348b652/crds ../../shared/upstream/kong-operator/cefc384/crds
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kriguard/kriguard/admissionpolicy"
)

func main() {
	out := flag.String("o", "", "Go file to write")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: schemagen -o FILE CRD-FOLDER...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(out string, folders []string) error {
	if out == "" || len(folders) == 0 {
		return fmt.Errorf("-o and at least one CRD folder are required")
	}
	schemas, err := admissionpolicy.SchemasFromCRDs(folders...)
	if err != nil {
		return err
	}
	src, err := admissionpolicy.SchemasSource(schemas)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
