package pgexpr

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Parameter limits from pgbench.c.
const (
	// MinGaussianParam is MIN_GAUSSIAN_PARAM: the smallest threshold
	// random_gaussian accepts (it bounds the rejection loop's cost).
	MinGaussianParam = 2.0
	// MinZipfianParam and MaxZipfianParam are MIN_ZIPFIAN_PARAM and
	// MAX_ZIPFIAN_PARAM (PG12+, commit 26a76cb6): random_zipfian's s range.
	MinZipfianParam = 1.001
	MaxZipfianParam = 1000.0
)

// The draw functions below consume only r.Uint64(), never r.Float64 or
// r.Uint64N: pgbench builds every variate from whole 64-bit words of its
// pg_prng, so using the same words the same way makes the formulas (and, with
// a PgPRNG source, the values) pgbench's.

// uniformOffset is pg_prng_uint64_range(state, 0, span): bitmask rejection.
func uniformOffset(r *rand.Rand, span uint64) uint64 {
	if span == 0 {
		return 0
	}
	shift := uint(bits.LeadingZeros64(span))
	for {
		if v := r.Uint64() >> shift; v <= span {
			return v
		}
	}
}

// drawUniform is pgbench.c getrand: lb + uniform integer in [0, ub-lb].
// Bind guarantees lb <= ub and that ub-lb+1 fits in int64.
func drawUniform(r *rand.Rand, lb, ub int64) int64 {
	return lb + int64(uniformOffset(r, uint64(ub-lb)))
}

// scaleUnit maps x in [0, 1) onto [lb, ub] as pgbench does:
// lb + (int64) ((ub - lb + 1) * x), the product taken in double.
//
// The guard is ours: floating-point rounding can make the product reach
// ub-lb+1 (a gaussian z within half an ulp of the threshold, or a range wider
// than 2^53), where pgbench would return ub+1 (or, past 2^63, convert out of
// range). That happens with probability far below 1e-15 per draw; returning
// ub keeps Gen's bounds a guarantee. Below the guard, f < span <= 2^63, so
// the conversion is exact truncation and the result is at most ub.
func scaleUnit(lb, ub int64, x float64) int64 {
	span := float64(ub - lb + 1) // Bind proved ub-lb+1 fits in int64
	f := span * x
	if !(f < span) {
		return ub
	}
	if f < 0 { // x = -0 or rounding below zero
		return lb
	}
	return lb + int64(f)
}

// drawExponential is pgbench.c getExponentialRand with cut = exp(-p)
// precomputed: u in (0, 1], x = -ln(cut + (1-cut) u) / p in [0, 1).
func drawExponential(r *rand.Rand, lb, ub int64, p, cut float64) int64 {
	u := 1.0 - unitDouble(r.Uint64())
	x := -math.Log(cut+(1.0-cut)*u) / p
	return scaleUnit(lb, ub, x)
}

// drawGaussian is pgbench.c getGaussianRand: draw standard normals by
// pg_prng_double_normal until one lies in [-p, p), then map it linearly.
func drawGaussian(r *rand.Rand, lb, ub int64, p float64) int64 {
	var z float64
	for {
		// Go evaluates call arguments left to right, so u1 is drawn
		// before u2 as in pg_prng_double_normal.
		z = normalFrom(r.Uint64(), r.Uint64())
		if !(z < -p || z >= p) {
			break
		}
	}
	x := (z + p) / (p * 2.0)
	return scaleUnit(lb, ub, x)
}

// zipfConst holds what computeIterativeZipfian derives from s alone.
type zipfConst struct {
	s   float64 // exponent
	b   float64 // 2^(s-1)
	neg float64 // -1 / (s-1)
}

func newZipfConst(s float64) zipfConst {
	return zipfConst{s: s, b: math.Pow(2.0, s-1.0), neg: -1.0 / (s - 1.0)}
}

// drawZipfian is pgbench.c getZipfianRand / computeIterativeZipfian:
// Devroye's rejection method (Non-Uniform Random Variate Generation, 1986,
// pp. 550-551) for P(k) proportional to k^-s on k = 1..n, n = ub-lb+1, then
// lb - 1 + k.
func drawZipfian(r *rand.Rand, lb, ub int64, z zipfConst) int64 {
	n := ub - lb + 1
	if n <= 1 {
		return lb
	}
	fn := float64(n)
	for {
		u := unitDouble(r.Uint64())
		v := unitDouble(r.Uint64())
		x := math.Floor(math.Pow(u, z.neg))
		t := math.Pow(1.0+1.0/x, z.s-1.0)
		// Reject if too large or out of bound (u = 0 gives x = +Inf and a
		// NaN test, which rejects, as in C).
		if v*x*(t-1.0)/(z.b-1.0) <= t/z.b && x <= fn {
			k := lb - 1 + int64(x)
			if k > ub { // only reachable through rounding when n > 2^53
				return ub
			}
			return k
		}
	}
}
