package model

import (
	"fmt"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/oscache"
)

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
	curRel   catalog.RelID // the relation scanned
	ring     *bufpool.Ring // its buffer access strategy
	vacuum   bool          // VACUUM's stream: heap_vac_scan_next_block skips
	maint    bool          // READ_STREAM_MAINTENANCE: maintenance_io_concurrency
	advise   bool          // not READ_STREAM_SEQUENTIAL: advice with io_method sync
	list     []int32       // VACUUM's second heap pass, ANALYZE: only these blocks (ascending)
	next     int32         // the next block the stream's callback yields (-1: the end)
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

// streamKind is who reads through a stream, which decides its flags.
type streamKind uint8

const (
	streamScan       streamKind = iota // heap_beginscan: READ_STREAM_SEQUENTIAL
	streamVacuum                       // lazy_scan_heap: READ_STREAM_MAINTENANCE, skipping
	streamPrewarm                      // pg_prewarm: READ_STREAM_FULL (17), | READ_STREAM_MAINTENANCE (18)
	streamVacuumReap                   // lazy_vacuum_heap_rel (18): READ_STREAM_MAINTENANCE, the pages with LP_DEAD items
	streamAnalyze                      // acquire_sample_rows (17): READ_STREAM_MAINTENANCE, the sampled blocks
	streamBitmap                       // a bitmap heap scan (18): READ_STREAM_DEFAULT, the bitmap's blocks
)

// streamBegin is read_stream_begin_relation for blocks first to
// b.scanEnd - 1 of t through ring. Its distance starts at 1 block, or with
// READ_STREAM_FULL (pg_prewarm) at io_combine_limit: "skip the initial
// ramp-up phase if the caller says we're going to be reading the whole
// relation".
func (b *backend) streamBegin(t *table, ring *bufpool.Ring, kind streamKind, first int32) {
	st := &b.stream
	st.curRel, st.ring = t.rel, ring
	st.vacuum = kind == streamVacuum
	st.list = nil
	switch kind {
	case streamVacuumReap:
		st.list = b.lpdeadPages
	case streamAnalyze:
		st.list = b.anBlocks
	case streamBitmap:
		st.list = b.bm.blocks
	}
	st.advise = kind != streamScan
	st.maint = st.vacuum || kind == streamVacuumReap || kind == streamAnalyze || (kind == streamPrewarm && b.e.ver >= 1800)
	st.distance, st.n, st.phase, st.ioN = 1, 0, 0, 0
	if kind == streamPrewarm {
		st.distance = min(b.aioMaxPinned(), b.e.ioCombineBlocks())
	}
	b.aio.reset()
	st.next = b.streamFrom(t, first)
	b.aio.next = st.next
}

// streamFrom is the stream's callback: the first block at or after blk it
// yields, -1 at the end. A scan yields every block; VACUUM skips runs of
// at least SKIP_PAGES_THRESHOLD all-visible pages
// (heap_vac_scan_next_block, find_next_unskippable_block).
func (b *backend) streamFrom(t *table, blk int32) int32 {
	if b.stream.vacuum {
		for blk < b.scanEnd && t.heap.AllVisible(blk) {
			run := int32(0)
			for blk+run < b.scanEnd && t.heap.AllVisible(blk+run) {
				run++
			}
			if run < skipPagesThreshold {
				break
			}
			blk += run
		}
	}
	if l := b.stream.list; l != nil {
		// vacuum_reap_lp_read_stream_next: the next page of the dead
		// items' TID store, in block order; block_sampling_read_stream_next:
		// the block sampler's next block.
		i, _ := slices.BinarySearch(l, blk)
		if i == len(l) {
			return -1
		}
		blk = l[i]
	}
	if blk < 0 || blk >= b.scanEnd {
		return -1
	}
	return blk
}

