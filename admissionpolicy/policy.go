package admissionpolicy

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kriguard/kriguard/rules"
)

// Options are the settings of Generate that are not in the kriguard configuration.
type Options struct {
	// Prefix starts the name of every generated object; "kriguard" when empty.
	Prefix string
	// ExcludeNamespaces are never guarded, in addition to kube-system.
	ExcludeNamespaces []string
	// OptOutLabel, when set, is a namespace label: namespaces where it is "true" are not guarded.
	OptOutLabel string
	// Schemas describe the CRDs of the guarded kinds; KnownSchemas when nil. A guarded kind with no
	// schema is matched by its guessed plural and gets no checks of its spec.
	Schemas []KindSchema
}

func (o Options) prefix() string {
	if o.Prefix == "" {
		return "kriguard"
	}
	return o.Prefix
}

// Objects are the generated policies and their bindings.
type Objects struct {
	Policies []*admissionregistrationv1.ValidatingAdmissionPolicy
	Bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// Generate turns the guarded kinds of cfg into ValidatingAdmissionPolicies and bindings: one
// policy per kind, bound with the validation actions of its enforcement (deny → Deny, warn → Warn,
// dryrun → Audit). The configuration's requester overrides apply as in the webhook, the first that
// matches a request deciding: requesters whose override changes a kind's enforcement get a copy of
// the kind's policy, selected by match conditions and bound with their enforcement, and the kind's
// own policy skips them.
func Generate(cfg *rules.Config, o Options) (*Objects, error) {
	schemas := o.Schemas
	if schemas == nil {
		schemas = KnownSchemas
	}
	// The configuration checked the overrides when it was loaded.
	requesters := cfg.Requesters
	out := &Objects{}
	for _, k := range cfg.GuardedKinds() {
		s, ok := findSchema(schemas, k.Group, k.Kind)
		if !ok {
			gvr, _ := meta.UnsafeGuessKindToResource(schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind})
			s = KindSchema{Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: gvr.Resource, Namespaced: true}
		}
		kc, err := kindRules(cfg, k, s)
		if err != nil {
			return nil, err
		}
		// One policy per distinct enforcement: the kind's own for everyone the overrides leave
		// alone, and one for the requesters each other enforcement applies to.
		groups := map[rules.Enforcement][]string{} // enforcement → conditions of the requesters it applies to
		var order []rules.Enforcement
		var earlier []string
		for _, r := range requesters {
			c := requesterCondition(r)
			e := r.Enforcement
			// First match wins: this override applies when no earlier one matched.
			cond := c
			if len(earlier) > 0 {
				cond = "(" + c + ") && !(" + strings.Join(earlier, " || ") + ")"
			}
			earlier = append(earlier, c)
			if e == k.Enforcement {
				continue
			}
			if _, ok := groups[e]; !ok {
				order = append(order, e)
			}
			groups[e] = append(groups[e], cond)
		}
		base := o.prefix() + "." + strings.ToLower(k.Kind) + "." + k.Group
		var others []string
		for _, e := range order {
			others = append(others, groups[e]...)
		}
		var matchOthers []admissionregistrationv1.MatchCondition
		if len(others) > 0 {
			matchOthers = []admissionregistrationv1.MatchCondition{{
				Name:       "not-overridden",
				Expression: "!(" + strings.Join(parens(others), " || ") + ")",
			}}
		}
		if err := out.add(base, k.Enforcement, kc, matchOthers, o); err != nil {
			return nil, err
		}
		for _, e := range order {
			m := []admissionregistrationv1.MatchCondition{{
				Name:       "requesters-" + string(e),
				Expression: strings.Join(parens(groups[e]), " || "),
			}}
			if err := out.add(base+".requesters-"+string(e), e, kc, m, o); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func parens(conds []string) []string {
	out := make([]string, len(conds))
	for i, c := range conds {
		out[i] = "(" + c + ")"
	}
	return out
}

// requesterCondition is a CEL condition matching the requests of r's users, groups and
// service-account namespaces.
func requesterCondition(r rules.RequesterConfig) string {
	var or []string
	if len(r.Users) > 0 {
		or = append(or, "request.userInfo.username in "+list(r.Users))
	}
	if len(r.Groups) > 0 {
		or = append(or, "(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in "+list(r.Groups)+"))")
	}
	if len(r.ServiceAccountNamespaces) > 0 {
		prefixes := make([]string, len(r.ServiceAccountNamespaces))
		for i, ns := range r.ServiceAccountNamespaces {
			prefixes[i] = "system:serviceaccount:" + ns + ":"
		}
		// A service account's user name is system:serviceaccount:<namespace>:<name>, the name not empty.
		or = append(or, list(prefixes)+".exists(p, request.userInfo.username.startsWith(p) && size(request.userInfo.username) > size(p))")
	}
	return strings.Join(or, " || ")
}

func actions(e rules.Enforcement) ([]admissionregistrationv1.ValidationAction, error) {
	switch e {
	case rules.EnforcementDeny:
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}, nil
	case rules.EnforcementWarn:
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}, nil
	case rules.EnforcementDryRun:
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}, nil
	}
	return nil, fmt.Errorf("unknown enforcement %q", e)
}

