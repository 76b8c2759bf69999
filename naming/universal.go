package naming

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kriguard/kriguard/naming/hashsuffix"
)

// Universal is a Kuma resource as a control plane on Universal stores it and kumactl writes it: a
// document with type, mesh, name and labels beside its spec, and no apiVersion, kind or metadata
// (docs/universal.md).
type Universal struct {
	// Type is the resource type, the Kubernetes kind of the same resource ("MeshTimeout").
	Type string
	// Mesh is the mesh of a mesh-scoped type; global types have none.
	Mesh string
	Name string
	// Labels are the resource's labels; on Universal they also carry the display name, the zone
	// and the namespace of its KRI.
	Labels map[string]string
}

// Field paths of a Universal resource, as Kuma's REST API names them in its errors.
var (
	uNamePath   = field.NewPath("name")
	uMeshPath   = field.NewPath("mesh")
	uLabelsPath = field.NewPath("labels")
	// The labels every resource's KRI reads, built once: a path is built for each value checked.
	uZonePath        = uLabelsPath.Key(LabelZone)
	uNamespacePath   = uLabelsPath.Key(LabelNamespace)
	uDisplayNamePath = uLabelsPath.Key(LabelDisplayName)
	uOriginPath      = uLabelsPath.Key(LabelOrigin)
	uMeshLabelPath   = uLabelsPath.Key(LabelMesh)
)

// UniversalLabelPath returns the field path of label key of a Universal resource,
// labels[kuma.io/display-name].
func UniversalLabelPath(key string) *field.Path { return uLabelsPath.Key(key) }

// DisplayName returns the name Kuma shows and builds the KRI from: the kuma.io/display-name label
// when it is not empty, else Name (core_model.GetDisplayName), and the path it comes from.
func (u Universal) DisplayName() (string, *field.Path) {
	if dn := u.Labels[LabelDisplayName]; dn != "" {
		return dn, uDisplayNamePath
	}
	return u.Name, uNamePath
}

// StoredDisplayName returns the display name r's control plane stores for u, a Universal resource,
// and the field of u it comes from: the name Kuma shows, builds the KRI from, and names KDS copies
// after (docs/kds.md, "Universal"). 2.14 keeps a kuma.io/display-name label (u.DisplayName); 3.0's
// REST API overwrites the label with the name on every resource it creates or updates
// (pkg/core/resources/labels/compute.go:151), so it is Name. A KDS copy, which the receiving control
// plane stores with the labels it was sent with in both releases, keeps its label: u is taken for
// one when its name is the copy name of its display-name label (hashsuffix.Matches), which a 3.0
// resource created through the API never is.
func (r Release) StoredDisplayName(u Universal) (string, *field.Path) {
	if slices.Contains(r.facts().overwritten, LabelDisplayName) && !r.isKDSCopy(u) {
		return u.Name, uNamePath
	}
	return u.DisplayName()
}

// isKDSCopy reports whether u is named as KDS names the copy of a resource with u's display-name
// label, mesh (for a mesh-scoped type), zone and namespace labels.
func (r Release) isKDSCopy(u Universal) bool {
	dn := u.Labels[LabelDisplayName]
	if dn == "" || dn == u.Name {
		return false
	}
	var mesh string
	if t, ok := r.Registry().ByKind(u.Type); ok && t.Scope == ScopeMesh {
		mesh = u.Mesh
	}
	return hashsuffix.Matches(u.Name, mesh, dn, u.Labels[LabelZone], u.Labels[LabelNamespace])
}

