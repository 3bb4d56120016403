package model

import (
	"cmp"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/heap"
)

// A range's or IN list's UPDATE or DELETE (UPDATE t SET ... WHERE key
// BETWEEN a AND b, DELETE FROM t WHERE key IN (...)): PostgreSQL's
// ModifyTable runs the plan a SELECT of the same rows would get (the
// planner prices the scan the same way) and changes each row the scan
// returns, as ExecUpdate or
// ExecDelete changes the one row of a statement by key (nodeModifyTable.c):
// the row's lock, the recheck of its newest version under READ COMMITTED,
// heap_update or heap_delete with their buffers, released before the scan
// goes on. Measured on PostgreSQL 15 (EXPLAIN (ANALYZE, BUFFERS), a
// vacuumed table of 100000 rows, 58 to a page): a range of n rows on one
// heap page costs the scan's 3 buffers (root, leaf, heap page) and the
// statement by key's changes n times, each without the visibility map's
// page once the first has cleared the page's all-visible bit: DELETE of
// 1, 2, 3 and 11 rows 5, 6, 7 and 15 buffers; UPDATE 14, 20, 26; the
// statement by key 5 and 14.

// The steps of a range UPDATE's or DELETE's row (keyedState.rowStep).
const (
	rowStepLock  uint8 = iota // take the row's lock, as the statement by key does before its fetch
	rowStepFetch              // fetch the key's index entries until the visible version
	rowStepRest               // fetch the entries left after it
)

// changeKey is a range's or IN list's UPDATE or DELETE work on the row of
// the scan's current key: the row's lock, the fetch of its entries until the version
// the snapshot sees, which it changes as the statement by key would
// (checkUpdated, modifyRow), then the entries left. false: b blocked, or
// the transaction was aborted (a deadlock); call again.
func (b *backend) changeKey(o *op, t *table, row int64) bool {
	k := &b.k
	if k.rowStep == rowStepLock {
		ok, waited := b.lockRowToChange(o, t, row)
		if !ok {
			return false
		}
		if waited {
			// The key's entries as the statement by key reads them
			// after its wait.
			k.entries, k.ei = t.indexEntries(row, k.entries[:0]), 0
		}
		k.rowStep = rowStepFetch
	}
	if k.rowStep == rowStepFetch {
		for k.ei < len(k.entries) && !k.found {
			if !b.fetchRangeEntry(t, row) {
				return false
			}
		}
		k.rowStep = rowStepRest
		if k.found && b.checkUpdated(t, b.rowOp) && !b.startRowChange(t) {
			return false
		}
	}
	for k.ei < len(k.entries) {
		if !b.fetchRangeEntry(t, row) {
			return false
		}
	}
	k.rowStep = rowStepLock
	return true
}

// lockRowToChange readies the change of row by o (b.rowOp: the statement
// by its key, whose change modifyRow makes; the keyed state's row fields)
// and takes the row's lock as that statement does, before its fetch; after
// a wait for the row's updater, EvalPlanQual (afterRowLockWait). ok is
// false while b waits, or when its transaction was aborted as a deadlock's
// victim (call again); waited: the lock came after a wait.
func (b *backend) lockRowToChange(o *op, t *table, row int64) (ok, waited bool) {
	k := &b.k
	if b.rowOp == nil {
		b.rowOp = new(op)
	}
	m := b.rowOp
	*m = op{kind: o.kind.rowChange(), stmt: true, t: t, key: row, cmdNo: o.cmdNo}
	k.found, k.foundBlk, k.epq, k.epqMove, k.vmBlk, k.newBlk = false, -1, 0, false, -1, -1
	if t.hasRow(row) && !b.holdsRow(t, row) && !b.lockRow(t, row) {
		return false, false
	}
	if b.rowWaited {
		b.afterRowLockWait(m.kind)
		return true, true
	}
	return true, false
}

// startRowChange begins the change of the row found (k.foundBlk,
// k.foundSlot), keeping the scan's sub-step to go back to and the pins b
// held, and runs it (changeRow). false: b blocked (call again).
func (b *backend) startRowChange(t *table) bool {
	k := &b.k
	k.changing, k.scanSub, k.pinMark = true, int8(b.sub), int32(len(b.held))
	b.sub = 5
	return b.changeRow(t)
}

