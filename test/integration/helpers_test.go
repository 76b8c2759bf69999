package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce   sync.Once
	krilintPath string
	buildErr    string
)

// buildKrilint builds cmd/krilint once per test binary.
func buildKrilint(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			buildErr = err.Error()
			return
		}
		if _, err := os.Stat(filepath.Join(root, "cmd", "krilint")); err != nil {
			buildErr = "cmd/krilint does not exist: the analyzer has not been written yet (" + err.Error() + ")"
			return
		}
		dir, err := os.MkdirTemp("", "krilint-integration-")
		if err != nil {
			buildErr = err.Error()
			return
		}
		out := filepath.Join(dir, "krilint")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/krilint")
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			buildErr = "building cmd/krilint: " + err.Error() + "\n" + string(msg)
			return
		}
		krilintPath = out
	})
	if buildErr != "" {
		t.Fatal(buildErr)
	}
	return krilintPath
}

// TestMain removes the krilint binary built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if krilintPath != "" {
		os.RemoveAll(filepath.Dir(krilintPath))
	}
	os.Exit(code)
}

func fixtureDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("fixture module missing: %v", err)
	}
	return dir
}

// goCommand runs the go command in the fixture, which is a module of its own: GOWORK=off keeps a
// workspace from pulling it into another build list. The first run downloads go-control-plane from the
// module proxy into the module cache.
func goCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}

// runStandalone runs `krilint -json ARGS` in the fixture. krilint exits 0 with -json whatever it finds;
// anything else is a failure of the tool.
func runStandalone(t *testing.T, krilint, dir string, args ...string) []diagnostic {
	t.Helper()
	cmd := exec.Command(krilint, append([]string{"-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("krilint -json %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.Bytes(), stderr.Bytes())
	}
	return parseJSONTrees(t, dir, stdout.Bytes())
}
