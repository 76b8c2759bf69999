package chart

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kriguard/kriguard/internal/testenv"
	"github.com/kriguard/kriguard/naming"
)

// removedRules returns, as group/version/resource, the Kuma kinds a release removed that no release
// names with a KRI (so that config.kinds cannot list them): naming's list, each kind's resource and
// version read from the CRDs of the release before the one that removed it. The chart's
// kriguard.removedKumaResources must list exactly these.
func removedRules(t testing.TB) sets.Set[string] {
	t.Helper()
	rules, _ := removedKinds(t)
	return rules
}

// removedKinds returns removedRules and the same kinds as Kind.kuma.io.
func removedKinds(t testing.TB) (rules, kinds sets.Set[string]) {
	t.Helper()
	withKRI := sets.New[string]()
	for _, r := range naming.Releases() {
		for _, rt := range r.Registry().Types() {
			withKRI.Insert(rt.Kind)
		}
	}
	out, names := sets.New[string](), sets.New[string]()
	releases := naming.Releases()
	for i, r := range releases {
		if i == 0 {
			continue
		}
		kinds, err := testenv.LoadKinds(testenv.Options{Kuma: releases[i-1].Upstream()})
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range r.RemovedKinds() {
			if withKRI.Has(kind) {
				continue
			}
			j := slices.IndexFunc(kinds, func(k testenv.Kind) bool { return k.Group == "kuma.io" && k.Kind == kind })
			if j < 0 {
				t.Fatalf("Kuma %s removed %s, which Kuma %s has no CRD for", r, kind, releases[i-1])
			}
			out.Insert(fmt.Sprintf("kuma.io/%s/%s", kinds[j].Version, kinds[j].Plural))
			names.Insert(kind + ".kuma.io")
		}
	}
	if out.Len() == 0 {
		t.Fatal("no release removed a kind without a KRI")
	}
	return out, names
}

// routesRemovedKinds reports whether values render the rule of the removed kinds: unless
// config.kuma.version pins 2.14, which removes none of them.
func routesRemovedKinds(values map[string]any) bool {
	return fmt.Sprint(values["config"].(map[string]any)["kuma"].(map[string]any)["version"]) != naming.Kuma2_14.String()
}

// TestRemovedKindsRule: the validating webhook, and it alone, gets one rule for the Kuma kinds a
// release removed that have no KRI (MeshGatewayInstance, the legacy policies, …), for CREATE and
// UPDATE only (DELETE must always reach the API server unhindered), the resources exactly those of
// naming's list; not when config.kuma.version pins 2.14.
func TestRemovedKindsRule(t *testing.T) {
	want := removedRules(t)
	for _, tc := range []struct {
		values string
		routed bool
	}{
		{"", true},
		{`{config: {kuma: {version: "3.0"}}}`, true},
		{`{config: {kuma: {version: "2.14"}}}`, false},
		{`{validation: {mode: both}}`, true},
	} {
		objs := render(t, "kriguard", releaseNamespace, tc.values)
		for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
			cfgs := objs.ofKind(kind)
			if len(cfgs) != 1 {
				t.Fatalf("values %q: %d %s", tc.values, len(cfgs), kind)
			}
			var found []map[string]any
			hook := &unstructured.Unstructured{Object: slice(t, cfgs[0], "webhooks")[0]}
			for _, r := range slice(t, hook, "rules") {
				for _, res := range r["resources"].([]any) {
					if want.Has(fmt.Sprintf("%s/%s/%s", r["apiGroups"].([]any)[0], r["apiVersions"].([]any)[0], res)) {
						found = append(found, r)
						break
					}
				}
			}
			if kind == "MutatingWebhookConfiguration" || !tc.routed {
				if len(found) > 0 {
					t.Errorf("values %q: %s routes removed kinds: %v", tc.values, kind, found)
				}
				continue
			}
			if len(found) != 1 {
				t.Fatalf("values %q: %s: %d rules for the removed kinds, want 1: %v", tc.values, kind, len(found), found)
			}
			r := found[0]
			if ops := fmt.Sprint(r["operations"]); ops != "[CREATE UPDATE]" {
				t.Errorf("values %q: operations %s, want exactly [CREATE UPDATE]", tc.values, ops)
			}
			if fmt.Sprint(r["apiGroups"]) != "[kuma.io]" || len(r["apiVersions"].([]any)) != 1 || r["scope"] != "*" {
				t.Errorf("values %q: rule %v, want group kuma.io, one version, scope *", tc.values, r)
			}
			got := sets.New[string]()
			for _, res := range r["resources"].([]any) {
				got.Insert(fmt.Sprintf("kuma.io/%s/%s", r["apiVersions"].([]any)[0], res))
			}
			if !got.Equal(want) {
				t.Errorf("values %q: the removed kinds' rule differs from naming's list:\n missing %v\n extra %v", tc.values,
					sets.List(want.Difference(got)), sets.List(got.Difference(want)))
			}
		}
	}
}

// TestAuditRemovedKinds: the continuous audit watches the Kuma kinds a release removed, as the
// webhook is sent them (unless config.kuma.version pins 2.14): they are in its --kinds, and its
// ClusterRole lists and watches exactly their resources besides the enabled kinds'. The role of
// `kriguard audit` lists them whatever the release, since --kuma-version 3.0 judges them on 2.14.
func TestAuditRemovedKinds(t *testing.T) {
	wantRules, wantKinds := removedKinds(t)
	var resources []string
	for r := range wantRules {
		resources = append(resources, r[len("kuma.io/v1alpha1/"):])
	}
	for _, tc := range []struct {
		values  string
		watched bool
	}{
		{auditValues, true},
		{auditValues + "  kuma: {version: \"3.0\"}\n", true},
		{auditValues + "  kuma: {version: \"2.14\"}\n", false},
	} {
		objs := render(t, "x", releaseNamespace, tc.values+"audit: {enabled: true, clusterRole: {create: true}}\n")
		var kinds []string
		for _, a := range strs(slice(t, objs.get(t, "Deployment", "x-kriguard-audit"), "spec", "template", "spec", "containers")[0]["args"]) {
			if list, ok := strings.CutPrefix(a, "--kinds="); ok {
				kinds = strings.Split(list, ",")
			}
		}
		if got := sets.New(kinds...).Intersection(wantKinds); tc.watched && !got.Equal(wantKinds) || !tc.watched && got.Len() > 0 {
			t.Errorf("values %q: --kinds has the removed kinds %v, want %v", tc.values, sets.List(got), tc.watched)
		}
		for role, want := range map[string]bool{"x-kriguard-audit-controller": tc.watched, "x-kriguard-audit": true} {
			var kuma []string
			for _, r := range slice(t, objs.get(t, "ClusterRole", role), "rules") {
				if slices.Equal(strs(r["apiGroups"]), []string{"kuma.io"}) {
					kuma = append(kuma, strs(r["resources"])...)
				}
			}
			got := sets.New(kuma...).Intersection(sets.New(resources...))
			if want && got.Len() != len(resources) || !want && got.Len() > 0 {
				t.Errorf("values %q: ClusterRole %s reads the removed kinds %v, want all of %v: %t", tc.values, role, sets.List(got), sets.List(sets.New(resources...)), want)
			}
		}
	}
}
