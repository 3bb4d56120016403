package pgexpr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// checkFraction fails unless the observed fraction hits/n is within 4
// standard errors sqrt(p(1-p)/n) of the analytic probability p.
func checkFraction(t *testing.T, what string, hits, n int, p float64) {
	t.Helper()
	got := float64(hits) / float64(n)
	se := math.Sqrt(p * (1 - p) / float64(n))
	if math.Abs(got-p) > 4*se {
		t.Errorf("%s: fraction %.6f, want %.6f ± %.6f (4 SE, n=%d)", what, got, p, 4*se, n)
	}
}

// chiSquareCritical returns the chi-square value exceeded with probability
// alpha for df degrees of freedom.
func chiSquareCritical(df int, alpha float64) float64 {
	d := distuv.ChiSquared{K: float64(df), Src: rand.NewPCG(1, 2)} // Src unused by Quantile; never nil
	return d.Quantile(1 - alpha)
}

// gaussianCentral checks pgbench-docs/model.md: with threshold p the central
// fraction f of the key range is z in [-f p, f p), so it receives
// erf(f p / sqrt 2) / erf(p / sqrt 2); for p = 5 that is 0.68269, 0.38293 and
// 0.19741 for f = 20 %, 10 % and 5 % (the figures pgbench printed in the 2014
// thread, seed 002).
func gaussianCentral(t *testing.T, draws int) {
	const lb, ub = 1, 1_000_000
	g := mustGen(t, "random_gaussian(1, 1000000, 5)", nil, 0)
	r := pcg(2014)
	var in20, in10, in5 int
	for range draws {
		k := g.Next(r)
		if k < lb || k > ub {
			t.Fatalf("draw %d outside [%d, %d]", k, lb, ub)
		}
		j := k - lb // offset in [0, 10^6)
		if j >= 400_000 && j < 600_000 {
			in20++
		}
		if j >= 450_000 && j < 550_000 {
			in10++
		}
		if j >= 475_000 && j < 525_000 {
			in5++
		}
	}
	checkFraction(t, "central 20%", in20, draws, 0.68269)
	checkFraction(t, "central 10%", in10, draws, 0.38293)
	checkFraction(t, "central 5%", in5, draws, 0.19741)
}

func TestGaussianCentralFractions(t *testing.T) { gaussianCentral(t, 1_000_000) }

func TestGaussianCentralFractionsLong(t *testing.T) {
	if testing.Short() {
		t.Skip("10^7 draws; run without -short")
	}
	gaussianCentral(t, 10_000_000)
}

// TestExponentialHeadFractions checks pgbench-docs/model.md: the first fraction
// f of the range receives (1 - e^(-p f)) / (1 - e^(-p)); for p = 5,
// 0.636 / 0.396 / 0.223 for f = 20 / 10 / 5 %.
func TestExponentialHeadFractions(t *testing.T) {
	const p, lb, ub, draws = 5.0, 1, 1_000_000, 1_000_000
	g := mustGen(t, "random_exponential(1, 1000000, 5)", nil, 0)
	r := pcg(77)
	var in20, in10, in5 int
	for range draws {
		k := g.Next(r)
		if k < lb || k > ub {
			t.Fatalf("draw %d outside [%d, %d]", k, lb, ub)
		}
		switch j := k - lb; {
		case j < 50_000:
			in5++
			fallthrough
		case j < 100_000:
			in10++
			fallthrough
		case j < 200_000:
			in20++
		}
	}
	want := func(f float64) float64 { return (1 - math.Exp(-p*f)) / (1 - math.Exp(-p)) }
	for _, c := range []struct {
		f    float64
		hits int
		near float64
	}{{0.20, in20, 0.636}, {0.10, in10, 0.396}, {0.05, in5, 0.223}} {
		if math.Abs(want(c.f)-c.near) > 0.0005 {
			t.Fatalf("formula for f=%.2f gives %.4f, facts say %.3f", c.f, want(c.f), c.near)
		}
		checkFraction(t, fmt.Sprintf("first %.0f%%", 100*c.f), c.hits, draws, want(c.f))
	}
}

