package model

import "github.com/pgbufsim/pgbufsim/model/bufpool"

// RelationGetBufferForTuple (src/backend/access/heap/hio.c): where a new
// tuple goes, and the buffer accesses that costs.
//
//   - Each backend remembers its own insertion target per relation
//     (RelationGetTargetBlock, the smgr's target block); without one it asks
//     the free space map (GetPageWithFreeSpace), and failing that tries the
//     relation's last block.
//   - The target is read with ReadBuffer (a fresh pin, so its usage_count
//     rises on every row of an INSERT ... SELECT) unless it is the page the
//     caller already holds (heap_update's old page), plus its visibility-map
//     page when it is all-visible.
//   - A target without room is recorded in the free space map with the
//     space it has (RecordAndGetPageWithFreeSpace), which also proposes the
//     next candidate; when none is left the relation is extended by one page
//     (ReadBufferBI(P_NEW), PostgreSQL <= 15 one page at a time) under the
//     relation's extension lock (LockRelationForExtension), held until the
//     new page is pinned. Up to 15 a backend that could not take the lock
//     at once (ConditionalLockRelationForExtension) looks in the free space
//     map again when it gets it, since the holder may have extended for
//     it, and otherwise extends by 20 extra pages per backend still waiting
//     (RelationAddExtraBlocks, at most 512), each recorded in the free space
//     map (RecordPageWithFreeSpace, then FreeSpaceMapVacuumRange) for the
//     others to find. From 16 RelationAddBlocks extends by 1 page plus one
//     per waiter (or, with a BulkInsertState, by at least as many pages as
//     its earlier extensions together), at most 64, in one
//     ExtendBufferedRelBy (relationAddBlocks below).
//   - With a BulkInsertState (COPY) the current page stays pinned between
//     tuples and is not read again (ReadBufferBI re-pins it with
//     IncrBufferRefCount), pages come through the BULKWRITE ring, and a
//     table created in the same transaction skips the free space map.

// hioState is the progress of one RelationGetBufferForTuple.
type hioState struct {
	stage   int
	target  int32
	found   int32 // block the free space map proposed
	gids    []int32
	slot    int32
	vmDone  bool
	visible bool // the target was all-visible (its VM bit must be cleared)
	// the relation's extension lock: held, and whether b had to wait for it
	locked, waited bool
	extra          int32 // RelationAddExtraBlocks: pages still to add
	firstExtra     int32 // the first of them (-1: none yet)

	// RelationAddBlocks (16+): the pages this extension adds, whether it
	// fallocates them, the extra pages added so far and the next to record
	// in the free space map.
	extendBy, added, recorded int32
	fallocate                 bool
	extraBlks                 []int32
	// The BulkInsertState's pages from earlier extensions (16+:
	// bistate->next_free .. last_free, already_extended_by). execInsert
	// resets them with the statement.
	biNext, biLeft, biExtended int32
}

// maxBuffersToExtendBy is MAX_BUFFERS_TO_EXTEND_BY (hio.c, 16+): a bulk
// extension pins all its pages at once.
const maxBuffersToExtendBy = 64

// extensionLock is a relation's extension lock (lmgr.c
// LockRelationForExtension, ExclusiveLock): one holder, waiters granted in
// order (ProcLockWakeup).
type extensionLock struct {
	holder  *backend
	waiters []*backend
}

// Bulk extension (hio.c RelationAddExtraBlocks, PostgreSQL 9.6-15).
const (
	extraBlocksPerWaiter = 20
	maxExtraBlocks       = 512
)

// lockExtension takes t's extension lock, or queues for it and blocks
// (false); the releaser hands the lock over (unlockExtension).
func (b *backend) lockExtension(t *table) bool {
	l := &t.extLock
	if l.holder == nil {
		l.holder = b
		b.hio.locked, b.hio.waited = true, false
		return true
	}
	l.waiters = append(l.waiters, b)
	b.e.extLockWaits++
	b.block(wExtLock)
	return false
}

