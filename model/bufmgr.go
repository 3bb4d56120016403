package model

import "github.com/pgbufsim/pgbufsim/model/bufpool"

// A backend's own pins (bufmgr.c's PrivateRefCount): every page a backend
// reads through ReadBuffer stays pinned until it releases it, and a
// ReadBuffer of a page the backend already pins is still a full call —
// counted as a hit in every statistic — but leaves the buffer's usage_count
// alone (PinBuffer bumps it only when the backend holds no pin yet). That
// is what makes an UPDATE by key raise its heap page's usage_count once,
// although it reads the page three times (the index scan's fetch,
// table_tuple_fetch_row_version, heap_update).

// holds reports whether b already pins slot (GetPrivateRefCountEntry).
func (b *backend) holds(slot int32) bool {
	for _, s := range b.held {
		if s == slot {
			return true
		}
	}
	return false
}

// readBuffer is ReadBufferExtended: it returns gid's slot pinned by b (and
// recorded in b's pins), or false when b blocked; the caller calls it
// again with the same arguments when b resumes. ring is the buffer access
// strategy (nil: the default), extend asks for a new page (P_NEW), write
// marks a page the caller will change (for the page-reference trace).
func (b *backend) readBuffer(gid int32, ring *bufpool.Ring, extend, write bool) (int32, bool) {
	slot, ok := b.access(gid, ring, extend, write)
	if ok {
		b.held = append(b.held, slot)
		e := b.e
		if e.usedSlots != nil && e.firstUse(slot) {
			// The fault that allocates the page maps it too.
			b.cpu += e.costs.BufferFirstUse
			if e.costs.BufferFirstTouch > 0 {
				b.firstTouch(slot, 0)
			}
			// It maps no more than its page: a write fault (the
			// copy into the buffer) does no fault-around, so the
			// rest of its 64 kB waits for the process's first read
			// there (buffer_map_fault).
		} else {
			if c := e.costs.BufferFirstTouch; c > 0 {
				b.firstTouch(slot, c)
			}
			if c := e.costs.BufferMapFault; c > 0 {
				b.mapFault(slot, c)
			}
		}
	}
	return slot, ok
}

// slotBits is a bit per buffer slot (the slots a process has touched,
// the slots used since the server started).
type slotBits []uint64

func newSlotBits(n int32) slotBits { return make(slotBits, (n+63)/64) }

// testAndSet sets slot's bit and reports whether it was already set.
func (s slotBits) testAndSet(slot int32) bool {
	w, bit := slot>>6, uint64(1)<<(slot&63)
	was := s[w]&bit != 0
	s[w] |= bit
	return was
}

// firstUse reports whether slot is used for the first time since the
// server started, and records that it is used. PostgreSQL maps its shared
// buffers at start-up and never touches a buffer's 8 kB until it puts a
// page there: the first copy into it (a read, an extension's zeroed page)
// faults in and zeroes the segment's two 4 kB pages, a price
// (costs.buffer_first_use) paid once per buffer until the next restart,
// where buffer_first_touch is every later process's fault that only maps
// them. The slots used are a bit each, only while that price is set.
func (e *engine) firstUse(slot int32) bool { return !e.usedSlots.testAndSet(slot) }

// startUsedSlots begins tracking costs.buffer_first_use: every slot that
// holds a page when the run starts (a prewarm's, the loaded catalogs') has
// been used.
func (e *engine) startUsedSlots() {
	if e.costs.BufferFirstUse <= 0 {
		return
	}
	p := e.pool
	e.usedSlots = newSlotBits(p.N)
	for s := int32(0); s < p.N; s++ {
		if p.Tag[s] >= 0 {
			e.usedSlots.testAndSet(s)
		}
	}
}

