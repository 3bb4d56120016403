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
//     (ReadBufferBI(P_NEW), PostgreSQL <= 15 one page at a time).
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
				var ring *bufpool.Ring
				if bulk {
					ring = b.bulkWriteRing()
				}
				s, ok := b.readBuffer(e.cat.GID(t.rel, h.target), ring, false, true)
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
			if skipFSM {
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
			blk, gid, ok := e.extend(t.rel)
			if !ok {
				return -1, -1, false
			}
			t.heap.Extended(blk)
			t.fsm.grow(blk)
			// A new page is initialised by its first WAL record
			// (XLOG_HEAP_INIT_PAGE), which carries no full-page image.
			e.fpiCycle[gid] = e.cycle
			h.target = blk
			h.stage = 6
		case 6:
			var ring *bufpool.Ring
			if bulk {
				ring = b.bulkWriteRing()
			}
			s, ok := b.readBuffer(e.cat.GID(t.rel, h.target), ring, true, true)
			if !ok {
				return -1, -1, false
			}
			b.setInsertTarget(t, h.target)
			h.stage = 0
			return s, h.target, true
		}
	}
}

// bulkWriteRing returns b's BULKWRITE ring (16 MB, GetAccessStrategy).
func (b *backend) bulkWriteRing() *bufpool.Ring {
	if b.bulkwrite == nil {
		b.bulkwrite = b.e.pool.NewRing(bufpool.BulkWrite, 16<<20/8192)
	}
	return b.bulkwrite
}
