package served

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// stubDiscovery serves groups and their resources from tables.
type stubDiscovery struct {
	groups    []metav1.APIGroup
	resources map[string][]metav1.APIResource
}

func (d stubDiscovery) ServerGroupsWithContext(context.Context) (*metav1.APIGroupList, error) {
	return &metav1.APIGroupList{Groups: d.groups}, nil
}

func (d stubDiscovery) ServerResourcesForGroupVersionWithContext(_ context.Context, gv string) (*metav1.APIResourceList, error) {
	rs, ok := d.resources[gv]
	if !ok {
		return nil, errors.New("not served")
	}
	return &metav1.APIResourceList{GroupVersion: gv, APIResources: rs}, nil
}

func group(name string, versions ...string) metav1.APIGroup {
	g := metav1.APIGroup{Name: name, PreferredVersion: metav1.GroupVersionForDiscovery{Version: versions[0]}}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: name + "/" + v, Version: v})
	}
	return g
}

var listWatch = []string{"get", "list", "watch"}

func TestKinds(t *testing.T) {
	d := stubDiscovery{
		groups: []metav1.APIGroup{group("apps", "v1"), group(rules.KumaGroup, "v1alpha1", "v1alpha2")},
		resources: map[string][]metav1.APIResource{
			"kuma.io/v1alpha1": {
				{Name: "meshtimeouts", Kind: "MeshTimeout", Namespaced: true, Verbs: listWatch},
				{Name: "meshtimeouts/status", Kind: "MeshTimeout", Namespaced: true, Verbs: listWatch},
				{Name: "meshes", Kind: "Mesh", Verbs: listWatch},
				{Name: "meshretries", Kind: "MeshRetry", Namespaced: true, Verbs: []string{"list"}},
				{Name: "notguardeds", Kind: "NotGuarded", Namespaced: true, Verbs: listWatch},
			},
			// The preferred version serves MeshTimeout: the other's is not taken.
			"kuma.io/v1alpha2": {{Name: "meshtimeouts", Kind: "MeshTimeout", Namespaced: true, Verbs: listWatch}},
		},
	}
	cfg := rules.DefaultConfig()
	for _, tc := range []struct {
		name       string
		namespaced bool
		verbs      []string
		want       string
	}{
		{"list, every namespace", false, []string{"list"}, "[Mesh kuma.io/v1alpha1 meshes false MeshRetry kuma.io/v1alpha1 meshretries true MeshTimeout kuma.io/v1alpha1 meshtimeouts true]"},
		{"list and watch", false, []string{"list", "watch"}, "[Mesh kuma.io/v1alpha1 meshes false MeshTimeout kuma.io/v1alpha1 meshtimeouts true]"},
		{"one namespace", true, []string{"list"}, "[MeshRetry kuma.io/v1alpha1 meshretries true MeshTimeout kuma.io/v1alpha1 meshtimeouts true]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kinds, err := Kinds(context.Background(), d, cfg, tc.namespaced, tc.verbs...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range kinds {
				got = append(got, fmt.Sprint(k.Kind, " ", k.APIVersion(), " ", k.GVR.Resource, " ", k.Namespaced))
			}
			slices.Sort(got)
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("got %s\nwant %s", s, tc.want)
			}
		})
	}
	d.resources["kuma.io/v1alpha1"] = nil
	delete(d.resources, "kuma.io/v1alpha2")
	if _, err := Kinds(context.Background(), d, cfg, false, "list"); err == nil {
		t.Error("a group version that cannot be discovered: no error")
	}
}

// KindsForReleases takes the kinds judged under any of the releases: a kind 3.0 removed is judged
// only under 3.0 (2.14 ships it), so a watcher following the release must watch it already on 2.14.
func TestKindsForReleases(t *testing.T) {
	d := stubDiscovery{
		groups: []metav1.APIGroup{group(rules.KumaGroup, "v1alpha1")},
		resources: map[string][]metav1.APIResource{
			"kuma.io/v1alpha1": {
				{Name: "meshtimeouts", Kind: "MeshTimeout", Namespaced: true, Verbs: listWatch},
				{Name: "trafficroutes", Kind: "TrafficRoute", Verbs: listWatch},
				{Name: "meshgatewayinstances", Kind: "MeshGatewayInstance", Namespaced: true, Verbs: listWatch},
			},
		},
	}
	cfg := rules.DefaultConfig()
	for _, tc := range []struct {
		name string
		rels []naming.Release
		want string
	}{
		{"2.14", []naming.Release{naming.Kuma2_14}, "[MeshTimeout]"},
		{"3.0", []naming.Release{naming.Kuma3_0}, "[MeshTimeout MeshGatewayInstance TrafficRoute]"},
		{"either", naming.Releases(), "[MeshTimeout MeshGatewayInstance TrafficRoute]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kinds, err := KindsForReleases(context.Background(), d, cfg, tc.rels, false, "list", "watch")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, k := range kinds {
				got = append(got, k.Kind)
			}
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("got %s, want %s (guarded kinds first, then the removed ones by name)", s, tc.want)
			}
		})
	}
}
