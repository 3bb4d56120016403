package model

import (
	"fmt"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/heap"
)

// WAL record sizes not in pgbench.go.
const (
	walDelete  = 54
	walVisible = 64 // XLOG_HEAP2_VISIBLE
	walVacuum  = 48 // XLOG_HEAP2_PRUNE / VACUUM per page
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
	case opSeqscan, opDeleteAll:
		return b.execScan(o)
	case opVacuum:
		return b.execVacuum(o)
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
	}
	panic(fmt.Sprintf("unknown op %d", o.kind))
}

// execCommit ends the transaction: COMMIT inserts the commit record, waits
// for its flush (synchronous_commit) and then updates the clog and the proc
// array (RecordTransactionCommit); ROLLBACK records the abort.
func (b *backend) execCommit(commit bool) bool {
	e := b.e
	if b.xid == 0 {
		b.releaseRowLocks() // locks taken by statements that changed nothing
		b.snapValid = false
		return true
	}
	if !commit {
		b.cpu += e.costs.Commit
		b.endXact(false, 0)
		b.snapValid = false
		return true
	}
	if b.csub == 0 {
		b.cpu += e.costs.Commit + e.costs.WALRecord
		b.commitLSN = e.wal.Insert(walCommit)
		b.csub = 1
		if e.sc.Server.SynchronousCommit {
			b.walTarget = b.commitLSN
			b.block(wWALFlush)
			return false
		}
	}
	b.csub = 0
	b.endXact(true, b.commitLSN)
	b.snapValid = false
	return true
}

// execKeyed is an index scan by key followed by a fetch, update or delete
// of the row's heap tuple.
func (b *backend) execKeyed(o *op) bool {
	e := b.e
	t := o.t
	if b.sub == 1 {
		b.path = t.pkey.bt.Path(o.key, b.path[:0])
		b.sub = 2
		b.level = 0
	}
	if b.sub == 2 {
		for b.level < len(b.path) {
			slot, ok := b.access(e.cat.GID(t.pkey.rel, b.path[b.level]), nil, false, false)
			if !ok {
				return false
			}
			b.cpu += e.costs.IndexLevel
			e.pool.Unpin(slot)
			b.level++
		}
		b.sub = 3
	}
	if b.sub == 3 {
		if !t.hasRow(o.key) {
			// The index descent found no entry for the key (a key outside
			// the table, as pgbench's expressions can produce): the
			// statement touches no heap page and changes nothing
			// (UPDATE 0).
			e.notFound++
			return true
		}
		if o.kind != opFetch && !b.holdsRow(t, o.key) && !b.lockRow(t, o.key) {
			return false // waiting for the row's updater, or aborted as a deadlock victim
		}
		if b.rowWaited {
			// READ COMMITTED after waiting for the row's updater: the
			// statement goes on with the row's newest version
			// (EvalPlanQual), as if with a new snapshot.
			b.rowWaited = false
			b.takeSnapshot()
		}
		blk := t.heap.BlockOf(o.key)
		gid := e.cat.GID(t.rel, blk)
		slot, ok := b.access(gid, nil, false, o.kind != opFetch)
		if !ok {
			return false
		}
		b.maybePrune(t, blk, slot, gid)
		g := t.heap.RowGroup(o.key, blk)
		b.cpu += e.costs.TupleFetch
		visible := b.checkPage(t, blk, slot, gid, []heap.Group{g}) > 0
		if o.kind == opFetch || !visible {
			e.pool.Unpin(slot)
			return true
		}
		b.assignXid()
		b.undo = append(b.undo, rowUndo{t: t, row: o.key, oldBlk: blk, newBlk: -1})
		b.cpu += e.costs.TupleUpdate
		t.heap.DeleteRow(o.key, blk, b.xid)
		b.vmClear = t.heap.AllVisible(blk) // cleared by DeleteRow below
		b.vmClearBlk = blk
		b.noteDead(t, 1)
		if o.kind == opDeleteKey {
			b.modify(slot, gid, walDelete)
			e.pool.Unpin(slot)
			b.sub = 7
		} else if t.heap.Free(blk) > 0 {
			// HOT: the new version stays on the page.
			t.heap.InsertVersion(blk, b.xid, o.key)
			b.undo[len(b.undo)-1].newBlk = blk
			t.heap.Stats.HOTUpdates++
			b.modify(slot, gid, walUpdate)
			e.pool.Unpin(slot)
			b.sub = 7
		} else {
			b.modify(slot, gid, walUpdate)
			e.pool.Unpin(slot)
			b.sub = 4
		}
	}
	if b.sub == 4 { // non-HOT: place the new version
		b.placeNew(t)
		b.sub = 5
	}
	if b.sub == 5 {
		gid := e.cat.GID(t.rel, b.xtarg)
		slot, ok := b.access(gid, nil, b.xext, true)
		if !ok {
			return false
		}
		t.heap.InsertVersion(b.xtarg, b.xid, o.key)
		b.undo[len(b.undo)-1].newBlk = b.xtarg
		b.cpu += e.costs.TupleUpdate
		b.modify(slot, gid, walInsert)
		e.pool.Unpin(slot)
		b.sub = 6
	}
	if b.sub == 6 { // and its index entry
		gid := e.cat.GID(t.pkey.rel, t.pkey.bt.Leaf(o.key))
		slot, ok := b.access(gid, nil, false, true)
		if !ok {
			return false
		}
		b.cpu += e.costs.IndexInsert
		b.modify(slot, gid, walIndexInsert)
		e.pool.Unpin(slot)
		b.sub = 7
	}
	return b.clearVM(t)
}

