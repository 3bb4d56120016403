package model

import (
	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/heap"
)

// VACUUM (lazy vacuum, src/backend/access/heap/vacuumlazy.c) and
// autovacuum (src/backend/postmaster/autovacuum.c), as docs/model.md
// §5-§7 describe them: VACUUM reads the table through its ring, skipping
// runs of at least SKIP_PAGES_THRESHOLD all-visible pages; on each page it
// prunes tuples dead to everyone, sets hint bits while judging tuples
// (HeapTupleSatisfiesVacuum), and when every remaining tuple is visible to
// all sets PD_ALL_VISIBLE and the VM bit (WAL-logged); if it removed tuples
// it then scans the table's indexes. Autovacuum workers run the same code
// with the cost-based delay.

func (b *backend) execVacuum(o *op) bool {
	e := b.e
	t := o.t
	s := &e.sc.Server
	if b.sub >= 49 { // VACUUM ANALYZE's ANALYZE
		return b.execAnalyze(o)
	}
	if b.sub == 1 {
		// PROC_IN_VACUUM from here on: b's snapshot stops holding back the
		// horizon (inLazyVacuum), which may rise.
		e.x.horizonOK = false
		if t.vacuuming {
			return true // another vacuum holds the table's lock: skip, as autovacuum does
		}
		t.vacuuming = true
		b.blk = 0
		b.scanEnd = t.heap.NBlocks()
		if b.vacring == nil && s.VacuumBufferUsageLimit > 0 {
			b.vacring = e.pool.NewRing(bufpool.Vacuum, int(s.VacuumBufferUsageLimit/8192))
		}
		if b.vacring != nil {
			b.vacring.Reset() // vacuum(): a new BAS_VACUUM strategy per command
		}
		b.vmHeld, b.vmSlot = -1, -1
		b.horizon = e.oldestXmin()
		b.lpdeadPages, b.lpdeadItems, b.vacIndexes = b.lpdeadPages[:0], 0, false
		b.vcost = 0
		b.sub = 2
		if e.vacuumUsesStream() {
			b.streamBegin(t, b.vacring, streamVacuum, 0)
		}
	}
	for (b.sub >= 2 && b.sub <= 4 || b.sub == 20 || b.sub == 21) && b.blk < b.scanEnd {
		blk := b.blk
		if b.sub == 2 && b.yield() {
			return false
		}
		if b.sub == 2 && e.vacuumUsesStream() {
			b.sub = 20
		}
		if b.sub == 20 { // read_stream_next_buffer: the stream decides the block
			var slot int32
			var miss, ok bool
			if b.streamAsync() {
				blk, slot, miss, ok = b.streamNextBufferAsync(t, false)
			} else {
				blk, slot, miss, ok = b.streamNextBuffer(t, false)
			}
			if !ok {
				return false
			}
			if blk < 0 { // the rest is skipped
				b.blk = b.scanEnd
				b.sub = 2
				break
			}
			b.blk, b.vacSlot, b.vacMiss = blk, slot, miss
			b.sub = 21
		}
		if b.sub == 21 { // visibilitymap_pin once the buffer is in hand (18)
			if !b.vacuumPinVM(t, blk) {
				return false
			}
			b.lastMiss = b.vacMiss
			b.vacuumBlock(t, blk, b.vacSlot)
		}
		if b.sub == 2 {
			if !b.reading() && t.heap.AllVisible(blk) {
				run := int32(0)
				for blk+run < b.scanEnd && t.heap.AllVisible(blk+run) {
					run++
				}
				if run >= skipPagesThreshold {
					b.blk += run
					continue
				}
			}
			// visibilitymap_pin before the page is read: the VM page stays
			// pinned while its heap pages are processed.
			if !b.vacuumPinVM(t, blk) {
				return false
			}
			b.sub = 3
		}
		if b.sub == 3 {
			gid := e.cat.GID(t.rel, blk)
			slot, ok := b.readBuffer(gid, b.vacring, false, false)
			if !ok {
				return false
			}
			b.vacuumBlock(t, blk, slot)
		}
		if b.sub == 4 {
			if !b.touchPages(b.fsmGids, e.costs.FSMPage) {
				return false
			}
			b.blk++
			b.sub = 2
			if b.vacuumDelayPoint(5) {
				return false
			}
		}
	}
	if b.sub == 5 {
		b.wakeAt = 0
		b.sub = 2
		return b.execVacuum(o)
	}
	if b.sub == 2 || b.sub == 3 || b.sub == 4 {
		if b.vmSlot >= 0 {
			b.releaseBuffer(b.vmSlot)
			b.vmSlot, b.vmHeld = -1, -1
		}
		b.sub = 6
		b.level = 0
	}
	if b.sub == 6 { // index vacuum: read every index page through the ring
		if len(b.lpdeadPages) > 0 && !e.vacuumBypassesIndexes(t, b) {
			dead := t.pkey.deadPerLeaf
			for int32(b.level) < t.pkey.bt.NBlocks() {
				gid := e.cat.GID(t.pkey.rel, int32(b.level))
				slot, ok := b.readBuffer(gid, b.vacring, false, false)
				if !ok {
					return false
				}
				b.cpu += e.costs.IndexLevel
				// btbulkdelete -> _bt_delitems_vacuum: a leaf holding
				// entries of the dead items loses them, dirtied and
				// WAL-logged (XLOG_BTREE_VACUUM).
				if b.level < len(dead) && dead[b.level] > 0 {
					if e.pool.Flags[slot]&bufpool.Dirty == 0 {
						b.vcost += s.VacuumCostPageDirty
					}
					b.modify(slot, gid, e.walBtreeVacuumRecord(int(dead[b.level])))
				}
				b.releaseBuffer(slot)
				b.level++
			}
			clear(t.pkey.deadPerLeaf)
			t.vacuumIndexEntries()
			b.vacIndexes = true
			b.level = 0
			b.sub = 30
			if e.vacuumUsesStream() {
				// 18: the second pass reads through a stream too.
				b.scanEnd = b.lpdeadPages[len(b.lpdeadPages)-1] + 1
				b.streamBegin(t, b.vacring, streamVacuumReap, b.lpdeadPages[0])
			}
		} else {
			b.sub = 39
		}
	}
	if b.sub >= 30 && b.sub < 39 && !b.vacuumHeapRel(t) {
		return false
	}
	if b.sub == 39 {
		// FreeSpaceMapVacuumRange, then visibilitymap_count (every VM page).
		b.fsmGids = e.fsmVacuum(t.fsm, b.fsmGids[:0])
		if t.heap.NBlocks() > 0 {
			b.fsmGids = e.appendVMPages(t, b.fsmGids)
		}
		b.touched = 0
		b.sub = 7
	}
	if b.sub == 7 {
		if !b.touchPages(b.fsmGids, e.costs.FSMPage) {
			return false
		}
		b.sub = 8
		b.vacuumUpdateRelstats(t)
	}
	live := int64(0)
	for blk := int32(0); blk < t.heap.NBlocks(); blk++ {
		live += int64(t.heap.Tuples(blk))
	}
	t.reltuples = live
	t.relpages = int64(t.heap.NBlocks())
	t.relallvisible = int64(t.heap.AllVisibleCount())
	t.relstats = true
	t.deadTuples = 0
	t.insSinceVacuum = 0
	t.vacuuming = false
	c := e.relCounter(t.rel) // pgstat_report_vacuum
	if b.worker {
		c.autovacuums++
	} else {
		c.vacuums++
	}
	// vacuum_rel's CommitTransactionCommand: no xid, so the WAL VACUUM
	// wrote is left to the WAL writer (RecordTransactionCommit).
	b.endXactWAL()
	if o.analyze {
		// vacuum(): ANALYZE after VACUUM, in a transaction of its own.
		b.sub = 49
		return b.execAnalyze(o)
	}
	return true
}

