package pgexpr

import "math"

// This file holds Bind's per-operator and per-function checks. Each receives
// a node whose operands are already bound, sets the node's type and value
// interval (pgbench's typing rules), and returns pgbench's error where
// evaluation could fail.

// neg is pgbench's unary minus, evaluated as 0 - x.
func (b *binder) neg(n *node) error {
	x := n.args[0]
	if x.typ == tyDouble {
		setF(n, fNeg(fRange(x)))
		return nil
	}
	if x.ilo == math.MinInt64 {
		return b.errf(n, "bigint sub out of range%s", someDraws(x))
	}
	setI(n, -x.ihi, -x.ilo)
	return nil
}

// binary types and checks + - * / %.
func (b *binder) binary(n *node) error {
	l, r := n.args[0], n.args[1]
	if n.op != '%' && (l.typ == tyDouble || r.typ == tyDouble) {
		// pgbench: "overloaded type management, double if some double".
		a, c := fRange(l), fRange(r)
		switch n.op {
		case '+':
			setF(n, fAdd(a, c))
		case '-':
			setF(n, fSub(a, c))
		case '*':
			setF(n, fMul(a, c))
		case '/':
			setF(n, fDiv(a, c))
		}
		return nil
	}
	llo, lhi, err := b.iRange(l)
	if err != nil {
		return err
	}
	rlo, rhi, err := b.iRange(r)
	if err != nil {
		return err
	}
	switch n.op {
	case '+':
		lo, ok1 := addOK(llo, rlo)
		hi, ok2 := addOK(lhi, rhi)
		if !ok1 || !ok2 {
			return b.errf(n, "bigint add out of range%s", someDraws(l, r))
		}
		setI(n, lo, hi)
	case '-':
		lo, ok1 := subOK(llo, rhi)
		hi, ok2 := subOK(lhi, rlo)
		if !ok1 || !ok2 {
			return b.errf(n, "bigint sub out of range%s", someDraws(l, r))
		}
		setI(n, lo, hi)
	case '*':
		c1, ok1 := mulOK(llo, rlo)
		c2, ok2 := mulOK(llo, rhi)
		c3, ok3 := mulOK(lhi, rlo)
		c4, ok4 := mulOK(lhi, rhi)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return b.errf(n, "bigint mul out of range%s", someDraws(l, r))
		}
		setI(n, min(c1, c2, c3, c4), max(c1, c2, c3, c4))
	case '/', '%':
		if rlo <= 0 && 0 <= rhi {
			return b.errf(n, "division by zero%s", someDraws(r))
		}
		if n.op == '%' {
			lo, hi := modBounds(llo, lhi, rlo, rhi)
			setI(n, lo, hi)
			return nil
		}
		if llo == math.MinInt64 && rlo <= -1 && -1 <= rhi {
			return b.errf(n, "bigint div out of range%s", someDraws(l, r))
		}
		// Truncating division is monotone in each operand while the
		// divisor keeps one sign, so the extremes are at the corners.
		lo, hi := minMax4(divInt(llo, rlo), divInt(llo, rhi), divInt(lhi, rlo), divInt(lhi, rhi))
		setI(n, lo, hi)
	}
	return nil
}

