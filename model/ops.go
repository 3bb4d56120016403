package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/btree"
	"github.com/pgbufsim/pgbufsim/model/catalog"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/clog"
	"github.com/pgbufsim/pgbufsim/model/heap"
)

// WAL record sizes not in pgbench.go.
const (
	// walDelete is XLOG_HEAP_DELETE (xl_heap_delete, 8 bytes of main
	// data); walLock XLOG_HEAP_LOCK (xl_heap_lock, 8 bytes), which
	// heap_update writes when the new version goes to another page: it
	// marks the old tuple locked before it releases the old page's lock
	// to find one.
	walDelete = 54
	walLock   = 54
	// walVisible is XLOG_HEAP2_VISIBLE: xl_heap_visible (5 bytes) and two
	// block references, the VM page's and the heap page's (the same
	// relation: no RelFileNode again), 59 bytes as pg_waldump shows them.
	walVisible = 59
	// walInplace is XLOG_HEAP_INPLACE of a pg_class row (heap_inplace_update:
	// 48 bytes of headers and the row), walInvalidations
	// XLOG_STANDBY_INVALIDATIONS of a VACUUM's transaction: PostgreSQL
	// 15's sizes, by pg_waldump.
	walInplace       = 188
	walInvalidations = 90
	// walInplaceInvals18 is what 18's XLOG_HEAP_INPLACE adds for a
	// pg_class row's 3 invalidation messages (inplaceRecord).
	walInplaceInvals18 = 70
)

// SKIP_PAGES_THRESHOLD (vacuumlazy.c): VACUUM skips all-visible pages only
// in runs at least this long, to keep OS readahead working.
const skipPagesThreshold = 32

// exec runs one op from its current sub-step; false means blocked.
func (b *backend) exec(o *op) bool {
	switch o.kind {
	case opNone:
		return true
	case opFetch, opUpdate, opDeleteKey:
		return b.execKeyed(o)
	case opInsert:
		return b.execInsert(o)
	case opSeqscan, opDeleteAll, opUpdateAll:
		return b.execScan(o)
	case opVacuum:
		if !b.execVacuum(o) {
			return false
		}
		// VACUUM runs in transactions of its own: the statement leaves no
		// snapshot behind (and one held now would count again).
		b.releaseSnapshot()
		return true
	case opAnalyze:
		return b.execAnalyze(o)
	case opTruncate:
		b.execTruncate(o.t)
		return true
	case opCheckpoint:
		if b.sub == 1 {
			b.sub = 2
			b.e.ckpt.requestImmediate(b)
			b.block(wCheckpoint)
			return false
		}
		return true
	case opSleep:
		if b.sub == 1 {
			b.sub = 2
			b.wakeAt = b.e.k.Now() + o.dur
			b.block(wSleepUntil)
			return false
		}
		b.wakeAt = 0
		return true
	case opCommit, opAbort:
		return b.execCommit(o.kind == opCommit && !b.abortThis)
	case opCatalog:
		return b.execCatalog(o)
	case opRange, opUpdateRange, opDeleteRange:
		return b.execRange(o)
	case opList, opUpdateList, opDeleteList:
		return b.execList(o)
	case opPrewarm:
		return b.pgPrewarm(o)
	case opAutoprewarm:
		return b.autoprewarmLoad()
	}
	panic(fmt.Sprintf("unknown op %d", o.kind))
}

