package pgexpr

import (
	"fmt"
	"slices"
	"strings"
)

// Bind resolves :variables from vars, folds constant sub-expressions and
// proves that evaluation cannot fail, so that Gen.Next needs no error path.
//
// It checks what pgbench checks when it evaluates (evalStandardFunc): random
// ranges ("empty range given to random", lb <= ub; "random range is too
// large"), random_gaussian's threshold >= 2.0 (MIN_GAUSSIAN_PARAM),
// random_exponential's threshold > 0, random_zipfian's s in [1.001, 1000],
// permute's size > 0, division by zero, bigint overflow and double-to-int
// overflow, with pgbench's messages. Where an operand is itself random, Bind
// works on the interval of values it can take, so an expression is refused if
// the failure is possible for some draw (pgbench would abort that client when
// the draw happens). The checks are conservative: they treat the operands of
// an operator as independent.
//
// permuteSeed is the seed permute() uses when called with two arguments
// (pgbench passes :default_seed, which it draws from its --random-seed).
//
// The expression's value must be an integer (it is a key); a double-valued
// expression is refused with a hint to wrap it in int().
func (e *Expr) Bind(vars map[string]int64, permuteSeed int64) (*Gen, error) {
	return e.BindSlots(vars, nil, permuteSeed)
}

// Slot is a script variable whose value is known only when the script runs
// (an earlier \set of the same script): NextVars reads it from vs[Index].
// Lo and Hi bound the values it can hold (the earlier expression's Bounds),
// so that Bind's proofs hold for every value.
type Slot struct {
	Index  int
	Lo, Hi int64
}

// BindSlots is Bind with variables that are set while the script runs: a
// name in slots refers to that slot, a name in vars is the constant.
func (e *Expr) BindSlots(vars map[string]int64, slots map[string]Slot, permuteSeed int64) (*Gen, error) {
	b := &binder{src: e.src, vars: vars, slots: slots, permuteSeed: permuteSeed}
	root, err := b.bind(e.root, 0)
	if err != nil {
		return nil, err
	}
	if root.typ == tyBool {
		return nil, &Error{Expr: e.src, Msg: fmt.Sprintf(
			"the expression %s is a condition, but a key must be an integer", root)}
	}
	if root.typ != tyInt {
		return nil, &Error{Expr: e.src, Msg: fmt.Sprintf(
			"the expression %s yields a double, but a key must be an integer: wrap it in int(...)", root)}
	}
	return newGen(root), nil
}

// BindCond binds the condition of a script's \if or \elif: any
// expression, true when its value is (pgbench's valueTruth: a non-zero
// number, or a true boolean). Gen.NextBool evaluates it.
func (e *Expr) BindCond(vars map[string]int64, slots map[string]Slot, permuteSeed int64) (*Gen, error) {
	b := &binder{src: e.src, vars: vars, slots: slots, permuteSeed: permuteSeed}
	root, err := b.bind(e.root, 0)
	if err != nil {
		return nil, err
	}
	g := &Gen{tree: root}
	g.root = g.compileAs(root, tyBool)
	return g, nil
}

type binder struct {
	src         string
	vars        map[string]int64
	slots       map[string]Slot
	permuteSeed int64
}

func (b *binder) errf(n *node, format string, args ...any) error {
	return &Error{Expr: b.src, Col: n.col, Msg: fmt.Sprintf(format, args...)}
}

func intNode(n *node, v int64) *node {
	return &node{kind: nInt, col: n.col, i: v, typ: tyInt, ilo: v, ihi: v}
}

// isConst reports whether a bound node is a literal.
func isConst(n *node) bool { return n.kind == nInt || n.kind == nDouble }

