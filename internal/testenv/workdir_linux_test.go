package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseOwner(t *testing.T) {
	tests := []struct {
		name  string
		pid   int
		start string
		ok    bool
	}{
		{"123.4567-890", 123, "4567", true},
		{"1.0-x", 1, "0", true},
		{"123-890", 0, "", false},
		{"abc.1-2", 0, "", false},
		{"-1.1-2", 0, "", false},
		{"lost+found", 0, "", false},
	}
	for _, tt := range tests {
		pid, start, ok := parseOwner(tt.name)
		if pid != tt.pid || start != tt.start || ok != tt.ok {
			t.Errorf("parseOwner(%q) = %d, %q, %t; want %d, %q, %t", tt.name, pid, start, ok, tt.pid, tt.start, tt.ok)
		}
	}
}

// TestSweepStaleWorkDirs plays a test binary killed mid-run: its folder, and a process still using
// it, must go at the next start; the folder of a live owner must stay.
func TestSweepStaleWorkDirs(t *testing.T) {
	// A finished child gives a pid that is certainly not running with that start time any more.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(workRoot(), 0o700); err != nil {
		t.Fatal(err)
	}
	stale, err := os.MkdirTemp(workRoot(), strconv.Itoa(dead.Process.Pid)+".1-")
	if err != nil {
		t.Fatal(err)
	}
	live, err := newWorkDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(live)

	// An orphan the dead owner started for that folder, in a process group of its own as envtest
	// starts etcd and kube-apiserver, and recorded there.
	before := map[int]bool{}
	for _, pid := range childPids() {
		before[pid] = true
	}
	orphan := exec.Command("sh", "-c", "while :; do sleep 0.1; done")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- orphan.Wait() }()
	t.Cleanup(func() { _ = orphan.Process.Kill() })
	if err := recordProcesses(stale, before); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(stale, pidsFile)); string(data) != ownerTag(orphan.Process.Pid)+"\n" {
		t.Fatalf("recorded %q, want the orphan %d alone", data, orphan.Process.Pid)
	}
	// A record of a process that has gone, whose pid may have been reused: left alone.
	if err := os.WriteFile(filepath.Join(live, pidsFile), []byte(strconv.Itoa(os.Getpid())+".1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stopRecorded(live)

	removed := sweepStaleWorkDirs()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale folder still there (%v); removed %v", err, removed)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("live folder removed: %v", err)
	}
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Error("the process using the stale folder still runs")
	}
}

// TestStartRecordsProcesses checks that a running control plane's folder records its etcd and
// kube-apiserver, the processes a later run stops should this one be killed.
func TestStartRecordsProcesses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(env.workDir, pidsFile))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Fields(string(data)) {
		pid, start, _ := strings.Cut(line, ".")
		n, err := strconv.Atoi(pid)
		if err != nil || !ownerAlive(n, start) {
			t.Errorf("recorded %q is not a running process", line)
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", pid, "comm"))
		names = append(names, strings.TrimSpace(string(comm)))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"etcd", "kube-apiserver"}) {
		t.Errorf("recorded processes %v, want etcd and kube-apiserver", names)
	}
}