// clearVM updates the VM page after a change cleared PD_ALL_VISIBLE
// (visibilitymap_clear: pin the VM page, clear the bit, dirty the page).
func (b *backend) clearVM(t *table) bool {
	if !b.vmClear {
		return true
	}
	e := b.e
	gid := e.vmGID(t, b.vmClearBlk)
	slot, ok := b.access(gid, nil, false, true)
	if !ok {
		return false
	}
	e.pool.MarkDirty(slot, e.pool.LSN[slot])
	e.pool.Unpin(slot)
	b.vmClear = false
	return true
}

// execInsert appends o.n rows, filling the insertion target page and
// extending the relation, with a WAL record per row (INSERT ... SELECT),
// committing every o.every rows if set.
func (b *backend) execInsert(o *op) bool {
	e := b.e
	t := o.t
	if b.sub == 1 {
		b.rowsLeft = o.n
		b.sinceCommit = 0
		b.sub = 2
	}
	for {
		switch b.sub {
		case 2: // place the next batch
			if b.rowsLeft == 0 {
				return true
			}
			if b.yield() {
				return false
			}
			b.assignXid()
			b.placeNew(t)
			b.sub = 3
		case 3:
			gid := e.cat.GID(t.rel, b.xtarg)
			slot, ok := b.access(gid, nil, b.xext, true)
			if !ok {
				return false
			}
			k := min(int64(t.heap.Free(b.xtarg)), b.rowsLeft)
			if o.every > 0 {
				k = min(k, o.every-b.sinceCommit)
			}
			k = max(k, 1)
			wasAV := t.heap.AllVisible(b.xtarg)
			t.heap.Insert(b.xtarg, b.xid, int(k))
			b.noteIns(t, k)
			b.cpu += k * (e.costs.TupleUpdate + e.costs.WALRecord)
			b.modify(slot, gid, walInsert*k)
			e.pool.Unpin(slot)
			b.rowsLeft -= k
			b.sinceCommit += k
			b.vmClear, b.vmClearBlk = wasAV, b.xtarg
			b.sub = 4
		case 4:
			if !b.clearVM(t) {
				return false
			}
			if o.every > 0 && b.sinceCommit >= o.every || o.every > 0 && b.rowsLeft == 0 {
				b.sub = 5
				continue
			}
			b.sub = 2
		case 5: // commit_every: commit this batch
			if !b.execCommit(true) {
				return false
			}
			b.sinceCommit = 0
			b.sub = 2
		}
	}
}

