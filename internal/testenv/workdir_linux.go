package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownerTag names a process so that a reused pid does not pass for it: its pid and its start time in
// clock ticks since boot (field 22 of /proc/<pid>/stat).
func ownerTag(pid int) string {
	return strconv.Itoa(pid) + "." + startTime(pid)
}

func startTime(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "0"
	}
	// The command name (field 2) is in parentheses and may hold spaces; count fields after it.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return "0"
	}
	fields := strings.Fields(string(data[i+1:]))
	const startField = 22 - 3 // fields 1 and 2 precede ')'; fields[0] is field 3
	if len(fields) <= startField {
		return "0"
	}
	return fields[startField]
}

// ownerAlive reports whether the process that created a work folder still runs.
func ownerAlive(pid int, start string) bool {
	if err := syscall.Kill(pid, 0); err != nil && err != syscall.EPERM {
		return false
	}
	return startTime(pid) == start
}

// killProcessesUsing kills the processes whose command line names a path inside dir: the etcd
// (--data-dir) and kube-apiserver (--cert-dir) a dead owner started there. The folder's name is unique
// to that owner, so nothing else matches.
func killProcessesUsing(dir string) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	needle := []byte(dir + string(filepath.Separator))
	self := os.Getpid()
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, needle) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
