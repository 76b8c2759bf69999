package rules

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// TestKDSCopy: the copy names of kuma/kds-copy are Kuma's (naming/hashsuffix holds the vectors
// taken from its HashSuffixMapper); what a mode makes of a copy a Kubernetes receiver cannot store.
func TestKDSCopy(t *testing.T) {
	dot236 := strings.Repeat("a", 235) + "." + strings.Repeat("b", 17)
	obj := func(kind, name, ns, labels string) []byte {
		return []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"name":"` + name + `","namespace":"` + ns + `","labels":{"kuma.io/mesh":"default"` + labels + `}}}`)
	}
	tests := []struct {
		name  string
		mode  Mode
		kind  string
		raw   []byte
		want  Rule
		level Level // "" for no KDS finding
	}{
		{"dot at 236 on global", ModeGlobal, "MeshTimeout", obj("MeshTimeout", dot236, "kuma-system", ""), RuleKDSCopy, LevelError},
		{"dot at 236 on a federated zone", ModeZone, "MeshTimeout", obj("MeshTimeout", dot236, "kuma-demo", ""), RuleKDSCopy, LevelError},
		{"dot at 236, mode unknown", ModeAuto, "MeshTimeout", obj("MeshTimeout", dot236, "kuma-demo", ""), RuleKDSCopy, LevelNote},
		{"dot at 236 on a standalone zone", ModeStandalone, "MeshTimeout", obj("MeshTimeout", dot236, "kuma-demo", ""), "", ""},
		{"dot at 236, a copy from global", ModeZone, "MeshTimeout", obj("MeshTimeout", dot236, "kuma-system", `,"kuma.io/origin":"global"`), "", ""},
		{"63-character MeshService on a zone (its copy has 80)", ModeZone, "MeshService", obj("MeshService", strings.Repeat("a", 63), "kuma-demo", `,"kuma.io/zone":"zone-1"`), "", ""},
		{"63-character MeshService on global", ModeGlobal, "MeshService", obj("MeshService", strings.Repeat("a", 63), "kuma-system", ""), "", ""},
		{"squatted copy name", ModeZone, "MeshTimeout", obj("MeshTimeout", "mesh-timeout-all-default-w4dzbd54v9x64485", "kuma-system", ""), RuleKDSSquat, LevelNote},
		{"squatted copy name, the copy itself", ModeZone, "MeshTimeout", obj("MeshTimeout", "mesh-timeout-all-default-w4dzbd54v9x64485", "kuma-system", `,"kuma.io/origin":"global"`), "", ""},
		{"squatting on global is no squat", ModeGlobal, "MeshTimeout", obj("MeshTimeout", "mesh-timeout-all-default-w4dzbd54v9x64485", "kuma-system", ""), "", ""},
	}
	for _, n := range []int{1, 47, 48, 63, 64, 236, 237, 253} {
		name := "x" + strings.Repeat("a", n-1)
		tests = append(tests, struct {
			name  string
			mode  Mode
			kind  string
			raw   []byte
			want  Rule
			level Level
		}{fmt.Sprintf("%d characters", n), ModeGlobal, "MeshTimeout", obj("MeshTimeout", name, "kuma-system", ""), "", ""})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := buildConfig(&Config{APIVersion: ConfigAPIVersion, Kind: ConfigKind, Kuma: KumaConfig{Mode: tt.mode}})
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.Decide(context.Background(), Request{Phase: Validate, Kind: schema.GroupKind{Group: KumaGroup, Kind: tt.kind}, Operation: "CREATE", Object: tt.raw})
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range d.Findings() {
				if f.Rule == RuleKDSCopy || f.Rule == RuleKDSSquat {
					got = append(got, f)
				}
			}
			switch {
			case tt.want == "" && len(got) > 0:
				t.Errorf("findings %v, want none", got[0].Message())
			case tt.want != "" && (len(got) != 1 || got[0].Rule != tt.want || got[0].Level != tt.level):
				t.Errorf("findings %+v, want one %s at level %s", got, tt.want, tt.level)
			}
			if tt.level == LevelError && d.Allowed {
				t.Error("admitted, want denied")
			}
		})
	}
}

func TestConfigMode(t *testing.T) {
	if _, err := buildConfig(&Config{APIVersion: ConfigAPIVersion, Kind: ConfigKind, Kuma: KumaConfig{Mode: "federated"}}); err == nil || !strings.Contains(err.Error(), "kuma.mode") {
		t.Errorf("kuma.mode federated: error %v, want one at kuma.mode", err)
	}
	if c := DefaultConfig(); c.Mode() != ModeAuto {
		t.Errorf("default mode %q, want %q", c.Mode(), ModeAuto)
	}
}

// A Universal name with '_' is stored on a Universal control plane; its KDS copy is what a
// Kubernetes receiver refuses (kds.sample.jsonl c31: dp_backend_01-67xwvwx6xxwv2754).
func TestKDSCopyUniversal(t *testing.T) {
	for _, tt := range []struct {
		mode  Mode
		name  string
		level Level
	}{
		{ModeGlobal, "backend_01", LevelError},
		{ModeAuto, "backend_01", LevelNote},
		{ModeStandalone, "backend_01", ""},
		{ModeGlobal, "backend-01", ""},
	} {
		c, err := buildConfig(&Config{APIVersion: ConfigAPIVersion, Kind: ConfigKind, Kuma: KumaConfig{Mode: tt.mode}})
		if err != nil {
			t.Fatal(err)
		}
		raw := []byte(`{"type":"MeshTimeout","mesh":"default","name":"` + tt.name + `"}`)
		d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, Object: raw, Universal: true})
		if err != nil {
			t.Fatal(err)
		}
		var got Level
		for _, f := range d.Findings() {
			if f.Rule == RuleKDSCopy {
				got = f.Level
			}
		}
		if got != tt.level {
			t.Errorf("mode %s, Universal %q: kuma/kds-copy at level %q, want %q", tt.mode, tt.name, got, tt.level)
		}
	}
}

// A detected mode (Request.Mode) counts only when kuma.mode is auto: a configured mode wins.
func TestKDSDetectedMode(t *testing.T) {
	dot236 := []byte(`{"apiVersion":"kuma.io/v1alpha1","kind":"MeshTimeout","metadata":{"name":"` + strings.Repeat("a", 235) + "." + strings.Repeat("b", 17) + `","namespace":"kuma-system","labels":{"kuma.io/mesh":"default"}}}`)
	for _, tt := range []struct {
		configured, detected Mode
		want                 Level
	}{
		{ModeAuto, ModeGlobal, LevelError},
		{ModeAuto, ModeZone, LevelError},
		{ModeAuto, ModeStandalone, ""},
		{ModeAuto, "", LevelNote},
		{"", ModeGlobal, LevelError},
		{ModeStandalone, ModeGlobal, ""},
		{ModeGlobal, ModeStandalone, LevelError},
	} {
		c, err := buildConfig(&Config{APIVersion: ConfigAPIVersion, Kind: ConfigKind, Kuma: KumaConfig{Mode: tt.configured}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.Decide(context.Background(), Request{Phase: Validate, Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, Operation: "CREATE", Object: dot236, Mode: tt.detected})
		if err != nil {
			t.Fatal(err)
		}
		var got Level
		for _, f := range d.Findings() {
			if f.Rule == RuleKDSCopy {
				got = f.Level
			}
		}
		if got != tt.want || d.Allowed == (tt.want == LevelError) {
			t.Errorf("configured %q, detected %q: finding at level %q, allowed %v; want level %q", tt.configured, tt.detected, got, d.Allowed, tt.want)
		}
		if want := c.forMode(tt.detected).Mode(); d.Mode != want {
			t.Errorf("configured %q, detected %q: decision's mode %q, want %q", tt.configured, tt.detected, d.Mode, want)
		}
	}
}

// A Universal resource's copy is named after the display name its release stores: on 2.14 the
// kuma.io/display-name label, so an unstorable label gives an unstorable copy, reported at the
// label; on 3.0 the name, which the label is overwritten with (a note), but for a KDS copy, whose
// label stays (docs/kds.md, "Universal").
func TestKDSCopyUniversalDisplayName(t *testing.T) {
	for _, tt := range []struct {
		rel           naming.Release
		raw           string
		copyAt        string // the field of kuma/kds-copy, "" for none
		overwriteNote bool
	}{
		{naming.Kuma2_14, `{"type":"MeshTimeout","mesh":"default","name":"backend","labels":{"kuma.io/display-name":"Backend_1"}}`, "labels[kuma.io/display-name]", false},
		{naming.Kuma3_0, `{"type":"MeshTimeout","mesh":"default","name":"backend","labels":{"kuma.io/display-name":"Backend_1"}}`, "", true},
		{naming.Kuma3_0, `{"type":"MeshTimeout","mesh":"default","name":"backend_1","labels":{"kuma.io/display-name":"backend"}}`, "name", true},
		// global's copy of zone-1's MeshTimeout backend
		{naming.Kuma3_0, `{"type":"MeshTimeout","mesh":"default","name":"backend-d8466458x7574b7b","labels":{"kuma.io/display-name":"backend","kuma.io/zone":"zone-1","kuma.io/origin":"zone"}}`, "", false},
	} {
		c, err := buildConfig(&Config{APIVersion: ConfigAPIVersion, Kind: ConfigKind, Kuma: KumaConfig{Mode: ModeGlobal}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: schema.GroupKind{Group: KumaGroup, Kind: "MeshTimeout"}, Object: []byte(tt.raw), Release: tt.rel, Universal: true})
		if err != nil {
			t.Fatal(err)
		}
		var copyAt string
		var note bool
		for _, f := range d.Findings() {
			switch f.Rule {
			case RuleKDSCopy:
				copyAt = f.Problem.Field
			case RuleOverwrittenKey:
				note = true
			}
		}
		if copyAt != tt.copyAt || note != tt.overwriteNote {
			t.Errorf("%s %s: kuma/kds-copy at %q, overwritten note %v; want %q, %v", tt.rel, tt.raw, copyAt, note, tt.copyAt, tt.overwriteNote)
		}
	}
}

func TestCopyProblems(t *testing.T) {
	for _, tt := range []struct {
		name    string
		labels  map[string]string
		problem bool
	}{
		{"x-5cdf4v92wb6542cv", map[string]string{"kuma.io/zone": "zone-1"}, false},
		{"dp_backend_01-67xwvwx6xxwv2754", nil, true}, // a Universal name (kds.sample.jsonl c31)
		{"Backend-67xwvwx6xxwv2754", nil, true},
		{"x-5cdf4v92wb6542cv", map[string]string{"team": strings.Repeat("v", 64)}, true},
		{"x-5cdf4v92wb6542cv", map[string]string{"team": strings.Repeat("v", 63)}, false},
	} {
		if got := copyProblems(tt.name, tt.labels); (got != nil) != tt.problem {
			t.Errorf("copyProblems(%q, %v) = %q, want problems %v", tt.name, tt.labels, got, tt.problem)
		}
	}
}

func TestCopyValid(t *testing.T) {
	dot236 := strings.Repeat("a", 235) + "." + strings.Repeat("b", 17) // its cut at 236 ends in '.'
	for _, tt := range []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"x", map[string]string{"kuma.io/zone": "zone-1"}, true},
		{"a.b-", nil, true},
		{dot236, nil, false},
		{"", nil, false},
		{"dp_backend_01", nil, false},
		{"Backend", nil, false},
		{"x", map[string]string{"team": strings.Repeat("v", 64)}, false},
		{"x", map[string]string{"-team": "v"}, false},
		{"x", map[string]string{"kuma.io/zone": "-"}, false},
		{"x", map[string]string{"kuma.io/mesh": "m", "kuma.io/zone": "z", "kuma.io/origin": "zone", "k8s.kuma.io/namespace": "n", "kuma.io/display-name": "d"}, true},
		{"x", map[string]string{"kuma.io/mesh": "m", "app.kubernetes.io/part-of": "demo"}, true},
		{"x", map[string]string{"app.kubernetes.io/part-of": "-demo"}, false},
		{"x", map[string]string{"app.kubernetes.io/part-of_": "demo"}, false},
	} {
		labels := labelsOf(tt.labels)
		if got := copyValid(tt.name, &labels); got != tt.want {
			t.Errorf("copyValid(%q, %v) = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
}

// FuzzCopyValid holds copyValid to copyProblems of the copy hashsuffix.Name builds: valid exactly
// when copyProblems finds nothing, so that kdsFindings, which names a copy only when copyValid says
// no, finds what it found when it named every copy.
func FuzzCopyValid(f *testing.F) {
	f.Add("default", "backend", "zone-1", "kuma-system", "kuma.io/zone", "zone-1")
	f.Add("default", strings.Repeat("a", 235)+"."+strings.Repeat("b", 17), "", "", "", "")
	f.Add("m", "a.b-", "", "", "team", strings.Repeat("v", 64))
	f.Add("m", "dp_backend_01", "", "", "a/b", "-")
	f.Add("m", "x", "", "", "kuma.io/origin", "_")
	f.Add("m", "x", "", "", "k8s.kuma.io/namespace", strings.Repeat("n", 64))
	f.Add("m", "x", "", "", "app.kubernetes.io/part-of", "demo")
	f.Add("m", "x", "", "", "app.kubernetes.io/part-of-", "demo")
	f.Add("m", "x", "", "", "app.kubernetes.io/", "demo")
	f.Fuzz(func(t *testing.T, mesh, name, zone, namespace, key, value string) {
		var labels map[string]string
		if key != "" || value != "" {
			labels = map[string]string{key: value}
		}
		copy := hashsuffix.Name(mesh, name, zone, namespace)
		set := labelsOf(labels)
		if got, want := copyValid(name, &set), len(copyProblems(copy, labels)) == 0; got != want {
			t.Fatalf("copyValid(%q, %q) = %v, but copyProblems(%q) finds problems: %v", name, labels, got, copy, !want)
		}
	})
}
