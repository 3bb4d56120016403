package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLRUOnePassEqualsReplay: the one-pass stack-distance curve equals LRU
// replayed at every size from 1 to past the distinct pages, exactly (hits,
// misses, evictions), on the small trace and random traces.
func TestLRUOnePassEqualsReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	traces := [][]uint64{keysOf(loadSmall(t)), zipfKeys(rng, 300, 0.9, 30000), zipfKeys(rng, 50, 0.2, 5000)}
	lru := mustPolicy(t, "lru")
	for ti, keys := range traces {
		tr := loadKeys(t, keys)
		var sizes []int
		for c := 1; c <= tr.Distinct()+3; c++ {
			sizes = append(sizes, c)
		}
		one, err := Curves(tr, []Policy{lru}, sizes, CurveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		each, err := Curves(tr, []Policy{lru}, sizes, CurveOptions{LRUReplay: true})
		if err != nil {
			t.Fatal(err)
		}
		for j := range sizes {
			a, b := one[0].Points[j], each[0].Points[j]
			if a.Method != MethodStack || b.Method != MethodReplay {
				t.Fatalf("methods %q and %q", a.Method, b.Method)
			}
			b.Method = a.Method
			if a != b {
				t.Fatalf("trace %d, %d slots: one pass %+v, replay %+v", ti, sizes[j], a, b)
			}
		}
	}
}

// TestStackHistogramByHand: the reference string a b c a b d a with its
// stack distances worked out by hand: a, b, c cold; a at distance 3
// (c, b, a above it... a is third), b at 3, d cold, a at 3.
func TestStackHistogramByHand(t *testing.T) {
	// a=0 b=1 c=2 d=3
	hist, cold := stackHistogram([]uint32{0, 1, 2, 0, 1, 3, 0, 0}, 4)
	want := []int64{0, 1, 0, 3, 0} // the final a a is at distance 1
	if cold != 4 {
		t.Errorf("cold %d, want 4", cold)
	}
	for d := range want {
		if hist[d] != want[d] {
			t.Errorf("hist = %v, want %v", hist, want)
			break
		}
	}
}

// TestSHARDSAtRateOneIsExact: sampling every page, SHARDS is the exact
// curve (the adjustment is zero).
func TestSHARDSAtRateOneIsExact(t *testing.T) {
	tr := loadSmall(t)
	sizes := []int{1, 5, 20, 100, 400}
	exact := lruCurve(tr, sizes)
	est, err := shardsCurve(tr, sizes, 1)
	if err != nil {
		t.Fatal(err)
	}
	for j := range sizes {
		if est[j].Misses != exact[j].Misses || est[j].MissRatio != exact[j].MissRatio {
			t.Errorf("%d slots: shards %+v, exact %+v", sizes[j], est[j], exact[j])
		}
	}
}

// TestSHARDSUnbiased compares SHARDS with the exact curve on a Zipf(0.9)
// trace of 200k references over 50k pages at rate 0.1 (about 5k sampled
// pages). One sample's error is dominated by which hot pages the hash
// happens to pick (a page with a few percent of all references is in or
// out), so the test draws 24 samples with different hash salts and checks,
// at every size, that the mean error is within three standard errors of
// zero (distances scaled wrongly, e.g. not at all, fail this by far), and
// that SHARDS-adj's correction (section 4.3 of the paper) makes the
// estimates more accurate than the raw sample: a smaller mean squared
// error over the samples.
func TestSHARDSUnbiased(t *testing.T) {
	if testing.Short() {
		t.Skip("24 samples of a 200k-reference trace")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	tr := loadKeys(t, zipfKeys(rng, 50000, 0.9, 200000))
	var sizes []int
	for _, p := range []float64{1, 2, 5, 10, 20, 50} {
		sizes = append(sizes, int(p/100*float64(tr.Distinct())))
	}
	exact := lruCurve(tr, sizes)
	const samples = 24
	errs := make([][]float64, len(sizes))
	raw := make([][]float64, len(sizes))
	for salt := uint64(0); salt < samples; salt++ {
		sm, err := shardsSampleOf(tr, sizes, 0.1, salt*0x9E3779B97F4A7C15)
		if err != nil {
			t.Fatal(err)
		}
		for j := range sizes {
			errs[j] = append(errs[j], sm.missRatio(j, true)-exact[j].MissRatio)
			raw[j] = append(raw[j], sm.missRatio(j, false)-exact[j].MissRatio)
		}
	}
	for j := range sizes {
		mean, sd := meanSD(errs[j])
		se := sd / math.Sqrt(samples)
		t.Logf("%6d slots: exact %.4f, error mean %+.4f sd %.4f; rms error adjusted %.4f, raw %.4f",
			sizes[j], exact[j].MissRatio, mean, sd, rms(errs[j]), rms(raw[j]))
		if math.Abs(mean) > 3*se {
			t.Errorf("%d slots: mean error %+.4f is more than 3 standard errors (%.4f) from 0", sizes[j], mean, se)
		}
		if rms(errs[j]) >= rms(raw[j]) {
			t.Errorf("%d slots: the adjustment does not help: rms error %.4f adjusted, %.4f raw", sizes[j], rms(errs[j]), rms(raw[j]))
		}
	}
}

func rms(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return math.Sqrt(s / float64(len(xs)))
}

func meanSD(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1))
}

// TestCurvesDeterministic: one worker or many, the same results in the
// same order.
func TestCurvesDeterministic(t *testing.T) {
	tr := loadSmall(t)
	var pols []Policy
	for _, n := range []string{"clock-sweep", "lru", "2q", "arc", "sieve", "opt", "clock-sweep(max_usage_count=2)"} {
		pols = append(pols, mustPolicy(t, n))
	}
	sizes := []int{3, 30, 300, 3000}
	a, err := Curves(tr, pols, sizes, CurveOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Curves(tr, pols, sizes, CurveOptions{Workers: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i].Policy != pols[i].Name {
			t.Errorf("curve %d is %s, want %s", i, a[i].Policy, pols[i].Name)
		}
		for j := range sizes {
			if a[i].Points[j] != b[i].Points[j] {
				t.Errorf("%s at %d: %+v vs %+v", a[i].Policy, sizes[j], a[i].Points[j], b[i].Points[j])
			}
			if a[i].Points[j].Slots != sizes[j] {
				t.Errorf("%s: slots %d, want %d", a[i].Policy, a[i].Points[j].Slots, sizes[j])
			}
		}
	}
	if _, err := Curves(tr, pols, []int{0}, CurveOptions{}); err == nil {
		t.Error("size 0 accepted")
	}
	if _, err := Curves(tr, pols, sizes, CurveOptions{ShardsRate: 2}); err == nil {
		t.Error("SHARDS rate 2 accepted")
	}
}
