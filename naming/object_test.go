package naming

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestForObject(t *testing.T) {
	obj := func(ns, name string, labels map[string]string) *metav1.ObjectMeta {
		return &metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}
	}
	tests := []struct {
		name string
		kind string
		obj  *metav1.ObjectMeta
		want KRI
		errs []problem
	}{
		{"mesh label", "MeshTimeout", obj("kuma-system", "t1", map[string]string{LabelMesh: "mesh-1"}),
			KRI{Type: "mt", Mesh: "mesh-1", Namespace: "kuma-system", Name: "t1"}, nil},
		{"mesh defaults", "MeshService", obj("demo", "backend", nil),
			KRI{Type: "msvc", Mesh: "default", Namespace: "demo", Name: "backend"}, nil},
		{"synced copy", "MeshService", obj("kuma-system", "backend-4dv9w4x47w8w98v4", map[string]string{
			LabelMesh: "default", LabelZone: "east", LabelNamespace: "kuma-demo", LabelDisplayName: "backend"}),
			KRI{Type: "msvc", Mesh: "default", Zone: "east", Namespace: "kuma-demo", Name: "backend"}, nil},
		{"global kind, cluster-scoped", "Mesh", obj("", "default", nil), KRI{Type: "m", Name: "default"}, nil},
		{"global kind with mesh label", "Mesh", obj("", "default", map[string]string{LabelMesh: "x"}),
			KRI{Type: "m", Mesh: "x", Name: "default"},
			[]problem{{"metadata.labels[kuma.io/mesh]", field.ErrorTypeForbidden, "global-scoped"}}},
		{"empty mesh label", "MeshTimeout", obj("ns", "t", map[string]string{LabelMesh: ""}),
			KRI{Type: "mt", Namespace: "ns", Name: "t"},
			[]problem{{"metadata.labels[kuma.io/mesh]", field.ErrorTypeRequired, "mesh-scoped"}}},
		{"bad mesh label", "MeshTimeout", obj("ns", "t1", map[string]string{LabelMesh: "Mesh_1"}),
			KRI{Type: "mt", Mesh: "Mesh_1", Namespace: "ns", Name: "t1"},
			[]problem{{"metadata.labels[kuma.io/mesh]", field.ErrorTypeInvalid, "must start with a lowercase letter"}}},
		{"bad zone and namespace labels", "MeshTimeout", obj("ns", "t", map[string]string{LabelZone: "9z", LabelNamespace: "NS"}),
			KRI{Type: "mt", Mesh: "default", Zone: "9z", Namespace: "NS", Name: "t"},
			[]problem{
				{"metadata.labels[kuma.io/zone]", field.ErrorTypeInvalid, ""},
				{"metadata.labels[k8s.kuma.io/namespace]", field.ErrorTypeInvalid, ""},
			}},
		{"bad display name", "MeshTimeout", obj("ns", "t", map[string]string{LabelDisplayName: "a_b"}),
			KRI{Type: "mt", Mesh: "default", Namespace: "ns", Name: "a_b"},
			[]problem{{"metadata.labels[kuma.io/display-name]", field.ErrorTypeInvalid, "'_'"}}},
		{"no name", "MeshTimeout", obj("ns", "", nil),
			KRI{Type: "mt", Mesh: "default", Namespace: "ns"},
			[]problem{{"metadata.name", field.ErrorTypeRequired, "MeshTimeout"}}},
		{"unknown kind", "Pod", obj("ns", "p", nil), KRI{Namespace: "ns", Name: "p"},
			[]problem{{"kind", field.ErrorTypeInvalid, "not a registered"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ForObject(tt.obj, tt.kind)
			if got != tt.want {
				t.Errorf("KRI = %+v, want %+v", got, tt.want)
			}
			checkProblems(t, errs, tt.errs)
			if len(tt.errs) == 0 {
				if _, err := Parse(got.String()); err != nil {
					t.Errorf("KRI built without errors does not parse: %v", err)
				}
			}
		})
	}
}