// TestZipfianGoodnessOfFit checks random_zipfian(1, 100, 1.5) against the
// bounded Zipf law P(k) = k^-s / H(n, s) that Devroye's rejection method
// (computeIterativeZipfian) samples exactly: chi-square over all 100 values
// at alpha = 0.001, and the mean H(n, s-1) / H(n, s) within 4 SE.
func TestZipfianGoodnessOfFit(t *testing.T) {
	const n, s, draws = 100, 1.5, 1_000_000
	g := mustGen(t, "random_zipfian(1, 100, 1.5)", nil, 0)
	r := pcg(1986)
	counts := make([]int, n+1)
	sum := 0.0
	for range draws {
		k := g.Next(r)
		if k < 1 || k > n {
			t.Fatalf("draw %d outside [1, %d]", k, n)
		}
		counts[k]++
		sum += float64(k)
	}
	var h, h1, h2 float64 // H(n, s), H(n, s-1), H(n, s-2)
	for k := 1; k <= n; k++ {
		h += math.Pow(float64(k), -s)
		h1 += math.Pow(float64(k), 1-s)
		h2 += math.Pow(float64(k), 2-s)
	}
	chi2 := 0.0
	for k := 1; k <= n; k++ {
		e := draws * math.Pow(float64(k), -s) / h
		d := float64(counts[k]) - e
		chi2 += d * d / e
	}
	if crit := chiSquareCritical(n-1, 0.001); chi2 > crit {
		t.Errorf("chi-square %.1f > critical %.1f (df %d, alpha 0.001)", chi2, crit, n-1)
	}
	mean, wantMean := sum/draws, h1/h
	se := math.Sqrt((h2/h - wantMean*wantMean) / draws)
	if math.Abs(mean-wantMean) > 4*se {
		t.Errorf("mean %.4f, want %.4f ± %.4f", mean, wantMean, 4*se)
	}
}

// TestUniformGoodnessOfFit checks getrand: every value in [lb, ub], and a
// chi-square fit to the uniform law over 1000 values.
func TestUniformGoodnessOfFit(t *testing.T) {
	const lb, ub, draws = -500, 499, 1_000_000
	g := mustGen(t, "random(-500, 499)", nil, 0)
	r := pcg(42)
	counts := make([]int, ub-lb+1)
	for range draws {
		k := g.Next(r)
		if k < lb || k > ub {
			t.Fatalf("draw %d outside [%d, %d]", k, lb, ub)
		}
		counts[k-lb]++
	}
	e := float64(draws) / float64(len(counts))
	chi2 := 0.0
	for _, c := range counts {
		d := float64(c) - e
		chi2 += d * d / e
	}
	if crit := chiSquareCritical(len(counts)-1, 0.001); chi2 > crit {
		t.Errorf("chi-square %.1f > critical %.1f (df %d)", chi2, crit, len(counts)-1)
	}
}

// TestDrawBoundsExtremeRanges checks that every distribution stays inside
// degenerate, negative and near-int64-wide ranges.
func TestDrawBoundsExtremeRanges(t *testing.T) {
	exprs := []string{
		"random(5, 5)", "random_gaussian(5, 5, 2)", "random_exponential(5, 5, 1)", "random_zipfian(5, 5, 1.5)",
		"random(-9223372036854775806, 0)", "random(1, 9223372036854775806)",
		"random_gaussian(-4611686018427387903, 4611686018427387903, 2)",
		"random_exponential(0, 9223372036854775806, 0.001)",
		"random_zipfian(-10, 10, 1.001)", "random_zipfian(1, 9223372036854775806, 1.001)",
		"random_exponential(-3, 3, 1000000)",
	}
	r := pcg(9)
	for _, src := range exprs {
		g := mustGen(t, src, nil, 0)
		lo, hi, ok := g.Range()
		if !ok {
			t.Fatalf("%s: Range not known", src)
		}
		for range 20_000 {
			if k := g.Next(r); k < lo || k > hi {
				t.Fatalf("%s drew %d outside [%d, %d]", src, k, lo, hi)
			}
		}
	}
}

