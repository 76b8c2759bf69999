package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bin is the command built once for the tests, as a user runs it.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kriguard-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "kriguard")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.9.9-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	if other := os.Getenv("KRIGUARD_MEASURE_BINARY"); other != "" {
		// Measures another build (an earlier commit's) with the memory tests; the others may fail.
		bin = other
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const bad = "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  labels:\n    kuma.io/mesh: Mesh_1\n"

const denial = `MeshTimeout t: metadata.labels[kuma.io/mesh]: Invalid value: "Mesh_1"`

// Version set at build time, exit statuses from the process.
func TestBinary(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{name: "version", args: []string{"--version"}, stdout: "kriguard v9.9.9-test ("},
		{name: "denied", args: []string{"check", "-"}, stdin: bad, code: 1, stdout: "-:6:5: " + denial},
		{name: "usage", args: []string{"check"}, code: 2, stderr: "kriguard check: no PATH given"},
		{name: "input error", args: []string{"check", "-"}, stdin: "kind: [", code: 2, stderr: "-:1: error: invalid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := exitCode(t, cmd.Run())
			if code != tt.code || !strings.HasPrefix(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout starting %q, stderr with %q",
					code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// exitBound is how long the command may take to end after a signal: at once, with room for a
// loaded machine.
const exitBound = 3 * time.Second

// A signal ends the command at once wherever it waits for input: a FIFO no one writes to (open
// blocks), a FIFO or standard input open with nothing coming (read blocks), for check, kri of
// and envoy. The status is the shell's for the signal, and what was decided before is printed;
// -o json still prints a JSON array.
func TestSignalEndsBlockedRead(t *testing.T) {
	tests := []struct {
		name   string
		args   []string // "FIFO" stands for the path of a FIFO
		input  string   // written first, the input then stays open; "" with a FIFO: no writer at all
		stdin  bool     // the input is standard input, else the FIFO
		sig    syscall.Signal
		code   int
		stdout string // printed before the signal
	}{
		{name: "FIFO without a writer", args: []string{"check", "FIFO"}, sig: syscall.SIGINT, code: 130},
		{name: "FIFO without a writer, SIGTERM", args: []string{"check", "FIFO"}, sig: syscall.SIGTERM, code: 143},
		{name: "FIFO open", args: []string{"check", "FIFO"}, input: bad + "---\n", sig: syscall.SIGINT, code: 130, stdout: "FIFO:6:5: " + denial},
		{name: "stdin", args: []string{"check", "-"}, input: bad + "---\n", stdin: true, sig: syscall.SIGTERM, code: 143, stdout: "-:6:5: " + denial},
		{name: "stdin json", args: []string{"check", "-o", "json", "-"}, input: bad + "---\n", stdin: true, sig: syscall.SIGINT, code: 130, stdout: `"allowed":false`},
		{name: "stdin empty", args: []string{"check", "-"}, stdin: true, sig: syscall.SIGINT, code: 130},
		{name: "kri of", args: []string{"kri", "of", "-"}, input: bad + "---\n", stdin: true, sig: syscall.SIGINT, code: 130, stdout: "-:1: MeshTimeout t: kri_mt_Mesh_1"},
		{name: "envoy stdin", args: []string{"envoy", "-"}, input: `{"configs": [`, stdin: true, sig: syscall.SIGINT, code: 130},
		{name: "envoy FIFO", args: []string{"envoy", "FIFO"}, sig: syscall.SIGTERM, code: 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "input.yaml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "FIFO", fifo)
			}
			cmd := exec.Command(bin, args...)
			var stdin io.WriteCloser
			var err error
			if tt.stdin {
				if stdin, err = cmd.StdinPipe(); err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			if !tt.stdin && tt.input != "" {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the command opens it
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdin = f
			}
			if stdin != nil && tt.input != "" {
				if _, err := io.WriteString(stdin, tt.input); err != nil {
					t.Fatal(err)
				}
			}
			// What the command decided is printed before the input ends.
			lines := bufio.NewReader(out)
			printed := ""
			if tt.stdout != "" {
				stdout := make(chan string, 1)
				go func() {
					var b strings.Builder
					buf := make([]byte, 4096)
					for !strings.Contains(strings.ReplaceAll(b.String(), fifo, "FIFO"), tt.stdout) {
						n, err := lines.Read(buf) // -o json ends an element's line with the next one
						b.Write(buf[:n])
						if err != nil {
							break
						}
					}
					stdout <- b.String()
				}()
				select {
				case printed = <-stdout:
				case <-time.After(10 * time.Second):
					t.Fatalf("nothing printed while the input is open, want %q", tt.stdout)
				}
				if !strings.Contains(strings.ReplaceAll(printed, fifo, "FIFO"), tt.stdout) {
					t.Fatalf("printed %q, want %q", printed, tt.stdout)
				}
			}
			waitBlocked(t, cmd.Process.Pid)
			sent := time.Now()
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			type ended struct {
				rest string
				err  error
			}
			done := make(chan ended, 1)
			go func() {
				b, _ := io.ReadAll(lines)
				done <- ended{string(b), cmd.Wait()} // Wait only once stdout is read
			}()
			var e ended
			select {
			case e = <-done:
			case <-time.After(exitBound):
				t.Fatalf("still running %v after %v", exitBound, tt.sig)
			}
			took := time.Since(sent)
			all := printed + e.rest
			if code := exitCode(t, e.err); code != tt.code {
				t.Errorf("exit %d after %v, want %d; stderr %q", code, tt.sig, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "kriguard: interrupted") {
				t.Errorf("stderr %q, want it to say the command was interrupted", stderr.String())
			}
			if strings.Contains(tt.name, "json") && !strings.HasSuffix(all, "\n]\n") {
				t.Errorf("-o json printed %q, want a whole JSON array", all)
			}
			t.Logf("exit %d %v after %v", tt.code, took.Round(time.Millisecond), tt.sig)
		})
	}
}

// waitBlocked waits until the process pid sleeps in the kernel reading or opening a pipe or a
// FIFO, as /proc shows it (the wchan of one of its threads); where it cannot tell, it waits a moment instead.
func waitBlocked(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		if err != nil || len(tasks) == 0 {
			break
		}
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			if w := string(b); strings.Contains(w, "pipe") || strings.Contains(w, "fifo") || w == "wait_for_partner" || strings.Contains(w, "epoll") {
				// epoll: Go reads a FIFO through its poller {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
}

// Process substitution (check <(helm template …)) hands the command a /dev/fd path to a pipe.
func TestProcessSubstitution(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "check", "/dev/fd/3")
	cmd.ExtraFiles = []*os.File{r}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	go func() { io.WriteString(w, bad); w.Close() }()
	code := exitCode(t, cmd.Wait())
	if want := "/dev/fd/3:6:5: " + denial; code != 1 || !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout.String(), stderr.String(), want)
	}
}
