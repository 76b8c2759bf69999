package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/kriguard/kriguard/naming"
)

// finding is one site whose value breaks a rule, before it becomes a diagnostic.
type finding struct {
	s     *site
	t     tmpl
	parts []naming.PatternPart
	probs []naming.EnvoyNameProblem
}

// report checks the value of every sink site, once.
func (st *state) report() {
	var fs []finding
	for _, s := range st.sites {
		if !s.done {
			continue
		}
		var best, stat finding
		for _, t := range s.vals {
			parts := pattern(t)
			if stat.probs == nil {
				if p := st.statProblem(s, parts); p != nil {
					stat = finding{s: s, t: t, parts: parts, probs: []naming.EnvoyNameProblem{*p}}
				}
			}
			if st.kumaAltStatName(s, t) {
				continue
			}
			probs := naming.CheckEnvoyPattern(parts, st.cfg.opts)
			if len(probs) == 0 {
				continue
			}
			if best.probs == nil || probs[0].Rule < best.probs[0].Rule {
				best = finding{s: s, t: t, parts: parts, probs: probs}
			}
		}
		if best.probs != nil {
			fs = append(fs, best)
		}
		if stat.probs != nil {
			fs = append(fs, stat)
		}
	}
	if len(fs) == 0 {
		return
	}
	// The uses of constants that end up in names: a constant all of whose uses are in names may
	// have its declaration fixed.
	inNames := map[ast.Expr]bool{}
	for _, f := range fs {
		for _, p := range f.t.parts {
			for _, s := range p.srcs {
				if s.use != nil {
					inNames[s.use] = true
				}
			}
		}
	}
	for _, f := range fs {
		st.diagnose(f, inNames)
	}
}

// statAdvice ends a stat-safe finding with what to do, by how the stats use the name.
var statAdvice = map[string]string{
	"cluster":       " (set the cluster's alt_stat_name to the name with every other character replaced by '_', as Kuma does)",
	"alt_stat_name": " (replace every other character with '_')",
	"stat_prefix":   " (replace every other character with '_')",
	"virtual host":  " (replace every other character with '_')",
}

// pattern turns a template into the naming core's pattern: everything not literal is a hole.
func pattern(t tmpl) []naming.PatternPart {
	out := make([]naming.PatternPart, 0, len(t.parts))
	for _, p := range t.parts {
		if p.Kind == PartLit {
			out = append(out, naming.Lit(p.Lit))
		} else {
			out = append(out, naming.HolePart())
		}
	}
	return out
}

func render(parts []naming.PatternPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Hole {
			b.WriteString("*")
		} else {
			b.WriteString(p.Lit)
		}
	}
	return strconv.Quote(b.String())
}

func (st *state) diagnose(f finding, inNames map[ast.Expr]bool) {
	s, t := f.s, f.t
	var msg strings.Builder
	msg.WriteString(s.sink.Field)
	msg.WriteString(" gets ")
	msg.WriteString(render(f.parts))
	if t.origin != "" {
		msg.WriteString(" (" + t.origin + ")")
	}
	if len(s.sink.Steps) > 0 {
		msg.WriteString(" through " + st.targetDesc(s))
	}
	msg.WriteString(": ")
	for i, p := range f.probs {
		if i > 0 {
			msg.WriteString("; and ")
		}
		msg.WriteString(p.Message)
	}
	if s.sink.Ref != "" {
		msg.WriteString(" (a reference to a " + s.sink.Ref + " named elsewhere)")
	}
	if f.probs[0].Rule == naming.EnvoyStatUnsafe {
		msg.WriteString(statAdvice[s.sink.Stat])
	}
	d := analysis.Diagnostic{Pos: s.pos(), End: s.end(), Category: f.probs[0].Rule.String(), Message: msg.String()}
	seen := map[token.Pos]bool{}
	for _, pos := range t.defs {
		if pos.IsValid() && !seen[pos] && st.pass.Fset.Position(pos).Line != st.pass.Fset.Position(d.Pos).Line {
			seen[pos] = true
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: pos, Message: "value assigned here"})
		}
	}
	if len(s.sink.Steps) > 0 {
		verb := "stored in "
		if s.calls != nil {
			verb = "passed to "
		}
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: s.instr.Pos(), Message: verb + st.targetDesc(s)})
	}
	for i, step := range s.sink.Steps {
		pos := token.NoPos
		if i < len(s.sink.pos) {
			pos = s.sink.pos[i]
		}
		if !pos.IsValid() {
			pos = st.stepPos(step)
		}
		if !pos.IsValid() && s.via != nil && s.via.obj != nil && strings.HasPrefix(step.Text, funcName(s.via.obj)+" ") {
			// A step of the callee itself; a step of an unexported function of another package
			// cannot be placed, and is left out rather than shown at the wrong function.
			pos = s.via.obj.Pos()
		}
		if pos.IsValid() {
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: pos, Message: step.Text})
		}
	}
	if fix, ok := st.colonFix(t, f.probs, inNames); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	st.pass.Report(d)
}

