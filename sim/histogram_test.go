package sim

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// quantileBound is the documented accuracy: a bucket is at most 1/256 of its
// lower edge wide and Quantile answers inside the bucket that holds the
// exact order statistic, so the answer is within 1/256 of it.
const quantileBound = 1.0 / 256

// nearestRank is the exact quantile of sorted data by the rule Quantile
// implements: the ceil(q*n)-th smallest value.
func nearestRank(sorted []int64, q float64) int64 {
	r := int(math.Ceil(q * float64(len(sorted))))
	r = max(r, 1)
	return sorted[r-1]
}

var testQuantiles = []float64{0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.333, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 0.99999}

func checkQuantiles(t *testing.T, h *Histogram, sorted []int64) {
	t.Helper()
	for _, q := range testQuantiles {
		want := nearestRank(sorted, q)
		got := h.Quantile(q)
		if e := math.Abs(float64(got-want)) / float64(want); e > quantileBound {
			t.Errorf("Quantile(%v) = %d, exact %d: relative error %.4f%% > %.4f%%", q, got, want, 100*e, 100*quantileBound)
		}
	}
	if h.Quantile(0) != sorted[0] || h.Quantile(1) != sorted[len(sorted)-1] {
		t.Errorf("Quantile(0), Quantile(1) = %d, %d; want Min %d, Max %d", h.Quantile(0), h.Quantile(1), sorted[0], sorted[len(sorted)-1])
	}
}

func checkMoments(t *testing.T, h *Histogram, vals []int64) {
	t.Helper()
	sum := new(big.Int)
	fv := make([]float64, len(vals))
	for i, v := range vals {
		sum.Add(sum, big.NewInt(v))
		fv[i] = float64(v)
	}
	mn, mx := slices.Min(vals), slices.Max(vals)
	if h.Count() != uint64(len(vals)) || h.Min() != mn || h.Max() != mx {
		t.Fatalf("Count/Min/Max = %d/%d/%d, want %d/%d/%d", h.Count(), h.Min(), h.Max(), len(vals), mn, mx)
	}
	wantMean, _ := new(big.Rat).SetFrac(sum, big.NewInt(int64(len(vals)))).Float64()
	if h.Mean() != wantMean {
		t.Fatalf("Mean = %v, want exactly %v", h.Mean(), wantMean)
	}
	_, sd := stat.PopMeanStdDev(fv, nil)
	if e := math.Abs(h.StdDev()-sd) / sd; e > 1e-9 {
		t.Fatalf("StdDev = %v, gonum PopMeanStdDev = %v (rel. diff %g)", h.StdDev(), sd, e)
	}
}

func TestHistogramUniform(t *testing.T) {
	const n = 1_000_000
	h := NewHistogram()
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i + 1)
		h.Record(vals[i])
	}
	checkQuantiles(t, h, vals)
	checkMoments(t, h, vals)
	// Population stddev of 1..n is sqrt((n^2-1)/12).
	if want := math.Sqrt((float64(n)*n - 1) / 12); math.Abs(h.StdDev()-want)/want > 1e-12 {
		t.Fatalf("StdDev of 1..%d = %v, want %v", n, h.StdDev(), want)
	}
}

func TestHistogramExponential(t *testing.T) {
	r := NewStream(1, 0, "histogram/exp")
	h := NewHistogram()
	vals := make([]int64, 1_000_000)
	for i := range vals {
		vals[i] = int64(r.ExpFloat64() * float64(Millisecond))
		h.Record(vals[i])
	}
	checkMoments(t, h, vals)
	slices.Sort(vals)
	checkQuantiles(t, h, vals)
}

