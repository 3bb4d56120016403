package pgexpr

import (
	"math"
	"math/rand/v2"
)

// Next evaluates the expression, drawing from r as pgbench draws from the
// client's random state. It does not allocate and cannot fail: Bind has
// proven every operation valid for every possible draw. r may be nil only
// for an expression that draws nothing.
func (g *Gen) Next(r *rand.Rand) int64 { return g.NextVars(r, nil) }

// NextVars is Next for an expression bound with slots (BindSlots): vs holds
// the current values of the script's variables, indexed by Slot.Index.
func (g *Gen) NextVars(r *rand.Rand, vs []int64) int64 {
	// Fast path for the commonest key expression, random(lb, ub) with
	// constant bounds: skip the interpreter's dispatch.
	if n := &g.nodes[g.root]; n.op == opRandom && n.constRange {
		return drawUniform(r, n.lb, n.ub)
	}
	return g.evalI(g.root, r, vs)
}

func (g *Gen) evalI(i int32, r *rand.Rand, vs []int64) int64 {
	n := &g.nodes[i]
	switch n.op {
	case opConstI:
		return n.i
	case opSlot:
		return vs[n.i]
	case opRandom:
		if n.constRange {
			return drawUniform(r, n.lb, n.ub)
		}
		lb, ub := g.evalI(n.a, r, vs), g.evalI(n.b, r, vs)
		return drawUniform(r, lb, ub)
	case opGaussian, opExponential, opZipfian:
		return g.evalRandom(n, r, vs)
	case opPermute:
		v := g.evalI(n.a, r, vs)
		if n.perm != nil {
			return n.perm.apply(v)
		}
		size, seed := g.evalI(n.b, r, vs), g.evalI(n.c, r, vs)
		p := newPermutation(size, seed)
		return p.apply(v)
	case opDtoI:
		return int64(rint(g.evalD(n.a, r, vs)))
	case opNegI:
		return 0 - g.evalI(n.a, r, vs)
	case opAddI:
		return g.evalI(n.a, r, vs) + g.evalI(n.b, r, vs)
	case opSubI:
		return g.evalI(n.a, r, vs) - g.evalI(n.b, r, vs)
	case opMulI:
		return g.evalI(n.a, r, vs) * g.evalI(n.b, r, vs)
	case opDivI:
		a, b := g.evalI(n.a, r, vs), g.evalI(n.b, r, vs)
		return divInt(a, b)
	case opModI:
		a, b := g.evalI(n.a, r, vs), g.evalI(n.b, r, vs)
		return modInt(a, b)
	case opAbsI:
		if v := g.evalI(n.a, r, vs); v < 0 {
			return -v
		} else {
			return v
		}
	case opLeastI, opGreatestI:
		// Evaluate every operand (pgbench does, and their draws count).
		m := g.evalI(n.args[0], r, vs)
		for _, a := range n.args[1:] {
			v := g.evalI(a, r, vs)
			if n.op == opLeastI && v < m || n.op == opGreatestI && v > m {
				m = v
			}
		}
		return m
	}
	panic("pgexpr: internal error: evalI on a double node") // unreachable: types are static
}

// evalRandom draws a random_gaussian, random_exponential or random_zipfian
// value, evaluating non-constant operands first (in pgbench's order: lb, ub,
// parameter).
func (g *Gen) evalRandom(n *cnode, r *rand.Rand, vs []int64) int64 {
	lb, ub := n.lb, n.ub
	if !n.constRange {
		lb, ub = g.evalI(n.a, r, vs), g.evalI(n.b, r, vs)
	}
	p, cut, zipf := n.p, n.cut, n.zipf
	if !n.constParam {
		p = g.evalD(n.c, r, vs)
		switch n.op {
		case opExponential:
			cut = math.Exp(-p)
		case opZipfian:
			zipf = newZipfConst(p)
		}
	}
	switch n.op {
	case opGaussian:
		return drawGaussian(r, lb, ub, p)
	case opExponential:
		return drawExponential(r, lb, ub, p, cut)
	}
	return drawZipfian(r, lb, ub, zipf)
}

func (g *Gen) evalD(i int32, r *rand.Rand, vs []int64) float64 {
	n := &g.nodes[i]
	switch n.op {
	case opConstD:
		return n.f
	case opItoD:
		return float64(g.evalI(n.a, r, vs))
	case opNegD:
		return 0 - g.evalD(n.a, r, vs)
	case opAddD:
		return g.evalD(n.a, r, vs) + g.evalD(n.b, r, vs)
	case opSubD:
		return g.evalD(n.a, r, vs) - g.evalD(n.b, r, vs)
	case opMulD:
		return g.evalD(n.a, r, vs) * g.evalD(n.b, r, vs)
	case opDivD:
		return g.evalD(n.a, r, vs) / g.evalD(n.b, r, vs)
	case opAbsD:
		if v := g.evalD(n.a, r, vs); v < 0 {
			return -v
		} else {
			return v
		}
	case opLeastD, opGreatestD:
		m := g.evalD(n.args[0], r, vs)
		for _, a := range n.args[1:] {
			v := g.evalD(a, r, vs)
			// pgbench's Min/Max macros: ((x) < (y) ? (x) : (y)).
			if n.op == opLeastD && !(m < v) || n.op == opGreatestD && !(m > v) {
				m = v
			}
		}
		return m
	}
	panic("pgexpr: internal error: evalD on an int node") // unreachable: types are static
}

// NextBool evaluates a condition bound by BindCond.
func (g *Gen) NextBool(r *rand.Rand, vs []int64) bool { return g.evalB(g.root, r, vs) }

// evalB evaluates a condition. AND and OR are lazy, as pgbench's
// evalLazyFunc: the right operand (and its draws) only when needed.
func (g *Gen) evalB(i int32, r *rand.Rand, vs []int64) bool {
	n := &g.nodes[i]
	switch n.op {
	case opConstB:
		return n.i != 0
	case opCmpI:
		return compare(byte(n.i), g.evalI(n.a, r, vs), g.evalI(n.b, r, vs))
	case opCmpD:
		return compare(byte(n.i), g.evalD(n.a, r, vs), g.evalD(n.b, r, vs))
	case opAnd:
		return g.evalB(n.a, r, vs) && g.evalB(n.b, r, vs)
	case opOr:
		return g.evalB(n.a, r, vs) || g.evalB(n.b, r, vs)
	case opNot:
		return !g.evalB(n.a, r, vs)
	case opTruthI:
		return g.evalI(n.a, r, vs) != 0
	case opTruthD:
		return g.evalD(n.a, r, vs) != 0
	}
	panic("pgexpr: internal error: evalB on a number node") // unreachable: types are static
}

// compare applies a comparison operator (C's, as pgbench's: NaN compares
// false except with <>).
func compare[T int64 | float64](op byte, a, b T) bool {
	switch op {
	case '<':
		return a < b
	case '>':
		return a > b
	case '=':
		return a == b
	case 'l':
		return a <= b
	case 'g':
		return a >= b
	}
	return a != b
}
