package model

import "math"

// Range scans: SELECT ... WHERE key BETWEEN lo AND hi (a script file's
// range over a table's key). The planner prices an index scan against a
// sequential scan (rangeUsesIndex); the index scan reads the B-tree and
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

// rangeUsesIndex is the planner's choice for a range of n rows of t's key:
// cost_index (btcostestimate, genericcostestimate) against cost_seqscan,
// with the key's correlation 1 (the tables are loaded in key order and
// ANALYZEd after, as pgbench -i leaves them), where the heap pages a range
// needs are read in order: the first at random_page_cost, the rest at
// seq_page_cost (cost_index's min_IO_cost).
func (e *engine) rangeUsesIndex(t *table, n int64) bool {
	if t.pkey == nil {
		return false
	}
	pages, tuples := plannerSize(t)
	tuples = math.Max(tuples, 1)
	rows := math.Min(math.Max(float64(n), 1), tuples)
	sel := rows / tuples
	// Two quals (key >= lo AND key <= hi) on every tuple of a seqscan.
	seq := seqPageCost*pages + (cpuTupleCost+2*cpuOperatorCost)*tuples
	idxPages := math.Ceil(sel * float64(t.pkey.bt.NBlocks()))
	height := float64(t.pkey.bt.Height() - 1)
	index := idxPages*randomPageCost + rows*(cpuIndexTupleCost+2*cpuOperatorCost) +
		math.Ceil(math.Log2(tuples))*cpuOperatorCost + (height+1)*50*cpuOperatorCost
	heapPages := math.Max(math.Ceil(sel*pages), 1)
	index += randomPageCost + (heapPages-1)*seqPageCost + rows*cpuTupleCost
	return index < seq
}

// execRange runs a range SELECT from its current sub-step.
func (b *backend) execRange(o *op) bool {
	e, t, k := b.e, o.t, &b.k
	if b.sub == 1 {
		*k = keyedState{entries: k.entries[:0], kills: k.kills[:0], chain: k.chain[:0], rangeKills: k.rangeKills[:0], curBlk: -1, curSlot: -1, foundBlk: -1, newBlk: -1, vmBlk: -1}
		if !e.rangeUsesIndex(t, o.n-o.key+1) {
			// A sequential scan of every row, as SELECT count(*) does.
			*o = op{kind: opSeqscan, stmt: o.stmt, t: o.t, cmdNo: o.cmdNo}
			return b.execScan(o)
		}
		b.touched = 0
		b.sub = 2
	}
	lo, hi := max(o.key, 1), min(o.n, t.heap.Rows)
	if b.sub == 2 { // _bt_first
		if !b.btDescend(t.pkey, o.key) {
			return false
		}
		if lo > hi { // no key of the table in the range
			b.releaseAll()
			return true
		}
		k.rangeKey, k.rangeLeaf = lo, t.pkey.bt.Leaf(lo)
		k.entries, k.ei = t.indexEntries(lo, k.entries[:0]), 0
		b.sub = 3
	}
	for b.sub >= 3 && b.sub <= 5 {
		switch b.sub {
		case 3: // index_fetch_heap for the current key's entries
			for k.ei < len(k.entries) {
				if !b.fetchRangeEntry(t, k.rangeKey) {
					return false
				}
			}
			if k.rangeKey >= hi {
				b.sub = 6
				continue
			}
			next := k.rangeKey + 1
			if t.pkey.bt.Leaf(next) == k.rangeLeaf {
				k.rangeKey = next
				k.entries, k.ei = t.indexEntries(next, k.entries[:0]), 0
				continue
			}
			b.sub = 4
		case 4: // _bt_steppage: _bt_killitems on the leaf left behind
			if !b.killRangeItems(t) {
				return false
			}
			b.sub = 5
		case 5: // _bt_readnextpage: the right sibling
			next := k.rangeKey + 1
			leaf := t.pkey.bt.Leaf(next)
			slot, ok := b.readBuffer(e.cat.GID(t.pkey.rel, leaf), nil, false, false)
			if !ok {
				return false
			}
			b.cpu += e.costs.IndexLevel
			b.releaseBuffer(slot)
			k.rangeKey, k.rangeLeaf = next, leaf
			k.entries, k.ei = t.indexEntries(next, k.entries[:0]), 0
			b.sub = 3
		}
	}
	if b.sub == 6 { // the end of the scan: the last leaf's kills
		if !b.killRangeItems(t) {
			return false
		}
		b.sub = 7
	}
	b.releaseAll()
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
