package model

import "math"

// Range scans: SELECT ... WHERE key BETWEEN lo AND hi (a script file's
// range over a table's key). The planner prices an index scan, a bitmap
// heap scan (bitmapscan.go) and a sequential scan (rangeCosts); the index
// scan reads the B-tree and
// heap as PostgreSQL's does (nbtsearch.c, heapam_handler.c):
//
//   - _bt_first descends from the root to lo's leaf (_bt_search);
//   - _bt_readpage takes the leaf's matching items and the scan drops the
//     leaf's pin (_bt_drop_lock_and_maybe_pin); when the range goes on
//     past the leaf (its high key is within the range), _bt_steppage
//     first applies the kill_prior_tuple hints to the leaf it leaves
//     (_bt_killitems, which reads it again) and then reads the right
//     sibling (_bt_readnextpage): one access per leaf;
//   - index_fetch_heap per item, in key order: heapam_index_fetch_tuple
//     reads the heap page only when the item's block differs from the one
//     the scan holds (ReleaseAndReadBuffer), so keys on one page cost one
//     access; every entry of a key is followed, older versions' included.

// rangeKill is an index entry found dead to all (kill_prior_tuple).
type rangeKill struct {
	row int64
	blk int32
}

// rangePlan is how a range scan reads its table.
type rangePlan uint8

const (
	planSeqScan       rangePlan = iota // cost_seqscan
	planIndexScan                      // cost_index
	planBitmapScan                     // cost_bitmap_heap_scan over a bitmap index scan
	planIndexOnlyScan                  // cost_index of an index-only scan
)

func (p rangePlan) String() string {
	return [...]string{"Seq Scan", "Index Scan", "Bitmap Heap Scan", "Index Only Scan"}[p]
}

// Planner constants the range's costs need (guc_tables.c defaults).
const (
	// effectiveCacheSize is effective_cache_size (4 GB) in pages.
	effectiveCacheSize = 524288
	// bitmapMaxEntries is tbm_calculate_entries(work_mem = 4 MB): the
	// bitmap's exact pages before it turns lossy (a 48-byte
	// PagetableEntry and two pointers each).
	bitmapMaxEntries = 4 << 20 / (48 + 16)
)

// rangeCosts are the planner's total costs of each way to read a range of
// n rows of t's key tested by quals comparisons (two for a range bounded
// on both sides, one for key <= b or key >= a), at the default costs (costsize.c cost_seqscan,
// cost_index, cost_bitmap_heap_scan and compute_bitmap_pages; selfuncs.c
// btcostestimate and genericcostestimate): the index's pages at
// random_page_cost and its tuples' CPU, the heap's pages interpolated
// between the uncorrelated case (Mackert and Lohman's pages fetched, each
// at random_page_cost) and the correlated one (the range's share of the
// pages, all but the first at seq_page_cost) by the key's correlation
// squared: 1 for a table loaded in key order (as pgbench -i leaves
// pgbench_accounts), 0 for one loaded in random order. A bitmap heap scan
// reads each page once, in block order, at a cost per page between
// random_page_cost and seq_page_cost by the square root of the fraction of
// the table it reads, and rechecks both quals on every tuple.
//
// An index-only scan (indexOnly: the SELECT list reads only the key) is
// cost_index with its heap pages scaled by the share of the table that is
// not all-visible (allVisibleFraction), which it alone skips.
func rangeCosts(t *table, n int64, indexOnly bool, quals float64) (seq, index, bitmap float64) {
	if t.pkey == nil {
		pages, tuples := plannerSize(t)
		seq, _, _ = rangeCostsOf(pages, tuples, 0, 0, false, 0, quals, n)
		return seq, math.Inf(1), math.Inf(1)
	}
	c := keyRangeCosts(t, n, indexOnly, quals)
	return c.seq, c.index, c.bitmap
}

// keyRangeCosts is rangeCosts with the paths' startup costs, for a table
// with a key.
func keyRangeCosts(t *table, n int64, indexOnly bool, quals float64) rangeCostSet {
	pages, tuples := plannerSize(t)
	avf := -1.0 // not an index-only scan
	if indexOnly {
		avf = allVisibleFraction(t)
	}
	return rangePathCosts(pages, tuples, float64(t.pkey.bt.NBlocks()), float64(t.pkey.bt.Height()-1), t.heap.RandomOrder(), avf, quals, n)
}

