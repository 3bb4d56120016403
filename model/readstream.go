package model

import "github.com/pgbufsim/pgbufsim/model/bufpool"

// Read streams (storage/aio/read_stream.c, PostgreSQL 17+), as a
// sequential scan uses them (heapam.c heap_beginscan with
// READ_STREAM_SEQUENTIAL: the access is sequential, so no posix_fadvise
// advice is issued and the kernel's readahead sees the reads themselves).
//
//   - The stream pins the blocks it will hand out ahead of the scan and
//     reads neighbouring blocks that are not in shared buffers with one
//     vectored read (StartReadBuffers pins them, WaitReadBuffers reads them
//     with smgrreadv -> mdreadv -> one preadv), up to io_combine_limit
//     blocks (128 kB), never across a 1 GB segment file.
//   - Its look-ahead distance starts at 1 block. After an I/O it doubles,
//     up to io_combine_limit (behaviour B: sequential I/O, where the only
//     gain is larger reads); a block found in shared buffers (no I/O)
//     shortens it by one (behaviour A). A cold scan therefore reads 1, 2,
//     4, 8, 16, 16, ... blocks at a time.
//   - With synchronous I/O (17, and 18 with io_method = sync) the read
//     starts when the scan needs its first block and the scan waits for it
//     whole: the stream changes the size of the reads, not their overlap
//     with the scan's CPU (the kernel's readahead still runs ahead).
//   - A block of the range that another backend started reading meanwhile
//     is waited for, not read again (WaitReadBuffers skips buffers whose
//     I/O another backend owns); the range is read in the runs around it.
//
// Counters: every block read is one read for pg_statio and pgBufferUsage
// (shared_blks_read) as with ReadBuffer; a block found in shared buffers
// one hit.

// readStream is a backend's stream for its current sequential scan.
type readStream struct {
	distance int32
	// The blocks of the last read not handed to the scan yet:
	// [start, start+n), pinned in slots.
	start, n int32
	slots    []int32
	// A read being formed (phase 1: a buffer for each block) or done
	// (phase 2: one preadv per run of blocks this backend reads).
	phase      int8
	want, done int32
	mine       []bool
	io, ioN    int32
}

// streamBegin is read_stream_begin_relation for a scan: distance 1.
func (b *backend) streamBegin() {
	st := &b.stream
	st.distance, st.n, st.phase, st.ioN = 1, 0, 0, 0
}

// usesReadStream reports whether sequential scans read through a stream.
func (e *engine) usesReadStream() bool { return e.ver >= 1700 }

// ioCombineBlocks is io_combine_limit in blocks.
func (e *engine) ioCombineBlocks() int32 {
	return int32(max(e.sc.Server.IOCombineLimit/8192, 1))
}

// streamNextBuffer is read_stream_next_buffer for the sequential scan of t
// at blk (gid): the block's buffer, pinned, or false when b blocked (call
// again with the same block).
func (b *backend) streamNextBuffer(t *table, blk, gid int32, write bool) (int32, bool) {
	e := b.e
	st := &b.stream
	if st.phase == 0 {
		if st.n > 0 && blk >= st.start && blk < st.start+st.n {
			s := st.slots[blk-st.start]
			if blk == st.start+st.n-1 {
				st.n = 0
			}
			return s, true
		}
		if e.pool.Lookup(gid) >= 0 {
			// In shared buffers (or being read by another backend): no
			// I/O of ours, the distance decays (behaviour A).
			if st.distance > 1 {
				st.distance--
			}
			return b.readBuffer(gid, b.ring, false, write)
		}
		// A new read: the blocks from blk that are not in shared buffers,
		// as far as the distance, io_combine_limit, the scan and the
		// segment file allow.
		limit := min(st.distance, e.ioCombineBlocks(), b.scanEnd-blk, relSegBlocks-blk%relSegBlocks)
		if b.ring != nil {
			// GetAccessStrategyPinLimit: a BULKREAD stream may pin the
			// whole ring, no more.
			limit = min(limit, int32(b.ring.Size()))
		}
		n := int32(1)
		for n < limit && e.pool.Lookup(e.cat.GID(t.rel, blk+n)) < 0 {
			n++
		}
		st.start, st.want, st.done = blk, n, 0
		st.slots, st.mine = st.slots[:0], st.mine[:0]
		st.phase, st.io, st.ioN = 1, 0, 0
	}
	if st.phase == 1 { // StartReadBuffers: a buffer for each block
		for st.done < st.want {
			g := e.cat.GID(t.rel, st.start+st.done)
			b.pinNoRead = true
			s, ok := b.readBuffer(g, b.ring, false, write)
			if !ok {
				return -1, false
			}
			b.pinNoRead = false
			st.slots = append(st.slots, s)
			st.mine = append(st.mine, e.pool.Flags[s]&bufpool.Valid == 0)
			st.done++
		}
		st.phase, st.io, st.ioN = 2, 0, 0
	}
	// WaitReadBuffers: one preadv per run of blocks whose I/O is ours.
	for st.io < st.want {
		if !st.mine[st.io] {
			st.io++
			continue
		}
		if st.ioN == 0 {
			n := int32(1)
			for st.io+n < st.want && st.mine[st.io+n] {
				n++
			}
			st.ioN = n
			b.readvGid, b.readvN = e.cat.GID(t.rel, st.start+st.io), n
			b.cpu += e.costs.OSRead * int64(n)
			b.block(wReadV)
			return -1, false
		}
		for i := st.io; i < st.io+st.ioN; i++ {
			e.pool.ReadDone(st.slots[i])
			e.wakeIOWaiters(st.slots[i])
		}
		st.io += st.ioN
		st.ioN = 0
	}
	// Behaviour B: after I/O the distance doubles, up to io_combine_limit.
	st.distance = min(st.distance*2, e.ioCombineBlocks())
	st.phase = 0
	st.n = st.want
	if st.n == 1 {
		st.n = 0
	}
	return st.slots[0], true
}