// TestHistogramHugeValues checks the 128/192-bit sums: these values would
// overflow an int64 sum and a float64 sum of squares would lose them.
func TestHistogramHugeValues(t *testing.T) {
	h := NewHistogram()
	vals := []int64{math.MaxInt64, math.MaxInt64, math.MaxInt64 - 1, 1 << 62, 0}
	for _, v := range vals {
		h.Record(v)
	}
	checkMoments(t, h, vals)
	if h.Quantile(1) != math.MaxInt64 || h.Quantile(0.5) < math.MaxInt64-math.MaxInt64/256 {
		t.Fatalf("Quantile(1)=%d Quantile(0.5)=%d", h.Quantile(1), h.Quantile(0.5))
	}
	c := NewHistogram()
	for range 3 {
		c.Record(math.MaxInt64)
	}
	if c.StdDev() != 0 || c.Mean() != float64(math.MaxInt64) {
		t.Fatalf("three equal huge values: StdDev %v Mean %v", c.StdDev(), c.Mean())
	}
}

// TestHistogramBuckets checks the bucket layout exhaustively: buckets tile
// [0, MaxInt64] without gaps or overlap, and each is at most 1/128 of its
// lower edge wide.
func TestHistogramBuckets(t *testing.T) {
	next := int64(0)
	for i := range histBuckets {
		lo, w := bucketRange(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", i, lo, next)
		}
		if bucketOf(lo) != i || bucketOf(lo+(w-1)) != i {
			t.Fatalf("bucket %d = [%d, %d] but bucketOf maps its ends to %d, %d", i, lo, lo+w-1, bucketOf(lo), bucketOf(lo+(w-1)))
		}
		if w > 1 && w*histSub > lo {
			t.Fatalf("bucket %d = [%d, +%d) wider than 1/%d of its start", i, lo, w, histSub)
		}
		next = lo + w
	}
	if next != math.MinInt64 { // the last bucket ends exactly at MaxInt64
		t.Fatalf("buckets end at %d, want MaxInt64+1 (wrapping to MinInt64)", next)
	}
}

func TestHistogramMergeEqualsRecordingBoth(t *testing.T) {
	a, b, both := NewHistogram(), NewHistogram(), NewHistogram()
	r := NewStream(1, 0, "histogram/merge")
	for range 50_000 {
		v := int64(r.ExpFloat64() * 1e6)
		a.Record(v)
		both.Record(v)
	}
	for range 30_000 {
		v := 5_000_000 + r.Int64N(1e9) // a disjoint, wider range
		b.Record(v)
		both.Record(v)
	}
	a.Merge(b)
	if *a != *both {
		t.Fatalf("merged histogram differs from recording both: count %d vs %d, mean %v vs %v",
			a.Count(), both.Count(), a.Mean(), both.Mean())
	}
	// Merging an empty histogram, or into an empty one, changes nothing.
	a.Merge(NewHistogram())
	e := NewHistogram()
	e.Merge(both)
	if *a != *both || *e != *both {
		t.Fatal("merging with an empty histogram changed the result")
	}
}

func TestHistogramReset(t *testing.T) {
	h := NewHistogram()
	for v := range int64(100_000) {
		h.Record(v * 7919)
	}
	h.Reset()
	if *h != (Histogram{}) {
		t.Fatal("Reset left state behind")
	}
	if h.Count() != 0 || h.Quantile(0.5) != 0 || h.Mean() != 0 || h.StdDev() != 0 || h.Min() != 0 || h.Max() != 0 {
		t.Fatal("empty histogram does not report zeros")
	}
	if v, f := h.CDF(10); v != nil || f != nil {
		t.Fatal("CDF of an empty histogram is not nil")
	}
	h.Record(42) // usable after Reset; Min is not stuck at 0
	if h.Min() != 42 || h.Max() != 42 || h.Quantile(0.5) != 42 || h.StdDev() != 0 {
		t.Fatalf("after Reset+Record(42): Min %d Max %d p50 %d", h.Min(), h.Max(), h.Quantile(0.5))
	}
}

