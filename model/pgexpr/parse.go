package pgexpr

import (
	"fmt"
	"math"
	"strings"
)

// Expr is a parsed pgbench expression, not yet bound to variable values.
type Expr struct {
	src  string
	root *node
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack in
// the recursive parser, binder and evaluator.
const maxDepth = 200

// Parse compiles a pgbench \set expression: integer and double literals,
// :variables, + - * / % with pgbench's integer semantics (division truncates;
// division by zero is an error, detected by Bind), unary minus and plus,
// parentheses, and the functions random, random_gaussian,
// random_exponential, random_zipfian, permute (2 or 3 arguments), abs, least,
// greatest, int and double. Function names are case-insensitive. Precedence
// and associativity are those of pgbench's exprparse.y. Errors are *Error
// values naming the column and what was expected.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	if p.peek().kind == tEOF {
		return nil, p.errAt(p.peek(), "empty expression")
	}
	root, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "expected an operator or the end of the expression, found %s", t.describe())
	}
	return &Expr{src: src, root: root}, nil
}

// String returns the expression in canonical form (see node.String).
func (e *Expr) String() string { return e.root.String() }

type parser struct {
	src  string
	toks []token
	pos  int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return &Error{Expr: p.src, Col: t.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) tooDeep(depth int) error {
	if depth > maxDepth {
		return p.errAt(p.peek(), "expression nested more than %d levels deep", maxDepth)
	}
	return nil
}

// isKeyword reports whether t is the (case-insensitive) keyword kw.
func isKeyword(t token, kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// or: and (OR and)*, left-associative (exprparse.y: %left OR_OP, the
// lowest precedence).
func (p *parser) or(depth int) (*node, error) {
	if err := p.tooDeep(depth); err != nil {
		return nil, err
	}
	left, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for isKeyword(p.peek(), "or") {
		op := p.next()
		right, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nOr, col: op.col, args: []*node{left, right}}
	}
	return left, nil
}

// and: not (AND not)*, left-associative.
func (p *parser) and(depth int) (*node, error) {
	left, err := p.not(depth)
	if err != nil {
		return nil, err
	}
	for isKeyword(p.peek(), "and") {
		op := p.next()
		right, err := p.not(depth)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nAnd, col: op.col, args: []*node{left, right}}
	}
	return left, nil
}

// not: NOT not | comparison (%right NOT_OP, above AND, below the
// comparisons: NOT a = b is NOT (a = b)).
func (p *parser) not(depth int) (*node, error) {
	if err := p.tooDeep(depth); err != nil {
		return nil, err
	}
	if t := p.peek(); isKeyword(t, "not") {
		p.next()
		x, err := p.not(depth + 1)
		if err != nil {
			return nil, err
		}
		return &node{kind: nNot, col: t.col, args: []*node{x}}, nil
	}
	return p.comparison(depth)
}

// comparison: additive [op additive], not associative (a < b < c is an
// error, as in exprparse.y's %nonassoc).
func (p *parser) comparison(depth int) (*node, error) {
	left, err := p.additive(depth)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); isKeyword(t, "is") || isKeyword(t, "isnull") || isKeyword(t, "notnull") {
		return nil, p.errAt(t, "IS, ISNULL and NOTNULL are not supported here (NULL is not)")
	}
	if p.peek().kind != tCmp {
		return left, nil
	}
	op := p.next()
	right, err := p.additive(depth)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tCmp {
		return nil, p.errAt(t, "comparisons do not chain: parenthesise one of them")
	}
	code := map[string]byte{"<": '<', ">": '>', "=": '=', "<=": 'l', ">=": 'g', "<>": 'n'}[op.text]
	return &node{kind: nCmp, col: op.col, op: code, args: []*node{left, right}}, nil
}

// additive: multiplicative (('+' | '-') multiplicative)*, left-associative.
func (p *parser) additive(depth int) (*node, error) {
	if err := p.tooDeep(depth); err != nil {
		return nil, err
	}
	left, err := p.multiplicative(depth)
	if err != nil {
		return nil, err
	}
	for k := p.peek().kind; k == tPlus || k == tMinus; k = p.peek().kind {
		op := p.next()
		right, err := p.multiplicative(depth)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nBinary, col: op.col, op: op.text[0], args: []*node{left, right}}
	}
	return left, nil
}

// multiplicative: unary (('*' | '/' | '%') unary)*, left-associative.
func (p *parser) multiplicative(depth int) (*node, error) {
	left, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for k := p.peek().kind; k == tStar || k == tSlash || k == tPercent; k = p.peek().kind {
		op := p.next()
		right, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nBinary, col: op.col, op: op.text[0], args: []*node{left, right}}
	}
	return left, nil
}

