package admissionpolicy

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kriguard/kriguard/naming"
	"github.com/kriguard/kriguard/rules"
)

// check is one rule: ok holds when the object is fine; otherwise message says what is wrong and
// where, in the words of the webhook's cause (a policy's validation has no field path of its own).
// old, when set, holds when the old object of an update has the same value at the same place, so
// that a problem the object already had does not block an update (the webhook lets such problems
// through, with a warning). list says the check walks lists of the object.
type check struct {
	ok, message, old string
	list             bool
}

// passes is the CEL condition that the object passes c.
func (c check) passes() string {
	if c.old == "" {
		return "(" + c.ok + ")"
	}
	return "((" + c.ok + ") ||\n(request.operation == 'UPDATE' && oldObject != null && " + c.old + "))"
}

// validations turns checks into a policy's validations. The checks of single values are one
// validation whose message lists every problem, as the webhook's causes do, and which the API
// server evaluates once per request; each check that walks lists is a validation of its own, so that
// its CEL cost, which grows with the object, has a per-call budget of its own. The message
// evaluates the checks again, but only for an object that fails one.
func validations(checks []check) []admissionregistrationv1.Validation {
	reason := metav1.StatusReasonInvalid
	var out []admissionregistrationv1.Validation
	var conds, msgs []string
	for _, c := range checks {
		if c.list {
			out = append(out, admissionregistrationv1.Validation{Expression: c.passes(), MessageExpression: c.message, Reason: &reason})
			continue
		}
		conds = append(conds, c.passes())
		// The message lists what the object breaks; on an update that also names a problem the old
		// object had, which alone would not have denied it.
		msgs = append(msgs, fmt.Sprintf("((%s) ? [] : [%s])", c.ok, c.message))
	}
	if len(conds) == 0 {
		return out
	}
	merged := admissionregistrationv1.Validation{
		Expression:        strings.Join(conds, " &&\n"),
		MessageExpression: "(" + strings.Join(msgs, " +\n") + ").join('; ')",
		Reason:            &reason,
	}
	return append([]admissionregistrationv1.Validation{merged}, out...)
}

const (
	labels      = "variables.labels"
	annotations = "variables.annotations"
)

// mapPath is the webhook's path of a label or annotation: metadata.labels[kuma.io/mesh].
func mapPath(m, key string) string { return "metadata." + m + "[" + key + "]" }

// member is the CEL access to a label or annotation key of the map variable m.
func member(m, key string) string { return m + "[" + lit(key) + "]" }

// oldMember is a condition: the old object has the same value for key in its labels or annotations.
func oldMember(m, key string) string {
	return fmt.Sprintf("has(oldObject.metadata.%[1]s) && %[2]s in oldObject.metadata.%[1]s && oldObject.metadata.%[1]s[%[2]s] == %[3]s",
		m, lit(key), member("variables."+m, key))
}

// optionalLabel checks a label that, when present and not empty, must be a valid value of f.
func optionalLabel(m, key string, f naming.Field) check {
	v := member("variables."+m, key)
	return check{
		ok:      fmt.Sprintf("!(%s in variables.%s) || %s == '' || %s", lit(key), m, v, validField(f, v)),
		message: invalidMessage(mapPath(m, key), f, v),
		old:     oldMember(m, key),
	}
}

// kindRules builds the variables and validations of one guarded kind.
func kindRules(cfg *rules.Config, k rules.KindConfig, s KindSchema) (*checks, error) {
	scope := admissionregistrationv1.AllScopes
	if s.Namespaced {
		scope = admissionregistrationv1.NamespacedScope
	} else if s.Resource != "" && s.Version != "" {
		scope = admissionregistrationv1.ClusterScope
	}
	r := &checks{group: k.Group, kind: k.Kind, resource: admissionregistrationv1.NamedRuleWithOperations{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups:   []string{k.Group},
				APIVersions: []string{"*"},
				Resources:   []string{s.Resource},
				Scope:       &scope,
			},
		},
	}}
	variable := func(name, expr string) {
		r.variables = append(r.variables, admissionregistrationv1.Variable{Name: name, Expression: expr})
	}
	variable("labels", "has(object.metadata.labels) ? object.metadata.labels : {}")
	variable("annotations", "has(object.metadata.annotations) ? object.metadata.annotations : {}")

	var checks []check
	if k.Group == rules.KongGroup {
		checks = kongChecks(k.Kind)
	} else {
		t, ok := cfg.Registry().ByKind(k.Kind)
		if !ok {
			return nil, fmt.Errorf("kind %s has no KRI type", k.Kind)
		}
		var kc []check
		kc, checks = kriChecks(cfg.Registry(), t, s, variable)
		checks = append(kc, checks...)
	}
	r.validations = validations(checks)
	return r, nil
}

