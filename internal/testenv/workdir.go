package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// workRoot is the parent of every control plane's private folder: one per user, so that users sharing
// a machine neither collide nor sweep each other's folders.
func workRoot() string {
	return filepath.Join(os.TempDir(), "kriguard-testenv-"+strconv.Itoa(os.Getuid()))
}

// newWorkDir creates a private folder for one control plane, named after the owning process (see
// ownerTag) so that a later run can tell whether that owner is gone.
func newWorkDir() (string, error) {
	root := workRoot()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("creating the control plane's folder: %w", err)
	}
	dir, err := os.MkdirTemp(root, ownerTag(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("creating the control plane's folder: %w", err)
	}
	return dir, nil
}

// parseOwner reads the owner tag back from a work folder's name: "<pid>.<start>-<random>".
func parseOwner(name string) (pid int, start string, ok bool) {
	tag, _, ok := strings.Cut(name, "-")
	if !ok {
		return 0, "", false
	}
	p, start, ok := strings.Cut(tag, ".")
	if !ok {
		return 0, "", false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, "", false
	}
	return pid, start, true
}

// sweepStaleWorkDirs removes the folders whose owner has exited without calling Stop (killed by a test
// timeout, SIGKILL, a crash), and first stops the etcd and kube-apiserver it left running on them:
// envtest starts them in their own process group, so they outlive a killed test binary. It returns
// the folders it removed.
func sweepStaleWorkDirs() []string {
	entries, err := os.ReadDir(workRoot())
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		pid, start, ok := parseOwner(e.Name())
		if !ok || !e.IsDir() || ownerAlive(pid, start) {
			continue
		}
		dir := filepath.Join(workRoot(), e.Name())
		killProcessesUsing(dir)
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}
