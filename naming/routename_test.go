package naming_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// TestMeshHTTPRouteNameVectors holds MeshHTTPRouteName to the names Kuma's own code gave
// (testdata/README.md), one assertion per line: an empty name is a parent the release's
// controller makes no MeshHTTPRoute of.
func TestMeshHTTPRouteNameVectors(t *testing.T) {
	f, err := os.Open("testdata/kuma-route-names.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		var v struct {
			Release, Namespace, Route, Name string
			ParentRef                       struct {
				Group, Kind, Namespace, Name, SectionName string
				Port                                      int32
			}
		}
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		rel, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatal(err)
		}
		n++
		ref := naming.ParentRef(v.ParentRef)
		if ref.Group == "" && ref.Kind == "" {
			// As Kuma's function sees nil pointers: no parent the controller meets (the API
			// server defaults both), so no parent MeshHTTPRouteName names.
			if got, ok := rel.MeshHTTPRouteName(v.Namespace, v.Route, ref); ok {
				t.Errorf("%s/%s %+v: %q, want no name for a parent of no kind", v.Namespace, v.Route, v.ParentRef, got)
			}
			continue
		}
		if v.Name == "" {
			if got, ok := rel.MeshHTTPRouteName(v.Namespace, v.Route, ref); ok {
				t.Errorf("%s: %s/%s %+v: %q, Kuma makes no MeshHTTPRoute", rel, v.Namespace, v.Route, v.ParentRef, got)
			}
			continue
		}
		if got, ok := rel.MeshHTTPRouteName(v.Namespace, v.Route, ref); !ok || got != v.Name {
			t.Errorf("%s: %s/%s %+v: %q (%v), Kuma gives %q", rel, v.Namespace, v.Route, v.ParentRef, got, ok, v.Name)
		}
	}
	if n < 350 {
		t.Errorf("read %d vectors", n)
	}
}

// Which parents a release makes MeshHTTPRoutes of, and the names of Service and MeshService
// parents (Kuma's format strings, docs/unique.md).
func TestMeshHTTPRouteNameParents(t *testing.T) {
	gw := naming.ParentRef{Group: naming.GatewayAPIGroup, Kind: "Gateway", Name: "gw"}
	svc := naming.ParentRef{Kind: "Service", Name: "s", Namespace: "n"}
	msvc := naming.ParentRef{Group: "kuma.io", Kind: "MeshService", Name: "s"}
	for _, tt := range []struct {
		rel  naming.Release
		ref  naming.ParentRef
		want string // "" for none
	}{
		{naming.Kuma2_14, gw, "r-default-48ee22a8"},
		{naming.Kuma3_0, gw, ""},
		{naming.Kuma2_14, svc, "r-default-s.n"},
		{naming.Kuma3_0, svc, "r-default-s.n"},
		{naming.Kuma2_14, naming.ParentRef{Group: naming.GatewayAPIGroup, Kind: "Service", Name: "s"}, "r-default-s.default"},
		{naming.Kuma2_14, msvc, ""},
		{naming.Kuma3_0, msvc, "r-default-meshservice-s.default"},
		{naming.Kuma3_0, naming.ParentRef{Group: "kuma.io", Kind: "MeshGateway", Name: "g"}, ""},
	} {
		got, ok := tt.rel.MeshHTTPRouteName("default", "r", tt.ref)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s %s/%s: %q (%v), want %q", tt.rel, tt.ref.Group, tt.ref.Kind, got, ok, tt.want)
		}
	}
}

// routeParentVector is a line of testdata/kuma-route-parents.jsonl: an HTTPRoute with several
// parentRefs, the name of the MeshHTTPRoute the release makes of each alone (names, "" for none)
// and whether what it makes of each survives in the MeshHTTPRoutes it makes of them all (kept).
type routeParentVector struct {
	Release, Case, Namespace, Route string
	ParentRefs                      []naming.ParentRef
	Names                           []string
	Kept                            []bool
}

func readRouteParentVectors(t *testing.T) []routeParentVector {
	t.Helper()
	f, err := os.Open("testdata/kuma-route-parents.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []routeParentVector
	for s := bufio.NewScanner(f); s.Scan(); {
		var v routeParentVector
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Names) != len(v.ParentRefs) || len(v.Kept) != len(v.ParentRefs) {
			t.Fatalf("%s %s: %d parentRefs, %d names, %d kept", v.Release, v.Case, len(v.ParentRefs), len(v.Names), len(v.Kept))
		}
		out = append(out, v)
	}
	return out
}

// Several parentRefs of one route with one MeshHTTPRoute name: 2.14 keeps the last one's, 3.0
// merges them, as each release's gapiToKumaRoutes did on the same routes.
func TestMeshHTTPRouteKeptVectors(t *testing.T) {
	vs := readRouteParentVectors(t)
	perRelease := map[string]int{}
	for _, v := range vs {
		rel, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatal(err)
		}
		perRelease[v.Release]++
		for i, ref := range v.ParentRefs {
			if v.Names[i] == "" {
				continue // Kuma makes nothing of it (a kind it ignores, a parent it cannot find)
			}
			if got, ok := rel.MeshHTTPRouteName(v.Namespace, v.Route, ref); got != v.Names[i] {
				t.Errorf("%s %s: parentRefs[%d] named %q (%v), Kuma gives %q", rel, v.Case, i, got, ok, v.Names[i])
			}
			last := i
			for j := i + 1; j < len(v.ParentRefs); j++ {
				if v.Names[j] == v.Names[i] {
					last = j
				}
			}
			if got := last == i || rel.MeshHTTPRouteKept(v.Namespace, ref, v.ParentRefs[last]); got != v.Kept[i] {
				t.Errorf("%s %s: parentRefs[%d] kept = %v, Kuma: %v", rel, v.Case, i, got, v.Kept[i])
			}
		}
	}
	for _, r := range naming.Releases() {
		if perRelease[r.String()] < 25 {
			t.Errorf("%d routes of %s, want 25", perRelease[r.String()], r)
		}
	}
}
