package vetbench_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kriguard/kriguard/test/vetbench"
)

// A corpus of two generator packages, resolving the same modules as test/envoyvet.
func ExampleCorpus() {
	dir, err := os.MkdirTemp("", "vetcorpus-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	c := vetbench.Corpus{Packages: 2, Requirements: filepath.Join("..", "envoyvet", "go.mod")}
	pkgs, err := c.Write(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pkgs)
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			fmt.Println(filepath.ToSlash(rel))
		}
		return err
	})
	// Output:
	// [example.com/vetcorpus/gen/p000 example.com/vetcorpus/gen/p001]
	// builders/builders.go
	// gen/p000/gen.go
	// gen/p000/stamp.go
	// gen/p001/gen.go
	// gen/p001/stamp.go
	// go.mod
	// go.sum
	// names/names.go
}
