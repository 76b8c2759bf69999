package testenv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AssetsEnv names the environment variable envtest reads the binaries' folder from; hack/tools.sh env
// sets it.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// modulePath identifies the repository root: the folder whose go.mod declares it.
const modulePath = "github.com/kriguard/kriguard"

// fix is what every "binaries missing" error tells the reader to do.
const fix = "run ./hack/tools.sh install or make test (to use them from a shell: eval \"$(./hack/tools.sh env)\")"

// binaries are the paths of the control-plane programs.
type binaries struct {
	apiServer, etcd string
	// kubectl is empty when the folder has none: the control plane does not need it.
	kubectl string
}

// findBinaries locates kube-apiserver and etcd in $KUBEBUILDER_ASSETS or, when that is not set, in the
// repository's bin/ folder, which hack/tools.sh fills; so `go test ./...` works after a single
// `./hack/tools.sh install` without an exported variable. A folder named explicitly but lacking a
// binary is an error, never a reason to look elsewhere.
func findBinaries(root string) (binaries, error) {
	dir := os.Getenv(AssetsEnv)
	where := AssetsEnv + "=" + dir
	if dir == "" {
		if root == "" {
			return binaries{}, fmt.Errorf("%s is not set: %s", AssetsEnv, fix)
		}
		dir = filepath.Join(root, "bin")
		where = AssetsEnv + " is not set, and " + dir
	}
	var b binaries
	for _, p := range []struct {
		name string
		dst  *string
	}{{"kube-apiserver", &b.apiServer}, {"etcd", &b.etcd}} {
		path := filepath.Join(dir, p.name)
		if err := checkExecutable(path); err != nil {
			return binaries{}, fmt.Errorf("%s has no usable %s (%w): %s", where, p.name, err, fix)
		}
		*p.dst = path
	}
	if path := filepath.Join(dir, "kubectl"); checkExecutable(path) == nil {
		b.kubectl = path
	}
	return b, nil
}

// checkExecutable reports why path cannot be run. A symbolic link into a deleted tool cache fails
// here too, since os.Stat follows it.
func checkExecutable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", path)
	}
	return nil
}

// repoRoot finds the repository root from the working directory, which `go test` sets to the folder
// of the package under test.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the repository root: %w", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && moduleOf(data) == modulePath {
			return dir, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("finding the repository root: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("finding the repository root: no go.mod of module %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// moduleOf returns the module path a go.mod declares, or "".
func moduleOf(gomod []byte) string {
	s := bufio.NewScanner(bytes.NewReader(gomod))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
