package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// Reaching definitions over the syntax tree, just precise enough for names. The last statement
// that defines the variable on every path to the use — a definition in a block around the use, or
// an if/else or a switch with a default whose every branch defines it or leaves (return, panic) —
// hides the definitions before it; every definition from there to the use may reach it, and so
// may one after the use inside a loop around both. Closures are taken to run anywhere; goto is
// ignored. A may-analysis: a ':' assigned on any branch that can reach the sink is reported.

func (f *fnInfo) buildDefs() {
	if f.defs != nil {
		return
	}
	f.defs = map[*types.Var][]*def{}
	f.parent = map[ast.Node]ast.Node{}
	info := f.info()
	var stack []ast.Node
	add := func(stmt ast.Node, id *ast.Ident, d *def) {
		if id.Name == "_" {
			return
		}
		obj := info.Defs[id]
		if obj == nil {
			obj = info.Uses[id]
		}
		v, ok := obj.(*types.Var)
		if !ok {
			return
		}
		d.stmt, d.lhs = stmt, id
		f.defs[v] = append(f.defs[v], d)
	}
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			f.parent[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.AssignStmt:
			switch {
			case n.Tok == token.ADD_ASSIGN && len(n.Lhs) == 1:
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					add(n, id, &def{rhs: n.Rhs[0], add: true})
				}
			case n.Tok == token.ASSIGN || n.Tok == token.DEFINE:
				for i, l := range n.Lhs {
					id, ok := l.(*ast.Ident)
					if !ok || id.Name == "_" {
						continue
					}
					d := &def{}
					switch {
					case len(n.Lhs) == len(n.Rhs):
						d.rhs = n.Rhs[i]
					case len(n.Rhs) == 1:
						// name, err := f(): the string result of f, when it has one.
						if call, ok := ast.Unparen(n.Rhs[0]).(*ast.CallExpr); ok {
							if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && stringResult(fn) == i {
								d.rhs = call
							}
						}
					}
					add(n, id, d)
				}
			default:
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(n, id, &def{})
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				d := &def{}
				switch {
				case len(n.Values) == len(n.Names):
					d.rhs = n.Values[i]
				case len(n.Values) == 0:
					d.zero = true
				}
				add(n, id, d)
			}
		case *ast.RangeStmt:
			// The key and value are defined before each run of the body: the definition sits at
			// the identifier, so that it reaches the body but hides nothing.
			if id, ok := n.Key.(*ast.Ident); ok {
				add(id, id, &def{})
			}
			if id, ok := n.Value.(*ast.Ident); ok {
				add(id, id, &def{over: n.X})
			}
		case *ast.UnaryExpr:
			// &v: writes through the pointer are unknown.
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND {
				add(n, id, &def{})
			}
		}
		return true
	})
}

// reaching returns the definitions of v that may reach use, and whether the value v had on entry
// (a parameter's argument) may.
func (f *fnInfo) reaching(v *types.Var, use ast.Node) ([]*def, bool) {
	defs := f.defs[v]
	anc := map[ast.Node]bool{}
	for n := f.parent[use]; n != nil; n = f.parent[n] {
		anc[n] = true
	}
	// The last statement that defines v on every path to the use: a plain definition in a block
	// around the use, or an if/else or switch all of whose branches define v (or leave).
	var killer ast.Node
	for _, d := range defs {
		if d.stmt.End() > use.Pos() || contains(d.stmt, use) {
			continue
		}
		if f.must(d, anc) && (killer == nil || d.stmt.Pos() > killer.Pos()) {
			killer = d.stmt
		}
	}
	// Bounded, so that a generated function assigning one variable a thousand times stays cheap;
	// past the bound the answer is only less precise, never unsound.
	if len(defs) > 1 && len(defs) <= 64 {
		for n := ast.Node(use); n != nil; n = f.parent[n] {
			for _, s := range stmtList(f.parent[n]) {
				if s.End() > use.Pos() || (killer != nil && s.Pos() <= killer.Pos()) {
					continue
				}
				if f.definesAll(s, v, defs) {
					killer = s
				}
			}
		}
	}
	var out []*def
	for _, d := range defs {
		switch {
		case contains(d.stmt, use):
			// x = f(x): the use reads the value from before.
		case f.inClosureApart(d, anc):
			out = append(out, d)
		case d.stmt.End() <= use.Pos():
			if killer == nil || d.stmt.Pos() >= killer.Pos() {
				out = append(out, d)
			}
		default:
			// After the use: only through a loop around both, and only if no definition inside
			// that loop runs first on every path.
			if loop := f.sharedLoop(d, anc); loop != nil && (killer == nil || !f.inside(killer, loop)) {
				out = append(out, d)
			}
		}
	}
	return out, killer == nil
}