// Labels of every generated object: the group and kind it guards.
const (
	LabelGroup = "kriguard.io/group"
	LabelKind  = "kriguard.io/kind"
)

// checks is the part of a policy that a kind's checks make.
type checks struct {
	group, kind string
	resource    admissionregistrationv1.NamedRuleWithOperations
	variables   []admissionregistrationv1.Variable
	validations []admissionregistrationv1.Validation
}

func (out *Objects) add(name string, e rules.Enforcement, r *checks, match []admissionregistrationv1.MatchCondition, o Options) error {
	acts, err := actions(e)
	if err != nil {
		return err
	}
	fail := admissionregistrationv1.Fail
	nsSel := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key:      "kubernetes.io/metadata.name",
		Operator: metav1.LabelSelectorOpNotIn,
		Values:   uniqueSorted(append([]string{metav1.NamespaceSystem}, o.ExcludeNamespaces...)),
	}}}
	if o.OptOutLabel != "" {
		nsSel.MatchExpressions = append(nsSel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: o.OptOutLabel, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"true"},
		})
	}
	equivalent := admissionregistrationv1.Equivalent
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelGroup: r.group, LabelKind: r.kind}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{r.resource},
				NamespaceSelector: nsSel,
				MatchPolicy:       &equivalent,
			},
			MatchConditions: match,
			Variables:       r.variables,
			Validations:     r.validations,
		},
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelGroup: r.group, LabelKind: r.kind}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: acts,
		},
	}
	out.Policies = append(out.Policies, p)
	out.Bindings = append(out.Bindings, b)
	return nil
}

func uniqueSorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func findSchema(schemas []KindSchema, group, kind string) (KindSchema, bool) {
	for _, s := range schemas {
		if s.Group == group && s.Kind == kind {
			return s, true
		}
	}
	return KindSchema{}, false
}

// YAML renders the objects as a multi-document YAML stream: each policy followed by its binding.
func (out *Objects) YAML() ([]byte, error) {
	var buf bytes.Buffer
	for i, p := range out.Policies {
		for _, obj := range []any{p, out.Bindings[i]} {
			data, err := yaml.Marshal(obj)
			if err != nil {
				return nil, fmt.Errorf("encoding %s: %w", p.Name, err)
			}
			// The zero status is no part of a manifest.
			var m map[string]any
			if err := yaml.Unmarshal(data, &m); err != nil {
				return nil, fmt.Errorf("encoding %s: %w", p.Name, err)
			}
			delete(m, "status")
			if data, err = yaml.Marshal(m); err != nil {
				return nil, fmt.Errorf("encoding %s: %w", p.Name, err)
			}
			buf.WriteString("---\n")
			buf.Write(data)
		}
	}
	return buf.Bytes(), nil
}
