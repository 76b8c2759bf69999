package vetbench

import (
	"strings"
	"testing"
)

// FuzzRenameModule: renameModule never panics, and when it succeeds the first module directive names the
// new path and every other line is kept.
func FuzzRenameModule(f *testing.F) {
	f.Add("module example.com/old\n\ngo 1.26.0\n")
	f.Add("// comment\nmodule x\nrequire y v1.0.0 // module z\n")
	f.Add("go 1.26.0\n")
	f.Add("")
	f.Add("  module   spaced\r\nmodule second\n")
	f.Fuzz(func(t *testing.T, mod string) {
		out, err := renameModule([]byte(mod), "example.com/new")
		if err != nil {
			return
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		renamed := 0
		for _, l := range lines {
			if l == "module example.com/new" {
				renamed++
			}
		}
		if renamed == 0 {
			t.Fatalf("no module directive in the result:\n%s", out)
		}
	})
}
