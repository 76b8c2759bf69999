package naming

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// Prefix is the first segment of every KRI.
	Prefix = "kri"
	// Separator separates the segments of a KRI.
	Separator = '_'
	// Segments is the number of segments in a KRI, the prefix included.
	Segments = 7
)

// KRI is a Kuma resource identifier:
//
//	kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>
//
// Absent fields are empty strings; the string form keeps their (empty) segments.
type KRI struct {
	Type, Mesh, Zone, Namespace, Name, Section string
}

// Get returns the value of field f.
func (k KRI) Get(f Field) string {
	switch f {
	case FieldType:
		return k.Type
	case FieldMesh:
		return k.Mesh
	case FieldZone:
		return k.Zone
	case FieldNamespace:
		return k.Namespace
	case FieldName:
		return k.Name
	case FieldSection:
		return k.Section
	}
	return ""
}

// String formats k. It allocates once.
func (k KRI) String() string {
	var b strings.Builder
	b.Grow(len(Prefix) + Segments - 1 + len(k.Type) + len(k.Mesh) + len(k.Zone) + len(k.Namespace) + len(k.Name) + len(k.Section))
	b.WriteString(Prefix)
	for _, s := range [...]string{k.Type, k.Mesh, k.Zone, k.Namespace, k.Name, k.Section} {
		b.WriteByte(Separator)
		b.WriteString(s)
	}
	return b.String()
}

// Validate checks k against the KRI rules (docs/kri.md) and the DefaultRegistry.
func (k KRI) Validate() error { return defaultRegistry().Validate(k) }

// Parse reads a KRI strictly, with the DefaultRegistry: see Registry.Parse.
func Parse(s string) (KRI, error) { return defaultRegistry().Parse(s) }

// ParseError reports every problem found in a KRI, each at the path of its field
// ("kri.mesh", "kri.name", …).
type ParseError struct {
	// Input is the string parsed, or the formatted KRI that was validated.
	Input string
	Errs  field.ErrorList
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid KRI %s: %s", strconv.Quote(e.Input), e.Errs.ToAggregate().Error())
}

// Unwrap returns the individual *field.Error values.
func (e *ParseError) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, fe := range e.Errs {
		out[i] = fe
	}
	return out
}

// Parse reads s as a KRI and checks every field: exactly seven '_'-separated segments, the
// literal prefix "kri", each field's length and characters, the required fields, a type known to r
// and the mesh its scope asks for. On success it does not allocate and the fields of the result
// are substrings of s, so Parse(s).String() == s. On failure the error is a *ParseError listing
// every problem.
func (r *Registry) Parse(s string) (KRI, error) {
	if k, ok := r.parseFast(s); ok {
		return k, nil
	}
	return KRI{}, &ParseError{Input: s, Errs: r.parseErrors(s)}
}

// parseFast is Parse's happy path: one pass over the bytes, each checked against its field's
// table entry, then the registry lookup. It reports false for anything parseErrors would
// complain about; the fuzz tests hold the two to that.
func (r *Registry) parseFast(s string) (KRI, bool) {
	const head = len(Prefix) + 1
	if len(s) < head || s[:head] != Prefix+string(Separator) {
		return KRI{}, false
	}
	var parts [Segments - 1]string
	i := head
	for f := range parts {
		rule := &rules[f]
		start := i
		for i < len(s) && classOf[s[i]]&rule.chars != 0 {
			i++
		}
		if v := s[start:i]; v != "" {
			if len(v) > rule.max || classOf[v[0]]&rule.first == 0 || classOf[v[len(v)-1]]&rule.last == 0 {
				return KRI{}, false
			}
			parts[f] = v
		}
		if f < len(parts)-1 {
			if i == len(s) || s[i] != Separator {
				return KRI{}, false // a byte outside the field's set, or too few segments
			}
			i++
		}
	}
	if i != len(s) {
		return KRI{}, false // a bad byte or an extra segment in the section
	}
	k := KRI{Type: parts[0], Mesh: parts[1], Zone: parts[2], Namespace: parts[3], Name: parts[4], Section: parts[5]}
	if k.Name == "" {
		return KRI{}, false
	}
	t, ok := r.ByShortName(k.Type)
	if !ok || (t.Scope == ScopeGlobal) != (k.Mesh == "") {
		return KRI{}, false
	}
	return k, true
}

