package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// peak runs the command and returns its peak resident memory (the kernel's high-water mark,
// VmHWM, as getrusage reports it for a child), its exit status and its standard output's size.
func peak(t *testing.T, args ...string) (bytes int64, code int, out string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	code = exitCode(t, cmd.Run())
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage here")
	}
	return ru.Maxrss << 10, code, stdout.String()
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
		obj := map[string]any{"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout", "metadata": map[string]any{"name": "t"},
			"spec": map[string]any{strings.Repeat("k", 3*mib): map[string]any{"backendRefs": refs}}}
		p, size := writeBig(t, "longkey.json", func(f *os.File) { json.NewEncoder(f).Encode(obj) })
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
					f.WriteString(strings.Repeat("y", 40*mib))
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
			// YAML holds the document's text (about 3 times the limit at its peak); JSON the
			// decoder's buffer and the text kept for line numbers, each grown by doubling, and
			// what the collector has not reclaimed yet (9 to 14 times, measured).
			if got-base > 16*limit {
				t.Errorf("peak %d MiB over a tiny input's, want at most 16 times the limit whatever the input: the limit holds while reading", (got-base)/mib)
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
		got, code, out := peak(t, "envoy", p)
		t.Logf("dump %d MiB: peak %d MiB (%d MiB over a tiny input), %.1f bytes per byte", size/mib, got/mib, (got-base)/mib, float64(got-base)/float64(size))
		if n := strings.Count(out, "contains ':'"); code != 1 || n != 80000 {
			t.Errorf("exit %d, %d names with ':'; want 1 and 80000", code, n)
		}
		if got-base > 10*size {
			t.Errorf("peak %d MiB over a tiny input's, want at most 10 bytes per byte of dump", (got-base)/mib)
		}
	})
}