// execScan is a sequential scan (SELECT count(*)) or DELETE FROM t. Tables
// larger than NBuffers/4 are read through a 256 kB BULKREAD ring. Per page:
// pin, prune if needed, and check every tuple unless the page may be
// skipped as all-visible: with the page_flag policy when PD_ALL_VISIBLE is
// set (heapgetpage), with the vm policy when the table is at least
// vm_skip_threshold pages and the VM bit is set — which needs the VM page
// pinned.
func (b *backend) execScan(o *op) bool {
	e := b.e
	t := o.t
	av := e.sc.Policies.AllVisible
	if b.sub == 1 {
		b.blk = 0
		b.scanEnd = t.heap.NBlocks()
		b.ring = nil
		if int64(b.scanEnd) > int64(e.pool.N)/4 {
			// initscan: a new BULKREAD strategy per scan (heap_endscan
			// frees it), so each scan's ring starts empty.
			b.ring = b.bulkRing()
			b.ring.Reset()
		}
		b.useVM = av.ScanUsesVM(b.scanEnd)
		b.skipAV = av.ScanSkipsAllVisible(b.scanEnd)
		b.vmHeld, b.vmSlot = -1, -1
		b.sub = 2
		if o.kind == opDeleteAll {
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
				if b.vmSlot >= 0 {
					e.pool.Unpin(b.vmSlot)
					b.vmSlot = -1
				}
				slot, ok := b.access(e.vmGID(t, blk), nil, false, false)
				if !ok {
					return false
				}
				b.vmSlot, b.vmHeld = slot, vmBlk // keep the VM page pinned for the scan
			}
			e.vis.vmLookups++
			b.cpu += e.costs.VMTest
		}
		b.sub = 3
		gid := e.cat.GID(t.rel, blk)
		slot, ok := b.access(gid, b.ring, false, o.kind == opDeleteAll)
		if !ok {
			return false
		}
		b.cpu += e.costs.ScanPage
		b.maybePrune(t, blk, slot, gid)
		var buf [1]heap.Group
		groups := t.heap.Groups(blk, &buf)
		tuples := int64(0)
		for _, g := range groups {
			tuples += int64(g.N)
		}
		b.cpu += tuples * e.costs.TupleDeform
		if b.skipAV && t.heap.AllVisible(blk) && o.kind == opSeqscan {
			e.vis.allVisibleSkips++
		} else {
			b.checkPage(t, blk, slot, gid, groups)
		}
		if o.kind == opDeleteAll {
			xid := b.xid
			n := t.heap.DeleteAll(blk, xid, func(g heap.Group) bool {
				switch {
				case g.Xmin == xid || g.Hints&heap.Frozen == heap.Frozen:
					return true // our own insert, or frozen: visible
				case g.Hints&heap.XminInvalid != 0:
					return false
				}
				return e.x.clog.Get(g.Xmin) == 1 /* committed */ && !b.inSnapshot(g.Xmin)
			})
			if n > 0 {
				b.noteDead(t, int64(n))
				b.cpu += int64(n) * (e.costs.TupleUpdate + e.costs.WALRecord)
				b.modify(slot, gid, walDelete*int64(n))
				b.vmClear, b.vmClearBlk = true, blk
			}
		}
		e.pool.Unpin(slot)
		b.sub = 4
		if !b.clearVM(t) {
			return false
		}
		b.sub = 2
		b.blk++
	}
	if b.vmSlot >= 0 {
		e.pool.Unpin(b.vmSlot)
		b.vmSlot = -1
	}
	return true
}

// bulkRing returns the backend's BULKREAD ring (256 kB, GetAccessStrategy).
func (b *backend) bulkRing() *bufpool.Ring {
	if b.bulkread == nil {
		b.bulkread = b.e.pool.NewRing(bufpool.BulkRead, 256*1024/8192)
	}
	return b.bulkread
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
	if n := b.prune(t, blk); n > 0 {
		b.modify(slot, gid, walPrune)
	}
}

// prune removes dead tuples from blk: deleted by a committed transaction
// older than the horizon, or inserted by an aborted one.
func (b *backend) prune(t *table, blk int32) int {
	e := b.e
	horizon := e.oldestXmin()
	n := t.heap.Prune(blk, func(g heap.Group) bool {
		if g.Hints&heap.XminInvalid != 0 && g.Hints&heap.XminCommitted == 0 {
			return true
		}
		if g.Xmin >= firstLoadXid && g.Xmin < e.x.next && e.x.clog.Get(g.Xmin) == 2 /* aborted */ {
			return true
		}
		return g.Xmax != 0 && g.Xmax < horizon && e.x.clog.Get(g.Xmax) == 1 /* committed */
	})
	e.vis.pruned += int64(n)
	return n
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
		} else {
			p.t.deadTuples += p.ins
		}
	}
	b.pend = b.pend[:0]
}
