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

// pidsFile, in a control plane's folder, lists the processes started for it, "<pid>.<start>" a
// line (ownerTag's form), so that a later run can stop them if their owner dies.
const pidsFile = "pids"

// recordProcesses writes into dir the children this process has now and did not have in before:
// the etcd and kube-apiserver envtest has just started.
func recordProcesses(dir string, before map[int]bool) error {
	var b strings.Builder
	for _, pid := range childPids() {
		if !before[pid] {
			b.WriteString(ownerTag(pid) + "\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, pidsFile), []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("recording the control plane's processes: %w", err)
	}
	return nil
}

// stopRecorded kills the processes recordProcesses wrote into dir that still run (same pid and start
// time), each with its process group: envtest starts etcd and kube-apiserver as group leaders.
func stopRecorded(dir string) {
	data, err := os.ReadFile(filepath.Join(dir, pidsFile))
	if err != nil {
		return
	}
	for _, line := range strings.Fields(string(data)) {
		pid, start, ok := strings.Cut(line, ".")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || !ownerAlive(n, start) {
			continue
		}
		killGroup(n)
	}
}

// sweepStaleWorkDirs removes the folders whose owner has exited without calling Stop (killed by a test
// timeout, SIGKILL, a crash), and first stops the etcd and kube-apiserver it left running on them
// (stopRecorded): envtest starts them in their own process group, so they outlive a killed test
// binary. It returns the folders it removed.
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
		stopRecorded(dir)
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}
