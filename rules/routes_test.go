package rules

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// kuma/route-name finds, on each release, exactly the parentRefs whose MeshHTTPRoute that
// release's gapiToKumaRoutes did not keep when it made the MeshHTTPRoutes of the whole route:
// 2.14 keeps the last parentRef's of each name, 3.0 merges them (../naming/testdata/README.md,
// kuma-route-parents.jsonl). The Gateways are those the vectors were computed with.
func TestRouteParentVectors(t *testing.T) {
	f, err := os.Open("../naming/testdata/kuma-route-parents.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	world := []input{
		{"", gatewayClassKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"kuma"},"spec":{"controllerName":"gateways.kuma.io/controller"}}`},
		{"", gatewayClassKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"kong"},"spec":{"controllerName":"konghq.com/gateway-operator"}}`},
		gateway("default", "gw", "kuma", ""),
		gateway("default", "bgw", "kuma", ""),
		gateway("default", "kgw", "kong", ""),
	}
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		var v struct {
			Release, Case, Namespace, Route string
			ParentRefs                      []json.RawMessage
			Names                           []string
			Kept                            []bool
		}
		if err := json.Unmarshal(s.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		rel, err := naming.ParseRelease(v.Release)
		if err != nil {
			t.Fatal(err)
		}
		n++
		var refs []string
		var want []string
		for i, r := range v.ParentRefs {
			refs = append(refs, string(r))
			if v.Names[i] != "" && !v.Kept[i] {
				want = append(want, "spec.parentRefs["+strconv.Itoa(i)+"] "+v.Names[i])
			}
		}
		u := DefaultConfig().NewUnique(rel)
		for _, in := range append(world, httpRoute(v.Namespace, v.Route, refs...)) {
			if _, err := u.Add(in.zone, in.kind, []byte(in.raw)); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, c := range u.Findings() {
			if c.Rule != RuleKumaRouteName {
				t.Errorf("%s %s: %s", rel, v.Case, c.Message())
				continue
			}
			got = append(got, c.Problem.Field+" "+c.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: kuma/route-name on %q, Kuma drops %q", rel, v.Case, got, want)
		}
	}
	if n < 50 {
		t.Errorf("read %d routes", n)
	}
}