func TestHistogramCDF(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{1, 1, 2, 3, 1000} {
		h.Record(v)
	}
	// 1000 lies in bucket [1000, 1003]; its upper end is clamped to Max.
	cases := []struct {
		points int
		values []int64
		fracs  []float64
	}{
		{0, []int64{1, 2, 3, 1000}, []float64{0.4, 0.6, 0.8, 1}},
		{4, []int64{1, 2, 3, 1000}, []float64{0.4, 0.6, 0.8, 1}},
		{9, []int64{1, 2, 3, 1000}, []float64{0.4, 0.6, 0.8, 1}},
		{3, []int64{1, 3, 1000}, []float64{0.4, 0.8, 1}},
		{2, []int64{1, 1000}, []float64{0.4, 1}},
		{1, []int64{1000}, []float64{1}},
	}
	for _, c := range cases {
		v, f := h.CDF(c.points)
		if !slices.Equal(v, c.values) || !slices.Equal(f, c.fracs) {
			t.Errorf("CDF(%d) = %v %v, want %v %v", c.points, v, f, c.values, c.fracs)
		}
	}
	var total uint64
	var spans [][2]int64
	h.ForEachBucket(func(lo, hi int64, n uint64) {
		total += n
		spans = append(spans, [2]int64{lo, hi})
	})
	if total != 5 || !slices.Equal(spans, [][2]int64{{1, 1}, {2, 2}, {3, 3}, {1000, 1000}}) {
		t.Fatalf("ForEachBucket: total %d spans %v", total, spans)
	}
}

func TestHistogramCDFLarge(t *testing.T) {
	h := NewHistogram()
	r := NewStream(2, 0, "histogram/cdf")
	for range 100_000 {
		h.Record(int64(r.ExpFloat64() * 1e6))
	}
	v, f := h.CDF(50)
	if len(v) != 50 || v[49] != h.Max() || f[49] != 1 {
		t.Fatalf("CDF(50): %d points, last (%d, %v), want 50 points ending at (Max=%d, 1)", len(v), v[len(v)-1], f[len(f)-1], h.Max())
	}
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] || f[i] <= f[i-1] {
			t.Fatalf("CDF not strictly increasing at %d: (%d,%v) after (%d,%v)", i, v[i], f[i], v[i-1], f[i-1])
		}
	}
	// Exponential CDF 1-exp(-x/mean) at the median point, within sampling
	// noise plus bucket width.
	mid := len(v) / 2
	if want := 1 - math.Exp(-float64(v[mid])/1e6); math.Abs(f[mid]-want) > 0.01 {
		t.Fatalf("CDF at %d = %v, exponential says %v", v[mid], f[mid], want)
	}
}

func TestHistogramRecordNegativePanics(t *testing.T) {
	mustPanic(t, "values must be >= 0", func() { NewHistogram().Record(-1) })
}

func TestHistogramRecordAllocatesNothing(t *testing.T) {
	h := NewHistogram()
	v := int64(0)
	if a := testing.AllocsPerRun(1000, func() { v += 12345; h.Record(v) }); a != 0 {
		t.Fatalf("Record allocates %.1f times, want 0", a)
	}
}

// Interpolation within a bucket: for values spread evenly (1..n) the
// k-th value of a bucket is where evenly spread values put it, so every
// quantile is within a few units of the exact order statistic — far inside
// the worst-case bound that a bucket midpoint (or edge) would only meet.
func TestHistogramQuantileInterpolates(t *testing.T) {
	const n = 1_000_000
	h := NewHistogram()
	for v := int64(1); v <= n; v++ {
		h.Record(v)
	}
	for _, q := range testQuantiles {
		want := int64(math.Ceil(q * n))
		if got := h.Quantile(q); math.Abs(float64(got-want)) > 2 {
			t.Errorf("Quantile(%v) = %d, exact %d", q, got, want)
		}
	}
	// Two samples that differ only inside one bucket give different
	// percentiles (a midpoint would give the same one).
	a, b := NewHistogram(), NewHistogram()
	for i := 0; i < 100; i++ {
		a.Record(1_000_000 + int64(i))   // bucket width 2^19/256 = 2048 from 2^19.. : all in one bucket
		b.Record(1_000_000 + int64(i)*4) // same bucket, spread 4x wider
	}
	if a.Quantile(0.99) == b.Quantile(0.99) {
		t.Errorf("p99 %d for both samples: no interpolation", a.Quantile(0.99))
	}
	if got := b.Quantile(0.99); got < 1_000_000+300 || got > 1_000_000+400 {
		t.Errorf("p99 of 1e6 + 4i (i < 100) = %d, want about 1e6+396", got)
	}
}
