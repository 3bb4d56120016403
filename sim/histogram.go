package sim

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// Histogram is a streaming histogram of non-negative int64 values
// (latencies in ns), laid out like HdrHistogram (Gil Tene,
// HdrHistogram/HdrHistogram): values below 512 get a bucket each, and every
// power-of-two range above that is split into 256 equal sub-buckets. A
// bucket [lo, lo+w) therefore has w <= lo/256. Quantile interpolates within
// the bucket that holds the wanted rank (its values taken as spread evenly
// over it), so a quantile is within 1/256 (0.39%) of the exact order
// statistic in the worst case and far closer for smooth distributions, and
// it moves continuously with the data instead of jumping between bucket
// midpoints that recur identically from one configuration to the next.
//
// Count, Min, Max and Mean are exact: the sum and the sum of squares are
// kept as 128- and 192-bit integers, so they cannot overflow for any
// realistic run, Merge is exactly equivalent to recording both inputs, and
// StdDev (population, as pgbench prints it) suffers no cancellation.
//
// The zero value is an empty histogram ready to use. Record allocates
// nothing; Reset clears only the buckets between Min and Max, which for a
// 1-s interval of latencies is a few hundred words.
type Histogram struct {
	count    uint64
	min, max int64
	sumHi    uint64 // sum of values, 128 bits
	sumLo    uint64
	sq       [3]uint64 // sum of squares, 192 bits, least significant word first
	counts   [histBuckets]uint64
}

const (
	histSubBits = 8
	histSub     = 1 << histSubBits // sub-buckets per power of two
	histLinear  = 2 * histSub      // values below this are exact
	// histBuckets covers values up to math.MaxInt64: the top bit is at most
	// 62, i.e. a shift of 62-histSubBits, plus one sub-bucket range.
	histBuckets = (62-histSubBits)*histSub + histLinear
)

// bucketOf returns the bucket index of v >= 0.
func bucketOf(v int64) int {
	if v < histLinear {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - 1 - histSubBits
	return shift*histSub + int(v>>shift)
}

// bucketRange returns the smallest value of bucket i and its width.
func bucketRange(i int) (lo, width int64) {
	if i < histLinear {
		return int64(i), 1
	}
	shift := i/histSub - 1
	return int64(i%histSub+histSub) << shift, int64(1) << shift
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram { return new(Histogram) }

// Record adds one value. Negative values are a bug in the caller (a latency
// cannot be negative) and panic.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		panic(fmt.Sprintf("sim: Histogram.Record(%d): values must be >= 0", v))
	}
	h.counts[bucketOf(v)]++
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.count++
	var c uint64
	h.sumLo, c = bits.Add64(h.sumLo, uint64(v), 0)
	h.sumHi += c
	sh, sl := bits.Mul64(uint64(v), uint64(v))
	h.sq[0], c = bits.Add64(h.sq[0], sl, 0)
	h.sq[1], c = bits.Add64(h.sq[1], sh, c)
	h.sq[2] += c
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.count }

// Min is the smallest recorded value, 0 if empty.
func (h *Histogram) Min() int64 { return h.min }

// Max is the largest recorded value, 0 if empty.
func (h *Histogram) Max() int64 { return h.max }

// Mean is the arithmetic mean of the recorded values, correctly rounded
// from the exact sum, or 0 if empty.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	if h.sumHi == 0 && h.sumLo < 1<<53 && h.count < 1<<53 {
		// Both operands are exact in float64, so one division rounds once.
		return float64(h.sumLo) / float64(h.count)
	}
	q, _ := new(big.Float).SetPrec(53).Quo(h.bigSum(), new(big.Float).SetUint64(h.count)).Float64()
	return q
}

// bigSum is the exact sum of the recorded values.
func (h *Histogram) bigSum() *big.Float {
	s := new(big.Int).SetUint64(h.sumHi)
	s.Lsh(s, 64).Or(s, new(big.Int).SetUint64(h.sumLo))
	return new(big.Float).SetInt(s)
}

// StdDev is the population standard deviation, sqrt(sum((x-mean)^2)/n) —
// what pgbench prints as "latency stddev" — or 0 with fewer than two values.
// It is computed exactly as sqrt(n*S2 - S1^2)/n from the integer sums.
func (h *Histogram) StdDev() float64 {
	if h.count < 2 {
		return 0
	}
	n := new(big.Int).SetUint64(h.count)
	s1 := new(big.Int).SetUint64(h.sumHi)
	s1.Lsh(s1, 64).Or(s1, new(big.Int).SetUint64(h.sumLo))
	s2 := new(big.Int).SetUint64(h.sq[2])
	s2.Lsh(s2, 64).Or(s2, new(big.Int).SetUint64(h.sq[1]))
	s2.Lsh(s2, 64).Or(s2, new(big.Int).SetUint64(h.sq[0]))
	num := s2.Mul(s2, n)
	num.Sub(num, s1.Mul(s1, s1)) // n*S2 - S1^2 >= 0 by Cauchy-Schwarz
	f, _ := new(big.Float).SetInt(num).Float64()
	return math.Sqrt(f) / float64(h.count)
}

