package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kriguard/kriguard/internal/testenv"
)

// discoveryServer serves answers by path and counts the requests of each.
type discoveryServer struct {
	mu       sync.Mutex
	requests map[string]int
}

func newDiscoveryClient(t *testing.T, answers map[string]func(w http.ResponseWriter)) (*apiDiscovery, *discoveryServer) {
	t.Helper()
	ds := &discoveryServer{requests: map[string]int{}}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ds.mu.Lock()
		ds.requests[r.URL.Path]++
		ds.mu.Unlock()
		if a, ok := answers[r.URL.Path]; ok {
			a(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"not here"}`))
	}))
	t.Cleanup(s.Close)
	client, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(&rest.Config{Host: s.URL}))
	if err != nil {
		t.Fatal(err)
	}
	return newAPIDiscovery(client), ds
}

func answer(contentType, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}
}

const aggregatedType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// An API server with aggregated discovery: one request answers the groups and every fresh group
// version; a stale one is asked on its own; one the document does not list is not served.
func TestDiscoveryAggregated(t *testing.T) {
	d, ds := newDiscoveryClient(t, map[string]func(http.ResponseWriter){
		"/apis": answer(aggregatedType, `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[
			{"metadata":{"name":"a.io"},"versions":[
				{"version":"v2","resources":[
					{"resource":"widgets","responseKind":{"group":"a.io","version":"v2","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","verbs":["get","list"],
					 "subresources":[{"subresource":"status","responseKind":{"group":"a.io","version":"v2","kind":"Widget"},"verbs":["get"]}]},
					{"resource":"kindless","scope":"Cluster","verbs":["get"]},
					{"resource":"gadgets","responseKind":{"group":"a.io","version":"v2","kind":"Gadget"},"scope":"Cluster","verbs":["list"]}]},
				{"version":"v1","freshness":"Stale"}]},
			{"metadata":{"name":"b.io"},"versions":[{"version":"v1","freshness":"Current","resources":[]}]}]}`),
		"/apis/a.io/v1": func(w http.ResponseWriter) { http.Error(w, "unavailable", http.StatusServiceUnavailable) },
	})
	ctx := context.Background()
	groups, err := d.ServerGroupsWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []metav1.APIGroup{
		{Name: "a.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "a.io/v2", Version: "v2"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "a.io/v2", Version: "v2"}},
		{Name: "b.io", Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "b.io/v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "b.io/v1", Version: "v1"}},
	}
	if !equalGroups(groups.Groups, want) {
		t.Errorf("groups %+v, want %+v", groups.Groups, want)
	}
	rl, err := d.ServerResourcesForGroupVersionWithContext(ctx, "a.io/v2")
	if err != nil {
		t.Fatal(err)
	}
	wantResources := []metav1.APIResource{
		{Name: "widgets", SingularName: "widget", Namespaced: true, Kind: "Widget", Verbs: []string{"get", "list"}},
		{Name: "gadgets", Kind: "Gadget", Verbs: []string{"list"}},
	}
	if rl.GroupVersion != "a.io/v2" || !equalResources(rl.APIResources, wantResources) {
		t.Errorf("a.io/v2: %+v, want %+v", rl, wantResources)
	}
	if rl, err := d.ServerResourcesForGroupVersion("b.io/v1"); err != nil || len(rl.APIResources) != 0 {
		t.Errorf("b.io/v1: %+v, %v; want no resources", rl, err)
	}
	if _, err := d.ServerResourcesForGroupVersion("c.io/v1"); !apierrors.IsNotFound(err) {
		t.Errorf("c.io/v1, not in the document: %v, want NotFound", err)
	}
	for range 2 {
		if _, err := d.ServerResourcesForGroupVersionWithContext(ctx, "a.io/v1"); !apierrors.IsServiceUnavailable(err) {
			t.Errorf("a.io/v1, stale: %v, want the server's error", err)
		}
	}
	if got := ds.requests; len(got) != 2 || got["/apis"] != 1 || got["/apis/a.io/v1"] != 1 {
		t.Errorf("requests %v, want /apis and the stale /apis/a.io/v1 once each", got)
	}
}

// An API server without aggregated discovery: the group list, then each group version asked once.
func TestDiscoveryPlain(t *testing.T) {
	d, ds := newDiscoveryClient(t, map[string]func(http.ResponseWriter){
		"/apis": answer("application/json", `{"kind":"APIGroupList","apiVersion":"v1","groups":[
			{"name":"a.io","versions":[{"groupVersion":"a.io/v1","version":"v1"},{"groupVersion":"a.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"a.io/v1","version":"v1"}}]}`),
		"/apis/a.io/v1": answer("application/json", `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"a.io/v1","resources":[
			{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["list"]},
			{"name":"widgets/status","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get"]}]}`),
	})
	ctx := context.Background()
	groups, err := d.ServerGroupsWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups.Groups) != 1 || groups.Groups[0].PreferredVersion.Version != "v1" || len(groups.Groups[0].Versions) != 2 {
		t.Errorf("groups %+v, want a.io, v1 preferred over v1beta1", groups.Groups)
	}
	for range 2 {
		rl, err := d.ServerResourcesForGroupVersionWithContext(ctx, "a.io/v1")
		if err != nil || len(rl.APIResources) != 2 || rl.APIResources[0].Kind != "Widget" || !rl.APIResources[0].Namespaced {
			t.Errorf("a.io/v1: %+v, %v", rl, err)
		}
		if _, err := d.ServerResourcesForGroupVersionWithContext(ctx, "a.io/v1beta1"); !apierrors.IsNotFound(err) {
			t.Errorf("a.io/v1beta1: %v, want the server's NotFound", err)
		}
	}
	if got := ds.requests; len(got) != 3 || got["/apis"] != 1 || got["/apis/a.io/v1"] != 1 || got["/apis/a.io/v1beta1"] != 1 {
		t.Errorf("requests %v, want each path once", got)
	}
	if _, err := newAPIDiscoveryFailing(t).ServerGroupsWithContext(ctx); err == nil {
		t.Error("groups of a server that fails /apis: no error")
	}
}

func newAPIDiscoveryFailing(t *testing.T) *apiDiscovery {
	d, _ := newDiscoveryClient(t, map[string]func(http.ResponseWriter){
		"/apis": func(w http.ResponseWriter) { http.Error(w, "forbidden", http.StatusForbidden) },
	})
	return d
}

// Against a real API server, the audit's discovery answers what client-go's discovery client
// answers: the same groups, versions in the same order, and for each group version the same
// resources (without subresources, which audit does not read).
func TestDiscoverySameAsClientGo(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{})
	ctx := context.Background()
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	au := &auditor{rest: env.Config}
	_, d, err := au.connect()
	if err != nil {
		t.Fatal(err)
	}
	want, err := dc.ServerGroupsWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.ServerGroupsWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// client-go lists the core group (/api) first; audit reads only /apis.
	if want.Groups[0].Name != "" || !equalGroups(got.Groups, want.Groups[1:]) {
		t.Fatalf("groups:\n%+v\nclient-go's:\n%+v", got.Groups, want.Groups)
	}
	n := 0
	for _, g := range got.Groups {
		for _, v := range g.Versions {
			wl, err := dc.ServerResourcesForGroupVersionWithContext(ctx, v.GroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			gl, err := d.ServerResourcesForGroupVersionWithContext(ctx, v.GroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			wr := slices.DeleteFunc(wl.APIResources, func(r metav1.APIResource) bool { return strings.Contains(r.Name, "/") })
			if gl.GroupVersion != wl.GroupVersion || !equalResources(gl.APIResources, wr) {
				t.Errorf("%s:\n%+v\nclient-go's:\n%+v", v.GroupVersion, gl.APIResources, wr)
			}
			n += len(gl.APIResources)
		}
	}
	if n < 50 {
		t.Errorf("%d resources compared: want the guarded kinds' CRDs among them", n)
	}
}

func equalGroups(a, b []metav1.APIGroup) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.APIGroup) bool {
		return x.Name == y.Name && x.PreferredVersion == y.PreferredVersion && slices.Equal(x.Versions, y.Versions)
	})
}

// equalResources compares resources in any order: the aggregated document sorts them by name.
func equalResources(a, b []metav1.APIResource) bool {
	key := func(r metav1.APIResource) string { return r.Name }
	sorted := func(s []metav1.APIResource) []metav1.APIResource {
		s = slices.Clone(s)
		slices.SortFunc(s, func(x, y metav1.APIResource) int { return strings.Compare(key(x), key(y)) })
		return s
	}
	return slices.EqualFunc(sorted(a), sorted(b), func(x, y metav1.APIResource) bool {
		return x.Name == y.Name && x.SingularName == y.SingularName && x.Namespaced == y.Namespaced && x.Kind == y.Kind &&
			slices.Equal(x.Verbs, y.Verbs)
	})
}