// allVisibleFraction is estimate_rel_size's allvisfrac (tableam.c
// table_block_relation_estimate_size): pg_class.relallvisible over the
// relation's current pages, at most 1.
func allVisibleFraction(t *table) float64 {
	cur := float64(t.heap.NBlocks())
	if t.relallvisible == 0 || cur <= 0 {
		return 0
	}
	return math.Min(float64(t.relallvisible)/cur, 1)
}

// rangeCostsOf is rangeCosts for a table of pages and tuples whose key's
// index has idxBlocks pages and its root at level height, loaded in
// random order or in key order; avf >= 0 makes the index scan an
// index-only one with that all-visible fraction. quals are the operators
// each tuple is tested against (a range's key >= lo AND key <= hi: two;
// none for a scan of every row).
func rangeCostsOf(pages, tuples, idxBlocks, height float64, random bool, avf, quals float64, n int64) (seq, index, bitmap float64) {
	c := rangePathCosts(pages, tuples, idxBlocks, height, random, avf, quals, n)
	return c.seq, c.index, c.bitmap
}

// rangeCostSet is the total costs of a range's three paths, the startup
// costs of the two that have one (the index scan's descent,
// btcostestimate's indexStartupCost, and the bitmap heap scan's bitmap,
// the bitmap index scan's total cost) and the rows they are priced for.
type rangeCostSet struct {
	seq, index, bitmap          float64
	indexStartup, bitmapStartup float64
	rows                        float64
}

// rangePathCosts is rangeCostsOf with the paths' startup costs.
func rangePathCosts(pages, tuples, idxBlocks, height float64, random bool, avf, quals float64, n int64) (c rangeCostSet) {
	var seq, index, bitmap float64
	tuples = math.Max(tuples, 1)
	rows := math.Min(math.Max(float64(n), 1), tuples)
	sel := rows / tuples
	qualCost := quals * cpuOperatorCost
	// The quals on every tuple of a seqscan.
	seq = seqPageCost*pages + (cpuTupleCost+qualCost)*tuples
	// btcostestimate: the index's pages and tuples, and the descent.
	descent := math.Ceil(math.Log2(tuples))*cpuOperatorCost + (height+1)*50*cpuOperatorCost
	indexTotal := math.Ceil(sel*idxBlocks)*randomPageCost + rows*(cpuIndexTupleCost+qualCost) + descent
	h := heapCostsOf(pages, tuples, idxBlocks, random, avf, rows, sel)
	index = indexTotal + h.maxIO + h.corr2*(h.minIO-h.maxIO) + rows*cpuTupleCost
	// cost_bitmap_tree_node: 0.1 cpu_operator_cost per row for the bitmap.
	bitmap = indexTotal + 0.1*cpuOperatorCost*rows + h.bitmapIO + (cpuTupleCost+qualCost)*h.bmTuples
	return rangeCostSet{seq: seq, index: index, bitmap: bitmap, indexStartup: descent, bitmapStartup: indexTotal + 0.1*cpuOperatorCost*rows, rows: rows}
}

// heapCosts are the heap's share of an index path's and a bitmap heap
// path's costs for rows (sel of the tuples) of a table of pages whose key's
// index has idxBlocks pages, loaded in random order or in key order; avf
// >= 0 for an index-only scan with that all-visible fraction.
type heapCosts struct {
	// cost_index: the pages fetched at random (Mackert and Lohman:
	// maxIO) and in order (minIO), to be interpolated by the key's
	// correlation squared (corr2).
	maxIO, minIO, corr2 float64
	// cost_bitmap_heap_scan: the heap pages at a cost per page between
	// random_page_cost and seq_page_cost (bitmapIO), and the tuples
	// rechecked (more where a lossy bitmap holds whole pages).
	bitmapIO, bmTuples float64
}

func heapCostsOf(pages, tuples, idxBlocks float64, random bool, avf, rows, sel float64) (h heapCosts) {
	T := math.Max(pages, 1)
	h.corr2 = 1
	if random {
		h.corr2 = 0
	}
	notVisible := func(p float64) float64 { // cost_index: "if (indexonly)"
		if avf < 0 {
			return p
		}
		return math.Ceil(p * (1 - avf))
	}
	h.maxIO = notVisible(indexPagesFetched(rows, T, idxBlocks)) * randomPageCost
	if p := notVisible(math.Ceil(sel * pages)); p > 0 {
		h.minIO = randomPageCost + (p-1)*seqPageCost
	}

	// compute_bitmap_pages: Mackert and Lohman for T <= b, no re-reads.
	fetched := 2 * T * rows / (2*T + rows)
	heapPages := math.Min(fetched, pages)
	fetched = math.Min(math.Ceil(fetched), T)
	h.bmTuples = rows
	if bitmapMaxEntries < heapPages {
		lossy := math.Max(0, heapPages-bitmapMaxEntries/2)
		exact := heapPages - lossy
		if lossy > 0 {
			h.bmTuples = math.Max(math.Round(sel*(exact/heapPages)*tuples+(lossy/heapPages)*tuples), 1)
		}
	}
	perPage := randomPageCost
	if fetched >= 2 {
		perPage = randomPageCost - (randomPageCost-seqPageCost)*math.Sqrt(fetched/T)
	}
	h.bitmapIO = fetched * perPage
	return h
}