// kriChecks returns the checks of a KRI kind (the KRI of the object as Kuma computes it, then the
// other values the webhook checks) and declares the variables they read.
func kriChecks(reg *naming.Registry, t naming.ResourceType, s KindSchema, variable func(name, expr string)) (object, others []check) {
	// mesh (naming.MeshOf): legacy kinds read their top-level mesh, with no default; the others
	// read the kuma.io/mesh label, "default" when the key is absent, even when its value is empty;
	// global-scoped kinds that are not legacy kinds have no mesh at all.
	meshScoped := t.Scope == naming.ScopeMesh
	required := fmt.Sprintf("%s (%q) is mesh-scoped", t.Kind, t.ShortName)
	switch {
	case t.Legacy:
		variable("kriMesh", "has(object.mesh) ? object.mesh : ''")
		old := "has(oldObject.mesh) == has(object.mesh) && (!has(object.mesh) || oldObject.mesh == object.mesh)"
		if meshScoped {
			object = append(object, check{
				ok:      "has(object.mesh) && object.mesh != '' && " + validField(naming.FieldMesh, "object.mesh"),
				message: fmt.Sprintf("!has(object.mesh) || object.mesh == '' ? %s : %s", lit("mesh: Required value: "+required), invalidMessage("mesh", naming.FieldMesh, "object.mesh")),
				old:     old,
			})
		} else {
			object = append(object, check{
				ok:      "!has(object.mesh) || object.mesh == ''",
				message: lit(fmt.Sprintf("mesh: Forbidden: must be empty: %s (%q) is global-scoped", t.Kind, t.ShortName)),
				old:     old,
			})
		}
	case meshScoped:
		key := naming.LabelMesh
		v := member(labels, key)
		variable("kriMesh", fmt.Sprintf("%s in %s ? %s : %s", lit(key), labels, v, lit(naming.DefaultMesh)))
		object = append(object, check{
			ok: fmt.Sprintf("!(%s in %s) || (%s != '' && %s)", lit(key), labels, v, validField(naming.FieldMesh, v)),
			message: fmt.Sprintf("%s == '' ? %s : %s",
				v, lit(mapPath("labels", key)+": Required value: "+required), invalidMessage(mapPath("labels", key), naming.FieldMesh, v)),
			old: oldMember("labels", key),
		})
	default:
		variable("kriMesh", "''")
	}

	zone, ns := member(labels, naming.LabelZone), member(labels, naming.LabelNamespace)
	variable("kriZone", fmt.Sprintf("%s in %s ? %s : ''", lit(naming.LabelZone), labels, zone))
	object = append(object, optionalLabel("labels", naming.LabelZone, naming.FieldZone))
	variable("kriNamespace", fmt.Sprintf("%s in %s ? %s : ''", lit(naming.LabelNamespace), labels, ns))
	object = append(object, optionalLabel("labels", naming.LabelNamespace, naming.FieldNamespace))

	// name: the display-name annotation; when it is present but empty, Kuma's core name
	// (<name>.<namespace> for namespaced kinds); when absent, metadata.name.
	dn := member(annotations, naming.AnnotationDisplayName)
	hasDN := fmt.Sprintf("(%s in %s)", lit(naming.AnnotationDisplayName), annotations)
	core := "object.metadata.name"
	if s.Namespaced {
		core = "object.metadata.name + '.' + object.metadata.namespace"
	}
	// fallback is the name when the annotation does not give it.
	fallback := fmt.Sprintf("%s ? %s : object.metadata.name", hasDN, core)
	variable("kriName", fmt.Sprintf("%s && %s != '' ? %s : (%s)", hasDN, dn, dn, fallback))
	object = append(object,
		check{
			ok:      fmt.Sprintf("!%s || %s == '' || %s", hasDN, dn, validField(naming.FieldName, dn)),
			message: invalidMessage(mapPath("annotations", naming.AnnotationDisplayName), naming.FieldName, dn),
			old:     oldMember("annotations", naming.AnnotationDisplayName),
		},
		check{
			// The name Kuma falls back to, which only its length can break.
			ok: fmt.Sprintf("(%s && %s != '') || %s", hasDN, dn, validField(naming.FieldName, "("+fallback+")")),
			message: fmt.Sprintf("%s ? %s + ' (the empty %s annotation makes the name <metadata.name>.<metadata.namespace>)' : %s",
				hasDN, invalidMessage(mapPath("annotations", naming.AnnotationDisplayName), naming.FieldName, "variables.kriName"),
				naming.AnnotationDisplayName, invalidMessage("metadata.name", naming.FieldName, "variables.kriName")),
		},
	)
	// A display-name label does not form the KRI, but must still hold a valid name.
	others = append(others, optionalLabel("labels", naming.LabelDisplayName, naming.FieldName))

	// The SNIs Kuma names after the ports of some kinds.
	if c, ok := sniCheck(t.Kind, t.ShortName); ok {
		others = append(others, c)
	}
	if t.Kind == "MeshProxyPatch" {
		others = append(others, proxyPatchChecks(typeLists(reg))...)
	}
	// Every sectionName of a target reference, at the paths the kind's schema has.
	for _, p := range s.SectionNames {
		others = append(others, sectionCheck(p))
	}

	// The object's KRI, and whether the object's own fields make a valid one.
	// kriValid repeats the object's checks rather than naming each verdict a variable: the API
	// server builds a fresh activation holding every variable each time it evaluates one, so a
	// variable costs more than the few comparisons it would save (BenchmarkEvaluate).
	var okObject []string
	for _, c := range object {
		okObject = append(okObject, "("+c.ok+")")
	}
	variable("kri", fmt.Sprintf("'kri_' + %s + '_' + variables.kriMesh + '_' + variables.kriZone + '_' + variables.kriNamespace + '_' + variables.kriName + '_'", lit(t.ShortName)))
	variable("kriValid", strings.Join(okObject, " && "))

	global, mesh := typeLists(reg)
	maxLen := maxKRILen()
	ak := member(annotations, naming.AnnotationKRI)
	variable("kriParts", fmt.Sprintf("%s in %s && size(%s) <= %d ? %s.split('_') : []", lit(naming.AnnotationKRI), annotations, ak, maxLen, ak))
	others = append(others, check{
		ok: fmt.Sprintf("!(%s in %s) || (%s && (!variables.kriValid || %s == variables.kri))",
			lit(naming.AnnotationKRI), annotations, validKRIParts("variables.kriParts", global, mesh), ak),
		message: fmt.Sprintf("%s + ': Invalid value: \"' + %s + '\": ' + (%s ? 'must equal the object\\'s KRI \"' + variables.kri + '\"' : 'must be a valid KRI')",
			lit(mapPath("annotations", naming.AnnotationKRI)), shown(ak), validKRIParts("variables.kriParts", global, mesh)),
		old: oldMember("annotations", naming.AnnotationKRI),
	})

	// Values documented to hold a KRI (MeshTrust's status.origin.kri) must parse.
	for i, p := range s.KRIs {
		acc := access("object", p)
		name := fmt.Sprintf("kriField%d", i)
		variable(name, fmt.Sprintf("%s && size(%s) <= %d ? %s.split('_') : []", present("object", p), acc, maxLen, acc))
		others = append(others, check{
			ok:      fmt.Sprintf("!(%s) || %s", present("object", p), validKRIParts("variables."+name, global, mesh)),
			message: fmt.Sprintf("%s + ': Invalid value: \"' + %s + '\": must be a valid KRI'", lit(Path(p)), shown(acc)),
			old:     fmt.Sprintf("%s && %s == %s", present("oldObject", p), access("oldObject", p), acc),
		})
	}
	return object, others
}