// Quantile returns the value at quantile q in [0, 1] by the nearest-rank
// rule (the ceil(q*n)-th smallest value, as HdrHistogram reports
// percentiles), to within 1/256 relative error: the rank's bucket is
// found, and the k-th of its c values is placed where the k-th of c values
// spread evenly over the bucket's range (clamped to [Min, Max]) would be.
// Values below 512 are exact. Quantile(0) is Min and Quantile(1) is Max
// exactly; an empty histogram gives 0.
func (h *Histogram) Quantile(q float64) int64 {
	if h.count == 0 {
		return 0
	}
	if !(q > 0) { // also catches NaN
		return h.min
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.count)))
	if rank < 1 {
		rank = 1
	}
	if rank > h.count {
		rank = h.count
	}
	var seen uint64
	last := bucketOf(h.max)
	for i := bucketOf(h.min); i <= last; i++ {
		c := h.counts[i]
		if seen+c >= rank {
			lo, w := bucketRange(i)
			// The bucket's values lie in [lo, lo+w) and in [Min, Max].
			lo, hi := h.clamp(lo), h.clamp(lo+w-1)
			k := rank - seen // 1..c
			off := int64(float64(hi-lo+1) * (float64(k) - 0.5) / float64(c))
			return lo + min(off, hi-lo)
		}
		seen += c
	}
	return h.max // unreachable: the buckets hold count values
}

func (h *Histogram) clamp(v int64) int64 {
	return min(max(v, h.min), h.max)
}

// Merge adds every value recorded in o to h, exactly as if they had been
// recorded into h.
func (h *Histogram) Merge(o *Histogram) {
	if o.count == 0 {
		return
	}
	last := bucketOf(o.max)
	for i := bucketOf(o.min); i <= last; i++ {
		h.counts[i] += o.counts[i]
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.count += o.count
	var c uint64
	h.sumLo, c = bits.Add64(h.sumLo, o.sumLo, 0)
	h.sumHi += o.sumHi + c
	h.sq[0], c = bits.Add64(h.sq[0], o.sq[0], 0)
	h.sq[1], c = bits.Add64(h.sq[1], o.sq[1], c)
	h.sq[2] += o.sq[2] + c
}

// Reset empties the histogram. Only buckets between Min and Max can be
// non-zero, so only those are cleared.
func (h *Histogram) Reset() {
	if h.count > 0 {
		clear(h.counts[bucketOf(h.min) : bucketOf(h.max)+1])
	}
	h.count, h.min, h.max = 0, 0, 0
	h.sumHi, h.sumLo = 0, 0
	h.sq = [3]uint64{}
}

// ForEachBucket calls fn for every non-empty bucket in increasing order,
// with the bucket's value range [lo, hi] (clamped to [Min, Max]) and count.
func (h *Histogram) ForEachBucket(fn func(lo, hi int64, count uint64)) {
	if h.count == 0 {
		return
	}
	last := bucketOf(h.max)
	for i := bucketOf(h.min); i <= last; i++ {
		if c := h.counts[i]; c > 0 {
			lo, w := bucketRange(i)
			fn(h.clamp(lo), h.clamp(lo+w-1), c)
		}
	}
}

// CDF returns points of the empirical distribution function for a chart:
// values[i] is the upper end of a bucket (clamped to Max) and fractions[i]
// the fraction of recorded values <= values[i]. With points <= 0, or at
// least as many points as non-empty buckets, every non-empty bucket gives a
// point; otherwise points buckets are chosen evenly among the non-empty
// ones, always including the first and the last (whose fraction is 1).
// An empty histogram gives nil slices.
func (h *Histogram) CDF(points int) (values []int64, fractions []float64) {
	if h.count == 0 {
		return nil, nil
	}
	first, last := bucketOf(h.min), bucketOf(h.max)
	nonEmpty := 0
	for i := first; i <= last; i++ {
		if h.counts[i] > 0 {
			nonEmpty++
		}
	}
	if points <= 0 || points > nonEmpty {
		points = nonEmpty
	}
	values = make([]int64, 0, points)
	fractions = make([]float64, 0, points)
	// want is the ordinal (among non-empty buckets) of the next point to
	// emit: round(j*(nonEmpty-1)/(points-1)) for j = 0..points-1, or just
	// the last bucket when a single point is asked for.
	want := func(j int) int {
		if points == 1 {
			return nonEmpty - 1
		}
		return (2*j*(nonEmpty-1) + (points - 1)) / (2 * (points - 1))
	}
	var seen uint64
	ord, j := 0, 0
	next := want(0)
	for i := first; i <= last && j < points; i++ {
		c := h.counts[i]
		if c == 0 {
			continue
		}
		seen += c
		if ord == next {
			lo, w := bucketRange(i)
			values = append(values, h.clamp(lo+w-1))
			fractions = append(fractions, float64(seen)/float64(h.count))
			j++
			if j < points {
				next = want(j)
			}
		}
		ord++
	}
	return values, fractions
}