// Sort costs (costsize.c cost_tuplesort): work_mem's default, and
// tuplesort_merge_order's merge order for it (4 MB over two tapes'
// buffers and a 256 kB merge buffer: 15).
const (
	workMemBytes   = 4 << 20
	sortMergeOrder = 15
)

// sortStartup is cost_sort's startup cost beyond its input's, for tuples
// rows of width bytes (relation_byte_size: MAXALIGN(width) plus a 24-byte
// tuple header each) of which the first limit (0: all) are wanted: an
// external merge sort when the output does not fit in work_mem (every
// comparison, and the runs' pages written and read at 3/4 sequential),
// a bounded heap sort keeping limit rows when that is under half the
// input, else a quicksort; comparisons at 2 cpu_operator_cost. Its run
// cost is cpu_operator_cost a row.
func sortStartup(tuples, width float64, limit int64) float64 {
	tuples = math.Max(tuples, 2)
	cmp := 2 * cpuOperatorCost
	rowBytes := math.Ceil(width/8)*8 + 24
	in := tuples * rowBytes
	out, outBytes := tuples, in
	if limit > 0 && float64(limit) < tuples {
		out = float64(limit)
		outBytes = out * rowBytes
	}
	switch {
	case outBytes > workMemBytes:
		npages := math.Ceil(in / 8192)
		logRuns := 1.0
		if nruns := in / workMemBytes; nruns > sortMergeOrder {
			logRuns = math.Ceil(math.Log(nruns) / math.Log(sortMergeOrder))
		}
		return cmp*tuples*math.Log2(tuples) + 2*npages*logRuns*(seqPageCost*0.75+randomPageCost*0.25)
	case tuples > 2*out || in > workMemBytes:
		return cmp * tuples * math.Log2(2*out)
	}
	return cmp * tuples * math.Log2(tuples)
}

// orderedRangePlanFor is the planner's choice for a range of n rows of t's
// key wanted in key order (ORDER BY the key), limit rows of them when
// limit > 0, each row width bytes wide: the index scan, already in order,
// against a Sort over the cheapest of the other paths (create_ordered_paths
// sorts the cheapest-total path), compared at the fraction of the rows
// the LIMIT wants (get_cheapest_fractional_path: startup plus that share
// of the rest; a Limit's run is its input's, a Sort's startup its whole
// input and the sort).
func (e *engine) orderedRangePlanFor(t *table, n int64, indexOnly bool, quals float64, limit int64, width float64) rangePlan {
	return orderedChoice(keyRangeCosts(t, n, indexOnly, quals), width, limit, indexOnly)
}

// orderedChoice is orderedRangePlanFor's comparison for a range whose
// paths cost c.
func orderedChoice(c rangeCostSet, width float64, limit int64, indexOnly bool) rangePlan {
	rows := c.rows
	frac := 1.0
	if limit > 0 && float64(limit) < rows {
		frac = float64(limit) / rows
	}
	at := func(startup, total float64) float64 { return startup + frac*(total-startup) }
	unsorted, input := planSeqScan, c.seq
	if c.bitmap < input {
		unsorted, input = planBitmapScan, c.bitmap
	}
	sortStart := input + sortStartup(rows, width, limit)
	if at(sortStart, sortStart+cpuOperatorCost*rows) < at(c.indexStartup, c.index) {
		return unsorted
	}
	if indexOnly {
		return planIndexOnlyScan
	}
	return planIndexScan
}

// largestBitmapRange is about the most rows of a table of pages and rows
// that a range reads by a bitmap heap scan (a sixty-fourth of the rows
// at a time): what one backend's bitmap can come to (EstimateRun).
func largestBitmapRange(pages, rows, idxBlocks, height float64) int64 {
	best := int64(0)
	for k := int64(1); k <= 64; k++ {
		n := int64(math.Ceil(rows * float64(k) / 64))
		seq, index, bitmap := rangeCostsOf(pages, rows, idxBlocks, height, true, -1, 2, n)
		if bitmap < seq && bitmap < index {
			best = n
		}
	}
	return best
}

