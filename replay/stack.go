package replay

import (
	"github.com/pgbufsim/pgbufsim/trace"
)

// LRU's miss-ratio curve in one pass. LRU is a stack algorithm (Mattson et
// al. 1970): a cache of c pages holds exactly the c most recently used
// pages, so a reference hits in every cache larger than its stack distance
// (the number of distinct pages referenced since the previous reference to
// the same page, plus one) and misses in every smaller one. One histogram
// of stack distances therefore gives the hits at every size.
//
// The distance is counted with a Fenwick tree over request positions in
// which exactly the last reference of each page is marked (Bennett and
// Kruskal 1975): the distance of a reference at i to a page last seen at p
// is the number of marks in (p, i) plus one. O(n log n) time, 4 bytes per
// request.

// stackHistogram returns hist, where hist[d] counts the references with
// stack distance d (1..distinct), and the number of first references (cold
// misses, infinite distance). ids are dense page ids below distinct.
func stackHistogram(ids []uint32, distinct int) (hist []int64, cold int64) {
	n := len(ids)
	tree := make([]int32, n+1) // Fenwick tree over positions 1..n
	last := make([]int32, distinct)
	hist = make([]int64, distinct+1)
	marks := int32(0) // marks in the whole tree: one per page seen
	for i, id := range ids {
		pos := int32(i + 1)
		if p := last[id]; p == 0 {
			cold++
		} else {
			// Marks after p = all marks - marks in 1..p.
			after := marks - prefix(tree, p)
			hist[after+1]++
			add(tree, p, -1)
			marks--
		}
		add(tree, pos, 1)
		marks++
		last[id] = pos
	}
	return hist, cold
}

// prefix sums the Fenwick tree over 1..i.
func prefix(tree []int32, i int32) int32 {
	s := int32(0)
	for ; i > 0; i &= i - 1 {
		s += tree[i]
	}
	return s
}

// add adds v at position i.
func add(tree []int32, i int32, v int32) {
	for n := int32(len(tree)); i < n; i += i & -i {
		tree[i] += v
	}
}

// lruCurve computes LRU's exact results at every size from one pass.
func lruCurve(t *trace.Trace, sizes []int) []Result {
	hist, _ := stackHistogram(t.IDs, t.Distinct())
	// cum[d] = hits in a cache of d pages.
	cum := make([]int64, len(hist))
	for d := 1; d < len(hist); d++ {
		cum[d] = cum[d-1] + hist[d]
	}
	out := make([]Result, len(sizes))
	n := int64(t.Len())
	distinct := int64(t.Distinct())
	for k, c := range sizes {
		hits := cum[min(c, len(cum)-1)]
		out[k] = newResult("lru", c, MethodStack, n, hits, distinct)
		// The first min(c, distinct) misses fill empty slots; every
		// later miss evicts (LRU never frees a slot).
		out[k].Evictions = out[k].Misses - min(int64(c), distinct)
	}
	return out
}

// newResult fills a Result from counts.
func newResult(policy string, slots int, method string, requests, hits, distinct int64) Result {
	r := Result{Policy: policy, Slots: slots, Method: method, Requests: requests,
		Hits: hits, Misses: requests - hits, Distinct: distinct}
	if requests > 0 {
		r.MissRatio = float64(r.Misses) / float64(requests)
	}
	return r
}