// Validate checks k like Parse checks a string.
func (r *Registry) Validate(k KRI) error {
	if r.valid(k) {
		return nil
	}
	return &ParseError{Input: k.String(), Errs: r.Errors(k, field.NewPath(Prefix))}
}

// split cuts s at the separators. It returns the number of segments found and, when there are
// exactly Segments of them, the fields.
func split(s string) (k KRI, segs int) {
	var parts [Segments]string
	rest := s
	for segs < Segments-1 {
		i := strings.IndexByte(rest, Separator)
		if i < 0 {
			break
		}
		parts[segs] = rest[:i]
		rest = rest[i+1:]
		segs++
	}
	parts[segs] = rest
	segs++
	if segs == Segments && strings.IndexByte(rest, Separator) >= 0 {
		segs += strings.Count(rest, string(Separator))
	}
	if segs != Segments {
		return KRI{}, segs
	}
	return KRI{Type: parts[1], Mesh: parts[2], Zone: parts[3], Namespace: parts[4], Name: parts[5], Section: parts[6]}, segs
}

// valid is the allocation-free happy path of Errors.
func (r *Registry) valid(k KRI) bool {
	if !FieldType.Valid(k.Type) || !FieldName.Valid(k.Name) ||
		(k.Zone != "" && !FieldZone.Valid(k.Zone)) ||
		(k.Namespace != "" && !FieldNamespace.Valid(k.Namespace)) ||
		(k.Section != "" && !FieldSection.Valid(k.Section)) {
		return false
	}
	t, ok := r.ByShortName(k.Type)
	if !ok {
		return false
	}
	if t.Scope == ScopeGlobal {
		return k.Mesh == ""
	}
	return FieldMesh.Valid(k.Mesh)
}

func (r *Registry) parseErrors(s string) field.ErrorList {
	root := field.NewPath(Prefix)
	var errs field.ErrorList
	if !strings.HasPrefix(s, Prefix+string(Separator)) {
		errs = append(errs, field.Invalid(root, s, `must start with "kri_"`))
	}
	k, segs := split(s)
	if segs != Segments {
		errs = append(errs, field.Invalid(root, s, fmt.Sprintf(
			"must have exactly %d '_'-separated segments, kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>, found %d",
			Segments, segs)))
		return errs
	}
	return append(errs, r.Errors(k, root)...)
}

// Errors lists every problem of k, each at root.Child(<field>). It returns nil for a valid KRI.
func (r *Registry) Errors(k KRI, root *field.Path) field.ErrorList {
	var errs field.ErrorList
	typePath := root.Child(FieldType.String())
	if k.Type == "" {
		errs = append(errs, field.Required(typePath, "the resource type short name is required"))
	} else if fe := FieldType.Validate(k.Type, typePath); fe != nil {
		errs = append(errs, fe...)
	}
	t, known := r.ByShortName(k.Type)
	if k.Type != "" && FieldType.Valid(k.Type) && !known {
		errs = append(errs, field.NotSupported(typePath, k.Type, r.shortNames()))
	}
	errs = append(errs, meshErrors(&t, known, k.Mesh, root.Child(FieldMesh.String()))...)
	errs = append(errs, FieldZone.Validate(k.Zone, root.Child(FieldZone.String()))...)
	errs = append(errs, FieldNamespace.Validate(k.Namespace, root.Child(FieldNamespace.String()))...)
	namePath := root.Child(FieldName.String())
	if k.Name == "" {
		errs = append(errs, field.Required(namePath, "the resource name is required"))
	} else {
		errs = append(errs, FieldName.Validate(k.Name, namePath)...)
	}
	errs = append(errs, FieldSection.Validate(k.Section, root.Child(FieldSection.String()))...)
	return errs
}

// meshErrors checks a mesh value against the scope of t (when known is true) and the mesh rules,
// at path p.
func meshErrors(t *ResourceType, known bool, mesh string, p *field.Path) field.ErrorList {
	switch {
	case known && t.Scope == ScopeGlobal && mesh != "":
		return field.ErrorList{field.Forbidden(p, fmt.Sprintf("must be empty: %s (%q) is global-scoped", t.Kind, t.ShortName))}
	case known && t.Scope == ScopeMesh && mesh == "":
		return field.ErrorList{field.Required(p, fmt.Sprintf("%s (%q) is mesh-scoped", t.Kind, t.ShortName))}
	}
	return FieldMesh.Validate(mesh, p)
}