// execCommit ends the transaction: COMMIT inserts the commit record, waits
// for its flush (synchronous_commit, or always when the transaction drops
// relation files: RecordTransactionCommit's nrels > 0, so that no file is
// unlinked before the commit that unlinks it is on disk) and then updates
// the clog and the proc array (RecordTransactionCommit); ROLLBACK records
// the abort, never flushed (RecordTransactionAbort).
func (b *backend) execCommit(commit bool) bool {
	e := b.e
	if b.csub == 0 {
		b.cpu += e.costs.Transaction
	}
	if b.xid == 0 {
		b.releaseRowLocks() // locks taken by statements that changed nothing
		b.releaseSnapshot()
		// No xid but WAL written (pruning, hint bits' full-page images):
		// flushed in due time by the WAL writer (RecordTransactionCommit's
		// asynchronous case).
		b.endXactWAL()
		return true
	}
	if !commit {
		b.cpu += e.costs.Commit
		b.endXact(false, 0)
		b.releaseSnapshot()
		b.endXactWAL() // RecordTransactionAbort: left to the WAL writer
		return true
	}
	if b.csub == 0 {
		b.cpu += e.costs.Commit + e.costs.WALRecord
		rec := e.walCommitRecord()
		if b.invals > 0 {
			// xl_xact_invals after the xinfo and dbinfo fields: 16 bytes
			// and 16 per message (xactdesc; measured 82 bytes for two
			// messages on PostgreSQL 15).
			rec += 16 + 16*int64(b.invals)
		}
		b.commitLSN = e.wal.Insert(rec)
		b.xactLastRecEnd = b.commitLSN
		b.writeFullWALBuffers()
		b.csub = 1
		if e.sc.Server.SynchronousCommit || b.dropsFiles {
			b.walTarget = b.commitLSN
			b.xactLastRecEnd = 0 // flushed by the commit itself
			b.block(wWALFlush)
			return false
		}
		b.endXactWAL() // asynchronous commit: XLogSetAsyncXactLSN
	}
	b.csub = 0
	b.endXact(true, b.commitLSN)
	b.releaseSnapshot()
	return true
}

// endXactWAL ends the transaction's WAL without waiting for its flush:
// RecordTransactionCommit's asynchronous case (synchronous_commit off, or
// a transaction without an xid that wrote WAL) and RecordTransactionAbort
// call XLogSetAsyncXactLSN(XactLastRecEnd), which records the LSN for the
// WAL writer and wakes it if it sleeps or has a whole page to write.
func (b *backend) endXactWAL() {
	if b.xactLastRecEnd > 0 {
		b.e.wal.SetAsyncXactLSN(b.xactLastRecEnd)
		b.xactLastRecEnd = 0
	}
}

// execInsert appends o.n rows (INSERT ... SELECT, or COPY with o.copy),
// committing every o.every rows if set. INSERT ... SELECT inserts row by
// row (heap_insert without a BulkInsertState): each row is one
// RelationGetBufferForTuple, so one ReadBuffer of the backend's target page,
// a fresh pin that raises its usage_count; COPY (heap_multi_insert with a
// BulkInsertState) reads each page once, through the BULKWRITE ring. A
// table with a primary key gets an index entry per row (_bt_doinsert, keys
// after the loaded ones).
func (b *backend) execInsert(o *op) bool {
	e := b.e
	t := o.t
	if b.sub == 1 {
		b.planFirstRun(opInsert, pathNone)
		b.rowsLeft = o.n
		b.sinceCommit = 0
		b.insSlot, b.insBlk = -1, -1
		b.hio = hioState{gids: b.hio.gids[:0]}
		b.sub = 2
	}
	for {
		switch b.sub {
		case 2: // the next row's page
			if b.rowsLeft == 0 {
				b.releaseAll()
				return true
			}
			if b.yield() {
				return false
			}
			b.assignXid()
			if o.copy && b.insSlot >= 0 && t.heap.Free(b.insBlk) > 0 {
				// ReadBufferBI: the BulkInsertState's page, re-pinned
				// without a ReadBuffer.
				b.sub = 3
				continue
			}
			if b.insSlot >= 0 {
				b.releaseBuffer(b.insSlot)
				b.insSlot = -1
			}
			slot, blk, ok := b.getBufferForTuple(t, -1, -1, o.copy, o.copy && t.createdInXact == b.xid)
			if !ok {
				return false
			}
			b.insSlot, b.insBlk = slot, blk
			b.sub = 3
		case 3: // heap_insert
			blk, slot := b.insBlk, b.insSlot
			gid := e.cat.GID(t.rel, blk)
			wasVisible := t.heap.AllVisible(blk)
			t.heap.Insert(blk, b.xid, 1)
			if wasVisible {
				b.clearVMBit(t, blk)
			}
			b.releaseVM()
			b.noteIns(t, 1)
			e.countTuples(t, 1, 0, 0, 0)
			b.cpu += e.costs.TupleUpdate + perByte(e.costs.TupleByte, t.tupleData)
			b.modify(slot, gid, e.walInsertRecord(t))
			b.rowsLeft--
			b.sinceCommit++
			if !o.copy {
				// The next row's RelationGetBufferForTuple reads the
				// page again (UnlockReleaseBuffer released this pin).
				b.releaseBuffer(slot)
				b.insSlot = -1
			}
			b.sub = 4
			if t.pkey != nil {
				t.nextKey++
				b.bt = btState{entries: b.bt.entries[:0]}
				b.touched = 0
				b.sub = 6
			}
		case 6: // the row's index entry
			if !b.btInsert(t.pkey, t.nextKey) {
				return false
			}
			b.releaseBuffer(b.bt.leafSlot)
			b.bt.stage = 0
			b.sub = 4
		case 4:
			if o.every > 0 && (b.sinceCommit >= o.every || b.rowsLeft == 0) {
				b.sub = 5
				continue
			}
			b.sub = 2
		case 5: // commit_every: commit this batch
			if b.insSlot >= 0 {
				b.releaseBuffer(b.insSlot)
				b.insSlot = -1
			}
			if !b.execCommit(true) {
				return false
			}
			b.sinceCommit = 0
			b.sub = 2
		}
	}
}