// vacuumIndexEntries drops the index entries whose heap tuples VACUUM
// removed (lazy_vacuum_index: the dead TIDs' entries go with them): those
// of older versions no longer on their page.
func (t *table) vacuumIndexEntries() {
	var buf []heap.Group
	t.oldEntries.filter(func(row int64, blk int32) bool {
		buf = t.heap.RowChain(row, blk, buf[:0])
		return len(buf) > 0
	})
}

// vacuumPinVM is visibilitymap_pin for blk: VACUUM keeps the VM page
// pinned while it processes that page's heap pages. false: b blocked.
func (b *backend) vacuumPinVM(t *table, blk int32) bool {
	e := b.e
	vmBlk := blk / e.db.heapPerVM
	if vmBlk == b.vmHeld {
		return true
	}
	slot, ok := b.readBuffer(e.vmGID(t, blk), nil, false, true)
	if !ok {
		return false
	}
	if b.vmSlot >= 0 {
		b.releaseBuffer(b.vmSlot)
	}
	b.vmSlot, b.vmHeld = slot, vmBlk
	return true
}

// vacuumUsesStream reports whether VACUUM's heap pass reads through a
// read stream (18: vacuumlazy.c lazy_scan_heap with
// heap_vac_scan_next_block as the callback).
func (e *engine) vacuumUsesStream() bool { return e.ver >= 1800 }

