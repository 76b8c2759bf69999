package cli

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/rules"
)

// acrossObjects gathers the objects of one run for the rules that compare objects (rules.Unique:
// KDS copy names, Kong SNIs and generated names; docs/unique.md) and turns each clash into a
// result placed where its object was read.
type acrossObjects struct {
	u *rules.Unique
	// at is where each object Unique took part in was read, indexed by its id (ids are given in
	// order from 0): a slice, as one entry is kept per object of the run.
	at []placed
}

// placed is where an object was read: its source and line, and where its name is written.
type placed struct {
	source, apiVersion      string
	line, nameLine, nameCol int
}

func newAcrossObjects(cfg *rules.Config, a *app) *acrossObjects {
	return &acrossObjects{u: cfg.NewUnique(a.release)}
}

// add reads one object of zone ("" for none); an object Unique cannot decode is left to the
// per-object rules, which report it.
func (x *acrossObjects) add(zone string, gk schema.GroupKind, raw []byte, d *rules.Decision, p placed, pos positions) {
	id, err := x.u.AddDecided(zone, gk, raw, d)
	if err != nil || id < 0 {
		return
	}
	if pos != nil {
		p.nameLine, p.nameCol = pos("metadata.name")
	}
	x.place(id, p)
}

func (x *acrossObjects) place(id int, p placed) {
	for len(x.at) <= id {
		x.at = append(x.at, placed{})
	}
	x.at[id] = p
}

// addUniversal reads one Kuma Universal resource of zone ("": its kuma.io/zone label's), as add
// reads an object.
func (x *acrossObjects) addUniversal(zone string, gk schema.GroupKind, raw []byte, d *rules.Decision, p placed, pos positions) {
	id, err := x.u.AddUniversalDecided(zone, gk, raw, d)
	if err != nil || id < 0 {
		return
	}
	if pos != nil {
		p.nameLine, p.nameCol = pos("name")
	}
	x.place(id, p)
}

// results returns a result per clash, about the object the clash is about, and counts the
// denied ones in t.
func (x *acrossObjects) results(t *tally) []Result {
	var out []Result
	for _, c := range x.u.Findings() {
		p := x.at[c.Of]
		f := c.Finding
		f.Position.Line, f.Position.Column = p.nameLine, p.nameCol
		denied := c.Level == rules.LevelError
		if denied {
			t.denied++
		}
		out = append(out, Result{Source: p.source, Line: p.line, APIVersion: p.apiVersion, Object: c.Object,
			Allowed: !denied, Enforcement: string(rules.EnforcementDeny), Findings: []rules.Finding{f}})
	}
	return out
}
