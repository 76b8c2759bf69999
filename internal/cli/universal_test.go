package cli

import (
	"strings"
	"testing"
)

const (
	mixedK8s = `apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata:
  name: timeout_k8s
  namespace: kuma-system
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: Mesh
`
	mixedUniversal = `# kumactl apply -f
type: MeshTimeout
mesh: default
name: timeout-1
labels:
  kuma.io/display-name: Shown_Name
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: backend
      default:
        idleTimeout: 20s
---
type: Mesh
name: mesh.a
---
type: MeshService
mesh: default
name: backend
spec:
  ports:
    - name: http
      port: 80
`
	// A Helm values file: name and type at the top, but no Kuma type.
	mixedValues = `name: my-release
type: application
replicaCount: 2
`
)

// check on one folder of Kubernetes manifests, kumactl YAML and a Helm values file: each object
// judged by its own rules, the values file skipped with the note.
func TestCheckUniversalMixedFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "k8s.yaml", mixedK8s)
	writeFile(t, dir, "kumactl/universal.yaml", mixedUniversal)
	writeFile(t, dir, "values.yaml", mixedValues)

	type want struct {
		allowed bool
		kri     string
		field   string // of the first cause, "" for none
		mesh    string
	}
	for _, tt := range []struct {
		release string
		want    map[string]want // by kind and name
	}{
		{"2.14", map[string]want{
			"MeshTimeout/timeout_k8s": {false, "", "metadata.name", ""},
			// 2.14 builds the KRI from the display-name label, which cannot be a KRI name.
			"MeshTimeout/timeout-1": {false, "", "labels[kuma.io/display-name]", "default"},
			"Mesh/mesh.a":           {true, "kri_m____mesh.a_", "", ""},
			"MeshService/backend":   {true, "kri_msvc_default___backend_", "", "default"},
		}},
		{"3.0", map[string]want{
			"MeshTimeout/timeout_k8s": {false, "", "metadata.name", ""},
			// 3.0 overwrites the label with name (a warning) and refuses the by-name reference.
			"MeshTimeout/timeout-1": {false, "kri_mt_default___timeout-1_", "spec.to[0].targetRef", "default"},
			"Mesh/mesh.a":           {false, "kri_m____mesh.a_", "name", ""},
			"MeshService/backend":   {true, "kri_msvc_default___backend_", "", "default"},
		}},
	} {
		t.Run(tt.release, func(t *testing.T) {
			r := run(t, "", "check", "-o", "json", "--kuma-version", tt.release, dir)
			if r.code != ExitDenied {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitDenied, r.stderr)
			}
			if !strings.Contains(r.stderr, "skipped 1 file") {
				t.Errorf("the values file is not skipped with a note; stderr:\n%s", r.stderr)
			}
			got := map[string]jsonResult{}
			for _, res := range decodeResults(t, r.stdout) {
				got[res.Kind+"/"+res.Name] = res
			}
			if len(got) != len(tt.want) {
				t.Errorf("judged %d objects, want %d: %v", len(got), len(tt.want), got)
			}
			for key, w := range tt.want {
				res, ok := got[key]
				if !ok {
					t.Errorf("%s not judged", key)
					continue
				}
				if res.Allowed != w.allowed || res.KRI != w.kri || res.Mesh != w.mesh {
					t.Errorf("%s: allowed %v, KRI %q, mesh %q; want %v, %q, %q (causes %v)", key, res.Allowed, res.KRI, res.Mesh, w.allowed, w.kri, w.mesh, res.Causes)
				}
				switch {
				case w.field == "" && len(res.Causes) > 0:
					t.Errorf("%s: causes %v, want none", key, res.Causes)
				case w.field != "" && (len(res.Causes) == 0 || res.Causes[0].Field != w.field):
					t.Errorf("%s: causes %v, want the first at %s", key, res.Causes, w.field)
				}
				if strings.HasSuffix(res.Source, "universal.yaml") == (res.APIVersion != "") {
					t.Errorf("%s from %s has apiVersion %q", key, res.Source, res.APIVersion)
				}
			}
		})
	}
}

