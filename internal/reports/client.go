package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	kjson "sigs.k8s.io/json"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
)

// Client makes the calls of a Writer and of List: get, create, update, delete and list the
// Reports and ClusterReports, as OpenReports' generated clientset makes them (the same paths, query
// parameters and bodies, but a delete's: none, which asks the defaults its empty DeleteOptions
// asked), over a REST client of the cluster. It links only the API's types,
// not the generated clientset, whose scheme and client-go's it brings (discovery, every typed
// client's apply configurations) cost the kriguard command's start (docs/performance.md,
// "Change 15").
type Client struct {
	c rest.Interface
}

// NewClient returns a Client that calls through c, a REST client whose serializer decodes the API
// server's Status (as client-go's dynamic.ConfigFor sets it up), so that errors keep their reason:
// NotFound, AlreadyExists, Conflict.
func NewClient(c rest.Interface) *Client { return &Client{c: c} }

// NewClientForConfig returns a Client for cfg (NewClient).
func NewClientForConfig(cfg *rest.Config) (*Client, error) {
	c, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(cfg))
	if err != nil {
		return nil, err
	}
	return NewClient(c), nil
}

// path returns the path of the Reports of namespace ("" for every namespace) or, when cluster is
// set, of the ClusterReports, and of the one named name when it is not "".
func path(cluster bool, namespace, name string) []string {
	segs := []string{"/apis", GroupVersion.Group, GroupVersion.Version}
	switch {
	case cluster:
		segs = append(segs, "clusterreports")
	case namespace != "":
		segs = append(segs, "namespaces", namespace, "reports")
	default:
		segs = append(segs, "reports")
	}
	if name != "" {
		segs = append(segs, name)
	}
	return segs
}

// do sends req and decodes the answer into out (when not nil). Error, unlike Raw, reads the API
// server's Status.
func do(ctx context.Context, req *rest.Request, out any) error {
	res := req.Do(ctx)
	if err := res.Error(); err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	raw, err := res.Raw()
	if err != nil {
		return err
	}
	return kjson.UnmarshalCaseSensitivePreserveInts(raw, out)
}

// get reads the report at key: a Report, or a ClusterReport (as a Report without a namespace)
// when key has no namespace.
func (c *Client) get(ctx context.Context, key types.NamespacedName) (*v1alpha1.Report, error) {
	if key.Namespace != "" {
		var r v1alpha1.Report
		if err := do(ctx, c.c.Get().AbsPath(path(false, key.Namespace, key.Name)...), &r); err != nil {
			return nil, err
		}
		return &r, nil
	}
	var cr v1alpha1.ClusterReport
	if err := do(ctx, c.c.Get().AbsPath(path(true, "", key.Name)...), &cr); err != nil {
		return nil, err
	}
	return FromCluster(&cr), nil
}

// send posts (create) or puts (update) r, as a ClusterReport when it has no namespace, written
// by ManagedBy.
func (c *Client) send(ctx context.Context, create bool, r *v1alpha1.Report) error {
	body, err := json.Marshal(Typed(r))
	if err != nil {
		return fmt.Errorf("encoding report %s: %w", r.Name, err)
	}
	name := r.Name
	req := c.c.Put()
	if create {
		name, req = "", c.c.Post()
	}
	req = req.AbsPath(path(r.Namespace == "", r.Namespace, name)...).Param("fieldManager", ManagedBy).Body(body)
	return do(ctx, req, nil)
}

func (c *Client) create(ctx context.Context, r *v1alpha1.Report) error { return c.send(ctx, true, r) }

func (c *Client) update(ctx context.Context, r *v1alpha1.Report) error { return c.send(ctx, false, r) }

// delete deletes the report at key.
func (c *Client) delete(ctx context.Context, key types.NamespacedName) error {
	return do(ctx, c.c.Delete().AbsPath(path(key.Namespace == "", key.Namespace, key.Name)...), nil)
}

// list lists one page of the Reports of namespace ("" for every namespace), or of the
// ClusterReports when cluster is set, into out (a *v1alpha1.ReportList or *ClusterReportList).
func (c *Client) list(ctx context.Context, cluster bool, namespace string, opts metav1.ListOptions, out any) error {
	req := c.c.Get().AbsPath(path(cluster, namespace, "")...)
	if opts.LabelSelector != "" {
		req = req.Param("labelSelector", opts.LabelSelector)
	}
	if opts.Limit > 0 {
		req = req.Param("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		req = req.Param("continue", opts.Continue)
	}
	return do(ctx, req, out)
}
