package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// deniedObjects returns "Kind namespace/name" of each object check -o json denies.
func deniedObjects(t *testing.T, stdout string) (denied []string, results []jsonResult) {
	t.Helper()
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("check -o json: %v\n%s", err, stdout)
	}
	for _, r := range results {
		if !r.Allowed {
			denied = append(denied, objectRef(r.Kind, r.Namespace, r.Name))
		}
	}
	slices.Sort(denied)
	return denied, results
}

// TestCheckKumaVersion: check --kuma-version 3.0 on 2.14 objects reports what 3.0 refuses; on
// what kriguard fix makes of them it denies only the objects fix leaves to a human (a rename, a
// removed kind); the default judges as --kuma-version 2.14.
func TestCheckKumaVersion(t *testing.T) {
	src := readFile(t, filepath.Join("..", "fix", "testdata", "policies.yaml"))
	p := writeFile(t, t.TempDir(), "policies.yaml", src)

	before := run(t, "", "check", "--kuma-version", "3.0", "-o", "json", p)
	denied, results := deniedObjects(t, before.stdout)
	want := []string{"MeshGateway edge", "MeshHTTPRoute kuma-demo/split", "MeshService kuma-demo/1st.backend", "MeshTimeout kuma-demo/backend-timeouts"}
	if before.code != ExitDenied || !slices.Equal(denied, want) {
		t.Errorf("3.0 on the 2.14 policies: exit %d, denied %q, want 1 and %q", before.code, denied, want)
	}
	var byName, dataplane int
	for _, r := range results {
		for _, c := range r.Causes {
			if strings.Contains(c.Message, "Kuma 3.0 selects by labels only: replace name and namespace with labels {kuma.io/display-name: ") {
				byName++
			}
		}
		for _, c := range r.Warnings {
			if c.Field == "spec.targetRef" && strings.Contains(c.Message, "selects every Dataplane") {
				dataplane++
			}
		}
	}
	if byName != 5 || dataplane != 1 {
		t.Errorf("3.0 on the 2.14 policies: %d references by name, %d top-level Dataplane notes; want 5 and 1:\n%s", byName, dataplane, before.stdout)
	}

	fixed := run(t, "", "fix", "--kuma-version", "3.0", p)
	human := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^[^ ]+:\d+: (\S+ \S+): [^ ]+: needs a human: `).FindAllStringSubmatch(fixed.stderr, -1) {
		human[m[1]] = true
	}
	after := run(t, "", "check", "--kuma-version", "3.0", "-o", "json", p)
	denied, _ = deniedObjects(t, after.stdout)
	if humans := slices.Sorted(func(yield func(string) bool) {
		for k := range human {
			if !yield(k) {
				return
			}
		}
	}); after.code != ExitDenied || !slices.Equal(denied, humans) || len(humans) != 2 {
		t.Errorf("3.0 on fix's output: exit %d, denied %q; fix left %q to a human (stderr:\n%s)", after.code, denied, humans, fixed.stderr)
	}

	def := run(t, "", "check", "-o", "json", filepath.Join("..", "fix", "testdata", "policies.yaml"))
	v214 := run(t, "", "check", "--kuma-version", "v2.14.3", "-o", "json", filepath.Join("..", "fix", "testdata", "policies.yaml"))
	if def.stdout != v214.stdout || def.code != v214.code || strings.Contains(def.stdout, "Kuma 3.0") {
		t.Errorf("the default and --kuma-version v2.14.3 differ or judge as 3.0:\n%s\n%s", def.stdout, v214.stdout)
	}

	bad := run(t, "", "check", "--kuma-version", "3.1", p)
	if bad.code != ExitError || !strings.Contains(bad.stderr, `--kuma-version: unknown Kuma release "3.1": known releases are 2.14, 3.0`) {
		t.Errorf("--kuma-version 3.1: exit %d, stderr %q", bad.code, bad.stderr)
	}
}

// TestKRIOfKumaVersion: kri of judges the kinds of the release it is given: 2.14 gives a
// MeshGateway its KRI, 3.0 has none for it and says why, in text and JSON, exiting 1.
func TestKRIOfKumaVersion(t *testing.T) {
	const gw = "apiVersion: kuma.io/v1alpha1\nkind: MeshGateway\nmetadata:\n  name: edge\nmesh: default\n"
	if r := run(t, gw, "kri", "of", "-"); r.code != ExitOK || r.stdout != "-:1: MeshGateway edge: kri_mgw_default___edge_\n" {
		t.Errorf("2.14: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	const want = `-:1: MeshGateway edge: no KRI: kind: Invalid value: "MeshGateway": removed in Kuma 3.0: the built-in gateway is gone (delegated gateways remain)` + "\n"
	if r := run(t, gw, "kri", "of", "--kuma-version", "3.0", "-"); r.code != ExitDenied || r.stdout != want {
		t.Errorf("3.0: exit %d, stdout %q, stderr %q; want 1 and %q", r.code, r.stdout, r.stderr, want)
	}
	r := run(t, gw, "kri", "of", "--kuma-version", "3.0", "-o", "json", "-")
	var got []kriOf
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("-o json: %v\n%s", err, r.stdout)
	}
	if r.code != ExitDenied || len(got) != 1 || got[0].KRI != "" || got[0].Valid || len(got[0].Problems) != 1 || got[0].Problems[0].Field != "kind" {
		t.Errorf("3.0 -o json: exit %d, %+v", r.code, got)
	}
}