// ForUniversal builds the KRI of u as r's code computes it (kri.FromResourceMetaE over the stored
// resource; docs/universal.md):
//
//   - type: the short name of u.Type in r;
//   - mesh: u.Mesh for mesh-scoped types, empty for global ones;
//   - zone and namespace: the kuma.io/zone and k8s.kuma.io/namespace labels, else empty;
//   - name: the kuma.io/display-name label when not empty, else u.Name; a release that
//     overwrites that label with the name (3.0) takes u.Name.
//
// Each problem is reported at the field of u the value came from. A zone control plane adds its
// zone to what it stores (the kuma.io/zone label): Stored gives that KRI.
func (r Release) ForUniversal(u Universal) (KRI, field.ErrorList) {
	var errs field.ErrorList
	t, known := r.Registry().ByKind(u.Type)
	if !known {
		detail := "not a registered KRI resource type"
		if note, removed := r.Removed(u.Type); removed {
			detail = fmt.Sprintf("removed in Kuma %s: %s", r, note)
		}
		errs = append(errs, field.Invalid(field.NewPath("type"), u.Type, detail))
	}
	k := KRI{Type: t.ShortName}
	if known && t.Scope == ScopeMesh {
		k.Mesh = u.Mesh
		if k.Mesh == "" {
			errs = append(errs, field.Required(uMeshPath, fmt.Sprintf("a %s belongs to a mesh", u.Type)))
		}
		errs = append(errs, FieldMesh.Validate(k.Mesh, uMeshPath)...)
	}
	k.Zone = u.Labels[LabelZone]
	errs = append(errs, FieldZone.Validate(k.Zone, uZonePath)...)
	k.Namespace = u.Labels[LabelNamespace]
	errs = append(errs, FieldNamespace.Validate(k.Namespace, uNamespacePath)...)
	var from *field.Path
	k.Name, from = r.StoredDisplayName(u)
	if k.Name == "" {
		errs = append(errs, field.Required(from, fmt.Sprintf("the name of the %s is required", kindOrObject(u.Type))))
	}
	errs = append(errs, FieldName.Validate(k.Name, from)...)
	return k, errs
}

// StoredUniversal returns k, the KRI of u, as a zone control plane of r named zone stores it once
// admitted: resource_labels.Compute labels the resource with its zone when it has no kuma.io/zone
// label (a label of another zone is refused by the REST API unless the resource says
// kuma.io/origin: global, and is then kept), except a resource that keeps kuma.io/origin: global
// (KeepsGlobalOrigin: 2.14). Types a zone cannot provide (Mesh, MeshMultiZoneService) get no zone.
// A global control plane ("") stores k as it is (docs/universal.md, "kuma.io/origin").
func (r Release) StoredUniversal(k KRI, u Universal, zone string) KRI {
	if zone == "" || slices.Contains(globalOnlyTypes, u.Type) || r.KeepsGlobalOrigin(u, zone) {
		return k
	}
	if _, labelled := u.Labels[LabelZone]; !labelled {
		k.Zone = zone
	}
	return k
}

// KeepsGlobalOrigin reports whether the zone control plane of r named zone ("": global) stores u
// with the kuma.io/origin: global label u was written with: 2.14 sets the label only when it is
// absent (pkg/core/resources/labels/compute.go:142), 3.0 overwrites it with zone on a zone
// (compute.go:161). Such a resource is no KDS copy, but the zone takes it for one: it sends it to
// no one (pkg/kds/context/context.go:369, ZoneProvidedFilter) and adds no zone to it.
func (r Release) KeepsGlobalOrigin(u Universal, zone string) bool {
	if zone == "" || u.Labels[LabelOrigin] != "global" {
		return false
	}
	return !slices.Contains(r.facts().overwritten, LabelOrigin)
}