// typeLists returns the short names of the registry's global-scoped and mesh-scoped types.
func typeLists(reg *naming.Registry) (global, mesh []string) {
	for _, t := range reg.Types() {
		if t.Scope == naming.ScopeGlobal {
			global = append(global, t.ShortName)
		} else {
			mesh = append(mesh, t.ShortName)
		}
	}
	return global, mesh
}

// access is the CEL access to the field at p (no lists on the way) below root.
func access(root string, p []string) string { return root + "." + strings.Join(p, ".") }

// present is a CEL condition that every step of p (no lists on the way) is present below root.
func present(root string, p []string) string {
	var c []string
	for i := range p {
		c = append(c, "has("+access(root, p[:i+1])+")")
	}
	return strings.Join(c, " && ")
}

// sectionCheck checks every sectionName at p, a schema path that may go through lists. On an
// update, a list whose top-level value did not change keeps the problems it had.
func sectionCheck(p []string) check {
	var build func(root string, steps []string, depth int) string
	build = func(root string, steps []string, depth int) string {
		// Walk plain steps up to the next list (or the end).
		var plain []string
		for len(steps) > 0 {
			s := steps[0]
			steps = steps[1:]
			name, isList := strings.CutSuffix(s, "[]")
			plain = append(plain, name)
			if isList {
				elem := fmt.Sprintf("e%d", depth)
				return fmt.Sprintf("!(%s) || %s.all(%s, %s)", present(root, plain), access(root, plain), elem, build(elem, steps, depth+1))
			}
		}
		v := access(root, plain)
		return fmt.Sprintf("!(%s) || %s == '' || %s", present(root, plain), v, validField(naming.FieldSection, v))
	}
	var top []string
	for _, s := range p {
		name, isList := strings.CutSuffix(s, "[]")
		top = append(top, name)
		if isList {
			break
		}
	}
	path := Path(p)
	return check{
		ok:      build("object", p, 0),
		message: lit(path + ": Invalid value: every sectionName here must be empty or " + sectionRule()),
		old:     fmt.Sprintf("%s && %s == %s", present("oldObject", top), access("oldObject", top), access("object", top)),
		list:    strings.Contains(path, "[*]"),
	}
}

// sectionRule describes the rules of a section name.
func sectionRule() string {
	f := naming.FieldSection
	return fmt.Sprintf("at most %d bytes of %s, starting with %s and ending with %s",
		f.MaxLen(), describe(f.IsChar), describe(f.IsFirst), describe(f.IsLast))
}
