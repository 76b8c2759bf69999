package golangciplugin_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestGolangciLint does what `golangci-lint custom` does — builds golangci-lint with this plugin
// blank-imported — and runs it over test/envoyvet with the .golangci.yml of docs/krilint.md. It downloads
// and compiles golangci-lint, which takes minutes, so it runs only when KRILINT_GOLANGCI_VERSION names the
// release to build on (for example v2.15.0, which uses the same x/tools and plugin-module-register as
// kriguard).
func TestGolangciLint(t *testing.T) {
	version := os.Getenv("KRILINT_GOLANGCI_VERSION")
	if version == "" {
		t.Skip("set KRILINT_GOLANGCI_VERSION (e.g. v2.15.0) to build golangci-lint with the krilint plugin")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildGolangciLint(t, root, version)

	project := t.TempDir()
	copyDir(t, filepath.Join(root, "test", "envoyvet"), project)

	t.Run("findings", func(t *testing.T) {
		writeConfig(t, project, "strict: false\n          prefixes: [self_, system_]")
		out, err := runGolangciLint(project, bin)
		if err == nil {
			t.Fatalf("golangci-lint found nothing in the fixture:\n%s", out)
		}
		got := reported(out)
		want := markedLines(t, project)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("golangci-lint reported\n\t%s\nwant the marked lines\n\t%s\noutput:\n%s",
				strings.Join(got, "\n\t"), strings.Join(want, "\n\t"), out)
		}
	})

	t.Run("strict", func(t *testing.T) {
		writeConfig(t, project, "strict: true")
		out, _ := runGolangciLint(project, bin, "./direct")
		if !bytes.Contains(out, []byte(`"inbound-8080"`)) || !bytes.Contains(out, []byte("is a legacy name")) {
			t.Fatalf("strict: true did not report the legacy name in direct:\n%s", out)
		}
	})

	t.Run("bad settings", func(t *testing.T) {
		writeConfig(t, project, "sinks: [nonsense]")
		out, err := runGolangciLint(project, bin, "./direct")
		if err == nil || !bytes.Contains(out, []byte(`krilint settings: sinks[0]: "nonsense"`)) {
			t.Fatalf("golangci-lint accepted a malformed sink (err=%v):\n%s", err, out)
		}
	})
}

func buildGolangciLint(t *testing.T, root, version string) string {
	t.Helper()
	work := t.TempDir()
	var mod struct{ Dir string }
	out, err := command(work, "go", "mod", "download", "-json", "github.com/golangci/golangci-lint/v2@"+version).Output()
	if err != nil || json.Unmarshal(out, &mod) != nil || mod.Dir == "" {
		t.Fatalf("downloading golangci-lint %s: %v\n%s", version, err, out)
	}
	src := filepath.Join(work, "golangci-lint")
	copyDir(t, mod.Dir, src)
	plugins := "package main\n\nimport _ \"github.com/kriguard/kriguard/golangciplugin\"\n"
	if err := os.WriteFile(filepath.Join(src, "cmd", "golangci-lint", "plugins.go"), []byte(plugins), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(src, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\nreplace github.com/kriguard/kriguard => " + root + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(work, "custom-gcl")
	for _, args := range [][]string{
		{"go", "get", "github.com/kriguard/kriguard@v0.0.0-00010101000000-000000000000"},
		{"go", "build", "-o", bin, "./cmd/golangci-lint"},
	} {
		cmd := command(src, args...)
		cmd.Env = append(cmd.Env, "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return bin
}

func writeConfig(t *testing.T, project, settings string) {
	t.Helper()
	config := `version: "2"
linters:
  default: none
  enable:
    - krilint
  settings:
    custom:
      krilint:
        type: module
        description: Envoy resource names without ':' and valid KRIs
        settings:
          ` + settings + `
issues:
  max-issues-per-linter: 0
  max-same-issues: 0
  uniq-by-line: false
`
	if err := os.WriteFile(filepath.Join(project, ".golangci.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runGolangciLint(project, bin string, pkgs ...string) ([]byte, error) {
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	return command(project, append([]string{bin, "run", "--output.text.path=stdout"}, pkgs...)...).CombinedOutput()
}

// issueRE matches golangci-lint's text output, "generator/generator.go:34:9: message (krilint)".
var issueRE = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: (.*)\(krilint\)$`)

// reported returns the sorted "file:line" of krilint's issues. golangci-lint also prints the related
// information of a finding that lies in the same package as issues of their own; those are steps, not
// findings.
func reported(out []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := issueRE.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(m[3], "krilint(related information)") {
			continue
		}
		lines = append(lines, m[1]+":"+m[2])
	}
	sort.Strings(lines)
	return lines
}

// markedLines returns the sorted "file:line" of the fixture's markers that hold without -strict (see
// test/integration for their full grammar).
func markedLines(t *testing.T, dir string) []string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "// krilint: ") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				for range strings.Split(strings.SplitN(line, "// krilint: ", 2)[1], ",") {
					lines = append(lines, filepath.ToSlash(rel)+":"+strconv.Itoa(i+1))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return lines
}

func command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}

// copyDir copies a directory tree; os.CopyFS makes the copies writable (the module cache is
// read-only).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatalf("copying %s: %v", from, err)
	}
}