// modBounds bounds a % b for a in [alo, ahi] and a non-zero divisor in
// [blo, bhi]: the result has the sign of a and a magnitude below |b|.
func modBounds(alo, ahi, blo, bhi int64) (int64, int64) {
	absMax := max(absU(blo), absU(bhi)) - 1 // |a % b| <= |b| - 1
	lim := int64(min(absMax, math.MaxInt64))
	lo, hi := int64(0), int64(0)
	if alo < 0 {
		lo = max(alo, -lim)
	}
	if ahi > 0 {
		hi = min(ahi, lim)
	}
	return lo, hi
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// call types and checks a function call.
func (b *binder) call(n *node) error {
	switch n.fn {
	case fnAbs:
		x := n.args[0]
		if x.typ == tyDouble {
			setF(n, fAbs(fRange(x)))
			return nil
		}
		if x.ilo == math.MinInt64 {
			return b.errf(n, "bigint abs out of range%s", someDraws(x))
		}
		switch {
		case x.ilo >= 0:
			setI(n, x.ilo, x.ihi)
		case x.ihi <= 0:
			setI(n, -x.ihi, -x.ilo)
		default:
			setI(n, 0, max(-x.ilo, x.ihi))
		}
	case fnLeast, fnGreatest:
		return b.extremum(n)
	case fnInt:
		lo, hi, err := b.iRange(n.args[0])
		if err != nil {
			return err
		}
		setI(n, lo, hi)
	case fnDouble:
		setF(n, fRange(n.args[0]))
	case fnPermute:
		return b.permute(n)
	default:
		return b.random(n)
	}
	return nil
}

// extremum types least/greatest as pgbench does: double if any argument is.
func (b *binder) extremum(n *node) error {
	double := false
	for _, a := range n.args {
		double = double || a.typ == tyDouble
	}
	pick := func(x, y float64) float64 { return min(x, y) }
	if n.fn == fnGreatest {
		pick = func(x, y float64) float64 { return max(x, y) }
	}
	if double {
		iv := fRange(n.args[0])
		for _, a := range n.args[1:] {
			ai := fRange(a)
			iv = fInterval{lo: pick(iv.lo, ai.lo), hi: pick(iv.hi, ai.hi), nan: iv.nan || ai.nan}
		}
		if iv.nan {
			iv = fAll
		}
		setF(n, iv)
		return nil
	}
	lo, hi := n.args[0].ilo, n.args[0].ihi
	for _, a := range n.args[1:] {
		if n.fn == fnLeast {
			lo, hi = min(lo, a.ilo), min(hi, a.ihi)
		} else {
			lo, hi = max(lo, a.ilo), max(hi, a.ihi)
		}
	}
	setI(n, lo, hi)
	return nil
}

// permute completes the two-argument form with the default seed and checks
// the size as evalStandardFunc does.
func (b *binder) permute(n *node) error {
	if len(n.args) == 2 {
		// exprparse.y appends the :default_seed variable.
		n.args = append(n.args, intNode(n, b.permuteSeed))
	}
	for _, a := range []*node{n.args[0], n.args[2]} {
		if _, _, err := b.iRange(a); err != nil {
			return err
		}
	}
	size := n.args[1]
	slo, shi, err := b.iRange(size)
	if err != nil {
		return err
	}
	if slo <= 0 {
		return b.errf(n, "permute size parameter must be greater than zero%s", someDraws(size))
	}
	setI(n, 0, shi-1)
	return nil
}

// random checks the arguments of random, random_gaussian,
// random_exponential and random_zipfian as evalStandardFunc does.
func (b *binder) random(n *node) error {
	name := funcs[n.fn].name
	lb, ub := n.args[0], n.args[1]
	llo, lhi, err := b.iRange(lb)
	if err != nil {
		return err
	}
	ulo, uhi, err := b.iRange(ub)
	if err != nil {
		return err
	}
	if lhi > ulo {
		return b.errf(n, "empty range given to %s%s", name, someDraws(lb, ub))
	}
	if d, ok := subOK(uhi, llo); !ok || d == math.MaxInt64 {
		return b.errf(n, "random range is too large%s", someDraws(lb, ub))
	}
	if n.fn != fnRandom {
		if err := b.param(n); err != nil {
			return err
		}
	}
	setI(n, llo, uhi)
	n.draws = true
	return nil
}

// param checks the shape parameter (third argument) of a non-uniform random
// function against pgbench's range.
func (b *binder) param(n *node) error {
	pn := n.args[2]
	p := fRange(pn)
	show := func() float64 { // the value pgbench would print after "(not "
		if isConst(pn) {
			return p.lo
		}
		if p.nan {
			return math.NaN()
		}
		return p.lo
	}
	switch n.fn {
	case fnGaussian:
		if p.nan || p.lo < MinGaussianParam {
			return b.errf(n, "gaussian parameter must be at least %f (not %f)%s", MinGaussianParam, show(), someDraws(pn))
		}
		if math.IsInf(p.hi, 1) {
			// pgbench would compute (z + Inf) / Inf = NaN and convert it.
			return b.errf(n, "gaussian parameter must be finite%s", someDraws(pn))
		}
	case fnExponential:
		if p.nan || p.lo <= 0 {
			return b.errf(n, "exponential parameter must be greater than zero (not %f)%s", show(), someDraws(pn))
		}
	case fnZipfian:
		if p.nan || p.lo < MinZipfianParam || p.hi > MaxZipfianParam {
			v := show()
			if !isConst(pn) && !p.nan && p.lo >= MinZipfianParam {
				v = p.hi
			}
			return b.errf(n, "zipfian parameter must be in range [%.3f, %.0f] (not %f)%s",
				MinZipfianParam, MaxZipfianParam, v, someDraws(pn))
		}
	}
	return nil
}
