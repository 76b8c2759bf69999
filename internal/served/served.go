package served

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// Discovery is what Kinds asks of the API server; client-go's *discovery.DiscoveryClient has it
// (ExampleKinds uses one), and so does the audit's own (internal/cli), which links no client-go
// discovery package (docs/performance.md, "Change 15").
type Discovery interface {
	ServerGroupsWithContext(ctx context.Context) (*metav1.APIGroupList, error)
	ServerResourcesForGroupVersionWithContext(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error)
}

// Kind is a guarded kind the cluster serves.
type Kind struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
}

// APIVersion returns the group/version the kind is served at.
func (k Kind) APIVersion() string { return k.GVR.GroupVersion().String() }

// GroupKind returns the kind's group and kind.
func (k Kind) GroupKind() schema.GroupKind { return schema.GroupKind{Group: k.GVR.Group, Kind: k.Kind} }

// Kinds returns the kinds cfg guards that the cluster serves, in the configuration's order, each in
// the first version of its group (the preferred one first) that serves it with the verbs asked for
// ("list", and "watch" for the continuous audit). With namespaced, the cluster-scoped kinds are
// left out: they have no objects in a namespace. It is KindsFor the configuration's release.
func Kinds(ctx context.Context, dc Discovery, cfg *rules.Config, namespaced bool, verbs ...string) ([]Kind, error) {
	return KindsFor(ctx, dc, cfg, naming.Release{}, namespaced, verbs...)
}

// KindsFor is Kinds for the kinds cfg judges under rel (the zero Release: the configuration's): the
// guarded ones, in the configuration's order, then the Kuma kinds rel removed that the cluster
// still serves (CRDs an upgrade left behind, or a cluster not upgraded yet), by name, whose
// objects rel refuses as removed.
func KindsFor(ctx context.Context, dc Discovery, cfg *rules.Config, rel naming.Release, namespaced bool, verbs ...string) ([]Kind, error) {
	return KindsForReleases(ctx, dc, cfg, []naming.Release{rel}, namespaced, verbs...)
}

// KindsForReleases is KindsFor the kinds cfg judges under any of rels: those of a watcher that
// follows the release a control plane runs (the continuous audit), which must already watch the
// kinds an upgrade removes, so that their leftovers are judged as soon as the control plane runs
// the release that removed them.
func KindsForReleases(ctx context.Context, dc Discovery, cfg *rules.Config, rels []naming.Release, namespaced bool, verbs ...string) ([]Kind, error) {
	groups, err := dc.ServerGroupsWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("discovering the API groups: %w", err)
	}
	guarded := cfg.GuardedKinds()
	wanted := map[string]bool{}
	for _, k := range guarded {
		wanted[k.Group] = true
	}
	found := map[schema.GroupKind]Kind{}
	for _, g := range groups.Groups {
		if !wanted[g.Name] {
			continue
		}
		versions := []string{g.PreferredVersion.Version}
		for _, v := range g.Versions {
			if !slices.Contains(versions, v.Version) {
				versions = append(versions, v.Version)
			}
		}
		for _, v := range versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v}
			rl, err := dc.ServerResourcesForGroupVersionWithContext(ctx, gv.String())
			if err != nil {
				return nil, fmt.Errorf("discovering %s: %w", gv.String(), err)
			}
			for _, r := range rl.APIResources {
				gk := schema.GroupKind{Group: g.Name, Kind: r.Kind}
				if _, seen := found[gk]; seen || strings.Contains(r.Name, "/") || !hasVerbs(r.Verbs, verbs) {
					continue
				}
				if !slices.ContainsFunc(rels, func(rel naming.Release) bool { return cfg.Judges(gk, rel) }) {
					continue
				}
				found[gk] = Kind{GVR: gv.WithResource(r.Name), Kind: r.Kind, Namespaced: r.Namespaced}
			}
		}
	}
	var kinds []Kind
	add := func(gk schema.GroupKind) {
		sk, ok := found[gk]
		delete(found, gk)
		if ok && (sk.Namespaced || !namespaced) {
			kinds = append(kinds, sk)
		}
	}
	for _, k := range guarded {
		add(schema.GroupKind{Group: k.Group, Kind: k.Kind})
	}
	for _, gk := range slices.SortedFunc(maps.Keys(found), func(a, b schema.GroupKind) int {
		return strings.Compare(a.String(), b.String())
	}) {
		add(gk)
	}
	return kinds, nil
}

func hasVerbs(have []string, want []string) bool {
	for _, v := range want {
		if !slices.Contains(have, v) {
			return false
		}
	}
	return true
}
