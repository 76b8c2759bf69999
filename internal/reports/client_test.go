package reports

import (
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"github.com/openreports/reports-api/pkg/client/clientset/versioned"

	"github.com/kriguard/kriguard/internal/testenv"
)

// The Client against a real API server with the OpenReports CRDs, for a Report and a
// ClusterReport: what it writes, OpenReports' generated clientset reads back; the API server's
// errors keep their reasons (AlreadyExists, Conflict, NotFound), which the Writer acts on; List
// pages through kriguard's reports only.
func TestClient(t *testing.T) {
	env := testenv.StartForTest(t, testenv.Options{OpenReports: testenv.OpenReports})
	ctx := t.Context()
	c, err := NewClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := versioned.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	d := decide(t, "MeshTimeout", badTimeout(1))
	if _, err := typed.OpenreportsV1alpha1().Reports("default").Create(ctx, &v1alpha1.Report{
		ObjectMeta: metav1.ObjectMeta{Name: "someone-elses"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"default", ""} {
		t.Run(fmt.Sprintf("namespace %q", ns), func(t *testing.T) {
			s := timeoutSubject
			s.Namespace, s.UID = ns, types.UID("uid-of-"+ns+"x")
			want := Build(s, d, time.Unix(100, 0))
			key := Key(s)
			if err := c.create(ctx, want); err != nil {
				t.Fatal(err)
			}
			if err := c.create(ctx, want); !apierrors.IsAlreadyExists(err) {
				t.Errorf("second create: %v, want AlreadyExists", err)
			}
			got, err := c.get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if !Same(want, got) || got.Namespace != ns || got.ResourceVersion == "" {
				t.Errorf("read back %+v, want what was written", got)
			}
			if got.ManagedFields[0].Manager != ManagedBy {
				t.Errorf("written by %q, want %q", got.ManagedFields[0].Manager, ManagedBy)
			}
			if ns == "" {
				cr, err := typed.OpenreportsV1alpha1().ClusterReports().Get(ctx, key.Name, metav1.GetOptions{})
				if err != nil || !Same(want, FromCluster(cr)) {
					t.Errorf("the clientset reads %+v, %v; want the ClusterReport written", cr, err)
				}
			} else {
				r, err := typed.OpenreportsV1alpha1().Reports(ns).Get(ctx, key.Name, metav1.GetOptions{})
				if err != nil || !Same(want, r) {
					t.Errorf("the clientset reads %+v, %v; want the Report written", r, err)
				}
			}

			changed := update(Build(s, decide(t, "MeshTimeout", badTimeout(2)), time.Unix(200, 0)), got)
			if err := c.update(ctx, changed); err != nil {
				t.Fatal(err)
			}
			if err := c.update(ctx, changed); !apierrors.IsConflict(err) {
				t.Errorf("update of an old resourceVersion: %v, want Conflict", err)
			}
			if got, err := c.get(ctx, key); err != nil || got.Summary.Fail != 2 {
				t.Errorf("after the update: %+v, %v; want 2 failures", got, err)
			}

			if err := c.delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			if _, err := c.get(ctx, key); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: %v, want NotFound", err)
			}
			if err := c.delete(ctx, key); !apierrors.IsNotFound(err) {
				t.Errorf("second delete: %v, want NotFound", err)
			}
		})
	}

	// Five Reports in two namespaces and two ClusterReports, listed in pages of two.
	written := map[types.NamespacedName]bool{}
	for i := range 7 {
		s := timeoutSubject
		s.Name, s.UID = fmt.Sprint("t", i), types.UID(fmt.Sprint("u", i))
		switch {
		case i >= 5:
			s.Namespace = ""
		case i >= 3:
			s.Namespace = "kube-public"
		default:
			s.Namespace = "default"
		}
		if err := c.create(ctx, Build(s, d, time.Unix(100, 0))); err != nil {
			t.Fatal(err)
		}
		written[Key(s)] = true
	}
	for _, tt := range []struct {
		namespace string
		cluster   bool
		want      int
	}{{"", true, 7}, {"", false, 5}, {"default", false, 3}, {"default", true, 5}} {
		got, err := List(ctx, c, tt.namespace, tt.cluster, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want {
			t.Errorf("List(%q, %v): %d reports, want %d", tt.namespace, tt.cluster, len(got), tt.want)
		}
		for key, r := range got {
			if !written[key] || r.Name != key.Name || r.Namespace != key.Namespace {
				t.Errorf("List(%q, %v) gave %s: %s/%s", tt.namespace, tt.cluster, key, r.Namespace, r.Name)
			}
		}
	}
}