// unlockExtension releases t's extension lock and grants it to the first
// waiter, which resumes holding it.
func (b *backend) unlockExtension(t *table) {
	l := &t.extLock
	b.hio.locked = false
	l.holder = nil
	if len(l.waiters) == 0 {
		return
	}
	w := l.waiters[0]
	l.waiters = l.waiters[:copy(l.waiters, l.waiters[1:])]
	l.holder = w
	w.hio.locked, w.hio.waited = true, true
	if w.inCPU {
		w.extReady = true
	} else {
		// w slept in ProcSleep (proc.c) until this release woke it: its
		// next burst may find its core halted (costs.cpu_wakeup).
		w.woke = true
		b.e.k.Schedule(b.e.k.Now(), w, evResume)
	}
}

// insertTarget returns b's insertion target for t, or -1.
func (b *backend) insertTarget(t *table) int32 {
	for _, x := range b.targets {
		if x.t == t {
			return x.blk
		}
	}
	return -1
}

// setInsertTarget is RelationSetTargetBlock.
func (b *backend) setInsertTarget(t *table, blk int32) {
	for i := range b.targets {
		if b.targets[i].t == t {
			b.targets[i].blk = blk
			return
		}
	}
	b.targets = append(b.targets, insertTarget{t: t, blk: blk})
}

// forgetTargets drops b's cached insertion targets of t (its relation
// file changed: smgr_targblock is reset).
func (b *backend) forgetTargets(t *table) {
	for i := range b.targets {
		if b.targets[i].t == t {
			b.targets[i].blk = -1
		}
	}
	for i := range b.idxTargets {
		if b.idxTargets[i].ix == t.pkey {
			b.idxTargets[i].blk = -1
		}
	}
}

type insertTarget struct {
	t   *table
	blk int32
}