// ValidateUniversalOrigin lists what r's REST API refuses in u's kuma.io/origin, kuma.io/zone and
// kuma.io/mesh labels on the control plane named zone ("": global), the same in both releases
// (resource_endpoints.go:711-751 in 2.14, resource_crud_endpoints.go:454-494 in 3.0; docs/universal.md,
// "kuma.io/origin"): anywhere, an origin other than global or zone; on a zone, unless u says
// kuma.io/origin: global, a kuma.io/zone label other than zone and a kuma.io/mesh label other than
// u.Mesh. What only a federated zone refuses is federated: a type only global provides (the
// endpoint is read-only, 405), and a type Kuma's plugins define (every KRI type but the legacy
// ones) without kuma.io/origin: zone. A global control plane's own refusal of an origin other
// than global is left to the caller, which alone knows whether u was written for global.
func (r Release) ValidateUniversalOrigin(u Universal, zone string) (errs, federated field.ErrorList) {
	origin, hasOrigin := u.Labels[LabelOrigin]
	originPath := uOriginPath
	if hasOrigin && origin != "global" && origin != "zone" {
		errs = append(errs, field.Invalid(originPath, origin, fmt.Sprintf("unknown resource origin %q", origin)))
	}
	if zone == "" {
		return errs, nil
	}
	if origin != "global" {
		if z, ok := u.Labels[LabelZone]; ok && z != zone {
			errs = append(errs, field.Invalid(uZonePath, z, fmt.Sprintf("%s label should have %s value", LabelZone, zone)))
		}
		if m, ok := u.Labels[LabelMesh]; ok && m != u.Mesh {
			errs = append(errs, field.Invalid(uMeshLabelPath, m, LabelMesh+" label must not differ from mesh set on resource"))
		}
	}
	if _, known := r.Registry().ByKind(u.Type); !known {
		return errs, nil
	}
	switch {
	case slices.Contains(globalOnlyTypes, u.Type):
		federated = append(federated, field.Forbidden(field.NewPath("type"), fmt.Sprintf("a federated zone control plane does not create a %s: "+
			"only global provides it (405 Method Not Allowed; create it on global, KDS brings it to the zones)", u.Type)))
	case !slices.Contains(legacyTypes, u.Type) && origin != "zone":
		e := field.Invalid(originPath, origin, "the origin label must be set to 'zone': a federated zone control plane creates a "+u.Type+" only with kuma.io/origin: zone")
		if !hasOrigin {
			e = field.Required(originPath, "the origin label must be set to 'zone': a federated zone control plane creates a "+u.Type+" only with kuma.io/origin: zone")
		}
		federated = append(federated, e)
	}
	return errs, federated
}

// ValidateUniversal lists what r's REST API refuses in u for a naming reason, in Kuma's own terms
// (docs/releases.md, "Universal"): beyond the KRI's rules, which ForUniversal checks, and the
// release's RFC 1035 names, which ValidateName checks on u.DisplayName() (the kuma.io/display-name
// label as submitted, else name).
//
//   - name: a lowercase RFC 1123 subdomain of at most 253 characters;
//   - mesh, for mesh-scoped types: at most 253 lowercase letters, digits, '-', '_' or '.', which
//     admits meshes that cannot be a KRI's (ForUniversal reports those);
//   - a Mesh's name, and the display name of the kinds r limits to 63 characters on Kubernetes
//     (2.14: MeshService and MeshExternalService): at most 63 characters;
//   - every label: a qualified name, with a valid label value.
func (r Release) ValidateUniversal(u Universal) field.ErrorList {
	var errs field.ErrorList
	switch {
	case u.Name == "":
		errs = append(errs, field.Required(uNamePath, "cannot be empty"))
	case len(u.Name) > 253:
		errs = append(errs, field.TooLong(uNamePath, u.Name, 253))
	case !isSubdomain(u.Name):
		errs = append(errs, field.Invalid(uNamePath, u.Name, "invalid characters. A lowercase RFC 1123 subdomain must consist "+
			"of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"))
	}
	if t, ok := r.Registry().ByKind(u.Type); ok && t.Scope == ScopeMesh && u.Mesh != "" {
		switch {
		case len(u.Mesh) > 253:
			errs = append(errs, field.TooLong(uMeshPath, u.Mesh, 253))
		case !universalMeshChars(u.Mesh):
			errs = append(errs, field.Invalid(uMeshPath, u.Mesh,
				"invalid characters. Valid characters are numbers, lowercase latin letters and '-', '_', '.' symbols."))
		}
	}
	// A Mesh's name is held to 63 by the manager, the services' display name by their validators.
	limited, from := u.Name, uNamePath
	short := slices.Contains(universalShortNames, u.Type)
	if slices.Contains(r.facts().shortNames, u.Type) {
		short = true
		limited, from = u.DisplayName()
	}
	if short && len(limited) > 63 && !r.RFC1035Name(u.Type) {
		e := field.TooLong(from, limited, 63)
		e.Detail = fmt.Sprintf("Kuma %s names a %s with at most 63 characters", r, u.Type)
		errs = append(errs, e)
	}
	bad := false
	for k, v := range u.Labels {
		bad = bad || !isQualifiedName(k) || !isLabelValue(v)
	}
	if !bad {
		return errs
	}
	for _, k := range slices.Sorted(maps.Keys(u.Labels)) {
		p := uLabelsPath.Key(k)
		if !isQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, "must be a qualified name: an optional DNS subdomain prefix and '/', "+
				"then a name part of at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character"))
		}
		if v := u.Labels[k]; !isLabelValue(v) {
			errs = append(errs, field.Invalid(p, v, "a valid label value must be an empty string or at most 63 "+
				"alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character"))
		}
	}
	return errs
}

