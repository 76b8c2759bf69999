// Command schemagen writes the table of upstream CRD facts that admissionpolicy generates policies
// from (KnownSchemas), reading the CRDs themselves. It is run by go generate:
//
//	go run ./internal/schemagen -crds ../../shared/crds -o schemas_generated.go
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kriguard/kriguard/admissionpolicy"
)

func main() {
	crds := flag.String("crds", "", "folder holding the upstream CRDs, in subfolders (kuma/, kong/)")
	out := flag.String("o", "", "Go file to write")
	flag.Parse()
	if err := run(*crds, *out); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(crds, out string) error {
	if crds == "" || out == "" {
		return fmt.Errorf("-crds and -o are required")
	}
	dirs, err := filepath.Glob(filepath.Join(crds, "*"))
	if err != nil {
		return err
	}
	var folders []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			folders = append(folders, d)
		}
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