// indexPagesFetched is index_pages_fetched (costsize.c) for one scan:
// Mackert and Lohman's estimate of the pages that n tuple fetches from a
// table of T pages read, with the table's share of effective_cache_size
// as the buffer (the query's only table, and the index's pages).
func indexPagesFetched(n, T, indexPages float64) float64 {
	b := math.Max(math.Ceil(effectiveCacheSize*T/math.Max(T+indexPages, 1)), 1)
	if T <= b {
		return math.Min(math.Ceil(2*T*n/(2*T+n)), T)
	}
	lim := 2 * T * b / (2*T - b)
	if n <= lim {
		return math.Ceil(2 * T * n / (2*T + n))
	}
	return math.Ceil(b + (n-lim)*(T-b)/T)
}

// stdFuzzFactor is add_path's STD_FUZZ_FACTOR (pathnode.c): paths whose
// total costs differ by less than 1 % are compared by their other
// properties (compare_path_costs_fuzzily).
const stdFuzzFactor = 1.01

// fullScanCosts are the planner's total costs of reading every row of t
// with no qual (SELECT count(*) FROM t, SELECT key FROM t): cost_seqscan
// (every page, every tuple's cpu_tuple_cost), and cost_index of an
// index-only scan of t's whole key, the path build_index_paths makes for
// an index without quals when check_index_only finds it holds every
// column the query reads: every index page at random_page_cost,
// cpu_index_tuple_cost per entry, btcostestimate's descent, the heap
// pages that are not all-visible (rangeCostsOf with selectivity 1 and no
// qual), cpu_tuple_cost per row. Measured on PostgreSQL 15: a count(*) of
// pgbench_accounts at scale 1 (1640 pages, 100000 rows, a 276-page key
// index, all-visible) is an Index Only Scan costing 2604.29 against the
// sequential scan's 2640.
func fullScanCosts(t *table) (seq, indexOnly float64) {
	seq, indexOnly, _ = rangeCosts(t, math.MaxInt64, true, 0)
	return seq, indexOnly
}

// scanByIndexOnly reports whether the planner reads every row of a
// count(*) o (an unfiltered scan whose SELECT list reads only the key) by
// an index-only scan of the key rather than a sequential scan (9.2+:
// index-only scans came with the visibility map's crash safety). The
// index path must be cheaper by add_path's fuzz factor: within it the
// costs count as equal and the sequential scan's zero startup cost wins
// (compare_path_costs_fuzzily; a query without LIMIT does not keep a
// path for its startup cost alone). A table that holds rows inserted
// during the run is scanned as before: the model finds only the loaded
// rows by key (docs/model.md "What is not modelled").
func (e *engine) scanByIndexOnly(o *op) bool {
	t := o.t
	if o.kind != opSeqscan || !o.indexOnly || t == nil || t.pkey == nil || e.ver < 902 || t.nextKey > t.heap.Rows {
		return false
	}
	seq, indexOnly := fullScanCosts(t)
	if !fuzzilyCheaper(seq, indexOnly) {
		return false
	}
	if o.limit > 0 {
		// SELECT key FROM t LIMIT n: add_path kept both paths (the
		// sequential scan starts cheaper), and the LIMIT's share of
		// the rows decides (limitedChoice).
		c := keyRangeCosts(t, math.MaxInt64, true, 0)
		return limitedChoice(c, o.limit, true) == planIndexOnlyScan
	}
	return true
}

// fuzzilyCheaper reports whether add_path keeps an index-only path of
// total cost indexOnly over a sequential scan of total cost seq for a
// query without LIMIT: only when seq exceeds it by more than the fuzz
// factor (compare_path_costs_fuzzily).
func fuzzilyCheaper(seq, indexOnly float64) bool {
	return seq > indexOnly*stdFuzzFactor
}

// planRange is the planner's choice for range o: ordered or not, or the
// plan made already for allKeys (an index scan before 9.2).
func (e *engine) planRange(o *op) rangePlan {
	switch {
	case o.allKeys && e.ver >= 902:
		return planIndexOnlyScan
	case o.allKeys:
		return planIndexScan
	case !o.ordered && o.limit > 0 && o.t.pkey != nil:
		return limitedChoice(keyRangeCosts(o.t, o.n-o.key+1, o.indexOnly, o.rangeQuals()), o.limit, o.indexOnly)
	case !o.ordered:
		return e.rangePlanFor(o.t, o.n-o.key+1, o.indexOnly, o.rangeQuals())
	}
	// The sort's rows: the key alone, or the table's row.
	width := float64(o.t.tupleData)
	if o.indexOnly {
		width = 4
	}
	return e.orderedRangePlanFor(o.t, o.n-o.key+1, o.indexOnly, o.rangeQuals(), o.limit, width)
}