// isSubdomain reports whether s is a lowercase RFC 1123 subdomain of at most 253 characters: dot
// separated labels of lowercase letters, digits and '-', each starting and ending with a letter
// or digit (Kuma's identifierRegexp, apimachinery's IsDNS1123Subdomain).
func isSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		if i == start || s[start] == '-' || s[i-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}

// isLabelValue reports whether s is a valid Kubernetes label value, as Kuma holds its labels to
// (apimachinery's IsValidLabelValue): empty, or at most 63 letters, digits, '-', '_' or '.',
// starting and ending with a letter or digit.
func isLabelValue(s string) bool {
	if s == "" {
		return true
	}
	if len(s) > 63 || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isQualifiedName reports whether s is a label key (apimachinery's IsQualifiedName): a name part,
// optionally after a lowercase DNS subdomain prefix and '/'.
func isQualifiedName(s string) bool {
	prefix, name, found := strings.Cut(s, "/")
	if !found {
		name = s
	} else if !isSubdomain(prefix) {
		return false
	}
	return name != "" && isLabelValue(name)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ProvidedByZone reports whether a zone control plane creates resources of typ, a Universal type:
// all but the types only global provides (Mesh, MeshMultiZoneService).
func ProvidedByZone(typ string) bool { return !slices.Contains(globalOnlyTypes, typ) }

// globalOnlyTypes are the KRI types whose KDS flags say that a zone never provides them
// (GlobalToZonesFlag alone, no ProvidedByZoneFlag), in both releases: a zone control plane does not
// label them with its zone (pkg/core/resources/labels/compute.go, "If resource can't be created on
// Zone (like Mesh)").
var globalOnlyTypes = []string{"Mesh", "MeshMultiZoneService"}

// legacyTypes are the KRI types Kuma defines in its mesh protos rather than as plugins
// (ResourceTypeDescriptor.IsPluginOriginated false), read by running both releases' registries: a
// federated zone's REST API holds only the others to kuma.io/origin: zone.
var legacyTypes = []string{"Dataplane", "Mesh", "MeshGateway", "Zone", "ZoneEgress", "ZoneIngress"}

// universalShortNames are the kinds whose name Kuma's Universal managers hold to 63 characters in
// every release: a Mesh (managers/apis/mesh/mesh_validator.go in 2.14; 3.0's RFC 1035 rule holds
// it too).
var universalShortNames = []string{"Mesh"}

// universalMeshChars reports whether s is made of the characters Kuma accepts in the mesh of a
// Universal resource (core_mesh.ValidateMesh's backward-compatible set).
func universalMeshChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