// bind returns a new, folded and analysed copy of n.
func (b *binder) bind(n *node, depth int) (*node, error) {
	if depth > 4*maxDepth { // cannot happen for parsed trees; keeps recursion bounded
		return nil, b.errf(n, "expression nested too deeply")
	}
	switch n.kind {
	case nInt:
		return intNode(n, n.i), nil
	case nDouble:
		return doubleNode(n, n.f), nil
	case nBool:
		return boolNode(n, n.i != 0), nil
	case nVar:
		if sl, ok := b.slots[n.name]; ok {
			// Not a constant: it is never folded (draws), and its
			// interval is the one the slot's expression can yield.
			return &node{kind: nSlot, col: n.col, name: n.name, i: int64(sl.Index), typ: tyInt, ilo: sl.Lo, ihi: sl.Hi, draws: true}, nil
		}
		v, ok := b.vars[n.name]
		if !ok {
			return nil, b.errf(n, "undefined variable %q (defined: %s)", n.name, b.varList())
		}
		return intNode(n, v), nil
	}
	out := &node{kind: n.kind, col: n.col, op: n.op, fn: n.fn, args: make([]*node, len(n.args))}
	for i, a := range n.args {
		ba, err := b.bind(a, depth+1)
		if err != nil {
			return nil, err
		}
		out.args[i] = ba
		out.draws = out.draws || ba.draws
	}
	var err error
	switch n.kind {
	case nNeg, nBinary, nCall, nCmp:
		// pgbench's coerceToInt and coerceToDouble refuse booleans.
		for _, a := range out.args {
			if a.typ == tyBool {
				return nil, b.errf(a, "cannot coerce boolean to a number (a comparison, AND, OR, NOT, TRUE or FALSE is a condition, not a value)")
			}
		}
	}
	switch n.kind {
	case nCmp, nAnd, nOr, nNot:
		out.typ = tyBool
	case nNeg:
		err = b.neg(out)
	case nBinary:
		err = b.binary(out)
	case nCall:
		err = b.call(out)
	}
	if err != nil {
		return nil, err
	}
	if !out.draws {
		return foldConst(out), nil
	}
	return out, nil
}

func boolNode(n *node, v bool) *node {
	out := &node{kind: nBool, col: n.col, typ: tyBool}
	if v {
		out.i = 1
	}
	return out
}

func doubleNode(n *node, f float64) *node {
	iv := fPoint(f)
	return &node{kind: nDouble, col: n.col, f: f, typ: tyDouble, flo: iv.lo, fhi: iv.hi, fnan: iv.nan}
}

func (b *binder) varList() string {
	names := make([]string, 0, len(b.vars)+len(b.slots))
	for k := range b.vars {
		names = append(names, k)
	}
	for k := range b.slots {
		if _, dup := b.vars[k]; !dup {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names) // map order must not leak into messages
	return strings.Join(names, ", ")
}

// fRange returns the interval of a bound node as a double, coercing ints
// the way pgbench's coerceToDouble does.
func fRange(n *node) fInterval {
	if n.typ == tyDouble {
		return fInterval{lo: n.flo, hi: n.fhi, nan: n.fnan}
	}
	return fInterval{lo: float64(n.ilo), hi: float64(n.ihi)}
}

func setF(n *node, iv fInterval) {
	n.typ, n.flo, n.fhi, n.fnan = tyDouble, iv.lo, iv.hi, iv.nan
}

func setI(n *node, lo, hi int64) {
	n.typ, n.ilo, n.ihi = tyInt, lo, hi
}

// iRange returns the interval of a bound node as an integer, applying
// pgbench's coerceToInt (rint, then "double to int overflow" unless the
// result fits in int64).
func (b *binder) iRange(n *node) (int64, int64, error) {
	if n.typ == tyInt {
		return n.ilo, n.ihi, nil
	}
	lo, hi := rint(n.flo), rint(n.fhi)
	if n.fnan || !fitsInt64(lo) || !fitsInt64(hi) {
		if isConst(n) {
			return 0, 0, b.errf(n, "double to int overflow for %f", n.f)
		}
		return 0, 0, b.errf(n, "double to int overflow possible: %s can take values outside the bigint range%s",
			n, describeF(n))
	}
	return int64(lo), int64(hi), nil
}

func describeF(n *node) string {
	if n.fnan {
		return " (or NaN)"
	}
	return fmt.Sprintf(" (it ranges over [%g, %g])", n.flo, n.fhi)
}

// someDraws words the suffix of an error that only some draws would trigger.
func someDraws(ns ...*node) string {
	var parts []string
	for _, n := range ns {
		if isConst(n) {
			continue
		}
		if n.typ == tyInt {
			parts = append(parts, fmt.Sprintf("%s ranges over [%d, %d]", n, n.ilo, n.ihi))
		} else {
			parts = append(parts, fmt.Sprintf("%s ranges over [%g, %g]", n, n.flo, n.fhi))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " for some draws (" + strings.Join(parts, "; ") + ")"
}

// foldConst evaluates a node whose operands are all constants, with the same
// code Gen.Next runs, and returns the literal.
func foldConst(n *node) *node {
	g := newGen(n)
	if n.typ == tyBool {
		return boolNode(n, g.evalB(g.root, nil, nil))
	}
	if n.typ == tyInt {
		return intNode(n, g.evalI(g.root, nil, nil))
	}
	return doubleNode(n, g.evalD(g.root, nil, nil))
}