// execScan is a sequential scan (SELECT count(*)), DELETE FROM t or UPDATE
// t SET ... without a key (heapgetpage per page). Tables larger than
// NBuffers/4 are read through a 256 kB BULKREAD ring. Per page: one
// ReadBuffer, heap_page_prune_opt, and every tuple checked unless the page
// may be skipped as all-visible: with the page_flag policy when
// PD_ALL_VISIBLE is set, with the vm policy when the table is at least
// vm_skip_threshold pages and the VM bit is set — which needs the VM page
// pinned. DELETE and UPDATE then read the page once per tuple they change
// (heap_delete, and table_tuple_fetch_row_version plus heap_update), hits
// that do not raise usage_count since the scan pins the page; the first
// change of an all-visible page pins the VM page to clear its bit.
func (b *backend) execScan(o *op) bool {
	e := b.e
	t := o.t
	av := e.sc.Policies.AllVisible
	if b.sub == 1 && e.scanByIndexOnly(o) {
		*o = o.allKeysRange()
		return b.execRange(o)
	}
	if b.sub == 1 {
		b.planFirstRun(o.kind, pathSeq)
		b.blk = 0
		b.scanEnd = t.heap.NBlocks()
		b.ring = nil
		if int64(b.scanEnd) > int64(e.pool.N)/4 {
			// initscan: a new BULKREAD strategy per scan (heap_endscan
			// frees it), so each scan's ring starts empty.
			b.ring = b.bulkRing()
			b.ring.Reset()
		}
		b.streamBegin(t, b.ring, streamScan, 0)
		b.useVM = av.ScanUsesVM(b.scanEnd)
		b.skipAV = av.ScanSkipsAllVisible(b.scanEnd)
		e.countSeqScan(t)
		b.vmHeld, b.vmSlot = -1, -1
		b.scanN = 0 // a SELECT's rows returned so far (scanLimitPage)
		b.filterPs, b.filterCarry = b.filterPrice(o), 0
		b.sub = 2
		if o.kind != opSeqscan {
			b.assignXid()
		}
	}
	for b.blk < b.scanEnd {
		blk := b.blk
		if b.sub == 2 && b.yield() {
			return false
		}
		if b.useVM && b.sub == 2 {
			vmBlk := blk / e.db.heapPerVM
			if vmBlk != b.vmHeld {
				slot, ok := b.readBuffer(e.vmGID(t, blk), nil, false, false)
				if !ok {
					return false
				}
				if b.vmSlot >= 0 {
					b.releaseBuffer(b.vmSlot)
				}
				b.vmSlot, b.vmHeld = slot, vmBlk // keep the VM page pinned for the scan
			}
			e.vis.vmLookups++
			b.cpu += e.costs.VMTest
		}
		gid := e.cat.GID(t.rel, blk)
		if b.sub == 2 {
			b.sub = 3
		}
		if b.sub == 3 {
			slot, ok := b.seqScanReadPage(t, blk, o.kind != opSeqscan)
			if !ok {
				return false
			}
			var buf [1]heap.Group
			groups := t.heap.Groups(blk, &buf)
			tuples := int64(0)
			for _, g := range groups {
				tuples += int64(g.N())
			}
			if b.skipAV && t.heap.AllVisible(blk) && o.kind == opSeqscan {
				e.vis.allVisibleSkips++
				b.chargeColdTuples(t, tuples)
				b.chargeReturned(o, tuples)
				e.countSeqTuples(t, b.scanLimitPage(o, blk, int(tuples)))
			} else {
				visible := b.checkPage(t, blk, slot, gid, groups)
				if o.kind == opUpdateAll {
					// Its own new versions are not returned: their cmin is
					// the statement's curcid (HeapTupleSatisfiesMVCC:
					// "inserted after scan started").
					visible -= b.ownNewVersions(groups)
				}
				b.chargeReturned(o, int64(visible))
				e.countSeqTuples(t, b.scanLimitPage(o, blk, visible))
			}
			b.sub = 4
			if o.kind != opSeqscan {
				b.scanN = b.changeVisible(t, blk)
				b.sub = 5
			}
		}
		if b.sub == 5 { // the first change of an all-visible page pins the VM page
			if b.reading() || (b.scanN > 0 && t.heap.AllVisible(blk)) {
				s, ok := b.readBuffer(e.vmGID(t, blk), nil, false, true)
				if !ok {
					return false
				}
				b.vmPins = append(b.vmPins, s)
			}
			b.sub = 6
		}
		if b.sub == 6 {
			if !b.changeTuples(o, t, blk) {
				return false
			}
			b.sub = 4
		}
		if b.sub == 4 {
			b.releaseVM()
			b.releaseBuffer(b.scanSlot)
			b.sub = 2
			b.blk++
		}
	}
	b.releaseAll()
	b.vmSlot = -1
	return true
}