// limitedChoice is the planner's choice for a range whose paths cost c
// when a LIMIT wants limit of its rows in any order
// (get_cheapest_fractional_path): the cheapest-total path (rangePlanFor's
// choice), unless another costs less at the LIMIT's share of the rows,
// its startup cost plus that share of the rest. The sequential scan
// starts at once, so it wins a small LIMIT over a range of many rows, and
// then reads the table from its first page until it has met that many
// rows of the range (PostgreSQL 15: WHERE id > 50000 LIMIT 10 reads 863
// of 1725 pages; docs/model.md "Ranges").
func limitedChoice(c rangeCostSet, limit int64, indexOnly bool) rangePlan {
	frac := 1.0
	if float64(limit) < c.rows {
		frac = float64(limit) / c.rows
	}
	indexPlan := planIndexScan
	if indexOnly {
		indexPlan = planIndexOnlyScan
	}
	paths := []struct {
		plan           rangePlan
		startup, total float64
	}{{planSeqScan, 0, c.seq}, {indexPlan, c.indexStartup, c.index}, {planBitmapScan, c.bitmapStartup, c.bitmap}}
	best := 0
	for i, p := range paths {
		if p.total < paths[best].total {
			best = i
		}
	}
	at := func(i int) float64 { return paths[i].startup + frac*(paths[i].total-paths[i].startup) }
	for i := range paths {
		if at(i) < at(best) {
			best = i
		}
	}
	return paths[best].plan
}

// rangeQuals is how many comparisons of the key o's range has: one per
// bounded side.
func (o *op) rangeQuals() float64 {
	q := 2.0
	if o.open&openLow != 0 {
		q--
	}
	if o.open&openHigh != 0 {
		q--
	}
	return q
}

// allKeysRange is a count(*) o as the index-only scan of every key of its
// table that the planner chose for it (scanByIndexOnly).
func (o *op) allKeysRange() op {
	return op{kind: opRange, stmt: o.stmt, t: o.t, key: 1, n: o.t.heap.Rows, indexOnly: true, allKeys: true, cmdNo: o.cmdNo, textBytes: o.textBytes, limit: o.limit}
}

// rangePlanFor is the planner's choice for a range of n rows of t's key:
// the cheapest of rangeCosts (add_path keeps the cheapest total cost;
// a tie goes to the path considered first, the sequential scan). With
// indexOnly the index path is an index-only scan (check_index_only),
// which costs no more than the plain one it replaces.
func (e *engine) rangePlanFor(t *table, n int64, indexOnly bool, quals float64) rangePlan {
	seq, index, bitmap := rangeCosts(t, n, indexOnly, quals)
	plan, best := planSeqScan, seq
	if index < best {
		plan, best = planIndexScan, index
		if indexOnly {
			plan = planIndexOnlyScan
		}
	}
	if bitmap < best {
		plan = planBitmapScan
	}
	return plan
}

