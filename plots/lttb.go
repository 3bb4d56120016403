package plots

import "math"

// LTTB downsamples the series (x, y) to at most threshold points with
// Largest-Triangle-Three-Buckets (Sveinn Steinarsson, "Downsampling Time
// Series for Visual Representation", MSc thesis, University of Iceland,
// 2013, section 4.2): the first and last points are kept, the points in
// between are split into threshold-2 buckets of (nearly) equal count, and
// from each bucket the point forming the largest triangle with the point
// kept from the previous bucket and the average of the next bucket is kept.
// Spikes therefore survive, which plain decimation loses.
//
// x should be ascending. The input is returned as is (not copied) when
// threshold <= 0, threshold >= len(x), or x and y differ in length (Write
// then reports the mismatch). A threshold of 1 or 2 is raised to 3.
//
// Gaps are preserved: points whose y (or x) is not finite never win a
// bucket against finite points, and a bucket holding only such points keeps
// its first one, so a long run of NaN still shows as a gap.
func LTTB(x, y []float64, threshold int) ([]float64, []float64) {
	idx := LTTBIndex(x, y, threshold)
	if idx == nil {
		return x, y
	}
	ox := make([]float64, len(idx))
	oy := make([]float64, len(idx))
	for i, j := range idx {
		ox[i], oy[i] = x[j], y[j]
	}
	return ox, oy
}

// LTTBIndex is LTTB returning the indices of the kept points (ascending)
// instead of the points, so that one series' selection can be applied to
// others that share its x, as Chart requires. It returns nil when LTTB
// would return its input unchanged.
func LTTBIndex(x, y []float64, threshold int) []int {
	n := len(x)
	if len(y) != n || threshold <= 0 || threshold >= n {
		return nil
	}
	if threshold < 3 {
		threshold = 3
		if threshold >= n {
			return nil
		}
	}
	out := make([]int, 0, threshold)
	out = append(out, 0)
	// Bucket i (0-based) of the n-2 inner points spans
	// [1 + floor(i*every), 1 + floor((i+1)*every)).
	every := float64(n-2) / float64(threshold-2)
	bucket := func(i int) (int, int) {
		lo := 1 + int(math.Floor(float64(i)*every))
		hi := 1 + int(math.Floor(float64(i+1)*every))
		if hi > n-1 || i == threshold-3 {
			// The last bucket ends at the last inner point, whatever the
			// rounding of i*every.
			hi = n - 1
		}
		return lo, hi
	}
	ok := func(j int) bool { return finite(x[j]) && finite(y[j]) }
	anchor := -1 // the last kept point that is finite
	if ok(0) {
		anchor = 0
	}
	for i := 0; i < threshold-2; i++ {
		lo, hi := bucket(i)
		best, bestArea := lo, -1.0
		if anyFinite(x, y, lo, hi) {
			// The third vertex: the average of the next bucket (the last
			// point after the final bucket), else the next finite point.
			nlo, nhi := n-1, n
			if i < threshold-3 {
				nlo, nhi = bucket(i + 1)
			}
			cx, cy := average(x, y, nlo, nhi)
			if math.IsNaN(cx) {
				for j := hi; j < n; j++ {
					if ok(j) {
						cx, cy = x[j], y[j]
						break
					}
				}
			}
			ax, ay := cx, cy
			if anchor >= 0 {
				ax, ay = x[anchor], y[anchor]
			}
			if math.IsNaN(cx) {
				// Nothing finite ahead: keep the point farthest in y from
				// the anchor (a triangle against a horizontal line).
				cx, cy = ax+1, ay
			}
			for j := lo; j < hi; j++ {
				// Twice the triangle's area; the factor does not change
				// the winner. A non-finite point gives NaN, which never
				// wins.
				area := math.Abs((ax-cx)*(y[j]-ay) - (ax-x[j])*(cy-ay))
				if area > bestArea {
					best, bestArea = j, area
				}
			}
		}
		out = append(out, best)
		if ok(best) {
			anchor = best
		}
	}
	return append(out, n-1)
}

// anyFinite reports whether [lo, hi) holds a point with finite x and y.
func anyFinite(x, y []float64, lo, hi int) bool {
	for j := lo; j < hi; j++ {
		if finite(x[j]) && finite(y[j]) {
			return true
		}
	}
	return false
}

// average returns the mean of the finite points in [lo, hi), or NaN when
// there are none.
func average(x, y []float64, lo, hi int) (float64, float64) {
	var sx, sy float64
	k := 0
	for j := lo; j < hi; j++ {
		if finite(x[j]) && finite(y[j]) {
			sx += x[j]
			sy += y[j]
			k++
		}
	}
	if k == 0 {
		return math.NaN(), math.NaN()
	}
	return sx / float64(k), sy / float64(k)
}