// chargeReturned charges a sequential scan's work on the n tuples of a
// page its visibility checks passed (heapgetpage keeps only those;
// ExecScan sees no other): the executor's per-tuple work
// (costs.tuple_deform), the SELECT list's text calls and the filter. A
// dead tuple costs the scan its visibility check alone (checkPage):
// measured on PostgreSQL 15, 12-17 ns a hinted dead tuple in a warm scan,
// where a live one of count(*) costs 36 (docs/model.md "A backend").
func (b *backend) chargeReturned(o *op, n int64) {
	c := &b.e.costs
	b.cpu += n*c.TupleDeform + perByte(c.TextChar, n*int64(o.textBytes))
	b.chargeFilter(n)
}

// scanReadBlock reads block blk of t for a scan (what names it): from
// the scan's read stream where it has one (stream: 18's read_stream.c),
// else by ReadBuffer through ring (nil: none); write reads it for a
// change. false: b blocked (call again).
func (b *backend) scanReadBlock(t *table, blk int32, stream bool, ring *bufpool.Ring, write bool, what string) (int32, bool) {
	if stream {
		slot, miss, ok := b.streamNextBlock(t, blk, write, what)
		b.lastMiss = miss // the streamed block's own access, for costs.tuple_cold
		return slot, ok
	}
	return b.readBuffer(b.e.cat.GID(t.rel, blk), ring, false, write)
}

// seqScanReadPage is heapgettup's next page, blk, of a sequential scan
// (write: an UPDATE's or DELETE's, which will change it): read through
// the scan's ring (b.ring; its read stream from 18), pinned in b.scanSlot,
// its per-page price charged and pruned (heap_page_prune_opt). false: b
// blocked (call again).
func (b *backend) seqScanReadPage(t *table, blk int32, write bool) (int32, bool) {
	e := b.e
	slot, ok := b.scanReadBlock(t, blk, e.usesReadStream(), b.ring, write, "a sequential scan")
	if !ok {
		return 0, false
	}
	b.scanSlot = slot
	b.cpu += e.costs.ScanPage
	b.maybePrune(t, blk, slot, e.cat.GID(t.rel, blk))
	return slot, true
}