// execRange runs a range SELECT, UPDATE or DELETE from its current
// sub-step.
func (b *backend) execRange(o *op) bool {
	e, t, k := b.e, o.t, &b.k
	if b.sub != 1 && k.changing && !b.changeRow(t) { // an UPDATE's or DELETE's row
		return false
	}
	if b.sub == 1 {
		k.reset(o)
		k.filterPs = b.residualFilterPrice(o)
		b.touched = 0
		if o.allKeys {
			// A count(*) without quals, or min(key) or max(key): no
			// probes, and the plan is made (scanByIndexOnly,
			// appendMinMax).
			k.indexOnly = e.planRange(o) == planIndexOnlyScan
			if k.indexOnly {
				b.planFirstRun(opRange, pathIndexOnly)
			} else {
				b.planFirstRun(opRange, pathIndex)
			}
			b.sub = 2
		} else {
			b.probeGids = b.actualRangeProbes(t, o.key, o.n, o.open, b.probeGids[:0])
			b.sub = 40
		}
	}
	if b.sub == 40 { // planning: get_actual_variable_range's probes
		// Planning's buffers: EXPLAIN shows them under "Planning", not in
		// the execution's pgBufferUsage.
		b.catalogWork = true
		if !b.touchPages(b.probeGids, e.costs.IndexLevel) {
			return false
		}
		b.catalogWork = false
		b.touched = 0
		switch plan := e.planRange(o); {
		case o.kind != opRange && plan == planSeqScan:
			b.planFirstRun(o.kind, pathSeq)
			b.sub = seqChangeStart
		case plan == planSeqScan:
			// A sequential scan of every row, as SELECT count(*) does;
			// the SELECT list's text calls run on the range's rows only
			// (the filter passes them).
			if rows := min(o.n, t.heap.Rows) - max(o.key, 1) + 1; rows > 0 {
				if o.limit > 0 {
					rows = min(rows, o.limit)
				}
				b.cpu += perByte(e.costs.TextChar, rows*int64(o.textBytes))
			}
			// Under a LIMIT the scan stops once it has met that many
			// rows of the range (scanLimitPage).
			*o = op{kind: opSeqscan, stmt: o.stmt, t: o.t, cmdNo: o.cmdNo, key: max(o.key, 1), n: min(o.n, t.heap.Rows), limit: o.limit}
			b.sub = 1
			return b.execScan(o)
		case plan == planBitmapScan:
			b.planFirstRun(o.kind, pathBitmap)
			b.sub = 20
		case plan == planIndexOnlyScan:
			b.planFirstRun(opRange, pathIndexOnly)
			k.indexOnly = true
			b.sub = 2
		default:
			b.planFirstRun(o.kind, pathIndex)
			b.sub = 2
		}
	}
	if b.sub >= 20 && b.sub < 40 {
		return b.execBitmapScan(o)
	}
	hi := min(o.n, t.heap.Rows)
	if b.sub >= seqChangeStart {
		return b.execSeqChange(o)
	}
	if b.sub == 2 { // _bt_first
		found, ok := b.btFirst(o)
		if !ok {
			return false
		}
		if !found {
			return true
		}
		k.entries, k.ei = t.indexEntries(k.rangeKey, k.entries[:0]), 0
		e.countIndexTuples(t, len(k.entries))
		b.sub = 3
	}
	for b.sub >= 3 && b.sub <= 5 {
		switch b.sub {
		case 3: // index_fetch_heap for the current key's entries
			if o.kind != opRange {
				if !b.changeKey(o, t, k.rangeKey) {
					return false
				}
			} else if !b.fetchKeyEntries(t, k.rangeKey, o.limit) {
				return false
			}
			if k.limited(o.limit) || !o.desc && k.rangeKey >= hi || o.desc && k.rangeKey <= max(o.key, 1) {
				b.sub = 6
				continue
			}
			next := k.rangeKey + 1
			if o.desc {
				next = k.rangeKey - 1
			}
			if t.pkey.bt.Leaf(next) == k.rangeLeaf {
				k.rangeKey = next
				k.entries, k.ei = t.indexEntries(next, k.entries[:0]), 0
				e.countIndexTuples(t, len(k.entries))
				continue
			}
			b.sub = 4
		case 4: // _bt_steppage: _bt_killitems on the leaf left behind
			if !b.killRangeItems(t) {
				return false
			}
			b.sub = 5
		case 5: // _bt_readnextpage: the right sibling, or the left one
			if o.desc && !b.btReadPrevPage(t, k.indexOnly) || !o.desc && !b.btReadNextPage(t) {
				return false
			}
			k.entries, k.ei = t.indexEntries(k.rangeKey, k.entries[:0]), 0
			e.countIndexTuples(t, len(k.entries))
			b.sub = 3
		}
	}
	if b.sub == 6 { // the end of the scan: the last leaf's kills
		if !b.killRangeItems(t) {
			return false
		}
		b.sub = 7
		b.probeGids, b.touched = b.probeGids[:0], 0
		if o.desc && !k.limited(o.limit) {
			// A backward scan that ran out of its range asks
			// _bt_readnextpage for the page to the left
			// (btEndBackward).
			b.probeGids = b.btEndBackward(t, max(o.key, 1), k.indexOnly, b.probeGids)
		}
	}
	if b.sub == 7 && !b.touchPages(b.probeGids, e.costs.IndexLevel) {
		return false
	}
	b.releaseAll()
	return true
}

