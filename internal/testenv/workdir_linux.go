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

// childPids lists the children of this process, from each thread's children list.
func childPids() []int {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var pids []int
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "children"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// killGroup kills the process group led by pid, and pid itself should it lead none.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
