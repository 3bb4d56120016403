package pgexpr

import "math"

// Gen is a bound expression ready to draw keys. It is immutable after Bind,
// so one Gen may serve many clients (each passing its own *rand.Rand) and
// many goroutines.
type Gen struct {
	nodes []cnode // flat program; children before parents
	root  int32
	tree  *node // folded tree, for String, Range and HeaderLines
}

type opcode uint8

const (
	opConstI opcode = iota
	opConstD
	opItoD // coerceToDouble
	opDtoI // coerceToInt: rint
	opNegI
	opNegD
	opAddI
	opSubI
	opMulI
	opDivI
	opModI
	opAddD
	opSubD
	opMulD
	opDivD
	opAbsI
	opAbsD
	opLeastI
	opGreatestI
	opLeastD
	opGreatestD
	opRandom
	opExponential
	opGaussian
	opZipfian
	opPermute
	opSlot // vs[i]: a script variable (NextVars)
	// Conditions (evalB); a comparison's operator is in i.
	opConstB
	opCmpI
	opCmpD
	opAnd
	opOr
	opNot
	opTruthI // an int as a condition: non-zero
	opTruthD // a double as a condition: non-zero
)

// cnode is one instruction. a, b, c index the operands in Gen.nodes; args
// holds least/greatest operands. For random functions and permute whose
// range/shape operands are constants, the constants (and what pgbench derives
// from them on every call) are stored here so Next skips that work.
type cnode struct {
	op      opcode
	a, b, c int32
	args    []int32
	i       int64   // opConstI
	f       float64 // opConstD

	constRange bool  // lb and ub are constants ...
	lb, ub     int64 // ... with these values
	constParam bool  // the shape parameter is a constant ...
	p          float64
	cut        float64      // exp(-p) for random_exponential
	zipf       zipfConst    // for random_zipfian
	perm       *permutation // permute with constant size and seed
}

// binaryOps maps an operator to its int and double instructions ('%' is
// integer-only in pgbench: its operands are coerced to int).
var binaryOps = map[byte][2]opcode{
	'+': {opAddI, opAddD}, '-': {opSubI, opSubD}, '*': {opMulI, opMulD},
	'/': {opDivI, opDivD}, '%': {opModI, opModI},
}

// newGen compiles a bound tree.
func newGen(root *node) *Gen {
	g := &Gen{tree: root}
	g.root = g.compile(root)
	return g
}

func (g *Gen) emit(c cnode) int32 {
	g.nodes = append(g.nodes, c)
	return int32(len(g.nodes) - 1)
}

// compileAs compiles n and converts it to type t, inserting the coercion
// pgbench applies implicitly.
func (g *Gen) compileAs(n *node, t valType) int32 {
	i := g.compile(n)
	switch {
	case n.typ == t:
		return i
	case t == tyBool && n.typ == tyInt:
		return g.emit(cnode{op: opTruthI, a: i})
	case t == tyBool:
		return g.emit(cnode{op: opTruthD, a: i})
	case t == tyDouble:
		return g.emit(cnode{op: opItoD, a: i})
	default:
		return g.emit(cnode{op: opDtoI, a: i})
	}
}

func (g *Gen) compile(n *node) int32 {
	switch n.kind {
	case nInt:
		return g.emit(cnode{op: opConstI, i: n.i})
	case nDouble:
		return g.emit(cnode{op: opConstD, f: n.f})
	case nSlot:
		return g.emit(cnode{op: opSlot, i: n.i})
	case nBool:
		return g.emit(cnode{op: opConstB, i: n.i})
	case nCmp:
		// pgbench compares two ints as ints, anything else as doubles.
		if n.args[0].typ == tyInt && n.args[1].typ == tyInt {
			return g.emit(cnode{op: opCmpI, i: int64(n.op), a: g.compile(n.args[0]), b: g.compile(n.args[1])})
		}
		return g.emit(cnode{op: opCmpD, i: int64(n.op), a: g.compileAs(n.args[0], tyDouble), b: g.compileAs(n.args[1], tyDouble)})
	case nAnd, nOr:
		op := opAnd
		if n.kind == nOr {
			op = opOr
		}
		return g.emit(cnode{op: op, a: g.compileAs(n.args[0], tyBool), b: g.compileAs(n.args[1], tyBool)})
	case nNot:
		return g.emit(cnode{op: opNot, a: g.compileAs(n.args[0], tyBool)})
	case nNeg:
		if n.typ == tyInt {
			return g.emit(cnode{op: opNegI, a: g.compile(n.args[0])})
		}
		return g.emit(cnode{op: opNegD, a: g.compile(n.args[0])})
	case nBinary:
		a, b := g.compileAs(n.args[0], n.typ), g.compileAs(n.args[1], n.typ)
		return g.emit(cnode{op: binaryOps[n.op][n.typ], a: a, b: b})
	}
	// nCall
	switch n.fn {
	case fnAbs:
		op := opAbsI
		if n.typ == tyDouble {
			op = opAbsD
		}
		return g.emit(cnode{op: op, a: g.compile(n.args[0])})
	case fnLeast, fnGreatest:
		c := cnode{op: opLeastI}
		switch {
		case n.fn == fnLeast && n.typ == tyDouble:
			c.op = opLeastD
		case n.fn == fnGreatest && n.typ == tyInt:
			c.op = opGreatestI
		case n.fn == fnGreatest:
			c.op = opGreatestD
		}
		for _, a := range n.args {
			c.args = append(c.args, g.compileAs(a, n.typ))
		}
		return g.emit(c)
	case fnInt:
		return g.compileAs(n.args[0], tyInt)
	case fnDouble:
		return g.compileAs(n.args[0], tyDouble)
	case fnPermute:
		c := cnode{op: opPermute,
			a: g.compileAs(n.args[0], tyInt),
			b: g.compileAs(n.args[1], tyInt),
			c: g.compileAs(n.args[2], tyInt)}
		if size, seed := g.nodes[c.b], g.nodes[c.c]; size.op == opConstI && seed.op == opConstI {
			p := newPermutation(size.i, seed.i)
			c.perm = &p
		}
		return g.emit(c)
	}
	// random functions
	c := cnode{a: g.compileAs(n.args[0], tyInt), b: g.compileAs(n.args[1], tyInt)}
	if lb, ub := g.nodes[c.a], g.nodes[c.b]; lb.op == opConstI && ub.op == opConstI {
		c.constRange, c.lb, c.ub = true, lb.i, ub.i
	}
	switch n.fn {
	case fnRandom:
		c.op = opRandom
		return g.emit(c)
	case fnGaussian:
		c.op = opGaussian
	case fnExponential:
		c.op = opExponential
	case fnZipfian:
		c.op = opZipfian
	}
	c.c = g.compileAs(n.args[2], tyDouble)
	if pn := g.nodes[c.c]; pn.op == opConstD {
		c.constParam, c.p = true, pn.f
		c.cut = math.Exp(-c.p)
		c.zipf = newZipfConst(c.p)
	}
	return g.emit(c)
}