// scanLimitPage is a SELECT's LIMIT (o.limit > 0, its OFFSET's rows
// included) on page blk of a sequential scan, whose visible tuples number
// visible: it returns how many tuples the scan takes from the page
// (heap_getnext's, which seq_tup_read counts), and when the page holds
// the row that meets the LIMIT it ends the scan there, after that row
// (ExecLimit asks for no more). The rows that count are those the scan
// returns: every visible tuple without a WHERE clause, else those whose
// key lies in o.key..o.n (a range the planner scans sequentially), taken
// at the positions the load gave them on the page, in the page's order;
// a row an UPDATE moved counts where it was loaded as long as it is
// still on that page. Without a LIMIT it returns visible.
func (b *backend) scanLimitPage(o *op, blk int32, visible int) int {
	if o.limit <= 0 || o.kind != opSeqscan {
		return visible
	}
	need := o.limit - b.scanN
	h := o.t.heap
	if o.n == math.MaxInt64 {
		// No WHERE clause: every row counts.
		if int64(visible) < need {
			b.scanN += int64(visible)
			return visible
		}
		b.scanEnd = blk + 1
		return int(need)
	}
	first := int64(blk)*int64(h.RowsPerPage) + 1
	matched, taken := int64(0), 0
	for i := int64(0); i < int64(h.LoadedRowsOn(blk)); i++ {
		row := h.RowAt(first + i)
		if h.BlockOf(row) != blk {
			continue // moved off the page, or gone
		}
		taken++
		if row >= o.key && row <= o.n {
			if matched++; matched == need {
				b.scanEnd = blk + 1
				return min(taken, visible)
			}
		}
	}
	b.scanN += matched
	return visible
}

// ownNewVersions counts the tuples of groups the running statement itself
// wrote (an unkeyed UPDATE's new versions on a page its scan reaches).
func (b *backend) ownNewVersions(groups []heap.Group) int {
	n := 0
	for _, g := range groups {
		if g.Xmin == b.xid && g.Cmd == b.cmdID {
			n += int(g.N())
		}
	}
	return n
}

// changeVisible counts the tuples of blk an unkeyed DELETE or UPDATE
// changes: those visible to its snapshot.
func (b *backend) changeVisible(t *table, blk int32) int64 {
	var buf [1]heap.Group
	n := int64(0)
	for _, g := range t.heap.Groups(blk, &buf) {
		if b.toChange(g) {
			n += int64(g.N())
		}
	}
	return n
}

// toChange reports whether an unkeyed DELETE or UPDATE changes the live
// tuples of g: those its snapshot sees, its own transaction's included,
// except the versions the statement itself wrote (an UPDATE's new versions
// on pages its scan has not reached yet: their cmin is the statement's
// curcid, HeapTupleSatisfiesMVCC). A tuple whose deleter rolled back is
// live again (HeapTupleSatisfiesUpdate: an aborted xmax is TM_Ok, and
// heap_delete stamps its own), one whose deleter is this transaction, or
// committed, or still running, is not changed by this statement (the last
// would be a row-lock wait, which unkeyed statements do not model).
func (b *backend) toChange(g heap.Group) bool {
	if g.Xmax != 0 && g.Hints&heap.XmaxInvalid == 0 && (g.Xmax == b.xid || b.e.x.clog.Get(g.Xmax) != clog.Aborted) {
		return false
	}
	if g.Xmin == b.xid {
		return g.Cmd != b.cmdID
	}
	return b.judgedVisible(g)
}

