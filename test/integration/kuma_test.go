package integration

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kumaEnv names a checkout of Kuma v2.14.3 (github.com/kumahq/kuma) for TestKuma, its
// go-control-plane modules replaced by local checkouts of kumahq/go-control-plane at the versions
// its go.mod pins (the module proxy does not serve Kuma's fork): see docs/krilint.md.
const kumaEnv = "KRILINT_KUMA"

// kumaPackages are the packages of Kuma that build Envoy resources.
var kumaPackages = []string{"./pkg/xds/...", "./pkg/plugins/...", "./app/kuma-dp/..."}

// TestKuma vets Kuma's xDS code with krilint and holds the findings in its own (non-test) files to
// testdata/kuma/findings.txt, each of which was read by hand (docs/krilint.md). Only the findings
// are kept here, never Kuma's code.
func TestKuma(t *testing.T) {
	dir := os.Getenv(kumaEnv)
	if dir == "" {
		t.Skipf("set %s to a Kuma v2.14.3 checkout to vet it (minutes)", kumaEnv)
	}
	krilint := buildKrilint(t)
	cmd := goCommand(dir, append([]string{"vet", "-json", "-vettool=" + krilint}, kumaPackages...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go vet: %v\nstderr:\n%s", err, stderr.Bytes())
	}
	var got []string
	for _, d := range parseJSONTrees(t, dir, stdout.Bytes()) {
		if !strings.HasSuffix(d.at.File, "_test.go") && !strings.HasPrefix(d.at.File, "pkg/test/") {
			got = append(got, d.at.String())
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	want := kumaFindings(t)
	if !slices.Equal(got, want) {
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("new finding: %s", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("finding gone: %s", w)
			}
		}
	}
}

// kumaFindings reads testdata/kuma/findings.txt: "file:line: rule" and a comment, sorted.
func kumaFindings(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "kuma", "findings.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, "  #"); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.TrimSpace(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
