package sweep

import (
	"math"
	"testing"
)

// Student's sleep data (Cushny & Peebles 1905, analysed by "Student" in
// 1908; R's datasets::sleep): extra hours of sleep of ten patients under
// two drugs. R's t.test gives the reference values used below.
var (
	sleep1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.7f, want %.7f", what, got, want)
	}
}

// t(0.975, df) from statistical tables.
func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.706205}, {2, 4.302653}, {4, 2.776445}, {9, 2.262157}, {29, 2.045230}, {1000, 1.962339}} {
		near(t, "t(0.975)", tQuantile(c.df), c.want, 5e-6)
	}
}

// t.test(sleep$extra[1:10]): mean 0.75, 95% CI [-0.5297804, 2.0297804].
func TestMeanCIStudentSleep(t *testing.T) {
	e := MeanCI(sleep1)
	if e.N != 10 {
		t.Fatalf("n %d", e.N)
	}
	near(t, "mean", e.Mean, 0.75, 1e-12)
	near(t, "lo", e.Lo(), -0.5297804, 5e-7)
	near(t, "hi", e.Hi(), 2.0297804, 5e-7)
}

// t.test(sleep2, sleep1, paired = TRUE): mean difference 1.58, 95% CI
// [0.7001142, 2.4598858] (t = 4.0621, df = 9), far narrower than the
// unpaired interval [-0.2054832, 3.3654832] from the same numbers.
func TestPairedCIStudentSleep(t *testing.T) {
	d := PairedCI(sleep1, sleep2)
	near(t, "mean", d.Mean, 1.58, 1e-12)
	near(t, "lo", d.Lo(), 0.7001142, 5e-7)
	near(t, "hi", d.Hi(), 2.4598858, 5e-7)
	near(t, "t", d.Mean/(d.SD/math.Sqrt(float64(d.N))), 4.0621, 5e-5)
	if d.HalfWidth >= 1.78 {
		t.Errorf("paired half-width %.3f is not narrower than the unpaired 1.785", d.HalfWidth)
	}
}

// One observation has a mean but no interval; missing values are skipped
// (a pair needs both).
func TestEstimateEdges(t *testing.T) {
	if e := MeanCI([]float64{4}); e.Mean != 4 || !math.IsNaN(e.HalfWidth) || e.N != 1 {
		t.Errorf("one value: %+v", e)
	}
	if e := MeanCI(nil); !math.IsNaN(e.Mean) || e.N != 0 {
		t.Errorf("none: %+v", e)
	}
	nan := math.NaN()
	if e := MeanCI([]float64{1, nan, 3}); e.N != 2 || e.Mean != 2 {
		t.Errorf("with NaN: %+v", e)
	}
	if d := PairedCI([]float64{1, nan, 5, 2}, []float64{2, 7, nan, 4}); d.N != 2 || d.Mean != 1.5 {
		t.Errorf("paired with gaps: %+v", d)
	}
	// Identical values: zero spread, a zero-width interval.
	if e := MeanCI([]float64{2, 2, 2}); e.HalfWidth != 0 || e.Mean != 2 {
		t.Errorf("constant: %+v", e)
	}
}

// A paired difference is significant when its 95% interval excludes zero.
func TestSignificance(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want string
	}{
		{[]float64{1, 2, 3}, []float64{2, 3, 4.1}, "true"},  // differences 1, 1, 1.1
		{[]float64{1, 2, 3}, []float64{2, 1, 3.5}, "false"}, // 1, -1, 0.5: straddles 0
		{[]float64{1, 2, 3}, []float64{0, 1, 1.9}, "true"},  // all below
		{[]float64{1}, []float64{5}, ""},                    // one pair: no interval
		{[]float64{1, math.NaN()}, []float64{2, 7}, ""},     // one usable pair
	} {
		e := PairedCI(c.a, c.b)
		if got := e.Significance(); got != c.want {
			t.Errorf("PairedCI(%v, %v) = %+v: significance %q, want %q", c.a, c.b, e, got, c.want)
		}
	}
	if v := PairedCI([]float64{1}, []float64{5}).Verdict(); v != "one replicate: no CI" {
		t.Errorf("verdict %q", v)
	}
}
