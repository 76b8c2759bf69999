package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// ran is what one run of the command printed and returned.
type ran struct {
	stdout, stderr string
	code           int
}

// run runs the command as a user would, with stdin as standard input.
func run(t testing.TB, stdin string, args ...string) ran {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut, Version: "v0.0.0-test"})
	return ran{out.String(), errOut.String(), code}
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update after checking the change):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// decodeResults reads check's -o json output.
// jsonResult is an element of check's and audit's -o json, as a program reads it (docs/cli.md).
type jsonResult struct {
	Source                                 string
	Line                                   int
	APIVersion, Kind, Namespace, Name, KRI string
	Mesh                                   string `json:",omitempty"`
	Allowed                                bool
	Enforcement                            string
	Causes                                 []jsonFinding
	Warnings                               []jsonFinding `json:",omitempty"`
}

func decodeResults(t testing.TB, s string) []jsonResult {
	t.Helper()
	var rs []jsonResult
	if err := json.Unmarshal([]byte(s), &rs); err != nil {
		t.Fatalf("-o json printed something that is not a JSON array of results: %v\n%s", err, s)
	}
	return rs
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelpAndVersion(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		noStdout bool
	}{
		{name: "version", args: []string{"--version"}, stdout: []string{"kriguard v0.0.0-test (go"}},
		{name: "root help", args: []string{"--help"}, stdout: []string{"Commands:", "check", "audit", "envoy", "kri", "Examples:", "Exit status: 0 nothing denied, 1 at least one object or name denied, 2 usage or input error"}},
		{name: "check help", args: []string{"check", "-h"}, stdout: []string{"kriguard check PATH...", "Examples:", "kustomize build", "--config", "-o, --output"}},
		{name: "audit help", args: []string{"audit", "--help"}, stdout: []string{"--kubeconfig", "-n, --namespace", "-A, --all-namespaces", "--chunk-size", "Examples:"}},
		{name: "envoy help", args: []string{"envoy", "--help"}, stdout: []string{"include_eds", "--strict", "--prefix", "Examples:"}},
		{name: "kri help", args: []string{"kri", "--help"}, stdout: []string{"explain", "of", "name", "Examples:"}},
		{name: "kri name help", args: []string{"kri", "name", "--help"}, stdout: []string{"--mesh", "--zone", "backend-4dv9w4x47w8w98v4"}},
		{name: "no command", args: nil, code: ExitError, stderr: []string{"Commands:"}, noStdout: true},
		{name: "unknown command", args: []string{"lint"}, code: ExitError, stderr: []string{`kriguard: unknown command "lint"`, "Run 'kriguard --help' for usage."}, noStdout: true},
		{name: "unknown command with --help", args: []string{"frobnicate", "--help"}, code: ExitError, stderr: []string{`kriguard: unknown command "frobnicate"`}, noStdout: true},
		{name: "unknown kri command with -h", args: []string{"kri", "frobnicate", "-h"}, code: ExitError, stderr: []string{`kriguard kri: unknown command "frobnicate"`}, noStdout: true},
		{name: "unknown flag", args: []string{"check", "--fast", "x"}, code: ExitError, stderr: []string{"kriguard check: unknown flag: --fast", "Run 'kriguard check --help'"}, noStdout: true},
		{name: "bad output", args: []string{"check", "-o", "yaml", "x"}, code: ExitError, stderr: []string{`--output: unknown format "yaml"`}, noStdout: true},
		{name: "check without paths", args: []string{"check"}, code: ExitError, stderr: []string{"no PATH given"}, noStdout: true},
		{name: "kri without subcommand", args: []string{"kri"}, code: ExitError, stderr: []string{"explain"}, noStdout: true},
		{name: "kri name without name", args: []string{"kri", "name", "--mesh", "default"}, code: ExitError, stderr: []string{"--name is required"}, noStdout: true},
		{name: "audit with -n and -A", args: []string{"audit", "-n", "a", "-A"}, code: ExitError, stderr: []string{"exclude each other"}, noStdout: true},
		{name: "envoy with two sources", args: []string{"envoy", "a", "b"}, code: ExitError, stderr: []string{"want one FILE, URL or -, got 2 arguments"}, noStdout: true},
		{name: "a bad configuration file", args: []string{"check", "--config", "testdata/bad-config.yaml", "x"}, code: ExitError, stderr: []string{`kinds[0].enforcement: Unsupported value: "block"`}, noStdout: true},
		{name: "policy help", args: []string{"policy", "--help"}, stdout: []string{"kriguard policy [flags]", "--exclude-namespace", "--opt-out-label", "Examples:"}},
		{name: "policy with an argument", args: []string{"policy", "x"}, code: ExitError, stderr: []string{`unexpected argument "x"`}, noStdout: true},
		{name: "policy with a bad configuration file", args: []string{"policy", "--config", "testdata/bad-config.yaml"}, code: ExitError, stderr: []string{`kinds[0].enforcement: Unsupported value: "block"`}, noStdout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", tt.args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if tt.noStdout && r.stdout != "" {
				t.Errorf("stdout should be empty on a usage error, got:\n%s", r.stdout)
			}
		})
	}
}

// Every command's --help shows examples that start with the command itself.
func TestEveryHelpHasExamples(t *testing.T) {
	var visit func(c *command, path []string)
	visit = func(c *command, path []string) {
		path = append(path, c.name)
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			r := run(t, "", append(path[1:], "--help")...)
			_, ex, ok := strings.Cut(r.stdout, "\nExamples:\n")
			if r.code != ExitOK || !ok || !strings.HasPrefix(ex, "  "+strings.Join(path, " ")) {
				t.Errorf("exit %d, help without examples of %q:\n%s", r.code, strings.Join(path, " "), r.stdout)
			}
		})
		for _, s := range c.subs {
			visit(s, path)
		}
	}
	visit(commands(), nil)
}

// blockingReader gives its text, then blocks until released, as a pipe whose writer stays open.
type blockingReader struct {
	text    string
	release chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if r.text != "" {
		n := copy(p, r.text)
		r.text = r.text[n:]
		return n, nil
	}
	<-r.release
	return 0, io.EOF
}

// A signal (a context canceled with an Interrupted cause) ends Main while the command still waits
// for input, with the signal's status and what was decided before it printed.
func TestMainInterrupted(t *testing.T) {
	bad := "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  labels:\n    kuma.io/mesh: Mesh_1\n---\n"
	for _, tt := range []struct {
		format, want string
	}{
		{"text", "-:6:5: MeshTimeout t: metadata.labels[kuma.io/mesh]: Invalid value: \"Mesh_1\""},
		{"json", "[\n{\"source\":\"-\",\"line\":1,"},
	} {
		t.Run(tt.format, func(t *testing.T) {
			in := &blockingReader{text: bad, release: make(chan struct{})}
			defer close(in.release)
			ctx, cancel := context.WithCancelCause(context.Background())
			out, errOut := &syncBuffer{}, &syncBuffer{}
			code := make(chan int, 1)
			go func() {
				code <- Main(ctx, []string{"check", "-o", tt.format, "-"}, Streams{In: in, Out: out, Err: errOut})
			}()
			for !strings.Contains(out.String(), tt.want) { // printed as decided
				time.Sleep(time.Millisecond)
			}
			cancel(Interrupted{Signal: syscall.SIGINT})
			if c := <-code; c != 130 {
				t.Errorf("exit %d, want 130", c)
			}
			if tt.format == "json" {
				decodeResults(t, out.String())
			}
			if got := errOut.String(); got != "kriguard: interrupted\n" {
				t.Errorf("stderr %q", got)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer the test reads while Main writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
