package replay

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pgbufsim/pgbufsim/trace"
)

// SHARDS (Waldspurger, Park, Garthwaite and Ahmad, "Efficient MRC
// Construction with SHARDS", FAST 2015), fixed-rate variant: a page is in
// the sample iff hash(key) mod P < T, so every reference to a sampled page
// is kept and the sample is a trace of its own over R = T/P of the pages.
// A reference whose sampled stack distance is d had d-1 distinct sampled
// pages referenced since its page's previous reference, which estimates
// (d-1)/R distinct pages in the full trace; it hits in a cache of c pages
// iff (d-1)/R < c, that is d <= ceil(c*R). The count of sampled references
// varies around N*R (a few hot pages in or out of the sample swing it);
// SHARDS-adj adds the difference N*R - Ns to the smallest distance, which
// removes most of that bias (section 4.3 of the paper).

// shardsModulus is P, the hash range the threshold is taken from (2^24 as
// in the paper's implementation).
const shardsModulus = 1 << 24

// shardsMethod names the method with its rate.
func shardsMethod(rate float64) string {
	return MethodSHARDS + "(rate=" + strconv.FormatFloat(rate, 'g', -1, 64) + ")"
}

// mix64 is the splitmix64 finaliser (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014): a cheap, well
// mixed hash of the page key.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// checkRate validates a SHARDS sampling rate.
func checkRate(rate float64) error {
	if !(rate > 0 && rate <= 1) {
		return fmt.Errorf("SHARDS rate %g: must be above 0 and at most 1", rate)
	}
	if math.Round(rate*shardsModulus) < 1 {
		return fmt.Errorf("SHARDS rate %g: below 1/%d", rate, shardsModulus)
	}
	return nil
}

// shardsCurve estimates LRU's results at every size from a spatial sample
// of the trace at the given rate.
func shardsCurve(t *trace.Trace, sizes []int, rate float64) ([]Result, error) {
	sm, err := shardsSampleOf(t, sizes, rate, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(sizes))
	n := int64(t.Len())
	distinct := int64(t.Distinct())
	method := shardsMethod(rate)
	for k, c := range sizes {
		mr := sm.missRatio(k, true)
		misses := int64(math.Round(mr * float64(n)))
		res := newResult("lru", c, method, n, n-misses, distinct)
		res.MissRatio = mr
		res.Evictions = max(0, res.Misses-min(int64(c), distinct))
		out[k] = res
	}
	return out, nil
}

// shardsSample is what one sample says about each size.
type shardsSample struct {
	hits     []int64 // sampled references that hit, per size
	sampled  int64   // Ns, sampled references
	expected float64 // N*R
}

// missRatio estimates the miss ratio at size k, with SHARDS-adj's
// correction (adjusted) or from the sample alone.
func (s shardsSample) missRatio(k int, adjusted bool) float64 {
	total := float64(s.sampled)
	hits := float64(s.hits[k])
	if adjusted {
		hits += s.expected - total
		total = s.expected
	}
	if total <= 0 {
		return 1
	}
	return min(1, max(0, (total-hits)/total))
}

// shardsSampleOf samples t at the given rate, with the hash perturbed by
// salt (0 in use; tests draw other samples with other salts), and counts
// the sampled hits at each size.
func shardsSampleOf(t *trace.Trace, sizes []int, rate float64, salt uint64) (shardsSample, error) {
	if err := checkRate(rate); err != nil {
		return shardsSample{}, err
	}
	threshold := uint64(math.Round(rate * shardsModulus))
	r := float64(threshold) / shardsModulus // the rate actually applied
	// Sampled pages get new dense ids, so the stack pass is sized by the
	// sample.
	sampleID := make([]int32, t.Distinct())
	next := int32(0)
	for id, key := range t.Keys {
		if mix64(key^salt)%shardsModulus < threshold {
			sampleID[id] = next + 1
			next++
		}
	}
	var sample []uint32
	for _, id := range t.IDs {
		if s := sampleID[id]; s > 0 {
			sample = append(sample, uint32(s-1))
		}
	}
	hist, _ := stackHistogram(sample, int(next))
	cum := make([]int64, len(hist))
	for d := 1; d < len(hist); d++ {
		cum[d] = cum[d-1] + hist[d]
	}
	sm := shardsSample{hits: make([]int64, len(sizes)), sampled: int64(len(sample)), expected: float64(t.Len()) * r}
	for k, c := range sizes {
		sm.hits[k] = cum[min(int(math.Ceil(float64(c)*r)), len(cum)-1)]
	}
	return sm, nil
}