// vacuumBlock does VACUUM's work on blk, pinned in slot (read if
// b.lastMiss): the cost, the page, the free space map's record; then
// stage 4 touches the map's pages.
func (b *backend) vacuumBlock(t *table, blk, slot int32) {
	e := b.e
	s := &e.sc.Server
	if b.lastMiss {
		b.vcost += s.VacuumCostPageMiss
	} else {
		b.vcost += s.VacuumCostPageHit
	}
	b.vacuumPage(t, blk, slot, e.cat.GID(t.rel, blk))
	b.releaseBuffer(slot)
	b.fsmGids = b.fsmGids[:0]
	if t.heap.DeadItems(blk) == 0 || t.pkey == nil {
		// RecordPageWithFreeSpace: the page's leaf in the free space map.
		// A page left with LP_DEAD items waits for the second heap pass
		// (lazy_scan_heap: "wait until lazy_vacuum_heap_rel() to save
		// free space"), even if VACUUM then bypasses it.
		b.fsmGids = e.fsmRecord(t.fsm, blk, t.heap.Free(blk), b.fsmGids)
	}
	b.touched = 0
	b.sub = 4
}

// vacuumUpdateRelstats is the WAL of a VACUUM command's end
// (vacuum.c vac_update_relstats, heap_inplace_update): the pg_class rows
// of the table and of its TOAST table (the model takes every table to have
// one, as a table with a text or char(n) column has; VACUUM processes it
// in a transaction of its own) updated in place, XLOG_HEAP_INPLACE, and
// each index's when its entries were vacuumed; from 10 (wal_level replica
// by default) each of the two transactions logs its cache invalidations
// for standbys (XLOG_STANDBY_INVALIDATIONS), having no xid to commit.
// Measured on PostgreSQL 15 (pg_waldump): 188 and 90 bytes. The pg_class
// page itself is not modelled as dirtied.
func (b *backend) vacuumUpdateRelstats(t *table) {
	e := b.e
	n := int64(2)
	if b.vacIndexes {
		n++
	}
	b.cpu += n * e.costs.WALRecord
	b.walInsert(n, b.inplaceRecord(), 0)
	if e.ver >= 1000 {
		b.cpu += 2 * e.costs.WALRecord
		b.walInsert(2, walInvalidations, 0)
	}
}

// inplaceRecord is the size of an XLOG_HEAP_INPLACE record of a pg_class
// row. From 18 the record carries the update's cache invalidations
// (heapam.c heap_inplace_update_and_unlock; xl_heap_inplace's dbId, tsId,
// relcacheInitFileInval, nmsgs and msgs): for a pg_class row 3 messages
// (its two catalog caches' and the relation's), 258 bytes where 15 and
// 17 write 188 (pg_waldump on 18.3 and 15, the VACUUM of a table with a
// few dead rows; 17.6's xl_heap_inplace has no messages).
func (b *backend) inplaceRecord() int64 {
	if b.e.walFmt != walFormat95 {
		return walHeader9x + 18 + walInplace - 48 // xl_heap_inplace's target tid, the same row
	}
	if b.e.ver >= 1800 {
		return walInplace + walInplaceInvals18
	}
	return walInplace
}

