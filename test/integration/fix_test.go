package integration

import (
	"os"
	"os/exec"
	"testing"
)

// TestFix applies krilint's suggested fixes to a copy of the fixture, as `krilint -fix ./...` does for a
// user: the result must still build, every finding that offered a fix must be gone, and no new finding may
// appear.
func TestFix(t *testing.T) {
	krilint := buildKrilint(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixtureDir(t))); err != nil {
		t.Fatalf("copying the fixture: %v", err)
	}

	before := runStandalone(t, krilint, dir, "./...")
	fixable := map[finding]bool{}
	for _, d := range before {
		if len(d.SuggestedFixes) > 0 {
			fixable[d.at] = true
		}
	}
	if len(fixable) == 0 {
		t.Fatal("no finding in the fixture offers a fix")
	}

	fix := exec.Command(krilint, "-fix", "./...")
	fix.Dir = dir
	fix.Env = append(os.Environ(), "GOWORK=off")
	// With -fix the driver applies the fixes instead of printing findings, and succeeds.
	if out, err := fix.CombinedOutput(); err != nil {
		t.Fatalf("krilint -fix: %v\n%s", err, out)
	}
	if out, err := goCommand(dir, "build", "./...").CombinedOutput(); err != nil {
		t.Fatalf("the fixture does not build after krilint -fix: %v\n%s", err, out)
	}

	after := runStandalone(t, krilint, dir, "./...")
	was := map[finding]bool{}
	for _, d := range before {
		was[d.at] = true
	}
	for _, d := range after {
		switch {
		case fixable[d.at]:
			t.Errorf("%s: still reported after its fix was applied: %s", d.at, d.Message)
		case !was[d.at]:
			t.Errorf("%s: new finding after krilint -fix: %s", d.at, d.Message)
		}
	}
	t.Logf("%d findings, %d with a fix; %d left after krilint -fix", len(before), len(fixable), len(after))
	if len(after) >= len(before) {
		t.Errorf("krilint -fix removed no finding: %d before, %d after", len(before), len(after))
	}
}
