package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// peak runs the command and returns its peak resident memory (the kernel's high-water mark,
// VmHWM, as getrusage reports it for a child), its exit status and its standard output's size.
// A child starts from the test's own high-water mark (it shares the test's memory until it
// runs the binary), so the test keeps no large input or output in memory.
func peak(t *testing.T, args ...string) (bytes int64, code int, out string) {
	t.Helper()
	bytes, code, out, _ = peakCount(t, "", args...)
	return bytes, code, out
}

// peakCount is peak, its output cut to 1 MiB and a byte more, and the number of times marker
// is in all of it.
func peakCount(t *testing.T, marker string, args ...string) (bytes int64, code int, out string, n int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	p := filepath.Join(t.TempDir(), "stdout")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout = f
	code = exitCode(t, cmd.Run())
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage here")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8*mib)
	var head strings.Builder
	for sc.Scan() {
		if marker != "" {
			n += strings.Count(sc.Text(), marker)
		}
		if head.Len() <= mib {
			head.WriteString(sc.Text())
			head.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out = head.String()
	if len(out) > mib+1 {
		out = out[:mib+1]
	}
	return ru.Maxrss << 10, code, out, n
}

func writeBig(t *testing.T, name string, write func(f *os.File)) (string, int64) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	write(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, info.Size()
}

const mib = 1 << 20

// size is how much was written to f.
func size(f *os.File) int64 {
	n, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		panic(err)
	}
	return n
}

// The hostile shapes of manifests and dumps cost memory in proportion to the input (or to the
// document limit), and their output stays bounded: compared with the peak of a run on a tiny
// manifest, in the same test.
func TestMemoryOfHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads inputs of tens of MiB")
	}
	tiny, _ := writeBig(t, "tiny.yaml", func(f *os.File) { f.WriteString(bad) })
	base, _, _ := peak(t, "check", tiny)

	t.Run("a 3 MiB map key above 200 bad references", func(t *testing.T) {
		refs := make([]map[string]string, 200)
		for i := range refs {
			refs[i] = map[string]string{"kind": "MeshService", "name": "b", "sectionName": fmt.Sprintf("BAD_%d", i)}
		}
		p, size := writeBig(t, "longkey.json", func(f *os.File) {
			// In pieces: the test's own memory is the floor of its children's peaks.
			f.WriteString(`{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": {"name": "t"}, "spec": {"`)
			k := strings.Repeat("k", 64<<10)
			for range 3 * mib / len(k) {
				f.WriteString(k)
			}
			f.WriteString(`": {"backendRefs": `)
			json.NewEncoder(f).Encode(refs)
			f.WriteString(`}}}`)
		})
		got, code, out := peak(t, "check", p)
		t.Logf("input %d bytes: peak %d MiB (%d MiB over a tiny input), output %d bytes", size, got/mib, (got-base)/mib, len(out))
		if code != 1 || !strings.Contains(out, "bytes in all)") || !strings.Contains(out, "… and 101 more") {
			t.Errorf("exit %d; want 1, each path cut and the problems past 99 counted:\n%.2000s", code, out)
		}
		if len(out) > 1*mib {
			t.Errorf("output of %d bytes, want at most 1 MiB: 100 causes of at most 4 KiB of path", len(out))
		}
		if got-base > 16*size {
			t.Errorf("peak %d MiB over a tiny input's, want at most 16 bytes per byte of input (%d MiB)", (got-base)/mib, 16*size/mib)
		}
	})

	for _, format := range []string{"yaml", "json"} {
		t.Run("a document over the limit, "+format, func(t *testing.T) {
			const limit = 4 * mib
			p, size := writeBig(t, "big."+format, func(f *os.File) {
				if format == "json" {
					f.WriteString(`{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": {"name": "t"}, "spec": {"x": "`)
					// In pieces: the test's own memory is the floor of its children's peaks.
					y := strings.Repeat("y", 64<<10)
					for range 40 * mib / len(y) {
						f.WriteString(y)
					}
					f.WriteString(`"}}`)
					return
				}
				f.WriteString("apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\nspec:\n")
				line := "  x: " + strings.Repeat("y", 100) + "\n"
				for range 40 * mib / len(line) {
					f.WriteString(line)
				}
			})
			got, code, _ := peak(t, "check", "--max-document-bytes", fmt.Sprint(limit), p)
			t.Logf("input %d MiB, limit %d MiB: peak %d MiB (%d MiB over a tiny input)", size/mib, limit/mib, got/mib, (got-base)/mib)
			if code != 2 {
				t.Errorf("exit %d, want 2: the document is too large", code)
			}
			// Either holds the text read up to the limit, in a buffer that never grows past it, and
			// what the collector has not reclaimed yet (JSON cost 9 to 14 times the limit before).
			if got-base > 4*limit {
				t.Errorf("peak %d MiB over a tiny input's, want at most 4 times the limit whatever the input: the limit holds while reading", (got-base)/mib)
			}
		})
	}

	// The shapes of YAML that cost go-yaml the most per byte, each of about 8 MiB, read by the
	// streaming reader (docs/limits.md): peak memory over a tiny input's, per byte of input.
	const target = 8 * mib
	meshTimeout := func(name string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: " + name + "\n  labels:\n    kuma.io/mesh: Mesh_1\n"
	}
	shapes := []struct {
		name string
		// denied is how many objects the input's denial names.
		denied int
		write  func(f *os.File) int
		// factor bounds the peak over a tiny input's, in bytes per byte of input.
		factor float64
	}{
		{"many small keys (kN: [{}])", 1, func(f *os.File) int {
			f.WriteString(meshTimeout("t") + "spec:\n")
			for i := 0; ; i++ {
				n, _ := fmt.Fprintf(f, "  k%d: [{}]\n", i)
				if size(f) > target {
					return n
				}
			}
		}, 12},
		{"one List of 8 MiB", 0, func(f *os.File) int {
			f.WriteString("apiVersion: v1\nkind: List\nitems:\n")
			for i := 0; ; i++ {
				fmt.Fprintf(f, "- apiVersion: kuma.io/v1alpha1\n  kind: MeshTimeout\n  metadata:\n    name: t%d\n    labels:\n      kuma.io/mesh: Mesh_1\n  spec:\n    targetRef:\n      kind: Mesh\n    to:\n    - targetRef:\n        kind: MeshService\n        name: backend_%d\n      default:\n        connectionTimeout: 2s\n", i, i)
				if size(f) > target {
					return i + 1
				}
			}
		}, 10},
		{"long keys (900 bytes each)", 1, func(f *os.File) int {
			f.WriteString(meshTimeout("t") + "spec:\n")
			for i := 0; size(f) <= target; i++ {
				fmt.Fprintf(f, "  %s%d: v\n", strings.Repeat("k", 900), i)
			}
			return 1
		}, 8},
		{"deep nesting (2,000 levels)", 1, func(f *os.File) int {
			f.WriteString(meshTimeout("t") + "spec:\n")
			d := 2
			for ; d < 2000; d++ {
				f.WriteString(strings.Repeat(" ", d) + "k:\n")
			}
			f.WriteString(strings.Repeat(" ", d) + "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - x\n")
			return 1
		}, 8},
		// Documents of a zone: check keeps each one's KDS copy name and where it was read until
		// the end, to compare them across objects (docs/unique.md): about 300 bytes live for
		// 130 bytes of input, which the collector lets grow to twice that. Measured 6.2-6.6 bytes
		// per byte on a quiet machine and up to 7.5 on a loaded one (the collector runs late
		// there), the same before and after the Universal origin checks: 8 keeps the bound linear
		// without failing on the load.
		{"many documents of a zone", 0, func(f *os.File) int {
			for i := 0; ; i++ {
				f.WriteString(meshTimeout(fmt.Sprint("t", i)) + "    kuma.io/zone: zone-1\nspec:\n  targetRef:\n    kind: Mesh\n---\n")
				if size(f) > target {
					return i + 1
				}
			}
		}, 8},
		// Documents of a synced kind with no zone: check keeps nothing of them to compare across
		// objects (docs/unique.md), so they cost what any document does.
		{"many documents", 0, func(f *os.File) int {
			for i := 0; ; i++ {
				f.WriteString(meshTimeout(fmt.Sprint("t", i)) + "spec:\n  targetRef:\n    kind: Mesh\n---\n")
				if size(f) > target {
					return i + 1
				}
			}
		}, 4},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			var objects int
			p, size := writeBig(t, "shape.yaml", func(f *os.File) { objects = s.write(f) })
			if s.denied > 0 {
				objects = s.denied
			}
			got, code, out, n := peakCount(t, "Mesh_1", "check", p)
			factor := float64(got-base) / float64(size)
			t.Logf("input %.1f MiB: peak %d MiB (%d MiB over a tiny input: %.1f bytes per byte)", float64(size)/mib, got/mib, (got-base)/mib, factor)
			if code != 1 || n != objects {
				t.Errorf("exit %d, %d denials; want 1 and %d:\n%.2000s", code, n, objects, out)
			}
			if factor > s.factor {
				t.Errorf("peak %.1f bytes per byte of input over a tiny input's, want at most %v", factor, s.factor)
			}
		})
	}

	t.Run("an Envoy config dump", func(t *testing.T) {
		p, size := writeBig(t, "dump.json", func(f *os.File) {
			f.WriteString(`{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump", "dynamic_active_clusters": [`)
			for i := range 40000 {
				if i > 0 {
					f.WriteString(",")
				}
				fmt.Fprintf(f, `{"cluster": {"@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster", "name": "kri_msvc_default_zone_ns_backend-%d_http", "type": "EDS", "eds_cluster_config": {"service_name": "svc:%d"}, "connect_timeout": "5s"}}`, i, i)
			}
			f.WriteString(`]}, {"@type": "type.googleapis.com/envoy.admin.v3.ListenersConfigDump", "dynamic_listeners": [`)
			for i := range 40000 {
				if i > 0 {
					f.WriteString(",")
				}
				fmt.Fprintf(f, `{"name": "l%d", "active_state": {"listener": {"@type": "type.googleapis.com/envoy.config.listener.v3.Listener", "name": "inbound:10.0.0.%d:80"}}}`, i, i%250)
			}
			f.WriteString(`]}]}`)
		})
		got, code, _, n := peakCount(t, "contains ':'", "envoy", p)
		t.Logf("dump %d MiB: peak %d MiB (%d MiB over a tiny input), %.1f bytes per byte", size/mib, got/mib, (got-base)/mib, float64(got-base)/float64(size))
		if code != 1 || n != 80000 {
			t.Errorf("exit %d, %d names with ':'; want 1 and 80000", code, n)
		}
		if got-base > 10*size {
			t.Errorf("peak %d MiB over a tiny input's, want at most 10 bytes per byte of dump", (got-base)/mib)
		}
	})
}