// unary: ('-' | '+') unary | primary. Unary operators bind tighter than
// '*' (exprparse.y's %right UNARY), so -a * b is (-a) * b.
func (p *parser) unary(depth int) (*node, error) {
	if err := p.tooDeep(depth); err != nil {
		return nil, err
	}
	switch t := p.peek(); t.kind {
	case tMinus:
		p.next()
		if p.peek().kind == tMaxPlusOne {
			p.next()
			return &node{kind: nInt, col: t.col, i: math.MinInt64}, nil
		}
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &node{kind: nNeg, col: t.col, args: []*node{x}}, nil
	case tPlus:
		p.next()
		return p.unary(depth + 1) // pgbench: '+' expr is expr
	}
	return p.primary(depth)
}

// primary: literal | :variable | name '(' [expr {',' expr}] ')' | '(' expr ')'.
func (p *parser) primary(depth int) (*node, error) {
	t := p.next()
	switch t.kind {
	case tInt:
		return &node{kind: nInt, col: t.col, i: t.i}, nil
	case tDouble:
		return &node{kind: nDouble, col: t.col, f: t.f}, nil
	case tMaxPlusOne:
		return nil, p.errAt(t, "bigint constant overflow: %s (only -%s is a valid bigint)", t.text, t.text)
	case tVar:
		return &node{kind: nVar, col: t.col, name: t.text}, nil
	case tIdent:
		switch {
		case isKeyword(t, "true"), isKeyword(t, "false"):
			v := int64(0)
			if isKeyword(t, "true") {
				v = 1
			}
			return &node{kind: nBool, col: t.col, i: v}, nil
		case isKeyword(t, "null"):
			return nil, p.errAt(t, "NULL is not supported here")
		case isKeyword(t, "case"):
			return nil, p.errAt(t, "CASE is not supported here")
		case isKeyword(t, "and"), isKeyword(t, "or"), isKeyword(t, "not"):
			return nil, p.errAt(t, "expected a number, :variable, function call or \"(\", found %s", t.describe())
		}
		return p.call(t, depth)
	case tLParen:
		x, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, p.errAt(c, "expected \")\" to close the \"(\" at column %d, found %s", t.col, c.describe())
		}
		return x, nil
	}
	return nil, p.errAt(t, "expected a number, :variable, function call or \"(\", found %s", t.describe())
}

// call parses a function call whose name token has been consumed, checking
// the name and the number of arguments as exprparse.y's find_func and
// make_func do.
func (p *parser) call(name token, depth int) (*node, error) {
	fn, ok := lookupFunc(name.text)
	if !ok && p.peek().kind != tLParen {
		return nil, p.errAt(name, "unexpected name %q (a variable is written :%s)", name.text, name.text)
	}
	if !ok {
		lower := strings.ToLower(name.text)
		for _, u := range unsupportedFuncs {
			if u == lower {
				return nil, p.errAt(name, "pgbench function %q is not supported here (supported: %s)", lower, supportedList())
			}
		}
		return nil, p.errAt(name, "unexpected function name %q (supported: %s)", name.text, supportedList())
	}
	if t := p.next(); t.kind != tLParen {
		return nil, p.errAt(t, "expected \"(\" after function name %q, found %s", funcs[fn].name, t.describe())
	}
	n := &node{kind: nCall, col: name.col, fn: fn}
	if p.peek().kind == tRParen {
		p.next()
	} else {
		for {
			a, err := p.or(depth + 1)
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, a)
			t := p.next()
			if t.kind == tRParen {
				break
			}
			if t.kind != tComma {
				return nil, p.errAt(t, "expected \",\" or \")\" in the arguments of %s, found %s", funcs[fn].name, t.describe())
			}
		}
	}
	if err := p.checkArity(name, n); err != nil {
		return nil, err
	}
	return n, nil
}

func (p *parser) checkArity(name token, n *node) error {
	f := funcs[n.fn]
	got := len(n.args)
	switch {
	case got > maxFuncArgs:
		return p.errAt(name, "too many function arguments for %s, maximum is %d", f.name, maxFuncArgs)
	case f.maxArgs < 0 && got < f.minArgs:
		return p.errAt(name, "%s expects at least %d argument(s), got %d", f.name, f.minArgs, got)
	case f.maxArgs >= 0 && (got < f.minArgs || got > f.maxArgs):
		want := fmt.Sprint(f.minArgs)
		if f.maxArgs != f.minArgs {
			want = fmt.Sprintf("%d or %d", f.minArgs, f.maxArgs)
		}
		return p.errAt(name, "%s expects %s arguments, got %d", f.name, want, got)
	}
	return nil
}

func lookupFunc(name string) (funcID, bool) {
	for id, f := range funcs {
		if strings.EqualFold(f.name, name) {
			return funcID(id), true
		}
	}
	return 0, false
}

func supportedList() string {
	names := make([]string, len(funcs))
	for i, f := range funcs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}
