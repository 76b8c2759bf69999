package admissionpolicy

import (
	"fmt"
	"strings"

	"github.com/kriguard/kriguard/naming"
)

// MeshProxyPatch's hand-typed Envoy names (docs/kri.md, "Hand-typed identifiers"): the match fields
// of each modification type that name a generated Envoy resource, and the tag maps that may hold
// the kuma.io/unified-name listener tag. A name that starts with "kri_" must be a valid KRI; a name
// with ':' is only warned about, by the webhook. These are the rules' fields (rules/kuma.go);
// the agreement test holds the two to the same verdicts.
var (
	proxyPatchNames = []struct {
		modification string
		fields       []string
		tags         string
	}{
		{"cluster", []string{"name"}, ""},
		{"httpFilter", []string{"listenerName"}, "listenerTags"},
		{"listener", []string{"name"}, "tags"},
		{"networkFilter", []string{"listenerName"}, "listenerTags"},
		{"virtualHost", []string{"name", "routeConfigurationName"}, ""},
	}
	unifiedNameTag = "kuma.io/unified-name"
)

// handTyped is a CEL condition that v, a string expression, is not a "kri_" name or is a valid KRI.
func handTyped(v string, global, mesh []string) string {
	prefix := naming.Prefix + string(naming.Separator)
	return fmt.Sprintf("(!%s.startsWith(%s) || (size(%s) <= %d && %s))", v, lit(prefix), v, maxKRILen(), validKRIParts(v+".split('_')", global, mesh))
}

// The hand-typed-name check walks the modifications in chunks, each a validation of its own with a
// CEL budget of its own: a valid KRI of the longest length costs a few thousand units to check (a
// chunk of 512 of them exceeds the budget), and the API server stops one expression at 1,000,000. proxyPatchChunks chunks of proxyPatchChunk
// modifications, then one for the rest, hold the largest MeshProxyPatch the API server stores
// (TestMaximalProxyPatch).
const (
	proxyPatchChunk  = 256
	proxyPatchChunks = 16
)

// proxyPatchChecks check every hand-typed name of a MeshProxyPatch's modifications.
func proxyPatchChecks(global, mesh []string) []check {
	list := []string{"spec", "default", "appendModifications"}
	var each []string
	for _, pn := range proxyPatchNames {
		m := "m." + pn.modification
		var conds []string
		for _, f := range pn.fields {
			conds = append(conds, fmt.Sprintf("(!has(%s.match.%s) || %s)", m, f, handTyped(m+".match."+f, global, mesh)))
		}
		if pn.tags != "" {
			tags := m + ".match." + pn.tags
			conds = append(conds, fmt.Sprintf("(!has(%s) || !(%s in %s) || %s)", tags, lit(unifiedNameTag), tags, handTyped(tags+"["+lit(unifiedNameTag)+"]", global, mesh)))
		}
		each = append(each, fmt.Sprintf("(!has(%s) || !has(%s.match) || (%s))", m, m, strings.Join(conds, " && ")))
	}
	l := access("object", list)
	message := lit(Path(list) + "[*]: Invalid value: a hand-typed name that starts with \"kri_\" must be a valid KRI: " +
		"kri_<type>_<mesh>_<zone>_<namespace>_<name>_<section>, a registered type, each field's rules")
	old := fmt.Sprintf("%s && %s == %s", present("oldObject", list), access("oldObject", list), l)
	var out []check
	for c := 0; c <= proxyPatchChunks; c++ {
		from, to := c*proxyPatchChunk, fmt.Sprintf("(size(%[1]s) < %[2]d ? size(%[1]s) : %[2]d)", l, (c+1)*proxyPatchChunk)
		if c == proxyPatchChunks {
			to = "size(" + l + ")"
		}
		out = append(out, check{
			ok: fmt.Sprintf("!(%s) || size(%s) <= %d || %s.slice(%d, %s).all(m, %s)",
				present("object", list), l, from, l, from, to, strings.Join(each, " &&\n")),
			message: message,
			old:     old,
			list:    true,
		})
	}
	return out
}