// vacuumDelayPoint is vacuum_delay_point for an autovacuum worker: once
// its cost balance reaches vacuum_cost_limit it sleeps
// autovacuum_vacuum_cost_delay, resuming at stage resume. It reports
// whether b blocked.
func (b *backend) vacuumDelayPoint(resume int) bool {
	s := &b.e.sc.Server
	if !b.worker || b.vcost < s.VacuumCostLimit || s.AutovacuumVacuumCostDelay <= 0 {
		return false
	}
	b.vcost = 0
	b.wakeAt = b.e.k.Now() + s.AutovacuumVacuumCostDelay
	b.sub = resume
	b.block(wSleepUntil)
	return true
}

// vacuumBypassesIndexes is lazy_vacuum's choice (14+) to skip index
// vacuuming, and with it the second heap pass, when almost nothing is
// dead: LP_DEAD items on fewer than BYPASS_THRESHOLD_PAGES (2 %) of the
// table's pages and their TIDs within 32 MB. Before 14 any LP_DEAD item is
// vacuumed. A table without an index has no indexes to vacuum: its pages
// were vacuumed in the first pass.
func (e *engine) vacuumBypassesIndexes(t *table, b *backend) bool {
	if t.pkey == nil {
		return true
	}
	if e.ver < 1400 {
		return false
	}
	const maxDeadItems = 32 << 20 / 6 // MAXDEADITEMS(32MB): 6-byte TIDs
	return float64(len(b.lpdeadPages)) < float64(t.heap.NBlocks())*0.02 && b.lpdeadItems < maxDeadItems
}

// vacuumHeapRel is lazy_vacuum_heap_rel, VACUUM's second heap pass after
// its index vacuuming: each page the first pass left with LP_DEAD items is
// read again through the ring (ReadBufferExtended with vac_strategy), its
// items marked unused and WAL-logged (lazy_vacuum_heap_page:
// XLOG_HEAP2_VACUUM), set all-visible if it now is (visibilitymap_set),
// and its free space recorded. Stages 30-34 of b.sub; false: b blocked.
func (b *backend) vacuumHeapRel(t *table) bool {
	e := b.e
	s := &e.sc.Server
	for {
		switch b.sub {
		case 30:
			if b.level >= len(b.lpdeadPages) {
				if b.vmSlot >= 0 {
					b.releaseBuffer(b.vmSlot)
					b.vmSlot, b.vmHeld = -1, -1
				}
				b.sub = 39
				return true
			}
			if b.yield() {
				return false
			}
			b.sub = 32
		case 31: // back from vacuum_delay_point's sleep
			b.wakeAt = 0
			b.sub = 30
		case 32:
			blk := b.lpdeadPages[b.level]
			gid := e.cat.GID(t.rel, blk)
			slot, ok := b.readListedBlock(t, blk, e.vacuumUsesStream(), "VACUUM's second heap pass")
			if !ok {
				return false
			}
			if b.lastMiss {
				b.vcost += s.VacuumCostPageMiss
			} else {
				b.vcost += s.VacuumCostPageHit
			}
			if e.pool.Flags[slot]&bufpool.Dirty == 0 {
				b.vcost += s.VacuumCostPageDirty
			}
			n := t.heap.VacuumDeadItems(blk)
			b.modify(slot, gid, e.walVacuumRecord(n))
			b.vacSlot = slot
			b.sub = 33
		case 33:
			// The VM page is pinned to set the page's bit (15:
			// visibilitymap_get_status once the page is all-visible;
			// 18 pins it for every page, "in case").
			blk := b.lpdeadPages[b.level]
			av := b.pageAllVisible(t, blk)
			if av || e.ver >= 1800 {
				if !b.vacuumPinVM(t, blk) {
					return false
				}
			}
			if av {
				b.setAllVisible(t, blk, b.vacSlot, e.cat.GID(t.rel, blk))
			}
			b.releaseBuffer(b.vacSlot)
			b.fsmGids = e.fsmRecord(t.fsm, blk, t.heap.Free(blk), b.fsmGids[:0])
			b.touched = 0
			b.sub = 34
		case 34:
			if !b.touchPages(b.fsmGids, e.costs.FSMPage) {
				return false
			}
			b.level++
			b.sub = 30
			if b.vacuumDelayPoint(31) {
				return false
			}
		}
	}
}

