package naming

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Meta is the metadata of a Kubernetes object that its KRI is built from. Every metav1.Object (and
// so every typed or unstructured API object) is one. It is declared here rather than taken from
// apimachinery's meta/v1 so that importers such as krilint do not link the ~270 packages behind it:
// a vet tool is started once per package, and that start-up dominates its cost.
type Meta interface {
	GetName() string
	GetNamespace() string
	GetLabels() map[string]string
	GetAnnotations() map[string]string
}

// Object is a Kubernetes object as ForObject reads it: its metadata and, for Kuma's legacy kinds
// (Dataplane, Mesh, MeshGateway, ZoneIngress, ZoneEgress, Zone), the top-level `mesh` field, a
// sibling of metadata and spec. GetMesh returns that field, "" when absent; it is read only for
// legacy kinds. Kuma's own typed objects have a GetMesh with this meaning for those kinds; for other
// objects, WithMesh adds one.
type Object interface {
	Meta
	GetMesh() string
}

// WithMesh returns obj as an Object whose top-level mesh field is mesh, e.g.
// WithMesh(u, u.Object["mesh"].(string)) for an unstructured Dataplane. Pass "" for kinds that have
// no such field.
func WithMesh(obj Meta, mesh string) Object { return withMesh{obj, mesh} }

type withMesh struct {
	Meta
	mesh string
}

func (o withMesh) GetMesh() string { return o.mesh }

// kriLabelReader is an object that reads the labels a KRI is built from without a map of its
// labels (rules' admitted objects, which note them as they are decoded): ForObject and MeshOf read
// them so when obj is one, else from GetLabels.
type kriLabelReader interface {
	KRILabels() (mesh string, hasMesh bool, zone, namespace string)
}

// KRILabels are the labels an object's KRI is built from, as a caller that has read them holds
// them (ForObjectLabelled): LabelMesh's value Mesh when HasMesh, LabelZone's and LabelNamespace's
// ("" when absent).
type KRILabels struct {
	Mesh, Zone, Namespace string
	HasMesh               bool
}

// kriLabelsOf reads the KRILabels of obj.
func kriLabelsOf(obj Meta) (l KRILabels) {
	if r, ok := obj.(kriLabelReader); ok {
		l.Mesh, l.HasMesh, l.Zone, l.Namespace = r.KRILabels()
		return l
	}
	return kriLabelsIn(obj.GetLabels())
}

// kriLabelsIn reads the KRILabels of an object whose labels are labels: apart from kriLabelsOf,
// which the webhook's objects take the other way, so that the code they run is contiguous
// (docs/performance.md, "Change 22").
//
//go:noinline
func kriLabelsIn(labels map[string]string) (l KRILabels) {
	l.Mesh, l.HasMesh = labels[LabelMesh]
	l.Zone, l.Namespace = labels[LabelZone], labels[LabelNamespace]
	return l
}

// Labels and annotations that carry the parts of a Kubernetes object's KRI.
const (
	// LabelMesh names the mesh of an object of a mesh-scoped kind that is not a legacy kind. Kuma
	// treats an absent label as DefaultMesh and a present, empty one as the empty mesh.
	LabelMesh = "kuma.io/mesh"
	// LabelZone names the zone an object was created in; absent on objects created on Global.
	LabelZone = "kuma.io/zone"
	// LabelNamespace names the namespace an object had in its zone. Kuma's mutating webhook adds it
	// to objects created in a zone; the KRI never falls back to metadata.namespace.
	LabelNamespace = "k8s.kuma.io/namespace"
	// AnnotationDisplayName keeps an object's original name when its metadata.name was rewritten,
	// for example with a hash suffix by KDS. It is the KRI name when present.
	AnnotationDisplayName = "kuma.io/display-name"
	// LabelDisplayName is the label older Kuma releases read the display name from. Kuma v2.14
	// ignores it for the KRI; kriguard still checks that it is a valid KRI name.
	LabelDisplayName = "kuma.io/display-name"
	// AnnotationKRI is where kriguard records an object's KRI.
	AnnotationKRI = "kriguard.io/kri"
	// DefaultMesh is the mesh of an object of a mesh-scoped, non-legacy kind that has no LabelMesh.
	DefaultMesh = "default"
)

// Paths are immutable once built; sharing them keeps ForObject from allocating on valid objects.
var (
	metadataPath       = field.NewPath("metadata")
	labelsPath         = metadataPath.Child("labels")
	annotationsPath    = metadataPath.Child("annotations")
	namePath           = metadataPath.Child("name")
	meshFieldPath      = field.NewPath("mesh")
	meshLabelPath      = labelsPath.Key(LabelMesh)
	zoneLabelPath      = labelsPath.Key(LabelZone)
	nsLabelPath        = labelsPath.Key(LabelNamespace)
	displayNamePath    = annotationsPath.Key(AnnotationDisplayName)
	kindPath           = field.NewPath("kind")
	emptyDisplayDetail = "the empty " + AnnotationDisplayName + " annotation makes the name <metadata.name>.<metadata.namespace>"
)

// LabelPath returns the field path of label key, e.g. metadata.labels[kuma.io/mesh].
func LabelPath(key string) *field.Path { return labelsPath.Key(key) }

// AnnotationPath returns the field path of annotation key, e.g.
// metadata.annotations[kuma.io/display-name].
func AnnotationPath(key string) *field.Path { return annotationsPath.Key(key) }

// ForObject builds the KRI of obj, a Kubernetes object of the given kind, with the default
// registry. See Registry.ForObject.
func ForObject(obj Object, kind string) (KRI, field.ErrorList) {
	return defaultRegistry().ForObject(obj, kind)
}

// MeshOf returns the mesh of obj the way Kuma reads it for an object of type t, and the field path
// it comes from: nil for the global kinds that are not legacy kinds, whose mesh is always empty.
func MeshOf(obj Object, t ResourceType) (mesh string, from *field.Path) {
	l := kriLabelsOf(obj)
	return meshOf(obj, &t, &l)
}

// meshOf is MeshOf, with the labels of obj read.
func meshOf(obj Object, t *ResourceType, l *KRILabels) (mesh string, from *field.Path) {
	switch {
	case t.Legacy:
		return obj.GetMesh(), meshFieldPath
	case t.Scope == ScopeGlobal:
		return "", nil
	}
	if l.HasMesh {
		return l.Mesh, meshLabelPath
	}
	return DefaultMesh, meshLabelPath
}

// ForObject builds the KRI of obj, a Kubernetes object of the given kind, exactly as Kuma v2.14
// computes it for the same stored object (the rules, with Kuma's examples, are in docs/kri.md):
//
//   - type: the kind's short name in r;
//   - mesh: for legacy kinds the top-level mesh field (obj.GetMesh()), no default; for global
//     kinds of the newer style (HostnameGenerator) empty; for the others the kuma.io/mesh label
//     when present, even empty, else "default";
//   - zone: the kuma.io/zone label, else empty;
//   - namespace: the k8s.kuma.io/namespace label, else empty (never metadata.namespace);
//   - name: the kuma.io/display-name annotation when present and not empty; when present but
//     empty, <metadata.name>.<metadata.namespace> (or metadata.name for a cluster-scoped object);
//     when absent, metadata.name;
//   - section: empty (the object itself).
//
// Every problem is reported at the object field the value came from (mesh,
// metadata.labels[kuma.io/mesh], metadata.annotations[kuma.io/display-name], metadata.name, …), so
// that an admission response points the user at what to change. The KRI is returned as far as it
// could be built, even with errors. It does not allocate for a valid object, except in the empty
// display-name case, which builds the name.
func (r *Registry) ForObject(obj Object, kind string) (KRI, field.ErrorList) {
	t, known := r.ByKind(kind)
	return forObject(obj, kind, t, known, nil)
}

// ForObjectLabelled is Registry.ForObject for an object of the type t, which a registry's ByKind
// has returned, and whose KRI labels are l, as its caller has read them: neither the kind's type
// is looked up nor obj's labels read. A caller that judges many objects of one kind keeps its type
// (docs/performance.md, "Change 18"), and one that decodes objects and notes these labels as it
// reads them (rules) saves the look-up of the labels' reader on obj ("Change 22").
func ForObjectLabelled(obj Object, t ResourceType, l KRILabels) (KRI, field.ErrorList) {
	return forObject(obj, t.Kind, t, true, &l)
}

// forObject is ForObject with the kind's type t looked up (known false says there is none). labels,
// when not nil, are obj's KRI labels, else read from obj.
//
// Its code is on the path of every review's decision, which follows the TLS and HTTP work that
// evicts it from the instruction cache: each 64-byte line of machine code it runs costs a miss. So
// it only builds the KRI and checks it, and builds the problems of a KRI that has any in
// kriProblems: a valid object runs a few contiguous lines (docs/performance.md, "Change 22").
func forObject(obj Object, kind string, t ResourceType, known bool, labels *KRILabels) (k KRI, errs field.ErrorList) {
	if labels == nil {
		l := kriLabelsOf(obj)
		labels = &l
	}
	k.Type, k.Zone, k.Namespace = t.ShortName, labels.Zone, labels.Namespace
	var meshFrom *field.Path
	if known {
		k.Mesh, meshFrom = meshOf(obj, &t, labels)
	}
	nameFrom, emptyDisplay := namePath, false
	var dn string
	var hasDN bool
	if a := obj.GetAnnotations(); a != nil { // most objects have none: no map look-up
		dn, hasDN = a[AnnotationDisplayName]
	}
	switch {
	case hasDN && dn != "":
		k.Name, nameFrom = dn, displayNamePath
	case hasDN:
		k.Name, nameFrom, emptyDisplay = coreName(obj), displayNamePath, true
	default:
		k.Name = obj.GetName()
	}
	if !known || meshFrom != nil && !meshValid(&t, k.Mesh) ||
		k.Zone != "" && !FieldZone.Valid(k.Zone) || k.Namespace != "" && !FieldNamespace.Valid(k.Namespace) ||
		emptyDisplay || !FieldName.Valid(k.Name) {
		errs = kriProblems(&k, kind, &t, known, meshFrom, nameFrom, emptyDisplay)
	}
	return k, errs
}

// meshValid reports whether mesh, the mesh of an object of the known type t, has none of the
// problems meshErrors reports.
func meshValid(t *ResourceType, mesh string) bool {
	if mesh == "" {
		return t.Scope != ScopeMesh
	}
	return t.Scope != ScopeGlobal && FieldMesh.Valid(mesh)
}

// kriProblems are the problems of k, the KRI forObject built for an object of kind (of the type t
// when known), with its mesh read from the field at meshFrom (nil: none read) and its name from
// nameFrom; emptyDisplay says that the display-name annotation is present but empty.
//
//go:noinline
func kriProblems(k *KRI, kind string, t *ResourceType, known bool, meshFrom, nameFrom *field.Path, emptyDisplay bool) field.ErrorList {
	var errs field.ErrorList
	if !known {
		errs = append(errs, field.Invalid(kindPath, kind, "not a registered KRI resource type"))
	}
	if meshFrom != nil {
		errs = appendErrs(errs, meshErrors(t, known, k.Mesh, meshFrom))
	}
	errs = appendErrs(errs, FieldZone.Validate(k.Zone, zoneLabelPath))
	errs = appendErrs(errs, FieldNamespace.Validate(k.Namespace, nsLabelPath))
	return nameErrors(errs, kind, k.Name, nameFrom, emptyDisplay)
}

// coreName is the name Kuma falls back to for an object whose display-name annotation is empty:
// its core name, which for a namespaced object carries the namespace.
//
//go:noinline
func coreName(obj Object) string {
	name := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" && name != "" {
		name += "." + ns
	}
	return name
}

// nameErrors appends to errs the problems of name, the KRI name of an object of kind taken from
// the field at from; emptyDisplay says that the display-name annotation is present but empty. It
// is apart from forObject, whose frame is on the stack of every review's decision, for the frames
// of the problems it builds (docs/performance.md, "Change 19").
func nameErrors(errs field.ErrorList, kind, name string, from *field.Path, emptyDisplay bool) field.ErrorList {
	switch {
	case name == "":
		return append(errs, field.Required(from, fmt.Sprintf("the name of the %s is required", kindOrObject(kind))))
	case emptyDisplay:
		for _, e := range FieldName.Validate(name, from) {
			e.Detail += " (" + emptyDisplayDetail + ")"
			errs = append(errs, e)
		}
		return errs
	}
	return appendErrs(errs, FieldName.Validate(name, from))
}

// appendErrs appends more to errs: none, for a valid object, without a call.
func appendErrs(errs, more field.ErrorList) field.ErrorList {
	if len(more) == 0 {
		return errs
	}
	return append(errs, more...)
}

func kindOrObject(kind string) string {
	if kind == "" {
		return "object"
	}
	return kind
}