// getBufferForTuple finds a page with room for one tuple of t and returns
// it pinned (held by b) with its block; other is a block b already holds
// (heap_update's old page; -1 if none) and otherSlot its slot. bulk is the
// COPY path (a BulkInsertState, skipFSM for a table created in the
// transaction). false means b blocked (call again).
func (b *backend) getBufferForTuple(t *table, other, otherSlot int32, bulk, skipFSM bool) (slot, blk int32, ok bool) {
	e := b.e
	h := &b.hio
	for {
		switch h.stage {
		case 0: // the backend's target, else the free space map
			h.target = b.insertTarget(t)
			h.vmDone, h.visible = false, false
			if h.target < 0 && !skipFSM {
				h.gids, h.found = e.fsmSearch(t.fsm, h.gids[:0])
				b.touched = 0
				h.stage = 1
				continue
			}
			h.stage = 7
		case 1: // read the fsm pages of the search
			if !b.touchPages(h.gids, e.costs.FSMPage) {
				return -1, -1, false
			}
			h.target = h.found
			h.stage = 7
		case 7: // "if the FSM knows nothing of the rel, try the last page"
			if h.target < 0 && t.heap.NBlocks() > 0 {
				h.target = t.heap.NBlocks() - 1
			}
			h.stage = 2
		case 2: // read the candidate
			if h.target < 0 {
				h.stage = 5
				continue
			}
			if h.target == other {
				h.slot = otherSlot // the caller's pin: no new ReadBuffer
			} else {
				s, ok := b.readInsertPage(t, h.target, bulk, false)
				if !ok {
					return -1, -1, false
				}
				h.slot = s
			}
			h.stage = 3
		case 3: // its visibility-map page, if the target is all-visible
			if !h.vmDone && (b.reading() || t.heap.AllVisible(h.target)) {
				s, ok := b.readBuffer(e.vmGID(t, h.target), nil, false, true)
				if !ok {
					return -1, -1, false
				}
				b.vmPins = append(b.vmPins, s) // the caller's vmbuffer
				h.visible = true
			}
			h.vmDone = true
			if t.heap.Free(h.target) > 0 {
				b.setInsertTarget(t, h.target)
				h.stage = 0
				return h.slot, h.target, true
			}
			// Too full: record its space, ask for another page.
			if h.slot != otherSlot || h.target != other {
				b.releaseBuffer(h.slot)
			}
			if e.ver >= 1600 && bulk && h.biLeft > 0 {
				// "We bulk extended the relation before, and there are
				// still some unused pages from that extension": the next
				// one, without the free space map; the full page's
				// space is recorded for narrower tuples.
				h.found = h.biNext
				h.biNext++
				h.biLeft--
				h.gids = h.gids[:0]
				if !skipFSM {
					h.gids = e.fsmRecord(t.fsm, h.target, t.heap.Free(h.target), h.gids)
				}
			} else if skipFSM {
				// Without the free space map, always extend.
				h.found = -1
				h.gids = h.gids[:0]
			} else {
				h.gids, h.found = e.fsmRecordAndGet(t.fsm, h.target, t.heap.Free(h.target), h.gids[:0])
			}
			b.touched = 0
			h.stage = 4
		case 4:
			if !b.touchPages(h.gids, e.costs.FSMPage) {
				return -1, -1, false
			}
			h.target, h.vmDone, h.visible = h.found, false, false
			if h.target < 0 {
				h.stage = 5
				continue
			}
			h.stage = 2
		case 5: // extend the relation by one page (ReadBufferBI(P_NEW))
			if e.ver >= 1600 {
				h.stage = 20
				continue
			}
			// A table created in this transaction is local: no lock
			// (RELATION_IS_LOCAL); that is the skipFSM case.
			if !skipFSM && !h.locked && !b.lockExtension(t) {
				return -1, -1, false
			}
			if h.waited && e.ver <= 1500 {
				// "Check if some other backend has extended a block for
				// us while we were waiting on the lock."
				h.waited = false
				h.gids, h.found = e.fsmSearch(t.fsm, h.gids[:0])
				b.touched = 0
				h.stage = 8
				continue
			}
			h.waited = false
			blk, ok := e.extendHeap(t)
			if !ok {
				return -1, -1, false
			}
			h.target = blk
			h.stage = 6
		case 6:
			s, ok := b.readInsertPage(t, h.target, bulk, true)
			if !ok {
				return -1, -1, false
			}
			if h.locked {
				b.unlockExtension(t)
			}
			if t.heap.Free(h.target) <= 0 {
				// While this backend waited for the new page's write,
				// others took it as the relation's last page and filled
				// it. PostgreSQL holds the page's content lock from
				// RBM_ZERO_AND_LOCK to the insertion, so they would have
				// found it after this tuple; the model has no content
				// locks and checks the space again instead.
				h.slot = s
				h.vmDone = true
				h.stage = 3
				continue
			}
			b.setInsertTarget(t, h.target)
			h.stage = 0
			return s, h.target, true
		case 8: // the free space map, read again after the wait
			if !b.touchPages(h.gids, e.costs.FSMPage) {
				return -1, -1, false
			}
			if h.found >= 0 {
				b.unlockExtension(t)
				h.target, h.vmDone, h.visible = h.found, false, false
				h.stage = 2
				continue
			}
			// "Time to bulk-extend."
			h.extra = min(maxExtraBlocks, extraBlocksPerWaiter*int32(len(t.extLock.waiters)))
			h.firstExtra = -1
			h.stage = 9
		case 9: // RelationAddExtraBlocks: the next extra page
			if h.extra == 0 {
				h.stage = 5 // then the backend's own page, still holding the lock
				if h.firstExtra >= 0 {
					// FreeSpaceMapVacuumRange over the pages added, so
					// that searches from the root find them.
					h.gids = e.fsmVacuumRange(t.fsm, h.firstExtra, h.target+1, h.gids[:0])
					b.touched = 0
					h.stage = 11
				}
				continue
			}
			blk, ok := e.extendHeap(t)
			if !ok {
				return -1, -1, false
			}
			e.extraBlocks++
			h.target = blk
			h.stage = 10
		case 10: // ReadBufferBI(P_NEW, RBM_ZERO_AND_LOCK), UnlockReleaseBuffer
			s, ok := b.readInsertPage(t, h.target, bulk, true)
			if !ok {
				return -1, -1, false
			}
			b.releaseBuffer(s)
			if h.firstExtra < 0 {
				h.firstExtra = h.target
			}
			// RecordPageWithFreeSpace: the leaf at once, so that
			// concurrent inserters may see it.
			h.gids = e.fsmRecord(t.fsm, h.target, t.heap.Free(h.target), h.gids[:0])
			b.touched = 0
			h.stage = 12
		case 12:
			if !b.touchPages(h.gids, e.costs.FSMPage) {
				return -1, -1, false
			}
			h.extra--
			h.stage = 9
		case 11:
			if !b.touchPages(h.gids, e.costs.FSMPage) {
				return -1, -1, false
			}
			h.stage = 5
		default:
			s, blk, ok, done := b.relationAddBlocks(t, bulk, skipFSM)
			if done {
				return s, blk, ok
			}
		}
	}
}

