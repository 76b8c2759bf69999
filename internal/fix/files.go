package fix

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// Expand returns the files paths name, in order: a file as it is (whatever its name), a folder as
// its .yaml and .yml files, recursively and in lexical order, hidden folders skipped, and Stdin as
// it is. A path that cannot be read is an error.
func Expand(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		if p == Stdin {
			files = append(files, p)
			continue
		}
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case path == p && !d.IsDir():
				files = append(files, path)
			case d.IsDir():
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
			case d.Type().IsRegular() && isYAML(path):
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s: %w", pe.Path, pe.Err)
			}
			return nil, err
		}
	}
	return files, nil
}

func isYAML(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// UnifiedDiff is the unified diff, three lines of context, that turns before into after, both
// named path ("a/path" and "b/path", as git prints them). It is "" when they are equal.
func UnifiedDiff(path string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	from, to := "a/"+path, "b/"+path
	if path == Stdin {
		from, to = Stdin, Stdin
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
		FromFile: from, ToFile: to, Context: 3,
	})
	if err != nil {
		// GetUnifiedDiffString only fails when writing to its own buffer fails.
		return ""
	}
	return d
}

// WriteFile replaces the contents of the file path with data at once: data goes to a new file
// beside it, which is renamed over it, so that an interrupted run leaves the old file or the new
// one, never half of one. The file keeps its mode; a symbolic link is followed, not replaced.
func WriteFile(path string, data []byte) (err error) {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".kriguard-fix-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(info.Mode().Perm()); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