// What kumactl get -o yaml prints is judged item by item.
func TestCheckKumactlListing(t *testing.T) {
	listing := `items:
- type: MeshTimeout
  mesh: default
  name: timeout-1
  creationTime: "2026-11-25T20:19:30Z"
  labels:
    kuma.io/display-name: Bad_Name
  spec:
    targetRef:
      kind: Mesh
- type: Mesh
  name: prod
next: null
total: 2
`
	r := run(t, listing, "check", "-o", "json", "-")
	rs := decodeResults(t, r.stdout)
	if r.code != ExitDenied || len(rs) != 2 {
		t.Fatalf("exit %d, %d results; stderr:\n%s", r.code, len(rs), r.stderr)
	}
	if rs[0].Name != "timeout-1" || rs[0].Allowed || rs[0].Line != 2 || rs[1].Name != "prod" || !rs[1].Allowed || rs[1].Line != 11 {
		t.Errorf("results %+v", rs)
	}
}

// The text output names a Universal resource with its mesh, and places the cause on its line.
func TestCheckUniversalText(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "universal.yaml", mixedUniversal)
	r := run(t, "", "check", p)
	want := p + `:6:3: MeshTimeout timeout-1 (mesh default): labels[kuma.io/display-name]: Invalid value: "Shown_Name": `
	if r.code != ExitDenied || !strings.HasPrefix(r.stdout, want) {
		t.Errorf("exit %d, output:\n%s\nwant it to start with:\n%s", r.code, r.stdout, want)
	}
}

// kri of gives a Universal resource the KRI its release gives it.
func TestKRIOfUniversal(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "universal.yaml", mixedUniversal)
	for _, tt := range []struct{ release, zone, want string }{
		{"2.14", "", "kri_mt_default___Shown_Name_"},
		{"3.0", "", "kri_mt_default___timeout-1_"},
		// Created on a zone control plane, it is stored with the zone.
		{"3.0", "zone-1", "kri_mt_default_zone-1__timeout-1_"},
	} {
		r := run(t, "", "kri", "of", "--kuma-version", tt.release, "--kuma-zone", tt.zone, p)
		if !strings.Contains(r.stdout, ": MeshTimeout timeout-1 (mesh default): "+tt.want) {
			t.Errorf("%s: output:\n%s\nwant the KRI %s", tt.release, r.stdout, tt.want)
		}
	}
}

// fix --kuma-version 3.0 on kumactl YAML, then check --kuma-version 3.0: what check still denies,
// fix named for a human; the by-name reference fix rewrote is no longer denied.
func TestFixThenCheckUniversal(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "universal.yaml", mixedUniversal)
	r := run(t, "", "fix", "--kuma-version", "3.0", p)
	if r.code != ExitDenied {
		t.Fatalf("fix: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	human := map[string]bool{}
	for line := range strings.Lines(r.stderr) {
		if _, rest, ok := strings.Cut(line, ": "); ok && strings.Contains(rest, "needs a human") {
			obj, _, _ := strings.Cut(rest, ": ")
			human[obj] = true
		}
	}
	c := run(t, "", "check", "--kuma-version", "3.0", "-o", "json", p)
	for _, res := range decodeResults(t, c.stdout) {
		ref := res.Kind + " " + res.Name
		if res.Mesh != "" {
			ref += " (mesh " + res.Mesh + ")"
		}
		if !res.Allowed && !human[ref] {
			t.Errorf("check denies %s (%v), which fix did not name for a human (%v)", ref, res.Causes, human)
		}
		for _, c := range res.Causes {
			if strings.HasPrefix(c.Field, "spec.") {
				t.Errorf("%s: %s still denied after fix", ref, c.Field)
			}
		}
	}
	if !human["Mesh mesh.a"] {
		t.Errorf("fix did not name Mesh mesh.a for a human: %s", r.stderr)
	}
}
