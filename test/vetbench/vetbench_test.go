package vetbench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var corpusPackages = flag.Int("vetbench.packages", 50, "generator packages in the benchmark corpus")

// TestCorpusVets checks the two things the benchmark relies on: nopvet speaks the vet protocol (go vet
// accepts it and it succeeds on real packages), and the corpus is valid Go that krilint finds clean, so
// that both tools do the whole job and exit 0.
func TestCorpusVets(t *testing.T) {
	root := repoRoot(t)
	bin := t.TempDir()
	tools := map[string]string{
		"nopvet":  buildTool(t, root, "./test/vetbench/nopvet", bin),
		"krilint": buildTool(t, root, "./cmd/krilint", bin),
	}
	dir := t.TempDir()
	c := Corpus{Packages: 3, Requirements: filepath.Join(root, "test", "envoyvet", "go.mod")}
	paths, err := c.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("Write returned %d generator packages, want 3", len(paths))
	}
	if out, err := goCommand(dir, "build", "./...").CombinedOutput(); err != nil {
		t.Fatalf("generated corpus does not build: %v\n%s", err, out)
	}
	for name, tool := range tools {
		t.Run(name, func(t *testing.T) {
			cmd := goCommand(dir, "vet", "-vettool="+tool, "./...")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go vet -vettool=%s on the clean corpus: %v\n%s", name, err, out)
			}
			// A vet tool that did not really run would not notice a broken package: make sure it does.
			broken := filepath.Join(dir, "gen", "p000", "broken.go")
			if err := os.WriteFile(broken, []byte("package p000\n\nvar _ int = \"not an int\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(broken)
			out, err := goCommand(dir, "vet", "-vettool="+tool, "./gen/p000").CombinedOutput()
			if err == nil || !bytes.Contains(out, []byte("broken.go")) {
				t.Fatalf("go vet -vettool=%s accepted a package that does not type-check: err=%v\n%s", name, err, out)
			}
		})
	}
}

func TestCorpusRejectsBadInput(t *testing.T) {
	tests := []struct {
		name   string
		corpus Corpus
		want   string
	}{
		{"no packages", Corpus{Packages: 0, Requirements: "go.mod"}, "at least one generator package"},
		{"missing go.mod", Corpus{Packages: 1, Requirements: filepath.Join(t.TempDir(), "go.mod")}, "reading requirements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.corpus.Write(t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write() error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestRenameModule(t *testing.T) {
	in := "// comment\nmodule example.com/old\n\ngo 1.26.0\n\nrequire x v1.0.0 // module foo\n"
	got, err := renameModule([]byte(in), "example.com/new")
	if err != nil {
		t.Fatal(err)
	}
	want := "// comment\nmodule example.com/new\n\ngo 1.26.0\n\nrequire x v1.0.0 // module foo\n"
	if string(got) != want {
		t.Fatalf("renameModule:\n%s\nwant:\n%s", got, want)
	}
	if _, err := renameModule([]byte("go 1.26.0\n"), "x"); err == nil {
		t.Fatal("renameModule accepted a go.mod without a module directive")
	}
}

// BenchmarkVetTool compares `go vet -vettool=krilint` with `go vet -vettool=nopvet` on the same corpus and
// reports krilint's time over nopvet's as krilint/nop (at most 1.10: docs/krilint.md). The two tools run
// alternately in every round so that load on the machine hits both alike.
func BenchmarkVetTool(b *testing.B) {
	root := repoRoot(b)
	bin := b.TempDir()
	krilint := buildTool(b, root, "./cmd/krilint", bin)
	nop := buildTool(b, root, "./test/vetbench/nopvet", bin)
	dir := b.TempDir()
	c := Corpus{Packages: *corpusPackages, Requirements: filepath.Join(root, "test", "envoyvet", "go.mod")}
	if _, err := c.Write(dir); err != nil {
		b.Fatal(err)
	}
	// Compile every dependency once, outside any timer: go vet needs their export data, and neither tool
	// should pay for it.
	if out, err := goCommand(dir, "build", "./...").CombinedOutput(); err != nil {
		b.Fatalf("building the corpus: %v\n%s", err, out)
	}

	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		var times [2]cost
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			// A fresh tool ID per round: go vet finds none of its earlier results and analyzes the corpus
			// and every dependency again; compiled packages stay cached.
			k := stampedCopy(b, krilint, i)
			n := stampedCopy(b, nop, i)
			b.StartTimer()
			runPair(b, dir, i, [2]string{k, n}, &times)
		}
		report(b, times)
	})

	b.Run("incremental", func(b *testing.B) {
		b.ReportAllocs()
		// Fill the vet cache for the dependencies with both tools first.
		vet(b, dir, krilint)
		vet(b, dir, nop)
		var times [2]cost
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			// New content in every generator package: go vet analyzes them again and takes everything else
			// (names, builders, go-control-plane, the standard library) from its cache. The stamp must never
			// repeat, also across the runs the testing package makes with growing b.N, or a round would find
			// its results cached.
			if err := c.Touch(dir, int(time.Now().UnixNano())); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			runPair(b, dir, i, [2]string{krilint, nop}, &times)
		}
		report(b, times)
	})
}