// TestDrawWordUsage pins how each draw turns 64-bit words into variates
// (pg_prng_double = (w >> 12) * 2^-52, u = 1 - that for (0, 1] inputs, u1
// before u2 in Box-Muller), using scripted words.
func TestDrawWordUsage(t *testing.T) {
	const half, quarter = uint64(1) << 63, uint64(1) << 62 // pg_prng_double 0.5, 0.25
	// Gaussian: u1 = 1 - 0.5, u2 = 1 - 0.25, z = sqrt(-2 ln 0.5) sin(1.5 pi)
	// = -1.17741; p = 5 maps it to (z + 5) / 10 = 0.382259, so 1 + 382.
	// Swapping u1 and u2 would give z ~ 0, i.e. 501.
	r := rand.New(&seqSource{words: []uint64{half, quarter}})
	if got := drawGaussian(r, 1, 1000, 5); got != 383 {
		t.Errorf("gaussian from (0.5, 0.25) = %d, want 383", got)
	}
	// A first pair outside [-p, p) is rejected: u1 = 2^-52 gives
	// sqrt(-2 ln 2^-52) = 8.49 >= 5 with sin = 1; the second pair is used.
	r = rand.New(&seqSource{words: []uint64{^uint64(0), 3 << 62, half, quarter}})
	if got := drawGaussian(r, 1, 1000, 5); got != 383 {
		t.Errorf("gaussian after a rejected pair = %d, want 383", got)
	}
	// Exponential: word 0 is pg_prng_double 0, so u = 1 and x = 0: lb.
	// The largest word gives u = 2^-52 and x just below 1: ub.
	r = rand.New(&seqSource{words: []uint64{0, ^uint64(0)}})
	cut := math.Exp(-5.0)
	if a, b := drawExponential(r, 1, 1000, 5, cut), drawExponential(r, 1, 1000, 5, cut); a != 1 || b != 1000 {
		t.Errorf("exponential extremes = %d, %d, want 1, 1000", a, b)
	}
	// Zipfian, s = 2: u = 0.5 gives x = floor(0.5^(-1/(s-1))) = 2, and v = 0
	// always accepts, so the result is lb - 1 + 2.
	r = rand.New(&seqSource{words: []uint64{half, 0}})
	if got := drawZipfian(r, 10, 20, newZipfConst(2)); got != 11 {
		t.Errorf("zipfian from u=0.5, v=0 = %d, want 11", got)
	}
	// u = 0 gives x = +Inf, which pgbench's test rejects; the next pair counts.
	r = rand.New(&seqSource{words: []uint64{0, 0, half, 0}})
	if got := drawZipfian(r, 10, 20, newZipfConst(2)); got != 11 {
		t.Errorf("zipfian after u=0 = %d, want 11", got)
	}
	// Uniform uses bitmask rejection: span 4 has mask 7 (top 3 bits); top
	// bits 7, 6, 5 are rejected and 3 is taken.
	r = rand.New(&seqSource{words: []uint64{7 << 61, 6 << 61, 5 << 61, 3 << 61}})
	if got := drawUniform(r, 100, 104); got != 103 {
		t.Errorf("uniform from scripted words = %d, want 103", got)
	}
}

// TestDeterminism: the same seed gives the same sequence, for every
// distribution and for compound expressions, and a different seed does not.
func TestDeterminism(t *testing.T) {
	for _, src := range []string{
		"random(1, 1000000)", "random_gaussian(1, 1000000, 2.5)", "random_exponential(1, 1000000, 3)",
		"random_zipfian(1, 1000000, 1.07)", "permute(random_zipfian(1, 1000, 1.2), 1000)",
		"random(1, 10) * 1000 + random(0, 999)",
	} {
		g1 := mustGen(t, src, nil, 11)
		g2 := mustGen(t, src, nil, 11)
		a, b, c := pcg(5), pcg(5), pcg(6)
		differs := false
		for i := range 1000 {
			x, y, z := g1.Next(a), g2.Next(b), g1.Next(c)
			if x != y {
				t.Fatalf("%s: draw %d differs with the same seed: %d vs %d", src, i, x, y)
			}
			differs = differs || x != z
		}
		if !differs {
			t.Errorf("%s: seeds 5 and 6 gave identical sequences", src)
		}
	}
}

// TestNextDoesNotAllocate: Next must not allocate, for any distribution.
func TestNextDoesNotAllocate(t *testing.T) {
	for _, src := range []string{
		"random(1, 1000000)", "random_gaussian(1, 1000000, 5)", "random_exponential(1, 1000000, 5)",
		"random_zipfian(1, 1000000, 1.07)", "permute(random(0, 999), 1000)",
		"permute(random(0, 999), random(1000, 2000), random(0, 9))",
		"random_gaussian(random(1, 10), 1000, random(2, 3) + 0.5)", "least(random(1, 9), 5, 7) % 3",
	} {
		g := mustGen(t, src, nil, 1)
		r := pcg(1)
		if allocs := testing.AllocsPerRun(1000, func() { g.Next(r) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations per Next", src, allocs)
		}
	}
}
