package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

func TestKRIExplain(t *testing.T) {
	typesConfig := writeFile(t, t.TempDir(), "types.yaml", "apiVersion: kriguard.io/v1alpha1\nkind: Configuration\ntypes:\n  - kind: MeshWidget\n    shortName: mw\n    scope: Mesh\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{name: "valid", args: []string{"kri_mt_default__kuma-demo_timeouts_"}, code: ExitOK, stdout: `kri_mt_default__kuma-demo_timeouts_
  type       mt (MeshTimeout, Mesh scope)
  mesh       default
  zone       (none)
  namespace  kuma-demo
  name       timeouts
  section    (none)
`},
		{name: "every problem", args: []string{"kri_Mt_Mesh_1__a_"}, code: ExitDenied, stdout: `kri_Mt_Mesh_1__a_: not a valid KRI:
  kri.type: Invalid value: "Mt": must start with a lowercase letter; must contain only lowercase letters (found 'M')
  kri.mesh: Invalid value: "Mesh": must start with a lowercase letter; must contain only lowercase letters, digits or '-' (found 'M')
  kri.zone: Invalid value: "1": must start with a lowercase letter
`},
		{name: "segments", args: []string{"kri_mt_default__ns_a_b_c"}, code: ExitDenied, stdout: `kri_mt_default__ns_a_b_c: not a valid KRI:
  kri: Invalid value: "kri_mt_default__ns_a_b_c": must have exactly 7 '_'-separated segments, kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>, found 8
`},
		{name: "a global type with a mesh, an upper-case name", args: []string{"kri_m_default___Demo_"}, code: ExitDenied, stdout: `kri_m_default___Demo_: not a valid KRI:
  kri.mesh: Forbidden: must be empty: Mesh ("m") is global-scoped
  kri.name: Invalid value: "Demo": must start with a lowercase letter or digit; must contain only lowercase letters, digits, '-' or '.' (found 'D')
`},
		{name: "an unknown type", args: []string{"kri_mw_default___w_"}, code: ExitDenied, stdout: `kri_mw_default___w_: not a valid KRI:
  kri.type: Unsupported value: "mw": supported values: "dp", "extsvc", "hg", "m", "mal", "mcb", "mfi", "mgw", "mhc", "mhttpr", "mid", "mlbs", "mm", "motb", "mp", "mpp", "mr", "mrl", "msvc", "mt", "mtcpr", "mtls", "mtp", "mtr", "mtrust", "mza", "mzsvc", "wl", "z", "ze", "zi"
`},
		{name: "a type from the configuration", args: []string{"--config", typesConfig, "kri_mw_default___w_"}, code: ExitOK, stdout: `kri_mw_default___w_
  type       mw (MeshWidget, Mesh scope)
  mesh       default
  zone       (none)
  namespace  (none)
  name       w
  section    (none)
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, "", append([]string{"kri", "explain"}, tt.args...)...)
			if r.code != tt.code || r.stdout != tt.stdout {
				t.Errorf("exit %d, stdout:\n%s\nwant exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, tt.code, tt.stdout, r.stderr)
			}
		})
	}
	r := run(t, "", "kri", "explain", "-o", "json", "kri_msvc_default__kuma-demo_backend_http", "kri_x")
	golden(t, "kri-explain.json", r.stdout)
	if r.code != ExitDenied {
		t.Errorf("exit %d, want %d", r.code, ExitDenied)
	}
}

func TestKRIOf(t *testing.T) {
	r := run(t, "", "kri", "of", examplesDir)
	if r.code != ExitDenied {
		t.Errorf("exit %d, want %d (examples without a valid KRI)", r.code, ExitDenied)
	}
	golden(t, "kri-of-examples.text", r.stdout)
	if r := run(t, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: t\n  namespace: ns\n", "kri", "of", "-"); r.code != ExitOK || !strings.HasPrefix(r.stdout, "-:1: MeshTimeout ns/t: kri_mt_default__") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

// The KRI vectors of docs/kri.md and the hash-suffix vectors of Kuma's KDS.
func TestKRIName(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--mesh", "default", "--name", "backend", "--zone", "east", "--namespace", "kuma-demo"}, "backend-4dv9w4x47w8w98v4"},
		{[]string{"--mesh", "", "--name", "foo"}, "foo-zxw6c95d42zfz9cc"},
		{[]string{"--mesh", "default", "--name", "without-namespace"}, "without-namespace-c5v4498z5w4x9bcx"},
	}
	for _, tt := range tests {
		r := run(t, "", append([]string{"kri", "name"}, tt.args...)...)
		if r.code != ExitOK || r.stdout != tt.want+"\n" {
			t.Errorf("kri name %v: exit %d, %q; want %q", tt.args, r.code, r.stdout, tt.want)
		}
	}
	r := run(t, "", "kri", "name", "-o", "json", "--mesh", "default", "--name", "backend", "--zone", "east", "--namespace", "kuma-demo")
	var got struct{ Result string }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Result != "backend-4dv9w4x47w8w98v4" {
		t.Errorf("json: %q (%v)", r.stdout, err)
	}
}

// kri of prints, for every object of Kuma's public vectors that kriguard guards, the KRI Kuma
// computes for it.
func TestKRIOfKumaVectors(t *testing.T) {
	f, err := os.Open(kumaVectors)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type vector struct {
		Case   string          `json:"case"`
		Object json.RawMessage `json:"object"`
		KRI    string          `json:"kri"`
	}
	var in strings.Builder
	var vectors []vector
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var v vector
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		in.Write(v.Object)
		in.WriteString("\n")
		vectors = append(vectors, v)
	}
	r := run(t, in.String(), "kri", "of", "-o", "json", "-")
	if r.code == ExitError {
		t.Fatalf("kri of: %s", r.stderr)
	}
	var results []kriOf
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil {
		t.Fatal(err)
	}
	byLine := map[int]kriOf{}
	for _, res := range results {
		byLine[res.Line] = res
	}
	checked := 0
	for i, v := range vectors {
		res, ok := byLine[i+1]
		if !ok {
			continue // a kind kriguard does not guard (no CRD in current Kuma releases)
		}
		checked++
		if res.KRI != v.KRI {
			t.Errorf("%s: kri of prints %q (problems %v), Kuma computes %q", v.Case, res.KRI, res.Problems, v.KRI)
		}
		// Kuma computes a KRI for every object; kriguard also says when it is not a valid one.
		if _, err := naming.Parse(v.KRI); (err == nil) != res.Valid {
			t.Errorf("%s: kri of says valid=%v for %q (problems %v)", v.Case, res.Valid, res.KRI, res.Problems)
		}
	}
	if checked < len(vectors)*3/4 {
		t.Errorf("only %d of %d vectors are of guarded kinds", checked, len(vectors))
	}
	t.Logf("%d of %d vectors checked", checked, len(vectors))
}