// colonFix replaces every ':' of the value where it is written, when that is safe: in a literal of
// the package, or at the use of a constant. The declaration of a constant or variable is edited
// only when every use of it is an Envoy name; otherwise, and when a ':' comes from elsewhere, there
// is no fix.
func (st *state) colonFix(t tmpl, probs []naming.EnvoyNameProblem, inNames map[ast.Expr]bool) (analysis.SuggestedFix, bool) {
	var colons []naming.ColonAt
	for _, p := range probs {
		if p.Rule == naming.EnvoyColon {
			colons = p.Colons
		}
	}
	if len(colons) == 0 {
		return analysis.SuggestedFix{}, false
	}
	seen := map[token.Pos]bool{}
	whole := map[ast.Node]bool{}
	var edits []analysis.TextEdit
	var decls []string
	for _, c := range colons {
		if c.Part >= len(t.parts) {
			return analysis.SuggestedFix{}, false
		}
		var at *src
		for i := range t.parts[c.Part].srcs {
			s := &t.parts[c.Part].srcs[i]
			if c.Offset >= s.partOff && c.Offset < s.partOff+s.n {
				at = s
				break
			}
		}
		if at == nil {
			return analysis.SuggestedFix{}, false
		}
		lit := at.lit
		if at.obj != nil {
			if st.declEditable(at.obj, inNames) {
				if at.use != nil {
					lit = st.constDecl(at.obj)
				}
				if !whole[lit] {
					decls = append(decls, at.obj.Name())
				}
			} else if at.use != nil {
				// Replace this use of the constant by its value without ':'.
				if !whole[at.use] {
					whole[at.use] = true
					cv := at.obj.(*types.Const).Val()
					if !isPlainString(at.obj.Type()) {
						return analysis.SuggestedFix{}, false
					}
					edits = append(edits, analysis.TextEdit{Pos: at.use.Pos(), End: at.use.End(), NewText: []byte(strconv.Quote(strings.ReplaceAll(constantString(cv), ":", "_")))})
				}
				continue
			} else {
				return analysis.SuggestedFix{}, false
			}
			if lit == nil {
				return analysis.SuggestedFix{}, false
			}
			if at.use != nil {
				// The whole declaration literal holds the constant's value.
				if !whole[lit] {
					whole[lit] = true
					val, err := strconv.Unquote(lit.Value)
					if err != nil {
						return analysis.SuggestedFix{}, false
					}
					edits = append(edits, analysis.TextEdit{Pos: lit.Pos(), End: lit.End(), NewText: []byte(strconv.Quote(strings.ReplaceAll(val, ":", "_")))})
				}
				continue
			}
		}
		if lit == nil {
			return analysis.SuggestedFix{}, false
		}
		val, err := strconv.Unquote(lit.Value)
		if err != nil {
			return analysis.SuggestedFix{}, false
		}
		if len(lit.Value) == len(val)+2 && lit.Value[1:len(lit.Value)-1] == val {
			pos := lit.Pos() + 1 + token.Pos(at.litOff+c.Offset-at.partOff)
			if !seen[pos] {
				seen[pos] = true
				edits = append(edits, analysis.TextEdit{Pos: pos, End: pos + 1, NewText: []byte("_")})
			}
			continue
		}
		if !whole[lit] {
			whole[lit] = true
			edits = append(edits, analysis.TextEdit{Pos: lit.Pos(), End: lit.End(), NewText: []byte(strconv.Quote(strings.ReplaceAll(val, ":", "_")))})
		}
	}
	msg := "Replace ':' with '_'"
	if len(decls) > 0 {
		msg += " (in the declaration of " + strings.Join(decls, ", ") + ", every use of which is an Envoy name)"
	}
	return analysis.SuggestedFix{Message: msg, TextEdits: edits}, true
}

// declEditable reports whether the declaration of obj, a constant or package variable, may be
// fixed: it is unexported, declared in this package with a string literal, and every use of it in
// the package is part of an Envoy name (inNames). A variable's uses are not tracked: never.
func (st *state) declEditable(obj types.Object, inNames map[ast.Expr]bool) bool {
	c, ok := obj.(*types.Const)
	if !ok || c.Pkg() != st.pass.Pkg || c.Exported() || st.constDecl(c) == nil {
		return false
	}
	n := 0
	for id, o := range st.pass.TypesInfo.Uses {
		if o != c {
			continue
		}
		n++
		if !inNames[id] && !inNamesSel(inNames, id) {
			return false
		}
	}
	return n > 0
}

// inNamesSel: a use written pkg.Const is recorded by its selector expression.
func inNamesSel(inNames map[ast.Expr]bool, id *ast.Ident) bool {
	for e := range inNames {
		if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel == id {
			return true
		}
	}
	return false
}

// constDecl returns the string literal constant c is declared with, if any.
func (st *state) constDecl(obj types.Object) *ast.BasicLit {
	c, ok := obj.(*types.Const)
	if !ok || c.Pkg() != st.pass.Pkg {
		return nil
	}
	for _, file := range st.pass.Files {
		if file.Pos() > c.Pos() || c.Pos() > file.End() {
			continue
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST || c.Pos() < g.Pos() || c.Pos() > g.End() {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if name.Pos() == c.Pos() && i < len(vs.Values) {
						if lit, ok := ast.Unparen(vs.Values[i]).(*ast.BasicLit); ok && lit.Kind == token.STRING {
							return lit
						}
					}
				}
			}
		}
	}
	return nil
}

func isPlainString(t types.Type) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && (b.Kind() == types.String || b.Kind() == types.UntypedString)
}