// changeTuples deletes (DELETE FROM t) or updates (UPDATE t) the b.scanN
// visible tuples of blk: heap_delete reads the page once per tuple;
// heap_update reads it twice (the refetch, heap_update itself) and places
// the new version: on the page while it has room (HOT), else where
// RelationGetBufferForTuple finds room (one more ReadBuffer per tuple).
func (b *backend) changeTuples(o *op, t *table, blk int32) bool {
	e := b.e
	gid := e.cat.GID(t.rel, blk)
	if b.scanN == 0 {
		return true
	}
	if b.scanDone == 0 {
		n := t.heap.DeleteAll(blk, b.xid, b.toChange)
		if int64(n) != b.scanN {
			b.scanN = int64(n)
		}
		b.noteDead(t, b.scanN)
		if o.kind == opDeleteAll {
			e.countTuples(t, 0, 0, 0, b.scanN)
		} else {
			e.countTuples(t, 0, b.scanN, 0, 0) // the HOT ones are counted as they are placed
		}
		reads := b.scanN
		if o.kind == opUpdateAll && e.ver >= 1400 {
			reads *= 2
		}
		b.rereadPinned(b.scanSlot, gid, reads)
		if o.kind == opDeleteAll {
			b.cpu += b.scanN * e.costs.TupleDelete // heap_delete per tuple
		} else {
			b.cpu += b.scanN * (e.costs.TupleUpdate + e.costs.TupleUpdateOld + perByte(e.costs.TupleByte, t.tupleData)) // heap_update per tuple
		}
		b.clearVMBit(t, blk)
		if o.kind == opDeleteAll {
			// heap_delete logs each tuple: XLOG_HEAP_DELETE.
			b.modifyN(b.scanSlot, gid, b.scanN, e.walDeleteRecord())
			b.scanN = 0
			return true
		}
		b.scanDone = 1
	}
	// UPDATE: place each new version.
	for b.scanDone <= b.scanN {
		if t.heap.Free(blk) > 0 && !b.insPending {
			// HOT, on the same page: XLOG_HEAP_HOT_UPDATE.
			t.heap.InsertCmd(blk, b.xid, b.cmdID, 1)
			t.heap.Stats.HOTUpdates++
			e.countTuples(t, 0, 0, 1, 0)
			b.modify(b.scanSlot, gid, e.walUpdateSamePage(t))
			b.scanDone++
			continue
		}
		if !b.insPending {
			// The new version goes to another page: heap_update marks
			// the old tuple locked (XLOG_HEAP_LOCK) before it lets go of
			// the old page's lock to look for one.
			b.modify(b.scanSlot, gid, e.walLockRecord())
		}
		b.insPending = true
		slot, nb, ok := b.getBufferForTuple(t, blk, b.scanSlot, false, false)
		if !ok {
			return false
		}
		b.insPending = false
		wasVisible := t.heap.AllVisible(nb)
		t.heap.InsertCmd(nb, b.xid, b.cmdID, 1)
		if wasVisible {
			b.clearVMBit(t, nb)
		}
		b.releaseVM()
		// log_heap_update: one record for both pages.
		b.modify(slot, e.cat.GID(t.rel, nb), e.walUpdateOtherPage(t))
		if slot != b.scanSlot {
			b.releaseBuffer(slot)
		}
		b.scanDone++
	}
	b.scanN, b.scanDone = 0, 0
	return true
}

// rereadPinned counts n more ReadBuffer calls of a page b pins (gid in
// slot): hits that raise no usage_count (bufmgr.c PinBuffer with a private
// refcount), as heap_delete's and heap_update's reads of a page the scan
// holds. They cannot block: the page is pinned.
func (b *backend) rereadPinned(slot, gid int32, n int64) {
	e := b.e
	if n <= 0 {
		return
	}
	e.accesses += uint64(n)
	e.pool.Stats.Hits += uint64(n)
	e.noteAccess(b, gid, uint64(n), 0, 0, ctxNormal)
	b.cpu += n * e.costs.BufferHit
	if f := e.pageRef; f != nil {
		rel, blk := e.cat.Locate(gid)
		for i := int64(0); i < n; i++ {
			f(e.k.Now()-e.t0, e.cat.Rel(rel).Name, blk, true)
		}
	}
}

// bulkRing returns the backend's BULKREAD ring (256 kB, GetAccessStrategy).
func (b *backend) bulkRing() *bufpool.Ring {
	if b.bulkread == nil {
		b.bulkread = b.e.pool.NewRing(bufpool.BulkRead, b.e.bulkReadRingBuffers())
	}
	return b.bulkread
}

