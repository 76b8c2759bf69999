package analyzer

import (
	"golang.org/x/tools/go/ssa"

	"github.com/kriguard/kriguard/naming"
)

// The stat-safe rule (docs/envoy-names.md): a name Envoy puts into its stats must not hold
// characters that split or rewrite them, unless — for a cluster — an alt_stat_name stands in for
// it. krilint knows that an alt_stat_name covers a cluster in two ways: the function that names
// the cluster also sets its alt_stat_name, or a package of the program sets the alt_stat_name of
// clusters it did not make (a configurer, as Kuma's AltStatNameConfigurer is), which may then
// cover every cluster: krilint cannot tell which, so it stays quiet.

// clusterOf returns the cluster value whose field a site writes (the X of its FieldAddr), or nil
// when the site is not a direct write of a go-control-plane field.
func clusterOf(s *site) ssa.Value {
	store, ok := s.instr.(*ssa.Store)
	if !ok || s.field == nil {
		return nil
	}
	fa, ok := store.Addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	return fa.X
}

// siblingStores returns the values stored to the go-control-plane field with stat kind stat of
// the struct x, in x's function.
func siblingStores(x ssa.Value, stat string) []ssa.Value {
	if x == nil || x.Referrers() == nil {
		return nil
	}
	var out []ssa.Value
	for _, r := range *x.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.X != x || fa.Referrers() == nil {
			continue
		}
		owner, fv := namedOf(x.Type()), fieldOf(x.Type(), fa.Field)
		if owner == nil || fv == nil {
			continue
		}
		if sk, ok := envoyField(owner, fv); !ok || sk.Stat != stat {
			continue
		}
		for _, w := range *fa.Referrers() {
			if s, ok := w.(*ssa.Store); ok && s.Addr == fa {
				out = append(out, s.Val)
			}
		}
	}
	return out
}

// coversOwnCluster reports whether the function that writes a cluster's name at site s sets the
// same cluster's alt_stat_name too.
func coversOwnCluster(s *site) bool {
	return len(siblingStores(clusterOf(s), "alt_stat_name")) > 0
}

// setsForeignAltStatNames reports whether the package sets the alt_stat_name of a cluster it did
// not make in the same function: a parameter, a field, a value it was handed.
func (st *state) setsForeignAltStatNames() bool {
	for _, s := range st.sites {
		if !s.done || s.sink.Stat != "alt_stat_name" {
			continue
		}
		if x := clusterOf(s); x != nil {
			if _, made := x.(*ssa.Alloc); !made {
				return true
			}
		}
	}
	return false
}

// altStatNamesSet reports whether this package or one it imports sets the alt_stat_name of
// clusters it did not make.
func (st *state) altStatNamesSet() bool {
	if st.altStat != nil {
		return *st.altStat
	}
	set := st.setsForeignAltStatNames()
	for _, pf := range st.pass.AllPackageFacts() {
		if f, ok := pf.Fact.(*pkgFact); ok && f.AltStatNames {
			set = true
			break
		}
	}
	st.altStat = &set
	return set
}

// kumaAltStatName reports whether site s writes an alt_stat_name that is the sanitized form of the
// name of the same cluster (Kuma's rule, naming.IsSanitizedAltStatName), both known in full: such
// a name is derived from the cluster's and held to no rule of its own.
func (st *state) kumaAltStatName(s *site, alt tmpl) bool {
	if s.sink.Stat != "alt_stat_name" {
		return false
	}
	a, ok := literal(alt)
	if !ok {
		return false
	}
	for _, v := range siblingStores(clusterOf(s), "cluster") {
		for _, t := range st.eval(s.fn, v) {
			if n, ok := literal(t); ok && naming.IsSanitizedAltStatName(a, n) {
				return true
			}
		}
	}
	return false
}

// literal is the value of a template known in full.
func literal(t tmpl) (string, bool) {
	var b []byte
	for _, p := range t.parts {
		if p.Kind != PartLit {
			return "", false
		}
		b = append(b, p.Lit...)
	}
	return string(b), true
}

// statProblem is the stat-safe rule's verdict on a value of site s, nil when it holds.
func (st *state) statProblem(s *site, parts []naming.PatternPart) *naming.EnvoyNameProblem {
	if !st.cfg.statNames || s.sink.Stat == "" {
		return nil
	}
	p := naming.CheckStatPattern(parts)
	if p == nil {
		return nil
	}
	if s.sink.Stat == "cluster" && (s.sink.AltStat || st.altStatNamesSet()) {
		return nil
	}
	return p
}