// streamMaxIOs is the stream's reads in flight: effective_io_concurrency,
// or maintenance_io_concurrency for VACUUM's and 18's pg_prewarm's
// (READ_STREAM_MAINTENANCE).
func (b *backend) streamMaxIOs() int32 {
	if b.stream.maint {
		return int32(max(b.e.sc.Server.MaintenanceIOConcurrency, 1))
	}
	return b.e.aioMaxIOs()
}

// reset empties the asynchronous stream; reads still in flight complete
// without counting against it.
func (as *aioStream) reset() {
	as.ranges = as.ranges[:0]
	as.pinned, as.next, as.inFlight = 0, -1, 0
	as.pendStart, as.pendN, as.fwd, as.after = 0, 0, false, afterLoop
	as.seqBlock, as.seqUntil = -1, -1
	as.forming, as.waited = false, false
	as.out = aioOut{}
	as.gen++
}

// usesReadStream reports whether sequential scans read through a stream.
func (e *engine) usesReadStream() bool { return e.ver >= 1700 }

// ioCombineBlocks is io_combine_limit in blocks.
func (e *engine) ioCombineBlocks() int32 {
	return int32(max(e.sc.Server.IOCombineLimit/8192, 1))
}

// streamNextBuffer is read_stream_next_buffer with synchronous I/O for
// the stream of t: the next block the stream yields and its buffer,
// pinned, whether the stream read it (a miss), and ok false when b blocked
// (call again). blk -1: the stream has ended.
func (b *backend) streamNextBuffer(t *table, write bool) (blk, slot int32, miss, ok bool) {
	e := b.e
	st := &b.stream
	if st.phase == 0 {
		if st.n > 0 {
			i := st.want - st.n
			blk, slot, miss = st.start+i, st.slots[i], st.mine[i]
			st.n--
			return blk, slot, miss, true
		}
		blk = st.next
		if blk < 0 {
			return -1, -1, false, true
		}
		gid := e.cat.GID(t.rel, blk)
		if e.pool.Lookup(gid) >= 0 {
			// In shared buffers (or being read by another backend): no
			// I/O of ours, the distance decays (behaviour A).
			s, ok := b.readBuffer(gid, st.ring, false, write)
			if !ok {
				return -1, -1, false, false
			}
			if st.distance > 1 {
				st.distance--
			}
			st.next = b.streamFrom(t, blk+1)
			return blk, s, b.lastMiss, true
		}
		// A new read: the blocks from blk that the stream yields next and
		// are not in shared buffers, as far as the distance,
		// io_combine_limit, the segment file and the pins allow.
		// Nothing is pinned ahead when a synchronous read starts: from
		// 18 the read is as large as GetAdditionalPinLimit allows (at
		// least 1 block), in 17 as max_pinned_buffers.
		limit := min(st.distance, e.ioCombineBlocks(), b.scanEnd-blk, relSegBlocks-blk%relSegBlocks, b.aioMaxPinned())
		if e.ver >= 1800 {
			limit = min(limit, max(e.additionalPinLimit(0), 1))
		}
		n := int32(1)
		for n < limit && b.streamFrom(t, blk+n) == blk+n && e.pool.Lookup(e.cat.GID(t.rel, blk+n)) < 0 {
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
			s, ok := b.readBuffer(g, st.ring, false, write)
			if !ok {
				return -1, -1, false, false
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
			e.stats.io[b.backendType()][ringContext(st.ring)].readOps++
			b.readvGid, b.readvN = e.cat.GID(t.rel, st.start+st.io), n
			b.cpu += e.costs.OSRead * int64(n)
			b.block(wReadV)
			return -1, -1, false, false
		}
		// WaitReadBuffers' smgrreadv: the copies and the wait.
		b.noteIOTime(ringContext(st.ring), ioRead, e.costs.OSRead*int64(st.ioN)+e.k.Now()-b.waitFrom)
		for i := st.io; i < st.io+st.ioN; i++ {
			e.pool.ReadDone(st.slots[i])
			e.wakeIOWaiters(st.slots[i])
		}
		st.io += st.ioN
		st.ioN = 0
	}
	// Behaviour B: after I/O the distance doubles, up to io_combine_limit.
	st.distance = min(st.distance*2, e.ioCombineBlocks(), b.aioMaxPinned())
	st.phase = 0
	st.next = b.streamFrom(t, st.start+st.want)
	st.n = st.want - 1
	return st.start, st.slots[0], st.mine[0], true
}

// streamNextBlock is read_stream_next_buffer for a caller that knows the
// block the stream must hand out next (blk): the synchronous or the
// asynchronous stream, whichever b's reads use. A different block is a
// defect of the model: the run stops with what reads it (what).
func (b *backend) streamNextBlock(t *table, blk int32, write bool, what string) (slot int32, miss, ok bool) {
	var got int32
	if b.streamAsync() {
		got, slot, miss, ok = b.streamNextBufferAsync(t, write)
	} else {
		got, slot, miss, ok = b.streamNextBuffer(t, write)
	}
	if ok && got != blk {
		b.e.fail(fmt.Errorf("internal error: backend %d's read stream gave block %d for %d of %s; please report this with the scenario", b.id, got, blk, what))
		return -1, false, false
	}
	return slot, miss, ok
}

// Asynchronous I/O (18+, io_method worker or io_uring; aio.c,
// method_worker.c, method_io_uring.c, read_stream.c). The stream starts
// its reads ahead of the scan and does not wait for them: after handing a
// block out it looks ahead (aioLookAhead: pending reads of consecutive
// blocks, started as StartReadBuffers would, aioStartPending and aioForm);
// the scan waits only for a block whose read has not completed, and each
// read of the stream's own, completed or not when the scan reaches its
// first block, doubles the distance, up to max_pinned_buffers
// (aioMaxPinned), where each hit took one off it. A read is a preadv done by one of
// io_workers worker processes (worker: they take reads in order, and
// copy the data on the server's cores) or by the kernel's io_uring
// workers (io_uring: no limit on their number, the copy on the cores too);
// when it completes its buffers become valid and whoever waits for them
// resumes. The backend's own CPU for a read is then only the hit of each
// block it consumes.

// aioRead is one read a stream started: blocks [start, start+n) of a
// relation into slots, issued as one preadv.
type aioRead struct {
	e      *engine
	gid    int32 // the first block's page id
	n      int32
	slots  []int32
	done   bool
	ra     *oscache.RAState // the readahead state of the file descriptor that reads
	stream *aioStream
	gen    uint32 // the stream's generation when started
	// issued: with 18's io_method sync (aioDeferred), the backend has
	// started the read the scan reached.
	issued bool
}

// aioRange is a run of blocks the stream pinned ahead: read by one of our
// reads (rd != nil), or found in shared buffers (miss: read by the pin
// itself, after all).
type aioRange struct {
	start, n int32
	slots    []int32
	rd       *aioRead
	miss     bool
	consumed bool // its first block was handed out (the distance doubled)
}

// aioStream is the asynchronous stream's queue of pinned ranges.
type aioStream struct {
	ranges   []aioRange
	pinned   int32
	next     int32 // the next block to look ahead at
	inFlight int32
	gen      uint32 // bumped when the stream restarts: older reads no longer count
	// The pending read: blocks [pendStart, pendStart+pendN), the first of
	// them already pinned when fwd (forwarded by the read before, in
	// fwdSlot).
	pendStart, pendN int32
	fwd, fwdMiss     bool // fwdMiss: pinning it read it after all
	fwdSlot          int32
	after            int8 // afterLoop, afterDrain, afterFinal
	// Advice (18's io_method sync): seq_blocknum, the block after the last
	// read's, and seq_until_processed, the first block of the sequential
	// region being advised (-1: none); frAdvice, whether the read being
	// formed is advised.
	seqBlock, seqUntil int32
	frAdvice           bool
	// forming: a read whose buffers are being pinned (aioForm)
	forming   bool
	fr        aioRange
	frMine    []bool
	frHit     bool // a hit: one block, no I/O
	frMiss    bool // which the pin read after all
	frDecided bool // frCached holds for the block being pinned
	frCached  bool
	waited    bool // the scan waited for the head's read (until it resumes)
	timed     bool // and that wait's time is counted
	out       aioOut
}

// ioWorkers is the worker method's pool (method_worker.c): io_workers
// processes taking reads from a shared queue in order.
type ioWorkers struct {
	e     *engine
	idle  []*ioWorker
	queue []*aioRead
	head  int
}

type ioWorker struct {
	pool *ioWorkers
	id   int32
	cur  *aioRead
	// Each worker opens the files itself: its own readahead state.
	raFiles openFiles
}

// Events of an aioRead and an ioWorker.
const (
	evAIORead = iota // the preadv returned
	evAIOCopy        // the copy's CPU burst ended
)

func (e *engine) aioMethod() string {
	if e.ver < 1800 {
		return "sync"
	}
	return e.sc.Server.IOMethod
}

// submit starts rd: to a worker's queue, or to the kernel (io_uring).
func (e *engine) aioSubmit(rd *aioRead) {
	if e.aioMethod() == "worker" {
		w := e.ioWorkers()
		if n := len(w.idle); n > 0 {
			wk := w.idle[n-1]
			w.idle = w.idle[:n-1]
			wk.start(rd)
			return
		}
		w.queue = append(w.queue, rd)
		return
	}
	if e.os.ReadV(rd.gid, rd.n, rd.ra, rd, evAIORead) {
		rd.OnEvent(evAIORead)
	}
}

func (e *engine) ioWorkers() *ioWorkers {
	if e.aioPool == nil {
		p := &ioWorkers{e: e}
		for i := 0; i < e.sc.Server.IOWorkers; i++ {
			p.idle = append(p.idle, &ioWorker{pool: p, id: ioWorkerOwner0 - int32(i)})
		}
		e.aioPool = p
	}
	return e.aioPool
}

func (w *ioWorker) start(rd *aioRead) {
	w.cur = rd
	if w.pool.e.os.ReadV(rd.gid, rd.n, w.raFiles.of(w.pool.e.cat, rd.gid), w, evAIORead) {
		w.OnEvent(evAIORead)
	}
}

// OnEvent: the worker's preadv returned (copy the data on a core), or the
// copy is done (the read completes; take the next).
func (w *ioWorker) OnEvent(arg int64) {
	e := w.pool.e
	rd := w.cur
	if arg == evAIORead {
		e.cpuRequest(e.costs.OSRead*int64(rd.n), w.id, false, w, evAIOCopy)
		return
	}
	rd.complete()
	w.cur = nil
	p := w.pool
	if p.head < len(p.queue) {
		next := p.queue[p.head]
		p.queue[p.head] = nil
		p.head++
		if p.head == len(p.queue) {
			p.queue, p.head = p.queue[:0], 0
		}
		w.start(next)
		return
	}
	p.idle = append(p.idle, w)
}

// ioWorkerOwner0 is the CPU owner of the first io worker (io_method
// worker); the others count down from it.
const ioWorkerOwner0 = -1_000_000

// ioWQOwner is the CPU owner of io_uring's io-wq workers: kernel threads,
// one process for the model (engine.cpuRequest).
const ioWQOwner = -2_000_000

// OnEvent (io_uring): the kernel's read returned; its copy runs on a core
// (an io-wq worker), then the read completes.
func (rd *aioRead) OnEvent(arg int64) {
	e := rd.e
	if arg == evAIORead {
		e.cpuRequest(e.costs.OSRead*int64(rd.n), ioWQOwner, false, rd, evAIOCopy)
		return
	}
	rd.complete()
}

// complete marks the read's buffers valid and wakes whoever waits for them.
func (rd *aioRead) complete() {
	rd.done = true
	for _, s := range rd.slots {
		rd.e.pool.ReadDone(s)
		rd.e.wakeIOWaiters(s)
	}
	if rd.stream != nil && rd.stream.gen == rd.gen {
		rd.stream.inFlight--
	}
}

// aioMaxIOs is the reads a stream keeps in flight (effective_io_concurrency).
func (e *engine) aioMaxIOs() int32 { return int32(max(e.sc.Server.EffectiveIOConcurrency, 1)) }

// streamAsync reports whether b's stream reads through the look-ahead of
// 18's read_stream.c (aioLookAhead): io_method worker or io_uring, whose
// reads start ahead of the scan, and from 18 io_method sync too, whose
// reads are the same but done when the scan reaches them (aioDeferred);
// I/O concurrency above 0.
func (b *backend) streamAsync() bool {
	c := b.e.sc.Server.EffectiveIOConcurrency
	if b.stream.maint {
		c = b.e.sc.Server.MaintenanceIOConcurrency
	}
	return (b.e.aioMethod() != "sync" || b.e.ver >= 1800) && c > 0
}

// streamAdvises reports whether b's stream advises the kernel of its reads
// (read_stream_begin_impl's advice_enabled): with 18's io_method sync, for
// every stream but a sequential scan's (READ_STREAM_SEQUENTIAL: the
// kernel's readahead sees the reads themselves): VACUUM's, ANALYZE's,
// pg_prewarm's and a bitmap heap scan's.
func (b *backend) streamAdvises() bool { return b.e.aioDeferred() && b.stream.advise }

// aioAdvise is StartReadBuffers' smgrprefetch of an advised read with
// io_method sync: one posix_fadvise(WILLNEED) of its blocks, priced as
// the system call a read is, which has the kernel read them ahead.
func (b *backend) aioAdvise(rd *aioRead) {
	if !b.aio.frAdvice {
		return
	}
	b.cpu += b.e.costs.OSRead
	b.e.os.PrefetchRange(rd.gid, rd.n)
}

// aioDeferred reports whether the stream's reads wait for the scan: 18's
// io_method sync, where StartReadBuffers starts no I/O and
// WaitReadBuffers reads the blocks itself (bufmgr.c StartReadBuffersImpl,
// "a dedicated path for IOMETHOD_SYNC").
func (e *engine) aioDeferred() bool { return e.aioMethod() == "sync" }

// streamNextBufferAsync is read_stream_next_buffer with asynchronous I/O
// for the stream of t, as streamNextBuffer.
func (b *backend) streamNextBufferAsync(t *table, write bool) (blk, slot int32, miss, ok bool) {
	st := &b.stream
	as := &b.aio
	if as.waited && !as.timed {
		// Back from waiting for the head's read: WaitReadBuffers times
		// the wait for a read it started that had not completed
		// (pgaio_wref_wait) as read time without a read
		// (AsyncReadBuffers counted the read, timing only its
		// submission, which costs nothing in the model).
		as.timed = true
		b.noteIOTime(ringContext(st.ring), ioRead, b.e.k.Now()-b.waitFrom)
	}
	if as.out.ok {
		// The block handed out before the look-ahead after it blocked:
		// finish the look-ahead, then return it.
		if !b.aioLookAhead(t, write) {
			return -1, -1, false, false
		}
		o := as.out
		as.out = aioOut{}
		return o.blk, o.slot, o.miss, true
	}
	if len(as.ranges) == 0 {
		// Nothing pinned: the look-ahead starts the stream (or finds
		// its end).
		if !b.aioLookAhead(t, write) {
			return -1, -1, false, false
		}
		if len(as.ranges) == 0 {
			return -1, -1, false, true // the end
		}
	}
	h := &as.ranges[0]
	if rd := h.rd; rd != nil && b.e.aioDeferred() && !rd.done {
		// WaitReadBuffers with io_method sync: the backend reads the
		// blocks itself, one preadv, and copies them.
		e := b.e
		if !rd.issued {
			rd.issued = true
			b.readvGid, b.readvN = rd.gid, rd.n
			b.cpu += e.costs.OSRead * int64(rd.n)
			b.block(wReadV)
			return -1, -1, false, false
		}
		b.noteIOTime(ringContext(st.ring), ioRead, e.costs.OSRead*int64(rd.n)+e.k.Now()-b.waitFrom)
		rd.complete()
	}
	if h.rd != nil && !h.rd.done {
		// WaitReadBuffers: the read has not completed; wait for its first
		// buffer (the others complete with it).
		s, e := h.slots[0], b.e
		b.nextWait = e.ioWaitHead[s]
		e.ioWaitHead[s] = b.id
		as.waited, as.timed = true, false
		b.block(wIOWait)
		return -1, -1, false, false
	}
	as.waited = false
	if h.rd != nil && !h.consumed {
		// The head buffer of a read of ours: WaitReadBuffers, then
		// "Look-ahead distance ramps up rapidly after we do I/O"
		// (read_stream.c read_stream_next_buffer, 18.3: whether or not
		// the read had completed by then).
		h.consumed = true
		st.distance = min(2*st.distance, b.aioMaxPinned())
		if h.start == as.seqUntil {
			// "If we've reached the first block of a sequential region
			// we're issuing advice for, cancel that until the next jump."
			as.seqUntil = -1
		}
	}
	blk, slot, miss = h.start, h.slots[0], h.rd != nil || h.miss
	h.start++
	h.n--
	h.slots = h.slots[1:]
	as.pinned--
	if h.n == 0 {
		as.ranges = as.ranges[:copy(as.ranges, as.ranges[1:])]
	}
	// "Prepare for the next call": the look-ahead follows the hand-out, so
	// that it sees the distance just doubled and one pin fewer, and its
	// reads run while the caller works on this block.
	if !b.aioLookAhead(t, write) {
		as.out = aioOut{blk: blk, slot: slot, miss: miss, ok: true}
		return -1, -1, false, false
	}
	return blk, slot, miss, true
}

// aioOut is a block the stream handed out whose look-ahead blocked.
type aioOut struct {
	blk, slot int32
	miss, ok  bool
}

// aioMaxPinned is the stream's max_pinned_buffers (read_stream.c
// read_stream_begin_impl): in 17 max(4 x max_ios, io_combine_limit)
// within the strategy's pin limit and LimitAdditionalPins; from 18
// (max_ios + 1) x io_combine_limit within the strategy's pin limit and
// GetPinLimit (each read then within GetAdditionalPinLimit).
func (b *backend) aioMaxPinned() int32 {
	e := b.e
	var n int32
	if e.ver >= 1800 {
		n = (b.streamMaxIOs() + 1) * e.ioCombineBlocks()
	} else {
		n = max(4*b.streamMaxIOs(), e.ioCombineBlocks())
	}
	if r := b.stream.ring; r != nil {
		n = min(n, strategyPinLimit(r))
	}
	if e.ver >= 1800 {
		return max(min(n, e.pinLimit()), 1)
	}
	return e.limitAdditionalPins(max(n, 1))
}

// strategyPinLimit is GetAccessStrategyPinLimit (freelist.c): a BULKREAD
// ring's buffers may all be pinned at once (StrategyRejectBuffer deals
// with dirty ones), other rings' half ("a trade-off between look ahead
// distance and deferring writeback and associated WAL traffic").
func strategyPinLimit(r *bufpool.Ring) int32 {
	if r.Kind == bufpool.BulkRead {
		return int32(r.Size())
	}
	return max(int32(r.Size()/2), 1)
}

// aioLookAhead is read_stream_look_ahead (18.3): it asks the stream's
// callback for blocks while fewer than the distance are pinned or pending,
// merging consecutive blocks into one pending read whether they are in
// shared buffers or not, and starts the pending read (StartReadBuffers,
// aioStartPending) when it reaches io_combine_limit blocks or the next
// block does not follow it. A pending read cut short by the distance is
// started only once nothing is pinned ("preferring to give it another
// chance to grow to full io_combine_limit size"), or at the stream's end.
// false: b blocked (a victim's write, or another backend's read of a
// block); call again.
func (b *backend) aioLookAhead(t *table, write bool) bool {
	st := &b.stream
	as := &b.aio
	combine := b.e.ioCombineBlocks()
	maxIOs := b.streamMaxIOs()
	for {
		if as.forming {
			if !b.aioForm(t, write) {
				return false
			}
			switch as.after {
			case afterFinal:
				as.after = afterLoop
				return true
			case afterDrain:
				if as.inFlight >= maxIOs {
					// The next block waits for the next call, which
					// looks ahead from the start.
					as.after = afterLoop
					return true
				}
			}
			continue
		}
		if as.after == afterDrain {
			// "We have to start the pending read before we can build
			// another."
			if as.pendN > 0 {
				if !b.aioStartPending(t) {
					as.after = afterLoop
					return true
				}
				continue
			}
			as.after = afterLoop
			as.pendStart, as.pendN = as.next, 1
			as.next = b.streamFrom(t, as.next+1)
			continue
		}
		if as.inFlight >= maxIOs || as.pinned+as.pendN >= st.distance || as.next < 0 {
			break
		}
		if as.pendN == combine {
			if !b.aioStartPending(t) {
				return true
			}
			continue
		}
		if as.pendN > 0 && as.pendStart+as.pendN == as.next {
			as.pendN++
			as.next = b.streamFrom(t, as.next+1)
			continue
		}
		if as.pendN > 0 {
			as.after = afterDrain
			continue
		}
		as.pendStart, as.pendN = as.next, 1
		as.next = b.streamFrom(t, as.next+1)
	}
	if as.pendN > 0 && (as.pendN == combine || as.pendN >= st.distance && as.pinned == 0 || as.next < 0) && as.inFlight < maxIOs {
		if b.aioStartPending(t) {
			as.after = afterFinal
			if !b.aioForm(t, write) {
				return false
			}
		}
	}
	as.after = afterLoop
	return true
}

// What the look-ahead does once a read it started has its buffers.
const (
	afterLoop  = iota // go on looking ahead
	afterDrain        // start the rest of the pending read, then a new one
	afterFinal        // return
)

// aioStartPending is read_stream_start_pending_read: it starts
// StartReadBuffers on the pending read, as large as GetAdditionalPinLimit
// allows (the forwarded buffer, already pinned, counting as one it may
// have); when that is less, the distance shrinks to what is pinned plus
// that, and nothing starts while the stream holds pins. false: nothing
// started. The buffers are then pinned by aioForm.
func (b *backend) aioStartPending(t *table) bool {
	st := &b.stream
	as := &b.aio
	if b.streamAdvises() {
		// "Sequential: issue advice until the preadv() calls have
		// caught up with the first advice issued for this sequential
		// region, and then stay out of the way of the kernel's own
		// read-ahead"; a random jump starts a region, advised unless the
		// read follows immediately (nothing pinned).
		if as.pendStart == as.seqBlock {
			as.frAdvice = as.seqUntil >= 0
		} else {
			as.seqUntil = as.pendStart
			as.frAdvice = as.pinned > 0
		}
	}
	fwd := int32(0)
	if as.fwd {
		fwd = 1
	}
	limit := b.e.additionalPinLimit(as.pinned+fwd) + fwd
	if limit == 0 && as.pinned == 0 {
		limit = 1 // guarantee progress
	}
	n := as.pendN
	if limit < n {
		st.distance = min(st.distance, as.pinned+limit)
		if as.pinned > 0 {
			return false
		}
		n = limit
	}
	as.fr = aioRange{start: as.pendStart, n: n, slots: make([]int32, 0, n)}
	as.frMine = as.frMine[:0]
	as.frHit, as.frDecided = false, false
	as.forming = true
	return true
}

// aioForm is StartReadBuffers on the read aioStartPending began: it pins
// the blocks in order. The first found in shared buffers (or the buffer
// forwarded by the previous read) is a hit: the read is that block alone,
// with no I/O, and the distance decays. Otherwise the read is the blocks
// not in shared buffers, up to the first that is (pinned and forwarded to
// the next read, which starts with it) and within the segment file
// (smgrmaxcombine); its I/O starts (aioStart).
func (b *backend) aioForm(t *table, write bool) bool {
	e := b.e
	st := &b.stream
	as := &b.aio
	for int32(len(as.fr.slots)) < as.fr.n {
		i := int32(len(as.fr.slots))
		blk := as.fr.start + i
		if i == 0 && as.fwd {
			as.fwd = false
			as.fr.slots = append(as.fr.slots, as.fwdSlot)
			as.fr.n, as.frHit, as.frMiss = 1, true, as.fwdMiss
			break
		}
		g := e.cat.GID(t.rel, blk)
		if !as.frDecided {
			// Whether the block is in shared buffers is decided once:
			// pinning it may block, and the answer must not change when
			// it resumes.
			as.frDecided, as.frCached = true, e.pool.Lookup(g) >= 0
			if i == 0 && !as.frCached {
				as.fr.n = min(as.fr.n, relSegBlocks-blk%relSegBlocks)
			}
		}
		if as.frCached {
			s, ok := b.readBuffer(g, st.ring, false, write)
			if !ok {
				return false
			}
			as.frDecided = false
			if i == 0 {
				as.fr.slots = append(as.fr.slots, s)
				as.fr.n, as.frHit, as.frMiss = 1, true, b.lastMiss
				break
			}
			as.fwd, as.fwdSlot, as.fwdMiss = true, s, b.lastMiss
			as.fr.n = i
			break
		}
		b.pinNoRead = true
		s, ok := b.readBuffer(g, st.ring, false, write)
		if !ok {
			return false
		}
		b.pinNoRead = false
		as.frDecided = false
		as.fr.slots = append(as.fr.slots, s)
		as.frMine = append(as.frMine, e.pool.Flags[s]&bufpool.Valid == 0)
	}
	as.forming = false
	as.pendStart += as.fr.n
	as.pendN -= as.fr.n
	if as.frHit {
		as.ranges = append(as.ranges, aioRange{start: as.fr.start, n: 1, slots: as.fr.slots, miss: as.frMiss})
		as.pinned++
		if st.distance > 1 {
			st.distance--
		}
		return true
	}
	as.pinned += as.fr.n
	if !slices.Contains(as.frMine, true) {
		if st.distance > 1 {
			st.distance-- // valid meanwhile: no I/O after all
		}
	} else {
		as.seqBlock = as.fr.start + as.fr.n
	}
	b.aioStart()
	as.frAdvice = false
	return true
}

// aioStart starts the reads of the range just pinned: one per run of
// blocks whose I/O is ours (a block another backend read meanwhile is a
// range of its own, already valid).
func (b *backend) aioStart() {
	e := b.e
	as := &b.aio
	fr := as.fr
	for i := int32(0); i < fr.n; {
		j := i + 1
		for j < fr.n && as.frMine[j] == as.frMine[i] {
			j++
		}
		r := aioRange{start: fr.start + i, n: j - i, slots: fr.slots[i:j:j]}
		if as.frMine[i] {
			rd := &aioRead{e: e, gid: e.cat.GID(b.stream.curRel, fr.start+i), n: j - i, slots: r.slots, stream: as, gen: as.gen}
			if e.aioMethod() == "io_uring" {
				rd.ra = b.readahead(rd.gid) // the backend's own file descriptor
			}
			r.rd = rd
			as.inFlight++
			e.stats.io[b.backendType()][ringContext(b.stream.ring)].readOps++
			if e.aioDeferred() {
				b.aioAdvise(rd)
			} else {
				e.aioSubmit(rd)
			}
		}
		as.ranges = append(as.ranges, r)
		i = j
	}
}
