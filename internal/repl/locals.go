package repl

import (
	"strings"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// Each statement typed at the prompt is its own Lua chunk, so a top-level
// `local x = 42` would vanish before the next line could use it. As
// Node's and Python's prompts do, the session keeps such names: a local
// statement at the top of a chunk becomes an assignment to a global of the
// session (inner blocks and functions keep their locals).

// sessionChunk parses code, whose first line is line first of the input
// (so error positions count from the start of the input), and turns its
// top-level locals into session variables.
func sessionChunk(code string, first int) ([]ast.Stmt, error) {
	pad := strings.Repeat("\n", max(first-1, 0))
	stmts, err := parse.Parse(strings.NewReader(pad+code+"\n"), chunkName)
	if err != nil {
		return nil, err
	}
	for i, st := range stmts {
		switch st := st.(type) {
		case *ast.LocalAssignStmt:
			stmts[i] = asAssignment(st)
		case *ast.ReturnStmt:
			keepCallerFrame(st)
		}
	}
	return stmts, nil
}

// keepCallerFrame turns `return f(x)`, a tail call that would drop the
// typed line from tracebacks (they would read "(tailcall): ?"), into
// `return select(1, f(x))`: the same values, with f called from the line.
func keepCallerFrame(ret *ast.ReturnStmt) {
	n := len(ret.Exprs)
	if n == 0 {
		return
	}
	if _, call := ret.Exprs[n-1].(*ast.FuncCallExpr); !call {
		return
	}
	sel := &ast.IdentExpr{Value: "select"}
	one := &ast.NumberExpr{Value: "1"}
	wrap := &ast.FuncCallExpr{Func: sel, Args: append([]ast.Expr{one}, ret.Exprs...)}
	for _, e := range []ast.Expr{sel, one, wrap} {
		e.SetLine(ret.Line())
		e.SetLastLine(ret.LastLine())
	}
	ret.Exprs = []ast.Expr{wrap}
}

// asAssignment is `a, b = ...` for `local a, b = ...`; a local without a
// value becomes nil, as a new local is.
func asAssignment(local *ast.LocalAssignStmt) ast.Stmt {
	a := &ast.AssignStmt{}
	for _, name := range local.Names {
		id := &ast.IdentExpr{Value: name}
		id.SetLine(local.Line())
		id.SetLastLine(local.Line())
		a.Lhs = append(a.Lhs, id)
	}
	a.Rhs = local.Exprs
	if len(a.Rhs) == 0 {
		for range local.Names {
			a.Rhs = append(a.Rhs, &ast.NilExpr{})
		}
	}
	a.SetLine(local.Line())
	a.SetLastLine(local.LastLine())
	return a
}
