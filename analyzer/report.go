package analyzer

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/kriguard/kriguard/naming"
)

// report checks the value of every sink site, once.
func (st *state) report() {
	for _, s := range st.sites {
		if !s.done {
			continue
		}
		var best []naming.EnvoyNameProblem
		var bestT tmpl
		var bestParts []naming.PatternPart
		for _, t := range s.vals {
			parts := pattern(t)
			probs := naming.CheckEnvoyPattern(parts, st.cfg.opts)
			if len(probs) == 0 {
				continue
			}
			if best == nil || probs[0].Rule < best[0].Rule {
				best, bestT, bestParts = probs, t, parts
			}
		}
		if best != nil {
			st.diagnose(s, bestT, bestParts, best)
		}
	}
}

// pattern turns a template into the naming core's pattern: everything not literal is a hole.
func pattern(t tmpl) []naming.PatternPart {
	out := make([]naming.PatternPart, 0, len(t.parts))
	for _, p := range t.parts {
		if p.Kind == PartLit {
			out = append(out, naming.Lit(p.Lit))
		} else {
			out = append(out, naming.Hole)
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

func (st *state) diagnose(s *site, t tmpl, parts []naming.PatternPart, probs []naming.EnvoyNameProblem) {
	var msg strings.Builder
	msg.WriteString(s.sink.Field)
	msg.WriteString(" gets ")
	msg.WriteString(render(parts))
	if t.origin != "" {
		msg.WriteString(" (" + t.origin + ")")
	}
	if len(s.sink.Steps) > 0 {
		msg.WriteString(" through " + s.targetDesc())
	}
	msg.WriteString(": ")
	for i, p := range probs {
		if i > 0 {
			msg.WriteString("; and ")
		}
		msg.WriteString(p.Message)
	}
	d := analysis.Diagnostic{Pos: s.value.Pos(), End: s.value.End(), Category: probs[0].Rule.String(), Message: msg.String()}
	for _, pos := range t.defs {
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: pos, Message: "value assigned here"})
	}
	if len(s.sink.Steps) > 0 {
		verb := "stored in "
		if s.callee != nil {
			verb = "passed to "
		}
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: s.at.Pos(), End: s.at.End(), Message: verb + s.targetDesc()})
	}
	for i, step := range s.sink.Steps {
		pos := token.NoPos
		if i < len(s.sink.pos) {
			pos = s.sink.pos[i]
		}
		if !pos.IsValid() {
			pos = st.stepPos(step)
		}
		if !pos.IsValid() && s.callee != nil {
			pos = s.callee.Pos()
		}
		if pos.IsValid() {
			d.Related = append(d.Related, analysis.RelatedInformation{Pos: pos, Message: step.Text})
		}
	}
	if fix, ok := colonFix(t, probs); ok {
		d.SuggestedFixes = []analysis.SuggestedFix{fix}
	}
	st.pass.Report(d)
}

// colonFix replaces every ':' of the value in the literals it comes from, when all of them come
// from literals of this package.
func colonFix(t tmpl, probs []naming.EnvoyNameProblem) (analysis.SuggestedFix, bool) {
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
	whole := map[*ast.BasicLit]bool{}
	var edits []analysis.TextEdit
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
		val, err := strconv.Unquote(at.lit.Value)
		if err != nil {
			return analysis.SuggestedFix{}, false
		}
		if len(at.lit.Value) == len(val)+2 && at.lit.Value[1:len(at.lit.Value)-1] == val {
			pos := at.lit.Pos() + 1 + token.Pos(at.litOff+c.Offset-at.partOff)
			if !seen[pos] {
				seen[pos] = true
				edits = append(edits, analysis.TextEdit{Pos: pos, End: pos + 1, NewText: []byte("_")})
			}
			continue
		}
		if !whole[at.lit] {
			whole[at.lit] = true
			edits = append(edits, analysis.TextEdit{Pos: at.lit.Pos(), End: at.lit.End(), NewText: []byte(strconv.Quote(strings.ReplaceAll(val, ":", "_")))})
		}
	}
	return analysis.SuggestedFix{Message: "Replace ':' with '_'", TextEdits: edits}, true
}
