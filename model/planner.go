package model

import "math"

// The planner's choice for a statement that looks a row up by its primary
// key (WHERE key = const under pgbench's simple query protocol, planned
// every time): an index scan or a sequential scan, whichever PostgreSQL's
// cost model prices lower at the default costs (costsize.c cost_seqscan
// and cost_index, selfuncs.c btcostestimate and genericcostestimate). The
// sizes are estimate_rel_size's: the relation's current pages, and its
// rows scaled from reltuples/relpages as VACUUM last measured them. At
// pgbench's default costs pgbench_branches is always read by a sequential
// scan, pgbench_tellers up to about scale 42, pgbench_accounts never.

// Default planner costs (postgresql.conf).
const (
	seqPageCost       = 1.0
	randomPageCost    = 4.0
	cpuTupleCost      = 0.01
	cpuIndexTupleCost = 0.005
	cpuOperatorCost   = 0.0025
)

// plannerSize is estimate_rel_size's view of t: its current pages, and
// its rows scaled from reltuples/relpages as VACUUM last measured them.
func plannerSize(t *table) (pages, tuples float64) {
	pages = float64(t.heap.NBlocks())
	tuples = pages * float64(t.reltuples) / math.Max(float64(t.relpages), 1)
	if t.relpages == 0 {
		tuples = float64(t.reltuples)
	}
	return pages, tuples
}

// useIndexScan reports whether a keyed statement on t uses its primary key
// (indexOnly: an index-only scan, which fetches the heap page only where
// the table is not all-visible).
func (e *engine) useIndexScan(t *table, indexOnly bool) bool {
	if t.pkey == nil {
		return false
	}
	pages, tuples := plannerSize(t)
	// cost_seqscan: every page, and every tuple tested against the qual.
	seq := seqPageCost*pages + (cpuTupleCost+cpuOperatorCost)*tuples
	// cost_index for one row by a unique key: one index leaf and one heap
	// page at random_page_cost, the index tuple's and the heap tuple's CPU,
	// and btcostestimate's descent: log2 of the index's tuples comparisons
	// plus 50 operator costs per page level.
	idxTuples := math.Max(tuples, 1)
	height := float64(t.pkey.bt.Height() - 1) // the root's level
	heapPages := 1.0
	if indexOnly {
		heapPages = math.Ceil(1 - allVisibleFraction(t))
	}
	index := randomPageCost + cpuIndexTupleCost + cpuOperatorCost +
		math.Ceil(math.Log2(idxTuples))*cpuOperatorCost + (height+1)*50*cpuOperatorCost +
		heapPages*randomPageCost + cpuTupleCost
	return index < seq
}