// cost is what one go vet run took: wall-clock time, and the CPU time of go vet and the vet tool
// processes it waited for. On a busy machine the CPU time is the steadier measure.
type cost struct {
	wall, cpu time.Duration
	maxRSS    int64 // KiB: the largest of go vet and the vet tool processes it waited for
}

// runPair vets the corpus with tools[0] (krilint) and tools[1] (nopvet), starting with each in turn, and
// adds their costs. With the same stamp for both, both see the same cache state.
func runPair(b *testing.B, dir string, round int, tools [2]string, costs *[2]cost) {
	order := [2]int{0, 1}
	if round%2 == 1 {
		order = [2]int{1, 0}
	}
	for _, j := range order {
		c := vet(b, dir, tools[j])
		costs[j].wall += c.wall
		costs[j].cpu += c.cpu
		costs[j].maxRSS = max(costs[j].maxRSS, c.maxRSS)
	}
}

func report(b *testing.B, costs [2]cost) {
	if costs[1].wall == 0 || costs[1].cpu == 0 {
		return
	}
	n := float64(b.N)
	b.ReportMetric(float64(costs[0].wall.Nanoseconds())/n, "krilint-ns/op")
	b.ReportMetric(float64(costs[1].wall.Nanoseconds())/n, "nop-ns/op")
	b.ReportMetric(float64(costs[0].wall)/float64(costs[1].wall), "krilint/nop")
	b.ReportMetric(float64(costs[0].cpu.Nanoseconds())/n, "krilint-cpu-ns/op")
	b.ReportMetric(float64(costs[1].cpu.Nanoseconds())/n, "nop-cpu-ns/op")
	b.ReportMetric(float64(costs[0].cpu)/float64(costs[1].cpu), "krilint/nop-cpu")
	b.ReportMetric(float64(costs[0].maxRSS), "krilint-maxrss-KiB")
	b.ReportMetric(float64(costs[1].maxRSS), "nop-maxrss-KiB")
}

// vet runs go vet with tool on the corpus. The CPU time comes from the rusage of the go command, which
// includes the vet tool processes it waited for.
func vet(b *testing.B, dir, tool string) cost {
	cmd := goCommand(dir, "vet", "-vettool="+tool, "./...")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("go vet -vettool=%s on the corpus: %v\n%s", filepath.Base(tool), err, out.Bytes())
	}
	c := cost{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.maxRSS = ru.Maxrss
	}
	return c
}

// stampedCopy copies the tool and appends a stamp to the copy. The executable runs the same, but its
// content hash, which unitchecker prints for -V=full and go vet uses as the tool ID, is new.
func stampedCopy(b *testing.B, tool string, round int) string {
	data, err := os.ReadFile(tool)
	if err != nil {
		b.Fatal(err)
	}
	dst := fmt.Sprintf("%s-%d-%d", tool, time.Now().UnixNano(), round)
	data = append(data, []byte(fmt.Sprintf("\nvetbench stamp %s\n", filepath.Base(dst)))...)
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		b.Fatal(err)
	}
	return dst
}

// repoRoot is the main module's root: this package lives two levels below it.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		tb.Fatalf("repository root not found above the test: %v", err)
	}
	return root
}

// buildTool builds the main package pkg of the main module into dir.
func buildTool(tb testing.TB, root, pkg, dir string) string {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(pkg))); err != nil {
		tb.Fatalf("%s is missing (is it written yet?): %v", pkg, err)
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("building %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// goCommand runs the go command in a corpus, which is a module of its own.
func goCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}
