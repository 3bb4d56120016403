package model

import "math"

// A script file's SELECT ... WHERE key IN (a, b, ...) (or key =
// ANY(ARRAY[...])): an index qual with an array of keys (a
// ScalarArrayOpExpr), which B-tree scans search natively from 9.2
// (amsearcharray); before, only a bitmap scan or a sequential scan. The
// scan takes the array sorted and without duplicates
// (_bt_preprocess_array_keys, listKeys) and, up to 16, makes a primitive
// index scan of its own per key (_bt_first: the descent from the root,
// counted in idx_scan each), fetching the heap as any index scan does, the
// heap page kept while the next row is on it. From 17 (nbtree's
// ScalarArrayOp advancement, _bt_advance_array_keys) the scan goes on
// along the leaf it is on and descends again only for a key on another
// leaf. Measured on PostgreSQL 15 and 18.3 (TestInListsAsPostgreSQL): ten
// keys of one leaf and one heap page cost 21 buffers on 15, 3 on 18.

// listPlanFor is the planner's choice for o, an IN list of o.every
// values (duplicates counted, as estimate_array_length counts them) on
// t's key: the cheapest of the index scan (an index-only one when the
// SELECT list reads only the key), the bitmap heap scan and the sequential
// scan (add_path keeps the cheapest total cost; a tie goes to the path
// considered first, the sequential scan).
func (e *engine) listPlanFor(o *op) rangePlan {
	c := listCosts(o.t, o.every, o.indexOnly, e.ver)
	plan, best := planSeqScan, c.seq
	if e.ver >= 902 && c.index < best {
		plan, best = planIndexScan, c.index
		if o.indexOnly {
			plan = planIndexOnlyScan
		}
	}
	if c.bitmap < best {
		plan = planBitmapScan
	}
	return plan
}

// listCosts are the three paths' costs for an IN list of n values on t's
// key, on server version ver: btcostestimate with the array's primitive
// scans (num_sa_scans: the array's length, from 17 at most a third of the
// index's pages), each estimated to read rint(rows / num_sa_scans) index
// tuples on ceil(that share of the index's pages) pages, genericcostestimate
// pricing all of them by Mackert and Lohman (index_pages_fetched) at
// random_page_cost, cpu_index_tuple_cost and the operator per tuple, and
// the descent once per primitive scan; cost_index's heap as for a range
// of the same rows; the bitmap heap scan over the same index cost; the
// sequential scan with the list tested on every tuple: the operator on
// half the array (cost_qual_eval), or from 14 with 9 values or more a
// hash probe and one comparison after hashing the array once
// (convert_saop_to_hashed_saop). PostgreSQL 15's and 18.3's EXPLAIN costs
// to 0.01 (TestInListCostsMatchPostgres).
func listCosts(t *table, n int64, indexOnly bool, ver int) rangeCostSet {
	pages, tuples := plannerSize(t)
	avf := -1.0 // not an index-only scan
	if indexOnly {
		avf = allVisibleFraction(t)
	}
	return listCostsOf(pages, tuples, float64(t.pkey.bt.NBlocks()), float64(t.pkey.bt.Height()-1), t.heap.RandomOrder(), avf, n, ver)
}

// listCostsOf is listCosts for a table of pages and tuples whose key's
// index has idxPages pages and its root at level height, loaded in
// random order or in key order; avf >= 0 makes the index scan an
// index-only one with that all-visible fraction.
func listCostsOf(pages, tuples, idxPages, height float64, random bool, avf float64, n int64, ver int) rangeCostSet {
	tuples = math.Max(tuples, 1)
	// scalararraysel: equality on a unique column, the elements'
	// selectivities (1/tuples each, var_eq_const) added one by one as
	// disjoint, in floating point as PostgreSQL adds them (20000 keys of
	// 100000 make a share a hair over 0.2, whose heap pages round up).
	sel := 0.0
	for range n {
		sel += 1 / tuples
	}
	sel = math.Min(sel, 1)
	rows := math.Max(math.RoundToEven(sel*tuples), 1)
	scans := float64(n)
	if ver >= 1700 {
		scans = math.Min(scans, math.Ceil(idxPages*0.3333333))
	}
	scans = math.Max(scans, 1)
	perScan := math.RoundToEven(rows / scans)
	indexPages := 1.0
	if idxPages > 1 && tuples > 1 {
		indexPages = math.Ceil(perScan * idxPages / tuples)
	}
	fetched := indexPagesFetched(indexPages*scans, idxPages, pages)
	descent := math.Ceil(math.Log2(tuples))*cpuOperatorCost + (height+1)*50*cpuOperatorCost
	indexTotal := fetched*randomPageCost + perScan*scans*(cpuIndexTupleCost+cpuOperatorCost) + scans*descent

	// cost_index's and cost_bitmap_heap_scan's heap, as a range's.
	h := heapCostsOf(pages, tuples, idxPages, random, avf, rows, sel)
	index := indexTotal + h.maxIO + h.corr2*(h.minIO-h.maxIO) + rows*cpuTupleCost

	// The list as a qual on a heap tuple.
	qualStartup, qualPerTuple := 0.0, cpuOperatorCost*float64(n)*0.5
	if ver >= 1400 && n >= 9 {
		qualStartup, qualPerTuple = cpuOperatorCost*float64(n), 2*cpuOperatorCost
	}
	seq := seqPageCost*pages + (cpuTupleCost+qualPerTuple)*tuples + qualStartup
	bitmapStartup := indexTotal + 0.1*cpuOperatorCost*rows + qualStartup
	bitmap := bitmapStartup + h.bitmapIO + (cpuTupleCost+qualPerTuple)*h.bmTuples
	return rangeCostSet{seq: seq, index: index, bitmap: bitmap, indexStartup: descent, bitmapStartup: bitmapStartup, rows: rows}
}

