package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// apiDiscovery asks the API server the discovery questions of an audit (served.Discovery,
// kumarelease.ResourceLister) over the audit's own REST client, each once: the release's
// detection, the guarded kinds and the Gateway API kinds ask some of the same. Its answers, errors
// included, are those of the first asking.
//
// It reads the API groups as one aggregated discovery document (apidiscovery.k8s.io/v2, served
// since Kubernetes 1.30), which holds every group version's resources, so that no group version
// is asked on its own: client-go's discovery client reads the same document for the groups, drops
// the resources, and asks each group version again. A server that sends the plain group list (no
// aggregated discovery, as client-go asks it too) gets each group version asked on its own, as
// before. Only /apis is read: no kind audit lists is in the core group (a guarded kind's group is
// required, and the Gateway API's is named). It links no client-go discovery package, whose
// scheme and OpenAPI types cost the command's start (docs/performance.md, "Change 15").
type apiDiscovery struct {
	client    rest.Interface
	asked     bool
	groups    *metav1.APIGroupList
	groupsErr error
	// aggregated says that the API server sent the aggregated document: a group version neither
	// in resources nor stale then is not served.
	aggregated bool
	// stale are the group versions the document lists as stale: their aggregated API server did
	// not answer it.
	stale     map[string]bool
	resources map[string]resourcesAnswer
}

type resourcesAnswer struct {
	list *metav1.APIResourceList
	err  error
}

// acceptDiscovery asks for the aggregated document, else the plain group list: client-go's
// discovery client's Accept header.
const acceptDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"

func newAPIDiscovery(client rest.Interface) *apiDiscovery {
	return &apiDiscovery{client: client, stale: map[string]bool{}, resources: map[string]resourcesAnswer{}}
}

// ServerGroupsWithContext returns the API groups of /apis, each group's versions in the server's
// order of preference, with the stale versions of aggregated API servers left out (as client-go
// leaves them out).
func (d *apiDiscovery) ServerGroupsWithContext(ctx context.Context) (*metav1.APIGroupList, error) {
	if !d.asked {
		d.asked = true
		d.groups, d.groupsErr = d.readGroups(ctx)
	}
	return d.groups, d.groupsErr
}

// discoveryTimeout bounds each discovery request, as client-go's discovery client bounds its
// requests when the configuration sets no timeout.
const discoveryTimeout = 32 * time.Second

func (d *apiDiscovery) readGroups(ctx context.Context) (*metav1.APIGroupList, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	var contentType string
	body, err := d.client.Get().AbsPath("/apis").SetHeader("Accept", acceptDiscovery).Do(ctx).ContentType(&contentType).Raw()
	if err != nil {
		return nil, err
	}
	if !isAggregatedDiscovery(contentType) {
		var list metav1.APIGroupList
		if err := json.Unmarshal(body, &list); err != nil {
			return nil, err
		}
		return &list, nil
	}
	var doc aggregatedDiscovery
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	list := &metav1.APIGroupList{Groups: make([]metav1.APIGroup, 0, len(doc.Items))}
	for _, g := range doc.Items {
		group := metav1.APIGroup{Name: g.Metadata.Name}
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Metadata.Name, Version: v.Version}.String()
			if v.Freshness == "Stale" {
				d.stale[gv] = true // asked on its own, if at all: its server answers, or says why not
				continue
			}
			version := metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v.Version}
			group.Versions = append(group.Versions, version)
			if group.PreferredVersion == (metav1.GroupVersionForDiscovery{}) {
				group.PreferredVersion = version
			}
			rl := &metav1.APIResourceList{GroupVersion: gv, APIResources: make([]metav1.APIResource, 0, len(v.Resources))}
			for _, r := range v.Resources {
				if r.ResponseKind == nil || *r.ResponseKind == (discoveryKind{}) {
					continue // client-go leaves out a resource without a kind too
				}
				// What a group version's own list holds: no group or version of the kind
				// (audit reads neither).
				rl.APIResources = append(rl.APIResources, metav1.APIResource{
					Name:         r.Resource,
					SingularName: r.SingularResource,
					Namespaced:   r.Scope == "Namespaced",
					Kind:         r.ResponseKind.Kind,
					Verbs:        r.Verbs,
				})
			}
			d.resources[gv] = resourcesAnswer{list: rl}
		}
		list.Groups = append(list.Groups, group)
	}
	d.aggregated = true
	return list, nil
}

// ServerResourcesForGroupVersionWithContext returns the resources of gv ("group/version"), without
// subresources (no caller reads them): from the aggregated document when the server sent one,
// else asked on its own.
func (d *apiDiscovery) ServerResourcesForGroupVersionWithContext(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	if gv == "" {
		return nil, fmt.Errorf("groupVersion shouldn't be empty")
	}
	// The document answers every group version at once; an error reading it is the groups'
	// question's, and gv is then asked on its own.
	_, _ = d.ServerGroupsWithContext(ctx)
	a, ok := d.resources[gv]
	if ok {
		return a.list, a.err
	}
	if d.aggregated && !d.stale[gv] {
		// The document lists every group version the server serves.
		a.err = apierrors.NewGenericServerResponse(http.StatusNotFound, http.MethodGet, schema.GroupResource{}, "", "", 0, false)
	} else {
		a.list, a.err = d.readResources(ctx, gv)
	}
	d.resources[gv] = a
	return a.list, a.err
}

// readResources asks the API server the resources of gv, as client-go's discovery client does.
func (d *apiDiscovery) readResources(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	path := "/apis/" + gv
	if gv == "v1" {
		path = "/api/v1"
	}
	res := d.client.Get().AbsPath(path).Do(ctx)
	// Error, unlike Raw, reads the API server's Status: NotFound, "… is forbidden: User …".
	if err := res.Error(); err != nil {
		return nil, err
	}
	raw, err := res.Raw()
	if err != nil {
		return nil, err
	}
	list := &metav1.APIResourceList{}
	if err := json.Unmarshal(raw, list); err != nil {
		return nil, err
	}
	list.GroupVersion = gv
	return list, nil
}

// ServerResourcesForGroupVersion is kumarelease.ResourceLister's.
func (d *apiDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	return d.ServerResourcesForGroupVersionWithContext(context.Background(), gv)
}

// isAggregatedDiscovery says whether contentType is that of the aggregated discovery document.
func isAggregatedDiscovery(contentType string) bool {
	base, params, err := mime.ParseMediaType(contentType)
	return err == nil && base == "application/json" && params["g"] == "apidiscovery.k8s.io" &&
		params["v"] == "v2" && params["as"] == "APIGroupDiscoveryList"
}

// aggregatedDiscovery is what audit reads of an apidiscovery.k8s.io/v2 APIGroupDiscoveryList.
type aggregatedDiscovery struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Freshness string `json:"freshness"`
			Resources []struct {
				Resource         string         `json:"resource"`
				SingularResource string         `json:"singularResource"`
				ResponseKind     *discoveryKind `json:"responseKind"`
				Scope            string         `json:"scope"`
				Verbs            []string       `json:"verbs"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

type discoveryKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}
