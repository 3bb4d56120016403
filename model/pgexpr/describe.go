package pgexpr

import (
	"fmt"
	"math"
)

// String returns the bound expression in canonical form, after variable
// substitution and constant folding, e.g. "random_gaussian(1, 500000000, 5)".
// A two-argument permute is shown with its seed made explicit, so the string
// alone reproduces the generator.
func (g *Gen) String() string { return g.tree.String() }

// Bounds returns the smallest and largest values Next can return, as proven
// by Bind's analysis (exact for a single random function, possibly wider than
// the true support for compound expressions).
func (g *Gen) Bounds() (lo, hi int64) { return g.tree.ilo, g.tree.ihi }

// outerRandom returns the random function nearest the root (breadth-first,
// leftmost first), or nil if the expression draws nothing.
func (g *Gen) outerRandom() *node {
	queue := []*node{g.tree}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.kind == nCall && isRandomFunc(n.fn) {
			return n
		}
		queue = append(queue, n.args...)
	}
	return nil
}

// Range returns the [lb, ub] arguments of the outermost random function
// (random, random_gaussian, random_exponential or random_zipfian) when they
// are constants after binding; ok is false otherwise. For
// "permute(random_zipfian(1, :n, 1.2), :n)" it is (1, n): the key range the
// distribution is defined on. Bounds gives the range of the final value.
func (g *Gen) Range() (lo, hi int64, ok bool) {
	n := g.outerRandom()
	if n == nil || !isConst(n.args[0]) || !isConst(n.args[1]) {
		return 0, 0, false
	}
	// Constant bounds: Bind's coerced interval is the value itself (a
	// double bound such as 10.5 is rint-ed, as pgbench's coerceToInt does).
	return n.ilo, n.ihi, true
}

// topFractions are the "top 20%, 10% and 5%" the 2014 pgbench header reported.
var topFractions = [3]float64{0.20, 0.10, 0.05}

// HeaderLines returns the two lines the 2014 gaussian/exponential pgbench
// patch printed in its run header for the outermost random function, when it
// is random_gaussian or random_exponential with a constant parameter, e.g.
//
//	standard deviation threshold: 5.00000
//	access probability of top 20%, 10% and 5% records: 0.68269 0.38293 0.19741
//
// The gaussian wording is that of KONDO Mitsumasa's patch as quoted on
// pgsql-hackers (the "gaussian distribution pgbench" thread, and Peter
// Geoghegan's 2014-04 benchmark report using patch V13). The exponential
// wording ("exponential threshold: %.5f") follows the same pattern; it was not
// found in a surviving copy of the patch and is unverified. The committed
// feature (9.5, ed802e7d) does not print these lines.
//
// The probabilities are analytic, from pgbench's own formulas. Gaussian: the
// central fraction f of the range is z in [-f p, f p), so its probability is
// erf(f p / sqrt 2) / erf(p / sqrt 2). Exponential: the first fraction f of the
// range gets (1 - e^(-p f)) / (1 - e^(-p)). Both are exact for any range whose
// size times f is an integer, since the integer mapping floor(n x) is exact
// there. Returns nil for any other expression.
func (g *Gen) HeaderLines() []string {
	n := g.outerRandom()
	if n == nil || (n.fn != fnGaussian && n.fn != fnExponential) || !isConst(n.args[2]) {
		return nil
	}
	p := fRange(n.args[2]).lo
	var probs [3]float64
	var first string
	if n.fn == fnGaussian {
		first = fmt.Sprintf("standard deviation threshold: %.5f", p)
		for i, f := range topFractions {
			probs[i] = math.Erf(f*p/math.Sqrt2) / math.Erf(p/math.Sqrt2)
		}
	} else {
		first = fmt.Sprintf("exponential threshold: %.5f", p)
		for i, f := range topFractions {
			probs[i] = math.Expm1(-p*f) / math.Expm1(-p)
		}
	}
	return []string{first, fmt.Sprintf("access probability of top 20%%, 10%% and 5%% records: %.5f %.5f %.5f",
		probs[0], probs[1], probs[2])}
}