// bulkReadRingBuffers is GetAccessStrategy(BAS_BULKREAD)'s size: 256 kB;
// from 18 also room for effective_io_concurrency reads of
// io_combine_limit blocks in flight (8 kB x eic x io_combine_limit
// blocks more), within the pins a backend may hold (pinLimit) but never
// below 256 kB.
func (e *engine) bulkReadRingBuffers() int {
	n := 256 * 1024 / 8192
	if e.ver >= 1800 {
		n += max(e.sc.Server.EffectiveIOConcurrency, 0) * int(e.ioCombineBlocks())
		n = min(n, max(256*1024/8192, int(e.pinLimit())))
	}
	return n
}

// pinLimit is GetPinLimit, MaxProportionalPins (bufmgr.c): the buffers one
// backend may pin, NBuffers / (MaxBackends + NUM_AUXILIARY_PROCS). The
// scenario's clients stand for max_connections (at least its default,
// 100); the other processes are the defaults' autovacuum workers and
// launcher, max_worker_processes 8, max_wal_senders 10 and the auxiliary
// processes: 27 up to 17, 74 from 18 (autovacuum_worker_slots 16, 32 I/O
// worker slots). It bounds a read stream's pins ahead (LimitAdditionalPins).
func (e *engine) pinLimit() int32 {
	if e.pinLimitN == 0 {
		e.pinLimitN = e.computePinLimit()
	}
	return e.pinLimitN
}

// refcountArrayEntries is REFCOUNT_ARRAY_ENTRIES (bufmgr.c): the pins a
// backend's private refcount array holds before they overflow into its
// hash table. The pin-limit functions assume that many are held.
const refcountArrayEntries = 8

// limitAdditionalPins is LimitAdditionalPins (bufmgr.c, 17): n capped at
// the backend's share less the pins it is assumed to hold, never below 1.
// A 17 read stream caps its max_pinned_buffers with it once, at its start.
func (e *engine) limitAdditionalPins(n int32) int32 {
	return min(n, max(e.pinLimit()-refcountArrayEntries, 1))
}

// additionalPinLimit is GetAdditionalPinLimit (bufmgr.c, 18): the buffers
// a backend holding held pins may pin more, its share less
// REFCOUNT_ARRAY_ENTRIES or the pins it holds beyond them; 0 is possible.
// An 18 read stream asks it before each read it starts
// (read_stream_start_pending_read), so that with shared_buffers 16MB
// (a share of 2048 / 174 = 11 buffers) every read is at most 3 blocks.
func (e *engine) additionalPinLimit(held int32) int32 {
	return max(e.pinLimit()-max(refcountArrayEntries, held), 0)
}

func (e *engine) computePinLimit() int32 {
	conns := 100
	for _, ph := range e.sc.Workload.Phases {
		conns = max(conns, ph.Clients)
	}
	others := 27
	if e.ver >= 1800 {
		others = 74
	}
	return int32(max(int(e.pool.N)/(conns+others), 1))
}

// maybePrune is heap_page_prune_opt: when the page is nearly full (free
// space under max(fillfactor reserve, 10 %)), remove versions dead to
// every transaction, dirtying the page with a WAL record.
func (b *backend) maybePrune(t *table, blk, slot, gid int32) {
	h := t.heap
	if !h.Prunable(blk) || h.Free(blk) > max(h.MaxRows/10, h.MaxRows-h.RowsPerPage) {
		return
	}
	// heap_page_prune_opt: nothing is prunable until pd_prune_xid is older
	// than every snapshot.
	if h.PruneXid(blk) >= b.e.oldestXmin() {
		return
	}
	if n, kept := b.prune(t, blk); n > 0 {
		b.modify(slot, gid, b.e.walPruneRecord(n, kept))
	}
}

