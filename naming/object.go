package naming

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Object is the part of a Kubernetes object that its KRI is built from. Every metav1.Object
// (and so every typed or unstructured API object) is one. It is declared here rather than taken
// from apimachinery's meta/v1 so that importers such as krilint do not link the ~270 packages
// behind it: a vet tool is started once per package, and that start-up dominates its cost.
type Object interface {
	GetName() string
	GetNamespace() string
	GetLabels() map[string]string
}

// Labels and annotations that carry the parts of a Kubernetes object's KRI.
const (
	// LabelMesh names the mesh of a mesh-scoped object. Kuma treats an absent label as "default".
	LabelMesh = "kuma.io/mesh"
	// LabelZone names the zone an object was created in; absent on objects created on Global.
	LabelZone = "kuma.io/zone"
	// LabelNamespace names the namespace an object had in its zone, on copies synced elsewhere.
	LabelNamespace = "k8s.kuma.io/namespace"
	// LabelDisplayName keeps an object's original name when its metadata.name was rewritten, for
	// example with a hash suffix.
	LabelDisplayName = "kuma.io/display-name"
	// AnnotationKRI is where kriguard records an object's KRI.
	AnnotationKRI = "kriguard.io/kri"
	// DefaultMesh is the mesh of a mesh-scoped object that has no LabelMesh.
	DefaultMesh = "default"
)

// Paths are immutable once built; sharing them keeps ForObject from allocating on valid objects.
var (
	metadataPath     = field.NewPath("metadata")
	labelsPath       = metadataPath.Child("labels")
	namePath         = metadataPath.Child("name")
	namespacePath    = metadataPath.Child("namespace")
	meshLabelPath    = labelsPath.Key(LabelMesh)
	zoneLabelPath    = labelsPath.Key(LabelZone)
	nsLabelPath      = labelsPath.Key(LabelNamespace)
	displayLabelPath = labelsPath.Key(LabelDisplayName)
	kindPath         = field.NewPath("kind")
)

// LabelPath returns the field path of label key, e.g. metadata.labels[kuma.io/mesh].
func LabelPath(key string) *field.Path { return labelsPath.Key(key) }

// ForObject builds the KRI of obj, a Kubernetes object of the given kind, with the Default
// registry. See Registry.ForObject.
func ForObject(obj Object, kind string) (KRI, field.ErrorList) {
	return Default.ForObject(obj, kind)
}

// ForObject builds the KRI of obj, a Kubernetes object of the given kind (SPEC §1):
//
//   - type: the kind's short name in r;
//   - mesh: label kuma.io/mesh, "default" when absent, for mesh-scoped kinds; must be absent or
//     empty for global-scoped ones;
//   - zone: label kuma.io/zone;
//   - namespace: label k8s.kuma.io/namespace, else metadata.namespace;
//   - name: label kuma.io/display-name, else metadata.name;
//   - section: empty (the object itself).
//
// Every problem is reported at the object field the value came from
// (metadata.labels[kuma.io/mesh], metadata.name, …), so that an admission response points the
// user at what to change. The KRI is returned as far as it could be built, even with errors.
func (r *Registry) ForObject(obj Object, kind string) (KRI, field.ErrorList) {
	var errs field.ErrorList
	t, known := r.ByKind(kind)
	if !known {
		errs = append(errs, field.Invalid(kindPath, kind, "not a registered KRI resource type"))
	}
	labels := obj.GetLabels()
	k := KRI{Type: t.ShortName}

	mesh, hasMesh := labels[LabelMesh]
	if !hasMesh && known && t.Scope == ScopeMesh {
		mesh = DefaultMesh
	}
	k.Mesh = mesh
	errs = append(errs, r.MeshErrors(t, known, mesh, meshLabelPath)...)

	k.Zone = labels[LabelZone]
	errs = append(errs, FieldZone.Validate(k.Zone, zoneLabelPath)...)

	if ns, ok := labels[LabelNamespace]; ok {
		k.Namespace = ns
		errs = append(errs, FieldNamespace.Validate(ns, nsLabelPath)...)
	} else {
		k.Namespace = obj.GetNamespace()
		errs = append(errs, FieldNamespace.Validate(k.Namespace, namespacePath)...)
	}

	from := namePath
	if dn, ok := labels[LabelDisplayName]; ok {
		k.Name, from = dn, displayLabelPath
	} else {
		k.Name = obj.GetName()
	}
	if k.Name == "" {
		errs = append(errs, field.Required(from, fmt.Sprintf("the name of the %s is required", kindOrObject(kind))))
	} else {
		errs = append(errs, FieldName.Validate(k.Name, from)...)
	}
	return k, errs
}

func kindOrObject(kind string) string {
	if kind == "" {
		return "object"
	}
	return kind
}