// relationAddBlocks is hio.c RelationAddBlocks (16+), the stages from 20
// of getBufferForTuple: it decides how many pages to add, 1 (num_pages,
// one tuple) plus 1 for each backend waiting for the extension lock
// (RelationExtensionLockWaiterCount, counted before this backend queues),
// with a BulkInsertState at least as many as its earlier extensions added
// together, at most 64, and 1 without the free space map nor a
// BulkInsertState; ExtendBufferedRelBy then takes the lock, gives each
// page a buffer (the first kept pinned, the others released), extends the
// file by them all in one mdzeroextend (one register_dirty_segment, one
// buffers_backend; posix_fallocate for more than 8 pages, zeros written
// through the page cache otherwise) and releases the lock. The extra pages
// go into the free space map (RecordPageWithFreeSpace, then
// FreeSpaceMapVacuumRange) and, with a BulkInsertState, to its next_free
// list. done false: go on with the stage set; ok false: b blocked.
func (b *backend) relationAddBlocks(t *table, bulk, skipFSM bool) (slot, blk int32, ok, done bool) {
	e := b.e
	h := &b.hio
	switch h.stage {
	case 20: // how many pages, then the extension lock
		if !h.locked {
			h.extendBy = 1
			if bulk || !skipFSM {
				h.extendBy += int32(len(t.extLock.waiters))
				if bulk {
					h.extendBy = max(h.extendBy, h.biExtended)
				}
				h.extendBy = min(h.extendBy, maxBuffersToExtendBy)
			}
			// A table created in this transaction is local: no lock
			// (RELATION_IS_LOCAL); that is the skipFSM case.
			if !skipFSM && !b.lockExtension(t) {
				return -1, -1, false, true
			}
		}
		h.waited = false
		e.bufWrites.backend++ // one mdzeroextend, one register_dirty_segment
		e.bufWrites.extends++
		ctx := ctxNormal
		if bulk {
			ctx = ctxBulkwrite
		}
		e.stats.io[b.backendType()][ctx].extendOps++
		if h.extendBy > 1 {
			e.extraBlocks += int64(h.extendBy - 1)
		}
		h.fallocate = h.extendBy > 8
		h.added, h.recorded = 0, 0
		h.extraBlks = h.extraBlks[:0]
		first, okExt := e.extendHeap(t)
		if !okExt {
			return -1, -1, false, true
		}
		h.target = first
		h.stage = 21
	case 21: // the first page: pinned, returned (EB_LOCK_FIRST)
		b.extBulk, b.extFallocate = true, h.fallocate
		s, okRead := b.readInsertPage(t, h.target, bulk, true)
		if !okRead {
			return -1, -1, false, true
		}
		b.extBulk, b.extFallocate = false, false
		h.slot = s
		h.stage = 22
	case 22: // the other pages: a buffer each, released at once
		if h.added == h.extendBy-1 {
			if h.locked {
				b.unlockExtension(t)
			}
			h.stage = 24
			return -1, -1, false, false
		}
		blk, okExt := e.extendHeap(t)
		if !okExt {
			return -1, -1, false, true
		}
		h.extraBlks = append(h.extraBlks, blk)
		h.stage = 23
	case 23:
		b.extBulk, b.extFallocate = true, h.fallocate
		s, okRead := b.readInsertPage(t, h.extraBlks[h.added], bulk, true)
		if !okRead {
			return -1, -1, false, true
		}
		b.extBulk, b.extFallocate = false, false
		b.releaseBuffer(s)
		h.added++
		h.stage = 22
	case 24: // RecordPageWithFreeSpace for each extra page
		if skipFSM || h.recorded == h.added {
			if !skipFSM && h.added > 0 {
				h.gids = e.fsmVacuumRange(t.fsm, h.extraBlks[0], h.extraBlks[h.added-1]+1, h.gids[:0])
				b.touched = 0
				h.stage = 26
				return -1, -1, false, false
			}
			h.stage = 27
			return -1, -1, false, false
		}
		x := h.extraBlks[h.recorded]
		h.gids = e.fsmRecord(t.fsm, x, t.heap.Free(x), h.gids[:0])
		b.touched = 0
		h.stage = 25
	case 25:
		if !b.touchPages(h.gids, e.costs.FSMPage) {
			return -1, -1, false, true
		}
		h.recorded++
		h.stage = 24
	case 26: // FreeSpaceMapVacuumRange over them
		if !b.touchPages(h.gids, e.costs.FSMPage) {
			return -1, -1, false, true
		}
		h.stage = 27
	case 27:
		if bulk {
			if h.added > 0 {
				h.biNext, h.biLeft = h.extraBlks[0], h.added
			}
			h.biExtended += h.extendBy
		}
		if t.heap.Free(h.target) <= 0 {
			// Filled by others meanwhile (the model has no content
			// locks; EB_LOCK_FIRST keeps them out in PostgreSQL): look
			// again, as the path up to 15 does.
			h.vmDone = true
			h.stage = 3
			return -1, -1, false, false
		}
		b.setInsertTarget(t, h.target)
		h.stage = 0
		return h.slot, h.target, true, true
	}
	return -1, -1, false, false
}