// changeRow runs the change of the scan's current row (modifyRow, from
// b.sub 5), then releases the buffers it pinned (heap_update's and
// heap_delete's, the visibility map's, the new version's page and index
// leaf: each released before ExecModifyTable asks the scan for its next
// row) and puts the scan back at its step. false: b blocked (call again).
func (b *backend) changeRow(t *table) bool {
	k, m := &b.k, b.rowOp
	if b.sub == 5 && k.epqMove && !b.epqFetchNewest(t, m.key) {
		return false
	}
	if !b.modifyRow(m, t, k.foundBlk, k.foundSlot) {
		return false
	}
	for len(b.held) > int(k.pinMark) {
		b.releaseBuffer(b.held[len(b.held)-1])
	}
	// The index insertion's descent (btInsert) leaves its count of pages
	// read: the scan's next descent (an IN list's next key) starts anew.
	b.touched = 0
	k.changing = false
	b.sub = int(k.scanSub)
	return true
}

// A range or IN list the planner reads by a sequential scan (most of a
// table: a purge of old rows) is changed as ModifyTable over a Seq Scan
// changes it: every page read (the BULKREAD ring for a table over a
// quarter of shared buffers, 18's read stream), its tuples checked and
// counted in seq_tup_read, and each row of the range or list whose newest
// version is on the page changed as by its key, in the page's turn. The
// sub-steps of execSeqChange:
const (
	seqChangeStart = 50 + iota // the scan's start
	seqChangePage              // the next page: read, checked, its rows listed
	seqChangeRows              // the page's rows changed
)

// execSeqChange runs a range's or IN list's UPDATE or DELETE planned as a
// sequential scan, from its current sub-step (b.sub >= seqChangeStart).
// The rows of the current page wait in b.bm.entries (the bitmap heap
// scan's list, which this plan does not use), b.bm.next the one being
// changed. false: b blocked (call again).
func (b *backend) execSeqChange(o *op) bool {
	e, t, bm := b.e, o.t, &b.bm
	if b.sub == seqChangeStart {
		b.blk, b.scanEnd = 0, t.heap.NBlocks()
		b.ring = nil
		if int64(b.scanEnd) > int64(e.pool.N)/4 {
			b.ring = b.bulkRing() // initscan: a BULKREAD strategy for a large table
			b.ring.Reset()
		}
		b.streamBegin(t, b.ring, streamScan, 0)
		e.countSeqScan(t)
		b.sub = seqChangePage
	}
	for b.blk < b.scanEnd {
		blk := b.blk
		if b.sub == seqChangePage {
			if b.yield() {
				return false
			}
			slot, ok := b.seqScanReadPage(t, blk, true)
			if !ok {
				return false
			}
			gid := e.cat.GID(t.rel, blk)
			var buf [1]heap.Group
			groups := t.heap.Groups(blk, &buf)
			tuples := int64(0)
			for _, g := range groups {
				tuples += int64(g.N())
			}
			// The statement's own new versions (rows it moved to a page
			// it had yet to reach) are not visible to its scan
			// (HeapTupleSatisfiesMVCC: "inserted after scan started"):
			// not returned, not tested by its filter.
			own := b.ownNewVersions(groups)
			visible := b.checkPage(t, blk, slot, gid, groups) - own
			b.cpu += int64(visible) * e.costs.TupleDeform // the tuples the scan returns (chargeReturned)
			e.countSeqTuples(t, visible)
			bm.entries, bm.next = b.pageRowsToChange(o, blk, bm.entries[:0]), 0
			b.chargeChangeFilter(o, int64(visible), int64(len(bm.entries)-own))
			b.sub = seqChangeRows
		}
		for bm.next < len(bm.entries) {
			if !b.changeOnPage(o, t, bm.entries[bm.next].row, blk) {
				return false
			}
			bm.next++
		}
		b.releaseBuffer(b.scanSlot)
		b.sub = seqChangePage
		b.blk++
	}
	b.releaseAll()
	return true
}

