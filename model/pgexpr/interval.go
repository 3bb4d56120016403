package pgexpr

import "math"

// Checked int64 arithmetic, the pg_add_s64_overflow family pgbench uses.

func addOK(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func subOK(a, b int64) (int64, bool) {
	c := a - b
	return c, (c < a) == (b > 0)
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if (c < 0) != ((a < 0) != (b < 0)) {
		return c, false
	}
	return c, c/b == a
}

// divInt and modInt are pgbench's integer / and % once the divisor is known
// to be non-zero: a divisor of -1 is special-cased (to avoid the INT64_MIN / -1
// trap), and C's truncating semantics equal Go's.
func divInt(a, b int64) int64 {
	if b == -1 {
		return -a // Bind rejects a == INT64_MIN ("bigint div out of range")
	}
	return a / b
}

func modInt(a, b int64) int64 {
	if b == -1 {
		return 0
	}
	return a % b
}

// rint is C's rint() in the default rounding mode: round half to even, the
// conversion pgbench's coerceToInt applies to doubles.
func rint(f float64) float64 { return math.RoundToEven(f) }

// fitsInt64 is FLOAT8_FITS_IN_INT64 applied after rint: [-2^63, 2^63).
func fitsInt64(f float64) bool {
	return f >= -0x1p63 && f < 0x1p63
}

// minMax4 returns the smallest and largest of four values.
func minMax4(a, b, c, d int64) (int64, int64) {
	return min(a, b, c, d), max(a, b, c, d)
}

// fInterval is the set of values a double expression can take: [lo, hi],
// plus NaN when nan is set (the bounds are then -Inf, +Inf). The arithmetic
// below is conservative: it may widen, never narrow, because IEEE rounding is
// monotone and each operation's extremes lie at the corners.
type fInterval struct {
	lo, hi float64
	nan    bool
}

var fAll = fInterval{lo: math.Inf(-1), hi: math.Inf(1), nan: true}

func fPoint(f float64) fInterval {
	if math.IsNaN(f) {
		return fAll
	}
	return fInterval{lo: f, hi: f}
}

func (a fInterval) contains(x float64) bool { return a.lo <= x && x <= a.hi }

// fromCorners builds an interval from candidate extreme values, turning any
// NaN among them into "may be NaN".
func fromCorners(nan bool, vs ...float64) fInterval {
	r := fInterval{lo: math.Inf(1), hi: math.Inf(-1), nan: nan}
	for _, v := range vs {
		if math.IsNaN(v) {
			return fAll
		}
		r.lo = min(r.lo, v)
		r.hi = max(r.hi, v)
	}
	if r.nan {
		return fAll
	}
	return r
}

func fAdd(a, b fInterval) fInterval {
	// Inf + -Inf is NaN even when neither bound sum is.
	nan := a.nan || b.nan ||
		(math.IsInf(a.hi, 1) && math.IsInf(b.lo, -1)) ||
		(math.IsInf(a.lo, -1) && math.IsInf(b.hi, 1))
	return fromCorners(nan, a.lo+b.lo, a.hi+b.hi)
}

func fNeg(a fInterval) fInterval {
	if a.nan {
		return fAll
	}
	// pgbench's unary minus is 0 - x.
	return fInterval{lo: 0 - a.hi, hi: 0 - a.lo}
}

func fSub(a, b fInterval) fInterval { return fAdd(a, fNeg(b)) }

func fMul(a, b fInterval) fInterval {
	// 0 * Inf is NaN.
	nan := a.nan || b.nan ||
		(a.contains(0) && (math.IsInf(b.lo, 0) || math.IsInf(b.hi, 0))) ||
		(b.contains(0) && (math.IsInf(a.lo, 0) || math.IsInf(a.hi, 0)))
	return fromCorners(nan, a.lo*b.lo, a.lo*b.hi, a.hi*b.lo, a.hi*b.hi)
}

func fDiv(a, b fInterval) fInterval {
	if a.nan || b.nan || b.contains(0) {
		// x / 0 is ±Inf or NaN: pgbench does not check double division.
		return fAll
	}
	nan := (math.IsInf(a.lo, 0) || math.IsInf(a.hi, 0)) && (math.IsInf(b.lo, 0) || math.IsInf(b.hi, 0))
	return fromCorners(nan, a.lo/b.lo, a.lo/b.hi, a.hi/b.lo, a.hi/b.hi)
}

func fAbs(a fInterval) fInterval {
	switch {
	case a.nan:
		return fAll
	case a.lo >= 0:
		return a
	case a.hi <= 0:
		return fInterval{lo: -a.hi, hi: -a.lo}
	}
	return fInterval{lo: 0, hi: max(-a.lo, a.hi)}
}