// stmtList returns the statements a block-like node runs in order.
func stmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}

// definesAll reports whether every path through s that goes on after s defines v.
func (f *fnInfo) definesAll(s ast.Stmt, v *types.Var, defs []*def) bool {
	inside := false
	for _, d := range defs {
		if contains(s, d.stmt) {
			inside = true
			break
		}
	}
	if !inside {
		return f.leaves(s)
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok != token.ASSIGN && s.Tok != token.DEFINE {
			return false
		}
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); ok && (f.info().Defs[id] == v || f.info().Uses[id] == v) {
				return true
			}
		}
	case *ast.DeclStmt:
		return true
	case *ast.LabeledStmt:
		return f.definesAll(s.Stmt, v, defs)
	case *ast.BlockStmt:
		for _, x := range s.List {
			if f.definesAll(x, v, defs) {
				return true
			}
		}
	case *ast.IfStmt:
		return s.Else != nil && f.definesAll(s.Body, v, defs) && f.definesAll(s.Else, v, defs)
	case *ast.SwitchStmt:
		return f.clausesDefine(s.Body, v, defs)
	case *ast.TypeSwitchStmt:
		return f.clausesDefine(s.Body, v, defs)
	}
	return false
}

// clausesDefine: a switch with a default clause whose every clause defines v or leaves.
func (f *fnInfo) clausesDefine(body *ast.BlockStmt, v *types.Var, defs []*def) bool {
	hasDefault := false
	for _, c := range body.List {
		cc, ok := c.(*ast.CaseClause)
		if !ok {
			return false
		}
		if cc.List == nil {
			hasDefault = true
		}
		if !f.definesAll(&ast.BlockStmt{List: cc.Body}, v, defs) {
			return false
		}
	}
	return hasDefault
}

// leaves reports whether s never goes on to the next statement: a return or a panic.
func (f *fnInfo) leaves(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BlockStmt:
		return len(s.List) > 0 && f.leaves(s.List[len(s.List)-1])
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				if b, ok := f.info().Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
					return true
				}
			}
		}
	}
	return false
}

// must reports whether d runs on every path to a use whose ancestors are anc.
func (f *fnInfo) must(d *def, anc map[ast.Node]bool) bool {
	stmt := d.stmt
	if _, ok := stmt.(*ast.ValueSpec); ok {
		stmt = f.parent[f.parent[stmt]] // ValueSpec → GenDecl → DeclStmt
	}
	if _, ok := stmt.(*ast.UnaryExpr); ok {
		return false
	}
	if _, ok := stmt.(*ast.RangeStmt); ok {
		return false
	}
	p := f.parent[stmt]
	if !anc[p] {
		return false
	}
	switch p := p.(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
		return true
	case *ast.IfStmt:
		return p.Init == stmt
	case *ast.SwitchStmt:
		return p.Init == stmt
	case *ast.TypeSwitchStmt:
		return p.Init == stmt
	case *ast.ForStmt:
		return p.Init == stmt
	}
	return false
}

// inClosureApart reports whether d sits in a function literal that does not enclose the use.
func (f *fnInfo) inClosureApart(d *def, anc map[ast.Node]bool) bool {
	for n := f.parent[d.stmt]; n != nil; n = f.parent[n] {
		if _, ok := n.(*ast.FuncLit); ok && !anc[n] {
			return true
		}
	}
	return false
}

func (f *fnInfo) sharedLoop(d *def, anc map[ast.Node]bool) ast.Node {
	for n := f.parent[d.stmt]; n != nil; n = f.parent[n] {
		switch n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if anc[n] {
				return n
			}
		}
	}
	return nil
}

func (f *fnInfo) inside(n, outer ast.Node) bool {
	for ; n != nil; n = f.parent[n] {
		if n == outer {
			return true
		}
	}
	return false
}

func contains(n ast.Node, inner ast.Node) bool {
	return n.Pos() <= inner.Pos() && inner.End() <= n.End()
}
