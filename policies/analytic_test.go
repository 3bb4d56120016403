package policies

import (
	"math"
	"testing"
)

// cheLRU is Che's approximation of LRU's hit ratio under the independent
// reference model (Che, Tung, Wang, IEEE JSAC 20(7), 2002; Fricker, Robert,
// Roberts, ITC 2012, on why it is so accurate): the characteristic time T
// solves sum_i (1 - exp(-p_i T)) = C, and the hit ratio is
// sum_i p_i (1 - exp(-p_i T)).
func cheLRU(p []float64, c int) float64 {
	occupancy := func(T float64) float64 {
		s := 0.0
		for _, pi := range p {
			s += -math.Expm1(-pi * T)
		}
		return s
	}
	lo, hi := 0.0, 1.0
	for occupancy(hi) < float64(c) {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if occupancy(mid) < float64(c) {
			lo = mid
		} else {
			hi = mid
		}
	}
	h := 0.0
	for _, pi := range p {
		h += pi * -math.Expm1(-pi*lo)
	}
	return h
}

// steadyHitRatio replays warm references, then counts hits over the rest.
func steadyHitRatio(t *testing.T, pol Replacement, slots int, trace []uint64, warm int) float64 {
	t.Helper()
	d := newDriver(pol, slots)
	next := nextUses(trace)
	for i, p := range trace {
		if i == warm {
			d.hits, d.misses = 0, 0
		}
		if _, err := d.access(p, next[i]); err != nil {
			t.Fatalf("%s: %v", pol.Name(), err)
		}
	}
	if err := pol.Check(); err != nil {
		t.Fatal(err)
	}
	return float64(d.hits) / float64(d.hits+d.misses)
}

// LRU under IRM Zipf(0.8), 10^4 pages, cache 10 %, 10^6 references,
// against Che's approximation.
func TestLRUMatchesChe(t *testing.T) {
	const pages, slots, n, warm = 10000, 1000, 1000000, 100000
	if testing.Short() {
		t.Skip("10^6 references")
	}
	z := newZipf(pages, 0.8)
	r := seededRNG(42)
	trace := make([]uint64, n)
	for i := range trace {
		trace[i] = uint64(z.draw(r))
	}
	want := cheLRU(z.p, slots)
	got := steadyHitRatio(t, NewLRU(), slots, trace, warm)
	t.Logf("LRU hit ratio %.4f, Che %.4f", got, want)
	if math.Abs(got-want) > 0.01 {
		t.Fatalf("LRU hit ratio %.4f, Che's approximation %.4f: differ by more than 0.01", got, want)
	}
}

// Under uniform independent references every demand-paging policy that
// cannot see the future holds C of N equally likely pages, so its hit
// ratio is C/N whatever it evicts. Belady's MIN beats that by far, and
// beats every other policy on any trace.
func TestUniformHitRatioIsCOverN(t *testing.T) {
	const pages, slots, n, warm = 1000, 100, 205000, 5000
	trace := uniformTrace(seededRNG(7), pages, n)
	results := map[string]float64{}
	for _, name := range policyNames() {
		results[name] = steadyHitRatio(t, newPolicy(t, name), slots, trace, warm)
		t.Logf("%-12s %.4f", name, results[name])
	}
	for name, hr := range results {
		if name == "opt" {
			continue
		}
		if math.Abs(hr-0.1) > 0.005 {
			t.Errorf("%s: uniform hit ratio %.4f, want C/N = 0.1 +- 0.005", name, hr)
		}
		if results["opt"] < hr {
			t.Errorf("opt %.4f below %s %.4f", results["opt"], name, hr)
		}
	}
	if results["opt"] < 0.15 {
		t.Errorf("opt %.4f: MIN should clearly beat C/N = 0.1 on uniform references", results["opt"])
	}
}

// OPT's miss count is a lower bound for every policy on any trace.
func TestOPTIsALowerBound(t *testing.T) {
	traces := map[string][]uint64{
		"zipf0.9": zipfTrace(seededRNG(11), 2000, 0.9, 50000),
		"loop":    loopTrace(150, 20000),
		"uniform": uniformTrace(seededRNG(12), 500, 30000),
	}
	for tn, tr := range traces {
		_, optMisses := replay(t, NewOPT(), 100, tr)
		for _, name := range policyNames() {
			_, m := replay(t, newPolicy(t, name), 100, tr)
			if m < optMisses {
				t.Errorf("%s on %s: %d misses, fewer than OPT's %d", name, tn, m, optMisses)
			}
		}
	}
}