// pageRowsToChange appends the rows of o's range or list whose newest
// version is on block blk, in key order: those the load put there and
// that are still there, and those an UPDATE moved there (tagged versions).
// Rows deleted and pruned away are gone.
func (b *backend) pageRowsToChange(o *op, blk int32, out []bmEntry) []bmEntry {
	t, h := o.t, o.t.heap
	wanted := func(row int64) bool {
		if !t.hasRow(row) || h.Gone(row) || h.BlockOf(row) != blk {
			return false
		}
		if o.kind.isList() {
			_, ok := slices.BinarySearch(b.listKeysOf(o), row)
			return ok
		}
		return row >= o.key && row <= o.n
	}
	first := int64(blk)*int64(h.RowsPerPage) + 1
	for i := range int64(h.LoadedRowsOn(blk)) {
		if row := h.RowAt(first + i); wanted(row) {
			out = append(out, bmEntry{blk: blk, row: row})
		}
	}
	var buf [1]heap.Group
	for _, g := range h.Groups(blk, &buf) {
		if g.Row() > 0 && wanted(g.Row()) {
			out = append(out, bmEntry{blk: blk, row: g.Row()})
		}
	}
	slices.SortFunc(out, func(x, y bmEntry) int { return cmp.Compare(x.row, y.row) })
	return slices.CompactFunc(out, func(x, y bmEntry) bool { return x.row == y.row })
}

// changeOnPage is a sequential or bitmap heap scan's change of row, whose
// version is on the scan's page blk (pinned in b.scanSlot): the row's lock,
// then, as the statement by key planned as a sequential scan does
// (execKeyedSeq), its version there changed unless the row is gone or the
// version is the statement's own (checkUpdated, modifyRow). false: b
// blocked (call again).
func (b *backend) changeOnPage(o *op, t *table, row int64, blk int32) bool {
	k := &b.k
	if k.rowStep == rowStepRest { // the change made: on to the next row
		k.rowStep = rowStepLock
		return true
	}
	if ok, _ := b.lockRowToChange(o, t, row); !ok {
		return false
	}
	ch := b.chain(t, row, blk)
	if len(ch) == 0 {
		return true
	}
	if g := ch[len(ch)-1]; g.Xmin == b.xid && g.Cmd == b.cmdID {
		// The version this statement wrote (its page is after the
		// one it came from): "inserted after scan started", not seen.
		return true
	}
	k.found, k.foundBlk, k.foundSlot = true, blk, b.scanSlot
	if !b.checkUpdated(t, b.rowOp) {
		return true
	}
	k.rowStep = rowStepRest
	if !b.startRowChange(t) {
		return false
	}
	k.rowStep = rowStepLock
	return true
}

// bitmapChangePages is the heap phase of a range's or IN list's UPDATE or
// DELETE that the planner reads by a bitmap heap scan (a table loaded in
// random order): the pages in block order as BitmapHeapNext reads them,
// with its prefetching (before 18) or read stream (18), and on each page
// the bitmap's rows, each judged and, when visible, changed as by its key
// before the scan returns the next (changeOnPage). An entry's row turns
// negative once judged visible, so that a row whose change blocked is not
// judged again. Sub-step 24 reads the page (pinned in b.scanSlot), 25
// goes through its rows. false: b blocked (call again).
func (b *backend) bitmapChangePages(o *op) bool {
	e, t, k, bm := b.e, o.t, &b.k, &b.bm
	for bm.page < len(bm.blocks) {
		blk := bm.blocks[bm.page]
		gid := e.cat.GID(t.rel, blk)
		if b.sub == 24 {
			slot, ok := b.bitmapReadPage(t, blk)
			if !ok {
				return false
			}
			b.scanSlot = slot
			b.sub = 25
		}
		for bm.next < len(bm.entries) && bm.entries[bm.next].blk == blk {
			en := &bm.entries[bm.next]
			if en.row > 0 {
				k.chain = b.chain(t, en.row, blk)
				b.cpu += e.costs.TupleFetch
				if len(k.chain) == 0 || b.checkPage(t, blk, b.scanSlot, gid, k.chain) == 0 {
					bm.next++
					continue
				}
				b.bitmapReturned(t)
				en.row = -en.row
			}
			if !b.changeOnPage(o, t, -en.row, blk) {
				return false
			}
			bm.next++
		}
		b.releaseBuffer(b.scanSlot)
		bm.page++
		b.sub = 24
	}
	b.releaseAll()
	return true
}