// vacuumPage prunes, hints and, if possible, marks one page all-visible.
func (b *backend) vacuumPage(t *table, blk, slot, gid int32) {
	e := b.e
	h := t.heap
	b.cpu += e.costs.ScanPage + int64(h.Tuples(blk))*e.costs.VacuumTuple
	if n, kept := b.prune(t, blk); n > 0 {
		// lazy_scan_prune -> heap_page_prune: the same record as
		// on-access pruning.
		b.modify(slot, gid, e.walPruneRecord(n, kept))
		b.vcost += e.sc.Server.VacuumCostPageDirty
	}
	// The page's LP_DEAD items, this pass's and earlier on-access
	// prunings': with indexes they wait for the second heap pass (and
	// keep the page from being all-visible now); without, the page is
	// vacuumed at once (lazy_scan_heap's one-pass case: before 17 a
	// XLOG_HEAP2_VACUUM of its own, from 17 within the prune's record).
	if d := h.DeadItems(blk); d > 0 {
		if t.pkey != nil {
			b.lpdeadPages = append(b.lpdeadPages, blk)
			b.lpdeadItems += int64(d)
		} else {
			h.VacuumDeadItems(blk)
			if e.ver < 1700 {
				b.modify(slot, gid, e.walVacuumRecord(d))
			}
		}
	}
	// HeapTupleSatisfiesVacuum sets hint bits on the tuples it judges.
	b.hintForVacuum(t, blk, slot, gid)
	if h.DeadItems(blk) == 0 && b.pageAllVisible(t, blk) {
		b.setAllVisible(t, blk, slot, gid)
	}
}

// pageAllVisible reports whether every tuple of blk is visible to every
// transaction now and later (lazy_scan_prune's all_visible,
// heap_page_is_all_visible): inserted by a committed transaction older
// than VACUUM's horizon (or frozen), and not deleted.
func (b *backend) pageAllVisible(t *table, blk int32) bool {
	var buf [1]heap.Group
	for _, g := range t.heap.Groups(blk, &buf) {
		committed := g.Hints&heap.XminCommitted != 0
		if !committed || g.Hints&heap.XminInvalid != 0 && g.Hints&heap.Frozen != heap.Frozen {
			return false
		}
		if g.Hints&heap.Frozen != heap.Frozen && g.Xmin >= b.horizon {
			return false
		}
		if g.Xmax != 0 && g.Hints&heap.XmaxInvalid == 0 {
			return false
		}
	}
	return true
}

// setAllVisible folds an all-visible page's tuples and sets its
// PD_ALL_VISIBLE and VM bit (visibilitymap_set, on the VM page pinned).
func (b *backend) setAllVisible(t *table, blk, slot, gid int32) {
	e := b.e
	h := t.heap
	// Every live tuple is visible to all from now on: fold them
	// (heap.Collapse), so that the model's state of a page VACUUM has
	// finished with stays a few bytes however long the run.
	h.Collapse(blk)
	if h.AllVisible(blk) {
		return
	}
	// PageSetAllVisible + MarkBufferDirty; visibilitymap_set logs
	// XLOG_HEAP2_VISIBLE (9.2+), which carries an image of the heap page
	// only when hint bits are WAL-logged (checksums, wal_log_hints: 9.3+).
	h.SetAllVisible(blk)
	e.vis.allVisiblePagesSet++
	var lsn int64
	if rec := e.walVisibleRecord(); rec > 0 {
		b.cpu += e.costs.WALRecord
		lsn = b.walInsert(1, rec, 0)
	}
	b.markDirtyHint(slot, gid)
	if b.vmSlot >= 0 && e.pool.MarkDirty(b.vmSlot, lsn) {
		e.noteDirtied(b)
	}
}

// autovacuum is the launcher: every naptime it starts a worker on each
// table past its thresholds, up to autovacuum_max_workers at once.
type autovacuum struct {
	e       *engine
	workers int
}

