package integration

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A row of testdata/kuma/groundtruth.txt: "file:line: rule level status sink "pattern"  # notes"
// (docs/krilint-groundtruth.md).
type truthRow struct {
	at, rule, level, status, sink, pattern, notes string
}

var truthLine = regexp.MustCompile(`^(\S+:\d+): (\S+) (\S+) (\S+) (\S+) "([^"]*)"  # (.+)$`)

var (
	truthRules    = []string{"colon", "stat-unsafe"}
	truthLevels   = []string{"direct", "builder-param", "func-value", "reference"}
	truthStatuses = []string{"found", "missed", "infeasible", "data"}
)

// readTruth parses groundtruth.txt; a malformed row is an error.
func readTruth(path string) ([]truthRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []truthRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := truthLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a ground-truth row: %q", path, n, line)
		}
		r := truthRow{at: m[1], rule: m[2], level: m[3], status: m[4], sink: m[5], pattern: m[6], notes: m[7]}
		switch {
		case !slices.Contains(truthRules, r.rule):
			return nil, fmt.Errorf("%s:%d: unknown rule %q", path, n, r.rule)
		case !slices.Contains(truthLevels, r.level):
			return nil, fmt.Errorf("%s:%d: unknown level %q", path, n, r.level)
		case !slices.Contains(truthStatuses, r.status):
			return nil, fmt.Errorf("%s:%d: unknown status %q", path, n, r.status)
		case r.status == "missed" && !strings.HasPrefix(r.notes, "shape S"):
			return nil, fmt.Errorf("%s:%d: a missed row names its shape (shape S<n>)", path, n)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

// kumaFindingLevels reads findings.txt as "file:line: rule" -> the level its comment starts with.
func kumaFindingLevels(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, comment, ok := strings.Cut(line, "  # ")
		if !ok {
			return nil, fmt.Errorf("%s: finding without a level: %q", path, line)
		}
		level, _, _ := strings.Cut(comment, ":")
		level, _, _ = strings.Cut(level, ",")
		out[strings.TrimSpace(key)] = level
	}
	return out, sc.Err()
}

// truthDrift compares the ground truth with krilint's findings: every finding is a row that
// krilint finds (found) or that cannot occur (infeasible), at the same level, and every such row
// is a finding. It returns one message per difference.
func truthDrift(rows []truthRow, findings map[string]string) []string {
	var diffs []string
	seen := map[string]bool{}
	for _, r := range rows {
		key := r.at + ": " + r.rule
		if seen[key+" "+r.pattern] {
			diffs = append(diffs, "duplicate row: "+key+" "+r.pattern)
		}
		seen[key+" "+r.pattern] = true
		level, reported := findings[key]
		switch {
		case (r.status == "found" || r.status == "infeasible") && !reported:
			diffs = append(diffs, fmt.Sprintf("%s is %s in the ground truth but not a finding", key, r.status))
		case (r.status == "missed" || r.status == "data") && reported:
			diffs = append(diffs, fmt.Sprintf("%s is %s in the ground truth but krilint reports it", key, r.status))
		case reported && level != r.level:
			diffs = append(diffs, fmt.Sprintf("%s: level %s in the ground truth, %s in the findings", key, r.level, level))
		}
		seen[key] = true
	}
	for key := range findings {
		if !seen[key] {
			diffs = append(diffs, "finding not in the ground truth: "+key)
		}
	}
	slices.Sort(diffs)
	return diffs
}

// TestGroundTruth holds testdata/kuma/groundtruth.txt and findings.txt to each other, so that a
// change to krilint's findings on Kuma updates the ground truth's found and missed rows with it.
func TestGroundTruth(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "kuma")
	rows, err := readTruth(filepath.Join(dir, "groundtruth.txt"))
	if err != nil {
		t.Fatal(err)
	}
	findings, err := kumaFindingLevels(filepath.Join(dir, "findings.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || len(findings) == 0 {
		t.Fatalf("%d ground-truth rows, %d findings: the files are empty", len(rows), len(findings))
	}
	for _, d := range truthDrift(rows, findings) {
		t.Error(d)
	}
}

// TestGroundTruthDrift shows that the comparison fails on each kind of difference.
func TestGroundTruthDrift(t *testing.T) {
	t.Parallel()
	row := func(at, level, status string) truthRow {
		return truthRow{at: at, rule: "colon", level: level, status: status, sink: "s", pattern: "a:b", notes: "n"}
	}
	findings := map[string]string{"a.go:1: colon": "func-value", "a.go:2: colon": "direct"}
	tests := []struct {
		name string
		rows []truthRow
		want int
	}{
		{"agree", []truthRow{row("a.go:1", "func-value", "found"), row("a.go:2", "direct", "infeasible"), row("a.go:3", "reference", "missed")}, 0},
		{"finding missing from the truth", []truthRow{row("a.go:1", "func-value", "found")}, 1},
		{"found row not a finding", []truthRow{row("a.go:1", "func-value", "found"), row("a.go:2", "direct", "found"), row("a.go:9", "direct", "found")}, 1},
		{"missed row reported", []truthRow{row("a.go:1", "func-value", "missed"), row("a.go:2", "direct", "found")}, 1},
		{"level differs", []truthRow{row("a.go:1", "builder-param", "found"), row("a.go:2", "direct", "found")}, 1},
		{"duplicate", []truthRow{row("a.go:1", "func-value", "found"), row("a.go:1", "func-value", "found"), row("a.go:2", "direct", "found")}, 1},
	}
	for _, tt := range tests {
		if got := truthDrift(tt.rows, findings); len(got) != tt.want {
			t.Errorf("%s: %d differences %q, want %d", tt.name, len(got), got, tt.want)
		}
	}
}

// TestReadTruthRejects: a malformed or unknown row is an error, not a skipped line.
func TestReadTruthRejects(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`a.go:1: colon func-value found s "a:b"`,
		`a.go:1: colon sideways found s "a:b"  # n`,
		`a.go:1: colon direct maybe s "a:b"  # n`,
		`a.go:1: colons direct found s "a:b"  # n`,
		`a.go:1: colon direct missed s "a:b"  # no shape`,
	} {
		path := filepath.Join(t.TempDir(), "groundtruth.txt")
		if err := os.WriteFile(path, []byte("# header\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readTruth(path); err == nil {
			t.Errorf("%q: no error", line)
		}
	}
}