// actualRangeProbes appends the pages the planner reads to estimate the
// range lo..hi of t's key (selfuncs.c ineq_histogram_selectivity): for
// each of its two comparisons whose binary search over the key's
// histogram reaches the first or the last entry (a bound in the first or
// the last of its 100 bins, default_statistics_target), it replaces that
// entry with the column's actual minimum or maximum, which
// get_actual_variable_range finds by an index scan from that end
// (get_actual_variable_endpoint): the descent to the first or the last
// leaf, the visibility-map page of the entry's heap page and, where that
// page is not all-visible, the heap page. A table without statistics (never
// ANALYZEd) has no histogram and no probes. The histogram is taken as
// evenly spaced over the loaded keys, as ANALYZE's sample of a table
// keyed 1..N leaves it.
func (b *backend) actualRangeProbes(t *table, lo, hi int64, open uint8, out []int32) []int32 {
	e := b.e
	n := t.heap.Rows
	if t.pkey == nil || !t.analyzed || n < 2 {
		return out
	}
	first := 1 + (n-1)/100   // the histogram's second entry
	last := 1 + 99*(n-1)/100 // and its second to last
	probe := func(key int64) {
		// An index scan of its own: one entry returned, its heap tuple
		// fetched (index_fetch_heap) unless the page is all-visible.
		e.countIndexScan(t)
		e.countIndexTuples(t, 1)
		out = e.btPath(t.pkey, key, out)
		blk := t.heap.BlockOf(key)
		if vmBlk := blk / e.db.heapPerVM; vmBlk < e.cat.Rel(t.vm).NBlocks {
			out = append(out, e.cat.GID(t.vm, vmBlk))
		}
		if !t.heap.AllVisible(blk) {
			out = append(out, e.cat.GID(t.rel, blk))
			e.countIndexFetch(t)
		}
	}
	for i, v := range [2]int64{lo, hi} {
		if open&(openLow<<i) != 0 {
			continue // no comparison on this side
		}
		switch {
		case v <= first:
			probe(1)
		case v > last:
			probe(n)
		}
	}
	return out
}

// btFirst is _bt_first for a range scan of o's keys: the descent to the
// first key's leaf, where the scan then stands (k.rangeKey, k.rangeLeaf).
// found false: no key of the table is in the range (the scan is over);
// ok false: b blocked (call again). A descending range (ORDER BY the key
// DESC) starts at its last key, the scan reading backward.
func (b *backend) btFirst(o *op) (found, ok bool) {
	t, k := o.t, &b.k
	lo, hi := max(o.key, 1), min(o.n, t.heap.Rows)
	start := lo
	if o.desc {
		start = max(hi, 1)
	}
	if !b.btDescend(t.pkey, start) {
		return false, false
	}
	b.e.countIndexScan(t)
	if lo > hi {
		b.releaseAll()
		return false, true
	}
	k.rangeKey, k.rangeLeaf = start, t.pkey.bt.Leaf(start)
	return true, true
}

// btReadPrevPage is _bt_readnextpage for a backward scan: it reads the
// left sibling of the leaf the scan leaves, whose last key is the one
// before the scan's current key, and moves the scan there. From 9.5 to
// 17 a scan that fetches heap tuples under an MVCC snapshot has dropped
// its pin on the leaf (_bt_drop_lock_and_maybe_pin), and stepping left
// reads the leaf again for its left link before _bt_walk_left reads the
// sibling: two buffers where a forward step reads one. An index-only
// scan keeps its pin (so did every scan before 9.5), and 18 remembers
// the left link (so->currPos.prevPage): one buffer. Measured on
// PostgreSQL 15 and 18.3 (docs/model.md "Ranges").
func (b *backend) btReadPrevPage(t *table, indexOnly bool) bool {
	k := &b.k
	if b.leafRereadBackward(indexOnly) && !k.reread {
		if !b.readLeaf(t, k.rangeLeaf) {
			return false
		}
		k.reread = true
	}
	prev := k.rangeKey - 1
	leaf := t.pkey.bt.Leaf(prev)
	if !b.readLeaf(t, leaf) {
		return false
	}
	k.rangeKey, k.rangeLeaf, k.reread = prev, leaf, false
	return true
}

// readLeaf reads leaf of t's key for a scan stepping to it (a hit or a
// read, its CPU, the buffer released): false if b blocked.
func (b *backend) readLeaf(t *table, leaf int32) bool {
	e := b.e
	slot, ok := b.readBuffer(e.cat.GID(t.pkey.rel, leaf), nil, false, false)
	if !ok {
		return false
	}
	b.cpu += e.costs.IndexLevel
	b.releaseBuffer(slot)
	return true
}

// leafRereadBackward reports whether a backward scan reads its current
// leaf again to step left (btReadPrevPage).
func (b *backend) leafRereadBackward(indexOnly bool) bool {
	v := b.e.ver
	return v >= 905 && v < 1800 && !indexOnly
}

