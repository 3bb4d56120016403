package plots

import (
	"math"
	"slices"
	"testing"
)

// A hand-worked example (twice the triangle area, as in lttb.go):
// x = 0..7, y = 0 1 0 5 0 1 0 0, threshold 4, so two buckets of three inner
// points, [1,4) and [4,7).
// Bucket 0: a = (0,0), c = mean of bucket 1 = (5, 1/3);
// area_j = |-5*y_j + x_j/3|: j=1 4.67, j=2 0.67, j=3 24  -> keep 3.
// Bucket 1: a = (3,5), c = the last point (7,0);
// area_j = |-4*(y_j-5) + 5*(3-x_j)|: j=4 15, j=5 6, j=6 5 -> keep 4.
func TestLTTBHandWorkedExample(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	y := []float64{0, 1, 0, 5, 0, 1, 0, 0}
	if got, want := LTTBIndex(x, y, 4), []int{0, 3, 4, 7}; !slices.Equal(got, want) {
		t.Fatalf("LTTBIndex = %v, want %v", got, want)
	}
	ox, oy := LTTB(x, y, 4)
	if !slices.Equal(ox, []float64{0, 3, 4, 7}) || !slices.Equal(oy, []float64{0, 5, 0, 0}) {
		t.Fatalf("LTTB = %v %v", ox, oy)
	}
}

func TestLTTBReturnsShortInputUnchanged(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4}
	y := []float64{3, 1, 4, 1, 5}
	for _, threshold := range []int{5, 6, 1000, 0, -1} {
		ox, oy := LTTB(x, y, threshold)
		if !slices.Equal(ox, x) || !slices.Equal(oy, y) {
			t.Errorf("threshold %d: got %v %v, want the input", threshold, ox, oy)
		}
		if LTTBIndex(x, y, threshold) != nil {
			t.Errorf("threshold %d: LTTBIndex should be nil for an unchanged input", threshold)
		}
	}
	// Mismatched lengths are passed through so that Write reports them.
	ox, oy := LTTB(x, y[:3], 3)
	if len(ox) != 5 || len(oy) != 3 {
		t.Errorf("mismatched input: got lengths %d, %d", len(ox), len(oy))
	}
}

func TestLTTBKeepsEndsAndExtremesOfSpikeSeries(t *testing.T) {
	const n = 100_000
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = float64(i) * 0.001
		// A smooth, noisy-looking baseline between 9 and 11.
		y[i] = 10 + math.Sin(float64(i)*0.37)*math.Cos(float64(i)*0.011)
	}
	const spike, dip = 31_337, 77_777
	y[spike] = 500 // one latency spike, like a checkpoint stall
	y[dip] = -40
	for _, threshold := range []int{3, 50, 1000, 5000} {
		idx := LTTBIndex(x, y, threshold)
		if len(idx) != threshold {
			t.Fatalf("threshold %d: kept %d points", threshold, len(idx))
		}
		if idx[0] != 0 || idx[len(idx)-1] != n-1 {
			t.Errorf("threshold %d: first/last kept are %d/%d", threshold, idx[0], idx[len(idx)-1])
		}
		if !slices.IsSorted(idx) {
			t.Errorf("threshold %d: indices not ascending", threshold)
		}
		if threshold > 3 && (!slices.Contains(idx, spike) || !slices.Contains(idx, dip)) {
			t.Errorf("threshold %d: spike kept %v, dip kept %v", threshold, slices.Contains(idx, spike), slices.Contains(idx, dip))
		}
	}
	// With threshold 3 a single bucket holds every inner point; the
	// largest triangle from (first, last) is the spike's.
	if idx := LTTBIndex(x, y, 3); idx[1] != spike {
		t.Errorf("threshold 3 kept %d, want the spike at %d", idx[1], spike)
	}
}

func TestLTTBSmallThresholdIsRaisedToThree(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	y := []float64{0, 0, 9, 0, 0, 0}
	for _, threshold := range []int{1, 2} {
		if got := LTTBIndex(x, y, threshold); !slices.Equal(got, []int{0, 2, 5}) {
			t.Errorf("threshold %d: got %v, want [0 2 5]", threshold, got)
		}
	}
}

func TestLTTBGaps(t *testing.T) {
	nan := math.NaN()
	n := 1000
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = float64(i)
		y[i] = float64(i % 7)
		if i >= 400 && i < 600 { // a long gap, e.g. a period with no transactions
			y[i] = nan
		}
	}
	y[10] = nan // an isolated NaN in a bucket of finite points
	y[650] = 99 // a spike right after the gap
	idx := LTTBIndex(x, y, 50)
	gap := false
	for _, i := range idx {
		if math.IsNaN(y[i]) {
			if i < 400 || i >= 600 {
				t.Errorf("kept NaN at %d from a bucket that has finite points", i)
			}
			gap = true
		}
	}
	if !gap {
		t.Error("the 200-point gap vanished from the downsampled series")
	}
	if !slices.Contains(idx, 650) {
		t.Error("the spike after the gap was not kept")
	}
}