// readInsertPage reads blk of t for an insertion (P_NEW when extend),
// through the BULKWRITE ring for a bulk insert.
func (b *backend) readInsertPage(t *table, blk int32, bulk, extend bool) (int32, bool) {
	var ring *bufpool.Ring
	if bulk {
		ring = b.bulkWriteRing()
	}
	return b.readBuffer(b.e.cat.GID(t.rel, blk), ring, extend, true)
}

// extendHeap adds a page to t (smgrnblocks + 1) with room in the heap
// model and the free space map; false means the page ids are used up.
func (e *engine) extendHeap(t *table) (int32, bool) {
	blk, gid, ok := e.extend(t.rel)
	if !ok {
		return -1, false
	}
	t.heap.Extended(blk)
	t.fsm.grow(blk)
	// A new page is initialised by its first WAL record
	// (XLOG_HEAP_INIT_PAGE), which carries no full-page image.
	e.fpiCycle[gid] = e.cycle
	return blk, true
}

// bulkWriteRing returns b's BULKWRITE ring (16 MB, GetAccessStrategy).
func (b *backend) bulkWriteRing() *bufpool.Ring {
	if b.bulkwrite == nil {
		b.bulkwrite = b.e.pool.NewRing(bufpool.BulkWrite, 16<<20/8192)
	}
	return b.bulkwrite
}