// btEndBackward appends the buffers a backward scan reads when it has
// returned the range's first key and is asked for the next row: the
// leaf again where btReadPrevPage would (to find there is nothing to
// its left: so->currPos.moreLeft false), and, when the range's first
// key lo is the first key of its leaf, that leaf's left sibling too:
// a backward scan has no low key to tell it the range ends there, as a
// forward scan's high key does (_bt_readpage), so it reads the
// sibling and finds nothing in range. At the index's leftmost leaf there
// is no sibling (_bt_walk_left, or 18's P_NONE prevPage).
func (b *backend) btEndBackward(t *table, lo int64, indexOnly bool, out []int32) []int32 {
	e, k := b.e, &b.k
	if b.leafRereadBackward(indexOnly) {
		out = append(out, e.cat.GID(t.pkey.rel, k.rangeLeaf))
	}
	if lo > 1 && t.pkey.bt.Leaf(lo-1) != t.pkey.bt.Leaf(lo) {
		out = append(out, e.cat.GID(t.pkey.rel, t.pkey.bt.Leaf(lo-1)))
	}
	return out
}

// btReadNextPage is _bt_readnextpage for a range scan: it reads the
// right sibling of the leaf the scan leaves, whose first key of the range
// is the one after the scan's current key, and moves the scan there.
func (b *backend) btReadNextPage(t *table) bool {
	k := &b.k
	next := k.rangeKey + 1
	leaf := t.pkey.bt.Leaf(next)
	if !b.readLeaf(t, leaf) {
		return false
	}
	k.rangeKey, k.rangeLeaf = next, leaf
	return true
}

// limited reports whether a range scan under a LIMIT (limit > 0) has
// returned its rows: the Limit asks it for no more.
func (k *keyedState) limited(limit int64) bool { return limit > 0 && int64(k.returned) >= limit }

// fetchKeyEntries fetches the heap tuples of row's index entries from
// k.ei on (index_fetch_heap; for an index-only scan the visibility map's
// page first, the heap only where the page is not all-visible) until a
// LIMIT of limit rows is met (0: none): false if b blocked (call again).
func (b *backend) fetchKeyEntries(t *table, row, limit int64) bool {
	e, k := b.e, &b.k
	for k.ei < len(k.entries) && !k.limited(limit) {
		if k.indexOnly {
			visible, ok := b.indexOnlyVisible(t, k.entries[k.ei])
			if !ok {
				return false
			}
			if visible {
				b.cpu += e.costs.IndexOnlyTuple
				k.ei++
				k.returned++
				continue
			}
		}
		if !b.fetchRangeEntry(t, row) {
			return false
		}
	}
	return true
}

// fetchRangeEntry is one index_fetch_heap of a range scan: the entry's
// heap page, read unless the scan holds it (pruned when the scan moves to
// it), and a visibility check of the key's HOT chain there.
func (b *backend) fetchRangeEntry(t *table, row int64) bool {
	e, k := b.e, &b.k
	blk := k.entries[k.ei]
	gid := e.cat.GID(t.rel, blk)
	if blk != k.curBlk {
		slot, ok := b.readBuffer(gid, nil, false, false)
		if !ok {
			return false
		}
		if k.curSlot >= 0 {
			b.releaseBuffer(k.curSlot) // ReleaseAndReadBuffer
		}
		k.curBlk, k.curSlot = blk, slot
		b.maybePrune(t, blk, slot, gid)
	}
	k.chain = b.chain(t, row, blk)
	b.cpu += e.costs.TupleFetch
	visible := len(k.chain) > 0 && b.checkPage(t, blk, k.curSlot, gid, k.chain) > 0
	if visible {
		b.chargeIndexRow()
		e.countIndexFetch(t)
		k.returned++
		if !k.found {
			k.found, k.foundBlk, k.foundSlot = true, blk, k.curSlot // the version a range UPDATE or DELETE changes
		}
	}
	if !visible && b.surelyDead(k.chain) {
		k.rangeKills = append(k.rangeKills, rangeKill{row, blk})
	}
	k.ei++
	return true
}

// killRangeItems is _bt_killitems for the leaf the scan is leaving: with
// entries to mark dead, the leaf is read again and hinted.
func (b *backend) killRangeItems(t *table) bool {
	e, k := b.e, &b.k
	if len(k.rangeKills) == 0 {
		return true
	}
	gid := e.cat.GID(t.pkey.rel, k.rangeLeaf)
	slot, ok := b.readBuffer(gid, nil, false, true)
	if !ok {
		return false
	}
	b.cpu += e.costs.IndexLevel
	for _, kl := range k.rangeKills {
		t.killEntry(kl.row, kl.blk)
	}
	b.markDirtyHint(slot, gid)
	b.releaseBuffer(slot)
	k.rangeKills = k.rangeKills[:0]
	return true
}
