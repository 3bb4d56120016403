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
// The distance is counted with a Fenwick tree over access times in which
// exactly the last reference of each page is marked (Bennett and Kruskal
// 1975): the distance of a reference to a page last referenced at time p is
// the number of marks after p, plus one. Only one mark per distinct page is
// live, so the times are renumbered whenever they reach twice the number of
// distinct pages: the live marks keep their order and become times 1..d.
// The tree then has 2d entries however long the trace, so it stays small
// enough for the processor's caches; the renumbering costs O(d) every d
// references. O(n log d) time, 12 bytes per distinct page.

// stackHistogram returns hist, where hist[d] counts the references with
// stack distance d (1..distinct), and the number of first references (cold
// misses, infinite distance). ids are dense page ids below distinct.
func stackHistogram(ids []uint32, distinct int) (hist []int64, cold int64) {
	span := int32(max(2*distinct, 1024)) // times 1..span before renumbering
	tree := make([]int32, span+1)        // Fenwick tree over times
	owner := make([]int32, span+1)       // time -> page whose mark it may be
	last := make([]int32, distinct)      // page -> time of its mark, 0 if none
	hist = make([]int64, distinct+1)
	marks := int32(0) // live marks: one per page seen
	now := int32(0)
	for _, id := range ids {
		if now == span {
			now = renumber(tree, owner, last)
		}
		now++
		if p := last[id]; p == 0 {
			cold++
		} else {
			hist[marks-prefix(tree, p)+1]++
			add(tree, p, -1)
			marks--
		}
		add(tree, now, 1)
		marks++
		last[id] = now
		owner[now] = int32(id)
	}
	return hist, cold
}

// renumber gives the live marks the times 1..marks in their order, rebuilds
// the tree for them, and returns the last time used.
func renumber(tree, owner, last []int32) int32 {
	n := int32(0)
	for t := int32(1); t < int32(len(owner)); t++ {
		if id := owner[t]; last[id] == t {
			n++
			last[id] = n
			owner[n] = id
		}
	}
	// A Fenwick node i covers times (i - lowbit(i), i]; all of 1..n are
	// marked.
	for i := int32(1); i < int32(len(tree)); i++ {
		lo := i - i&-i
		tree[i] = max(0, min(i, n)-lo)
	}
	return n
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