// firstTouch charges costs.buffer_first_touch the first time this backend
// process accesses buffer slot. A backend is forked from the postmaster
// with its shared memory mapped but, for a shared mapping, none of its
// page-table entries copied (Linux's fork copies them only for private
// memory): the first access to each 4 kB page of a buffer is a minor page
// fault that maps it, two a buffer, once per process (with huge pages one
// fault maps 256 buffers, and the price is about 0). The slots touched are
// a bit each, allocated with the first.
func (b *backend) firstTouch(slot int32, c int64) {
	if b.touchedSlots == nil {
		b.touchedSlots = newSlotBits(b.e.pool.N)
	}
	if !b.touchedSlots.testAndSet(slot) {
		b.cpu += c
	}
}

// faultAroundSlots is how many 8 kB buffers one minor page fault maps:
// Linux's fault-around maps the aligned 64 kB (fault_around_bytes) of
// pages already in memory around the faulting address (mm/memory.c
// do_fault_around, for a shared mapping whose pages are in the page
// cache, as a shared memory segment's are once used).
const faultAroundSlots = 8

// mapFault charges costs.buffer_map_fault the first time this backend
// process touches the 64 kB stretch of the buffer pool that holds slot
// (faultAroundSlots buffers in consecutive slots): the one minor fault
// that maps them all. The stretches touched are a bit each, allocated
// with the first.
func (b *backend) mapFault(slot int32, c int64) {
	if b.mappedSlots == nil {
		b.mappedSlots = newSlotBits((b.e.pool.N + faultAroundSlots - 1) / faultAroundSlots)
	}
	if !b.mappedSlots.testAndSet(slot / faultAroundSlots) {
		b.cpu += c
	}
}

// releaseBuffer is ReleaseBuffer: it drops one of b's pins on slot.
func (b *backend) releaseBuffer(slot int32) {
	for i := len(b.held) - 1; i >= 0; i-- {
		if b.held[i] == slot {
			last := len(b.held) - 1
			b.held[i] = b.held[last]
			b.held = b.held[:last]
			b.e.pool.Unpin(slot)
			return
		}
	}
	panic("model: release of a buffer the backend does not pin")
}

// releaseAll drops every pin b holds (the resource owner's cleanup at the
// end of a statement, or of an aborted transaction).
func (b *backend) releaseAll() {
	if st := &b.stream; st.phase != 0 {
		// A stream's read abandoned with the statement: its buffers'
		// I/O ends (AbortBufferIO; the model counts them read) so that
		// no one waits for them forever.
		for i := st.io; i < int32(len(st.mine)); i++ {
			if st.mine[i] {
				b.e.pool.ReadDone(st.slots[i])
				b.e.wakeIOWaiters(st.slots[i])
			}
		}
	}
	if as := &b.aio; as.forming {
		for i, s := range as.fr.slots {
			if as.frMine[i] {
				b.e.pool.ReadDone(s)
				b.e.wakeIOWaiters(s)
			}
		}
	}
	for _, r := range b.aio.ranges {
		if rd := r.rd; rd != nil && b.e.aioDeferred() && !rd.done {
			// A read 18's io_method sync left for the scan to do,
			// abandoned: its I/O ends as the forming read's does.
			rd.complete()
		}
	}
	b.aio.reset()
	b.pinNoRead = false
	b.stream.n, b.stream.phase, b.stream.ioN = 0, 0, 0
	for _, s := range b.held {
		b.e.pool.Unpin(s)
	}
	b.held = b.held[:0]
	b.vmPins = b.vmPins[:0]
}

// touchPages reads each page of gids in turn and releases it at once (a
// walk down the free space map, a B-tree descent whose pages are not kept).
// b.touched counts the pages done, so a blocked walk resumes where it
// stopped; the caller resets it to 0 before a new walk.
func (b *backend) touchPages(gids []int32, cost int64) bool {
	for b.touched < len(gids) {
		slot, ok := b.readBuffer(gids[b.touched], nil, false, false)
		if !ok {
			return false
		}
		b.cpu += cost
		b.releaseBuffer(slot)
		b.touched++
	}
	return true
}

// releaseVM releases the visibility-map pins of the heap operation that
// just ended (heap_insert, heap_update and heap_delete keep their vmbuffer
// only for the call).
func (b *backend) releaseVM() {
	for _, s := range b.vmPins {
		b.releaseBuffer(s)
	}
	b.vmPins = b.vmPins[:0]
}