// prune removes dead tuples from blk: deleted by a committed transaction
// older than the horizon, or inserted by an aborted one. It returns the
// tuples removed and the rows of which a newer version stays on the page
// (heap.Table.Prune).
func (b *backend) prune(t *table, blk int32) (n, kept int) {
	e := b.e
	horizon := e.oldestXmin()
	n, kept = t.heap.Prune(blk, func(g heap.Group) bool {
		if g.Hints&heap.XminInvalid != 0 && g.Hints&heap.XminCommitted == 0 {
			return true
		}
		if g.Xmin >= firstLoadXid && g.Xmin < e.x.next && e.x.clog.Get(g.Xmin) == 2 /* aborted */ {
			return true
		}
		return g.Xmax != 0 && g.Xmax < horizon && e.x.clog.Get(g.Xmax) == 1 /* committed */
	})
	e.vis.pruned += int64(n)
	if t.pkey != nil && len(t.heap.PendingDead) > 0 {
		t.pkey.noteDead(t, t.heap.PendingDead)
		t.heap.PendingDead = t.heap.PendingDead[:0]
	}
	return n, kept
}

// noteIns and noteDead accumulate the transaction's effect on a table's
// autovacuum counters, applied at commit (or abort: inserts become dead).
func (b *backend) noteIns(t *table, n int64)  { b.addPend(t, n, 0) }
func (b *backend) noteDead(t *table, n int64) { b.addPend(t, 0, n) }

func (b *backend) addPend(t *table, ins, dead int64) {
	for i := range b.pend {
		if b.pend[i].t == t {
			b.pend[i].ins += ins
			b.pend[i].dead += dead
			return
		}
	}
	b.pend = append(b.pend, pendStat{t: t, ins: ins, dead: dead})
}

type pendStat struct {
	t         *table
	ins, dead int64
}

// tableStats applies the pending counters at transaction end.
func (e *engine) tableStats(b *backend, committed bool) {
	for _, p := range b.pend {
		if committed {
			p.t.insSinceVacuum += p.ins
			p.t.deadTuples += p.dead
			// Each row inserted, updated or deleted is one change
			// (AtEOXact_PgStat_Relations: changed_tuples, on commit only).
			p.t.modSinceAnalyze += p.ins + p.dead
		} else {
			p.t.deadTuples += p.ins
		}
	}
	b.pend = b.pend[:0]
}

// execTruncate is TRUNCATE t: the table gets new, empty relation files
// (heap, free space map, visibility map, primary key); the old files'
// buffers are dropped without being written (DropRelationBuffers), and a
// COPY later in the same transaction skips the free space map.
func (b *backend) execTruncate(t *table) {
	e := b.e
	b.assignXid()
	for _, rel := range []catalog.RelID{t.rel, t.vm, t.fsm.rel} {
		e.dropRelation(rel)
	}
	t.heap.Truncate()
	t.fsm.truncate()
	if t.pkey != nil {
		e.dropRelation(t.pkey.rel)
		t.pkey.bt = btree.New(0)
		t.pkey.deadPerLeaf = nil
		for e.cat.Rel(t.pkey.rel).NBlocks < t.pkey.bt.NBlocks() {
			e.extend(t.pkey.rel)
		}
	}
	t.oldEntries = oldEntryMap{}
	t.nextKey = 0
	t.reltuples, t.relpages, t.relallvisible = 0, 0, 0
	t.createdInXact = b.xid
	b.dropsFiles = true // the old relfilenode, unlinked at commit (smgrDoPendingDeletes)
	for i := range e.backends {
		e.backends[i].forgetTargets(t)
	}
	b.cpu += e.costs.Statement + e.costs.StatementTable
}

// dropRelation empties rel: its resident buffers are invalidated unwritten
// and its blocks forgotten (the catalog keeps the page ids for reuse).
func (e *engine) dropRelation(rel catalog.RelID) {
	p := e.pool
	r := e.cat.Rel(rel)
	for blk := int32(0); blk < r.NBlocks; blk++ {
		if s := p.Lookup(e.cat.GID(rel, blk)); s >= 0 && p.Frames.Pins[s] == 0 {
			p.Invalidate(s)
		}
	}
	// A fork's pages still waiting for their buffers go with it.
	e.forkExtended = slices.DeleteFunc(e.forkExtended, func(f forkPage) bool {
		r, _ := e.cat.Locate(f.gid)
		return r == rel
	})
	e.cat.Truncate(rel)
}
