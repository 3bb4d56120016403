package pgexpr

import "fmt"

// Error is a parse or bind error. Col is the 1-based byte column in Expr of
// the token the problem was found at (an operator, a function name, a
// literal), or 0 when the problem concerns the whole expression.
type Error struct {
	Expr string
	Col  int
	Msg  string
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("pgbench expression %q: column %d: %s", e.Expr, e.Col, e.Msg)
	}
	return fmt.Sprintf("pgbench expression %q: %s", e.Expr, e.Msg)
}