// listKeysOf is o's keys (listKeys), sorted and distinct.
func (b *backend) listKeysOf(o *op) []int64 { return b.client.lists[o.key : o.key+o.n] }

// newPrimitiveScan reports whether the scan of a list descends from the
// root for key: every key up to 16; from 17 only a key on another leaf
// than the one the scan is on (leaf, -1 before the first).
func (b *backend) newPrimitiveScan(t *table, key int64, leaf int32) bool {
	return b.e.ver < 1700 || leaf < 0 || t.pkey.bt.Leaf(key) != leaf
}

// execList runs an IN list SELECT from its current sub-step: its plan,
// then the index scan over its keys (sub-steps 2-4; the keyed state's
// rangeKey holds the position in the list), the bitmap heap scan
// (execBitmapScan's heap phase after the list's index part), or the
// sequential scan.
func (b *backend) execList(o *op) bool {
	e, t, k := b.e, o.t, &b.k
	keys := b.listKeysOf(o)
	if b.sub != 1 && k.changing && !b.changeRow(t) { // an UPDATE's or DELETE's row
		return false
	}
	if b.sub == 1 {
		k.reset(o)
		k.filterPs = b.residualFilterPrice(o)
		b.touched = 0
		switch plan := e.listPlanFor(o); {
		case o.kind != opList && plan == planSeqScan:
			b.planFirstRun(o.kind, pathSeq)
			b.sub = seqChangeStart
		case plan == planSeqScan:
			// Every row tested against the list; the SELECT list's text
			// calls run on the rows it passes.
			b.cpu += perByte(e.costs.TextChar, o.n*int64(o.textBytes))
			*o = op{kind: opSeqscan, stmt: o.stmt, t: o.t, cmdNo: o.cmdNo}
			return b.execScan(o)
		case plan == planBitmapScan:
			b.planFirstRun(o.kind, pathBitmap)
			b.bm.entries = b.bm.entries[:0]
			b.sub = 30
		case plan == planIndexOnlyScan:
			b.planFirstRun(opList, pathIndexOnly)
			k.indexOnly = true
			b.sub = 2
		default:
			b.planFirstRun(o.kind, pathIndex)
			b.sub = 2
		}
	}
	if b.sub >= seqChangeStart {
		return b.execSeqChange(o)
	}
	if b.sub == 30 {
		// btgetbitmap: each primitive scan's descent, every key's
		// entries into the bitmap.
		for ; k.rangeKey < int64(len(keys)); k.rangeKey++ {
			key := keys[k.rangeKey]
			if b.newPrimitiveScan(t, key, k.rangeLeaf) {
				if !b.btDescend(t.pkey, key) {
					return false
				}
				b.touched = 0
				e.countIndexScan(t)
				k.rangeLeaf = t.pkey.bt.Leaf(key)
			}
			if !t.hasRow(key) {
				continue
			}
			k.entries = t.indexEntries(key, k.entries[:0])
			e.countIndexTuples(t, len(k.entries))
			for _, blk := range k.entries {
				b.bm.entries = append(b.bm.entries, bmEntry{blk: blk, row: key})
			}
		}
		b.releaseAll()
		b.sub = 23
	}
	if b.sub >= 20 && b.sub < 30 {
		return b.execBitmapScan(o)
	}
	for b.sub >= 2 && b.sub <= 4 {
		if k.rangeKey >= int64(len(keys)) {
			b.sub = 5
			break
		}
		key := keys[k.rangeKey]
		switch b.sub {
		case 2: // a new primitive scan leaves its leaf: _bt_killitems
			if !b.newPrimitiveScan(t, key, k.rangeLeaf) {
				b.sub = 4
				continue
			}
			if k.rangeLeaf >= 0 && !b.killRangeItems(t) {
				return false
			}
			b.sub = 3
		case 3: // _bt_first: the descent
			if !b.btDescend(t.pkey, key) {
				return false
			}
			b.touched = 0
			e.countIndexScan(t)
			k.rangeLeaf = t.pkey.bt.Leaf(key)
			b.sub = 4
		case 4: // the key's entries, each heap tuple fetched
			if k.ei == 0 && len(k.entries) == 0 && k.rowStep == rowStepLock {
				if t.hasRow(key) {
					k.entries = t.indexEntries(key, k.entries[:0])
				}
				e.countIndexTuples(t, len(k.entries))
			}
			if o.kind != opList {
				if !b.changeKey(o, t, key) {
					return false
				}
			} else if !b.fetchKeyEntries(t, key, 0) {
				return false
			}
			k.rangeKey++
			k.entries, k.ei = k.entries[:0], 0
			b.sub = 2
		}
	}
	if b.sub == 5 { // the end of the scan: the last leaf's kills
		if !b.killRangeItems(t) {
			return false
		}
		b.sub = 6
	}
	b.releaseAll()
	return true
}