func (a *autovacuum) start() {
	if a.e.sc.Server.Autovacuum {
		a.e.k.After(a.e.sc.Server.AutovacuumNaptime, a, 0)
	}
}

func (a *autovacuum) OnEvent(int64) {
	e := a.e
	s := &e.sc.Server
	if e.cur == nil {
		return
	}
	e.k.After(s.AutovacuumNaptime, a, 0)
	for _, t := range e.db.tables {
		if a.workers >= s.AutovacuumMaxWorkers {
			break
		}
		if t.vacuuming || t.avBusy {
			continue
		}
		vac, anl := e.needsVacAnalyze(t)
		if vac || anl {
			a.workers++
			e.startWorker(t, vac, anl)
		}
	}
}

// needsVacAnalyze is relation_needs_vacanalyze: VACUUM when the dead
// tuples exceed threshold + scale_factor x reltuples (18: at most
// autovacuum_vacuum_max_threshold) or, from 13, the inserts since the
// last VACUUM exceed the insert threshold; ANALYZE when the rows changed
// since the last ANALYZE (n_mod_since_analyze) exceed
// autovacuum_analyze_threshold + autovacuum_analyze_scale_factor x
// reltuples.
func (e *engine) needsVacAnalyze(t *table) (vac, anl bool) {
	s := &e.sc.Server
	rt := float64(max(t.reltuples, 0))
	thr := float64(s.AutovacuumVacuumThreshold) + s.AutovacuumVacuumScaleFactor*rt
	if e.ver >= 1800 && s.AutovacuumVacuumMaxThreshold >= 0 {
		thr = min(thr, float64(s.AutovacuumVacuumMaxThreshold))
	}
	vac = float64(t.deadTuples) > thr
	if e.ver >= 1300 && s.AutovacuumVacuumInsertThreshold >= 0 {
		vac = vac || float64(t.insSinceVacuum) > float64(s.AutovacuumVacuumInsertThreshold)+s.AutovacuumVacuumInsertScaleFactor*rt
	}
	anl = float64(t.modSinceAnalyze) > float64(s.AutovacuumAnalyzeThreshold)+s.AutovacuumAnalyzeScaleFactor*rt
	return vac, anl
}

// startWorker runs VACUUM, ANALYZE or both (autovacuum_do_vac_analyze) on
// t in an autovacuum worker backend: a retired one if there is one (the
// postmaster starts a fresh process each time; the model reuses the struct
// so that a long run's memory stays flat). ANALYZE commits the
// transaction it wrote pg_statistic in.
func (e *engine) startWorker(t *table, vac, anl bool) {
	var b *backend
	if n := len(e.idleWorkers); n > 0 {
		b = e.idleWorkers[n-1]
		e.idleWorkers = e.idleWorkers[:n-1]
		ring := b.vacring
		*b = backend{e: e, id: b.id, nextWait: -1, vmSlot: -1, vmHeld: -1, worker: true, vacring: ring, ops: b.ops[:0]}
	} else {
		b = &backend{e: e, id: int32(len(e.backends)), nextWait: -1, vmSlot: -1, vmHeld: -1, worker: true}
		e.backends = append(e.backends, b)
	}
	e.procs = append(e.procs, b)
	e.x.horizonOK = false
	switch {
	case vac:
		b.ops = append(b.ops, op{kind: opVacuum, t: t, analyze: anl})
	default:
		b.ops = append(b.ops, op{kind: opAnalyze, t: t})
	}
	if anl {
		b.ops = append(b.ops, op{kind: opCommit})
	}
	t.avBusy = true
	b.inTxn = true
	b.advance()
}

// workerDone retires a finished autovacuum worker.
func (e *engine) workerDone(b *backend) {
	if len(b.ops) > 0 && b.ops[0].t != nil {
		b.ops[0].t.avBusy = false
	}
	b.done = true
	e.av.workers--
	e.removeProc(b)
	e.idleWorkers = append(e.idleWorkers, b)
}

func (e *engine) removeProc(b *backend) {
	for i, p := range e.procs {
		if p == b {
			copy(e.procs[i:], e.procs[i+1:])
			e.procs = e.procs[:len(e.procs)-1]
			e.x.horizonOK = false
			return
		}
	}
}
