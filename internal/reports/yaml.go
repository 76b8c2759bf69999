package reports

import (
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
)

// GroupVersion is the API version of the reports.
var GroupVersion = schema.GroupVersion{Group: "openreports.io", Version: "v1alpha1"}

// Typed returns r as the object the cluster stores: a Report, or a ClusterReport when r has no
// namespace, with its apiVersion and kind set.
func Typed(r *v1alpha1.Report) runtime.Object {
	if r.Namespace == "" {
		cr := ToCluster(r)
		cr.APIVersion, cr.Kind = GroupVersion.String(), "ClusterReport"
		return cr
	}
	cp := *r
	cp.APIVersion, cp.Kind = GroupVersion.String(), "Report"
	return &cp
}

// WriteYAML writes r to w as one YAML document, opened by "---": the object a cluster write
// would send, ready for kubectl apply or create.
func WriteYAML(w io.Writer, r *v1alpha1.Report) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(Typed(r))
	if err != nil {
		return fmt.Errorf("converting report %s: %w", r.Name, err)
	}
	if md, ok := u["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp") // the zero time, written as null
	}
	b, err := yaml.Marshal(u)
	if err != nil {
		return fmt.Errorf("encoding report %s: %w", r.Name, err)
	}
	if _, err := io.WriteString(w, "---\n"); err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
