package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

	// An orphan that names the stale folder on its command line, as etcd's --data-dir does.
	orphan := exec.Command("sh", "-c", "while :; do sleep 0.1; done", filepath.Join(stale, "etcd"))
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- orphan.Wait() }()
	t.Cleanup(func() { _ = orphan.Process.Kill() })

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
