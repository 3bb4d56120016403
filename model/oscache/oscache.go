// Package oscache models the Linux page cache under PostgreSQL's data files:
// an LRU of 8 kB pages holding clean and dirty pages, with the kernel's
// writeback rules (mm/page-writeback.c, Documentation/admin-guide/sysctl/vm.rst):
//
//   - a pwrite() only copies the page into the cache and marks it dirty
//     (PostgreSQL's FlushBuffer "hands the page to the kernel", bufmgr.c);
//   - the flusher wakes every dirty_writeback_centisecs (5 s) and writes
//     pages dirty for longer than dirty_expire_centisecs (30 s);
//   - above dirty_background_ratio (10 %) or dirty_background_bytes it
//     writes back continuously until below the threshold;
//   - above dirty_ratio (20 %) or dirty_bytes a writing process is
//     throttled until writeback brings the dirty total back under the
//     limit (balance_dirty_pages);
//   - fsync() writes every dirty page of the file and flushes the device
//     cache; sync_file_range() (PostgreSQL's *_flush_after hints) starts
//     writeback of given pages without waiting.
//
// Writeback issues the oldest dirty page first and merges the dirty pages
// that follow it in the same file into one request (up to MaxBatch pages),
// so contiguous dirty runs reach the device as sequential writes. Reads and
// writeback share the device's queue.
package oscache

import (
	"fmt"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/storage"
	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/sim"
)

// Config holds the cache size and the writeback thresholds in pages.
type Config struct {
	CapacityPages   int64
	BackgroundPages int64 // start background writeback above this many dirty pages
	LimitPages      int64 // throttle writers above this many dirty + writeback pages
	Expire          int64 // ns a page may stay dirty before the flusher writes it
	WakeInterval    int64 // ns between periodic flusher wake-ups (0 = never)
	MaxInFlight     int   // writeback requests in flight at once (the block layer's nr_requests)
	MaxBatch        int   // pages merged into one request (max_sectors_kb), writeback and reads alike
	// ReadAheadKPages is the readahead window's maximum in kernel pages
	// of 4 kB (the device's read_ahead_kb / 4); 0 turns readahead off
	// (readahead.go).
	ReadAheadKPages int64
}

// Page flags.
const (
	fCached    = 1 << iota
	fDirty     // modified since the last writeback started
	fWriteback // a writeback of this page is in flight
	fReading   // a read of this page is in flight: cached but not up to date
	fReadahead // PG_readahead: reading this page starts the next window
	fRAOdd     // the marked kernel page is the block's second 4 kB page
)

const nilPage = -1

// Stats are the cache's cumulative counters.
type Stats struct {
	Hits, Misses        uint64
	InflightWaits       uint64 // reads that found their page cached but still being read (readahead in flight)
	ReadCalls           uint64 // pread() and preadv() calls (a preadv of several blocks is one)
	AdviceCalls         uint64 // posix_fadvise(POSIX_FADV_WILLNEED) calls
	ReadRequests        uint64 // device read requests
	ReadPages           uint64 // pages those requests read
	ReadaheadPages      uint64 // of which pages no read had asked for yet (readahead)
	WritebackPages      uint64 // pages written to the device (any reason)
	WritebackRequests   uint64
	FsyncPages          uint64 // pages written because of fsync
	Writes              uint64 // pwrite()s of pages into the cache
	ThrottledWrites     uint64 // pwrite()s that had to wait (dirty limit)
	ThrottledNs         int64  // total time writers spent throttled
	Fsyncs              uint64
	Evictions           uint64
	DirtyEvictionSkips  uint64 // LRU tail pages skipped because dirty
	PeakDirtyPages      int64
	WritebackBatchPages uint64
}

// Cache is the OS page cache over global page ids.
type Cache struct {
	k   *sim.Kernel
	dev *storage.Device
	cfg Config

	prev, next []int32
	flags      []uint8
	dirtyAt    []int64 // ns; meaningful only while fDirty
	head, tail int32
	n          int64

	dirty, writeback int64

	fifo      []dirtyEntry // dirtying order; stale entries skipped lazily
	fifoHead  int
	inFlight  int
	flusherOn bool // a flusher run is scheduled or active

	waiters []waiter // throttled writers, FIFO
	free    []*ioReq

	fsyncQ      []fsyncPage // pages fsync() still has to submit, in order
	fsyncHead   int
	active      []*ioReq // writeback requests in flight
	reading     []*ioReq // read requests in flight
	readScratch []reader

	// Segment returns the segment-file identity of a gid (relation and
	// 1 GB segment), so that merged writeback never crosses files, and
	// whether gid+1 lies in the same file.
	SameFile func(a, b int32) bool
	// Files places pages in files for readahead; nil: no readahead.
	Files FileMap

	onReadRun func(n int32) // tests: sees each device read's size

	Stats Stats
}

type dirtyEntry struct {
	gid int32
	at  int64
}

type fsyncPage struct {
	gid int32
	op  *fsyncOp
}

type waiter struct {
	h     sim.Handler
	arg   int64
	since int64
}

type ioReq struct {
	c       *Cache
	read    bool
	gid     int32
	n       int32
	done    sim.Handler
	arg     int64
	fsync   *fsyncOp
	waiters []*fsyncOp // fsyncs that found this write already in flight
	active  int        // index in Cache.active (writes) or Cache.reading (reads) while in flight
	readers []reader   // reads waiting for pages of this read request
}

type reader struct {
	gid  int32
	done sim.Handler
	arg  int64
}

type fsyncOp struct {
	c         *Cache
	queued    int // pages still in the fsync queue
	remaining int // writes submitted and not yet complete
	done      sim.Handler
	arg       int64
	flushing  bool
}

// Flusher event codes.
const (
	evTick = iota
	evRun
)

// New creates an empty cache in front of dev.
func New(k *sim.Kernel, dev *storage.Device, cfg Config) *Cache {
	if cfg.CapacityPages < 1 {
		cfg.CapacityPages = 1
	}
	if cfg.MaxInFlight < 1 {
		cfg.MaxInFlight = 1
	}
	if cfg.MaxBatch < 1 {
		cfg.MaxBatch = 1
	}
	c := &Cache{k: k, dev: dev, cfg: cfg, head: nilPage, tail: nilPage}
	if cfg.WakeInterval > 0 {
		k.After(cfg.WakeInterval, c, evTick)
	}
	return c
}

// Config returns the cache's configuration.
func (c *Cache) Config() Config { return c.cfg }

// DirtyPages returns the pages dirty or under writeback now.
func (c *Cache) DirtyPages() int64 { return c.dirty + c.writeback }

// CachedPages returns the pages held now.
func (c *Cache) CachedPages() int64 { return c.n }

// Contains reports whether gid is cached.
func (c *Cache) Contains(gid int32) bool {
	return int(gid) < len(c.flags) && c.flags[gid]&fCached != 0
}

// Reserve sizes the per-page state for gids below n, so that it is not
// grown (and copied) page by page as the run touches the database.
func (c *Cache) Reserve(n int32) {
	if n > 0 {
		c.grow(n - 1)
	}
}

func (c *Cache) grow(gid int32) {
	if int(gid) < len(c.flags) {
		return
	}
	n := max(int(gid)+1, len(c.flags)+len(c.flags)/4, 1024)
	prev := make([]int32, n)
	next := make([]int32, n)
	flags := make([]uint8, n)
	dirtyAt := make([]int64, n)
	copy(prev, c.prev)
	copy(next, c.next)
	copy(flags, c.flags)
	copy(dirtyAt, c.dirtyAt)
	c.prev, c.next, c.flags, c.dirtyAt = prev, next, flags, dirtyAt
}

func (c *Cache) unlink(g int32) {
	p, n := c.prev[g], c.next[g]
	if p != nilPage {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n != nilPage {
		c.prev[n] = p
	} else {
		c.tail = p
	}
}

func (c *Cache) pushFront(g int32) {
	c.prev[g] = nilPage
	c.next[g] = c.head
	if c.head != nilPage {
		c.prev[c.head] = g
	} else {
		c.tail = g
	}
	c.head = g
}

// DropClean evicts every clean cached page (vm.drop_caches = 1: the kernel
// frees clean page-cache pages; dirty and under-writeback pages stay).
func (c *Cache) DropClean() {
	for g := c.head; g != nilPage; {
		next := c.next[g]
		if c.flags[g]&(fDirty|fWriteback|fReading) == 0 {
			c.unlink(g)
			c.flags[g] &^= fCached
			c.n--
		}
		g = next
	}
}

// Warm makes gid the most recently used page, as a read would, without I/O
// (prewarming caches before a run).
func (c *Cache) Warm(gid int32) { c.touch(gid) }

// LastDistinct returns the last capacity distinct pages of seq, each at
// its last position, in order: WarmAll of the result leaves a cache of
// that capacity (with nothing dirty) as WarmAll of seq would, so a caller
// collecting a long sequence can shorten it as it goes. It works in place:
// the result is seq[:n] and the rest of seq is overwritten, so a caller
// appending to it keeps one buffer (a copy per call made the prewarm grow
// it by doubling, again and again). seen is scratch space for a bitset of
// the page ids (dense from 0: a map cost a tenth of a scale-5000 seed
// run's wall time here), returned for the next call.
func LastDistinct(seq []int32, capacity int, seen []uint64) ([]int32, []uint64) {
	if len(seq) == 0 {
		return seq, seen
	}
	if slices.Min(seq) < 0 {
		panic("oscache.LastDistinct: negative page id")
	}
	words := int(slices.Max(seq))/64 + 1
	if cap(seen) < words {
		seen = make([]uint64, words)
	} else {
		seen = seen[:words]
		clear(seen)
	}
	// Walking backwards, the kept pages fill seq from its end: w never
	// passes i, so no entry is overwritten before it is read.
	w, kept := len(seq), 0
	for i := len(seq) - 1; i >= 0 && kept < capacity; i-- {
		g := seq[i]
		if seen[g>>6]&(1<<(g&63)) == 0 {
			seen[g>>6] |= 1 << (g & 63)
			w--
			seq[w] = g
			kept++
		}
	}
	n := copy(seq, seq[w:])
	return seq[:n], seen
}

// WarmAll is Warm of every page of seq in order, computed at once. An LRU's
// contents after a run of touches are the first CapacityPages entries of the
// recency stack (each page ordered by its last touch), so walking seq
// backwards and keeping each page's first sighting gives the final list with
// one list operation per surviving page instead of one random-access update
// per touch. Stats.Evictions counts only the pages cached before seq that
// fall out. With dirty or in-flight pages in the cache (which eviction
// skips) it touches one page at a time instead.
func (c *Cache) WarmAll(seq []int32) {
	if len(seq) == 0 {
		return
	}
	if c.dirty > 0 || c.writeback > 0 {
		for _, g := range seq {
			c.touch(g)
		}
		return
	}
	c.grow(slices.Max(seq))
	capacity := int(max(c.cfg.CapacityPages, 0))
	seen := make([]uint64, (len(c.flags)+63)/64)
	order := make([]int32, 0, min(len(seq), capacity)+int(c.n))
	for i := len(seq) - 1; i >= 0 && len(order) < capacity; i-- {
		g := seq[i]
		if seen[g>>6]&(1<<(g&63)) != 0 {
			continue
		}
		seen[g>>6] |= 1 << (g & 63)
		order = append(order, g)
	}
	// Pages cached before seq are older than all of it: they follow, in
	// their own order, while room remains; the rest are evicted.
	for g := c.head; g != nilPage; g = c.next[g] {
		if seen[g>>6]&(1<<(g&63)) != 0 {
			continue
		}
		if len(order) < capacity {
			order = append(order, g)
		} else {
			c.flags[g] &^= fCached
			c.Stats.Evictions++
		}
	}
	c.head, c.tail = nilPage, nilPage
	for i, g := range order {
		c.flags[g] |= fCached
		c.prev[g], c.next[g] = nilPage, nilPage
		if i > 0 {
			c.prev[g] = order[i-1]
			c.next[order[i-1]] = g
		}
	}
	if len(order) > 0 {
		c.head, c.tail = order[0], order[len(order)-1]
	}
	c.n = int64(len(order))
}

// touch makes gid the most recently used page, inserting it if absent.
func (c *Cache) touch(g int32) {
	c.grow(g)
	if c.flags[g]&fCached != 0 {
		if c.head != g {
			c.unlink(g)
			c.pushFront(g)
		}
		return
	}
	c.flags[g] |= fCached
	c.pushFront(g)
	c.n++
	c.evict()
}

// evict drops clean pages from the LRU tail until the cache fits. Dirty
// pages, pages under writeback and pages being read cannot be dropped; they
// are rotated to the head (the kernel's reclaim likewise skips them and
// starts writeback).
func (c *Cache) evict() {
	rotations := int64(0)
	for c.n > c.cfg.CapacityPages && c.tail != nilPage {
		g := c.tail
		if c.flags[g]&(fDirty|fWriteback|fReading) != 0 {
			c.Stats.DirtyEvictionSkips++
			rotations++
			if rotations > c.n {
				c.kick()
				return // everything is dirty: stay over capacity until writeback
			}
			c.unlink(g)
			c.pushFront(g)
			continue
		}
		c.unlink(g)
		c.flags[g] &^= fCached | fReadahead | fRAOdd
		c.n--
		c.Stats.Evictions++
	}
}

// Read is a pread() of one page by the reader whose readahead state for
// the page's file is ra (nil: a read outside any file's readahead, such as
// an SLRU's). It follows filemap_read/filemap_get_pages (mm/filemap.c): a
// page that is not cached starts the synchronous readahead (readahead.go)
// or, with readahead off, a read of the page alone; a page carrying the
// readahead mark starts the next window; a page cached but still being
// read is waited for. On a hit of an up-to-date page it returns true and
// the caller continues at once (charging its own syscall CPU); otherwise
// it returns false and done.OnEvent(arg) fires when the page is up to date.
func (c *Cache) Read(gid int32, ra *RAState, done sim.Handler, arg int64) bool {
	c.Stats.ReadCalls++
	c.grow(gid)
	if c.flags[gid]&fCached == 0 {
		c.Stats.Misses++
		if ra != nil && c.cfg.ReadAheadKPages > 0 && c.Files != nil {
			c.syncReadahead(gid, ra)
		}
		if c.flags[gid]&fCached == 0 {
			c.readRun(gid, 1, -1, false)
		}
		if c.flags[gid]&fReadahead != 0 && ra != nil {
			// The window's mark fell on this block's second 4 kB page:
			// the same pread reaches it (a window of one block).
			c.asyncReadahead(gid, ra)
		}
		c.waitRead(gid, done, arg)
		ra.readDone(gid, c.Files)
		return false
	}
	if c.flags[gid]&fReadahead != 0 && ra != nil && c.cfg.ReadAheadKPages > 0 && c.Files != nil {
		c.asyncReadahead(gid, ra)
	}
	ra.readDone(gid, c.Files)
	if c.flags[gid]&fReading != 0 {
		c.Stats.InflightWaits++
		c.waitRead(gid, done, arg)
		return false
	}
	c.Stats.Hits++
	c.touch(gid)
	return true
}

// Prefetch is posix_fadvise(POSIX_FADV_WILLNEED) of one block
// (mm/fadvise.c -> force_page_cache_readahead): if it is not cached, a
// read of it is submitted and the caller does not wait; a later read finds
// it cached, or in flight and waits for it. The block enters the cache
// as readahead does, without the readahead mark, and counts as read ahead
// (no read asked for it).
func (c *Cache) Prefetch(gid int32) {
	c.Stats.AdviceCalls++
	c.grow(gid)
	if c.flags[gid]&fCached != 0 {
		return
	}
	c.readRun(gid, 1, -1, false)
	c.Stats.ReadaheadPages++
}

// PrefetchRange is posix_fadvise(POSIX_FADV_WILLNEED) of n consecutive
// blocks from gid, one call: each run of them that is not cached is
// submitted as one read (force_page_cache_readahead over the range).
func (c *Cache) PrefetchRange(gid int32, n int32) {
	c.Stats.AdviceCalls++
	for g := gid; g < gid+n; {
		c.grow(g)
		if c.flags[g]&fCached != 0 {
			g++
			continue
		}
		run := int32(1)
		for g+run < gid+n {
			c.grow(g + run)
			if c.flags[g+run]&fCached != 0 {
				break
			}
			run++
		}
		c.readRun(g, run, -1, false)
		c.Stats.ReadaheadPages += uint64(run)
		g += run
	}
}

// readRun submits one device read of the n pages from gid, which must
// not be cached: they enter the cache now, locked until the read
// completes (add_to_page_cache_lru before the I/O). mark, if within the
// run, is the page that gets the readahead mark (on its second kernel
// page if odd).
func (c *Cache) readRun(gid int32, n int32, mark int32, odd bool) {
	for g := gid; g < gid+n; g++ {
		c.grow(g)
		c.flags[g] |= fCached | fReading
		c.pushFront(g)
		c.n++
	}
	if mark >= gid && mark < gid+n {
		c.flags[mark] |= fReadahead
		if odd {
			c.flags[mark] |= fRAOdd
		}
	}
	r := c.req()
	r.read, r.gid, r.n = true, gid, n
	r.active = len(c.reading)
	c.reading = append(c.reading, r)
	c.Stats.ReadRequests++
	c.Stats.ReadPages += uint64(n)
	if c.onReadRun != nil {
		c.onReadRun(n)
	}
	c.dev.Submit(storage.Read, int64(gid), int(n), r, 0)
	c.evict()
}

// waitRead makes done.OnEvent(arg) fire when gid's read completes.
func (c *Cache) waitRead(gid int32, done sim.Handler, arg int64) {
	if done == nil {
		return
	}
	for _, r := range c.reading {
		if gid >= r.gid && gid < r.gid+r.n {
			r.readers = append(r.readers, reader{gid: gid, done: done, arg: arg})
			return
		}
	}
	panic("oscache: waiting for a page no read is bringing in")
}

// Write is a pwrite() of one full page: the page becomes cached and dirty.
// It returns true if the writer may continue at once, false if the writer
// is throttled by the dirty limit; done.OnEvent(arg) then fires when
// writeback has brought the dirty total under the limit.
func (c *Cache) Write(gid int32, done sim.Handler, arg int64) bool {
	c.Stats.Writes++
	c.touch(gid)
	c.markDirty(gid)
	if c.dirty > c.cfg.BackgroundPages {
		c.kick()
	}
	if c.dirty+c.writeback > c.cfg.LimitPages && done != nil {
		c.Stats.ThrottledWrites++
		c.waiters = append(c.waiters, waiter{h: done, arg: arg, since: c.k.Now()})
		return false
	}
	return true
}

func (c *Cache) markDirty(g int32) {
	if c.flags[g]&fDirty != 0 {
		return
	}
	c.flags[g] |= fDirty
	c.dirtyAt[g] = c.k.Now()
	c.dirty++
	c.Stats.PeakDirtyPages = max(c.Stats.PeakDirtyPages, c.dirty+c.writeback)
	c.fifo = append(c.fifo, dirtyEntry{gid: g, at: c.dirtyAt[g]})
}

func (c *Cache) req() *ioReq {
	if n := len(c.free); n > 0 {
		r := c.free[n-1]
		c.free = c.free[:n-1]
		return r
	}
	return &ioReq{c: c}
}

// readDone completes a read request: its pages are up to date, and each
// reader waiting for one of them takes it (mark_page_accessed: the page
// moves to the LRU's head) and resumes, in the order they asked.
func (c *Cache) readDone(r *ioReq) {
	c.reading = removeInFlight(c.reading, r)
	for g := r.gid; g < r.gid+r.n; g++ {
		c.flags[g] &^= fReading
	}
	// The readers are copied out before the request is recycled: a
	// reader resumed below may issue reads of its own at once.
	c.readScratch = append(c.readScratch[:0], r.readers...)
	*r = ioReq{c: c, waiters: r.waiters[:0], readers: r.readers[:0]}
	c.free = append(c.free, r)
	for _, w := range c.readScratch {
		c.touch(w.gid) // before evicting: a page read for a reader is not given up before it gets it
	}
	if c.n > c.cfg.CapacityPages {
		c.evict()
	}
	for _, w := range c.readScratch {
		w.done.OnEvent(w.arg)
	}
}

// removeInFlight takes r out of list (Cache.active or Cache.reading, where
// r.active is its index) by moving the last request into its place.
func removeInFlight(list []*ioReq, r *ioReq) []*ioReq {
	last := list[len(list)-1]
	list[r.active] = last
	last.active = r.active
	return list[:len(list)-1]
}

// OnEvent completes device requests issued by the cache.
func (r *ioReq) OnEvent(int64) {
	c := r.c
	if r.read {
		c.readDone(r)
		return
	}
	c.inFlight--
	c.active = removeInFlight(c.active, r)
	for g := r.gid; g < r.gid+r.n; g++ {
		c.flags[g] &^= fWriteback
		c.writeback--
		if c.flags[g]&fDirty != 0 {
			// Dirtied again while the write was in flight: it
			// needs another writeback (its queue entry was dropped
			// while the write ran), and an fsync waiting on this
			// write must write it too.
			c.fifo = append(c.fifo, dirtyEntry{gid: g, at: c.dirtyAt[g]})
			for _, f := range r.waiters {
				c.fsyncQ = append(c.fsyncQ, fsyncPage{gid: g, op: f})
				f.queued++
			}
			if r.fsync != nil {
				c.fsyncQ = append(c.fsyncQ, fsyncPage{gid: g, op: r.fsync})
				r.fsync.queued++
			}
		}
	}
	if f := r.fsync; f != nil {
		f.remaining--
		f.maybeFlush()
	}
	for _, f := range r.waiters {
		f.remaining--
		f.maybeFlush()
	}
	c.wakeWriters()
	c.evict()
	if c.flusherOn || c.fsyncHead < len(c.fsyncQ) {
		c.pump()
	}
	done, arg := r.done, r.arg
	*r = ioReq{c: c, waiters: r.waiters[:0], readers: r.readers[:0]}
	c.free = append(c.free, r)
	if done != nil {
		done.OnEvent(arg)
	}
}

func (c *Cache) wakeWriters() {
	for len(c.waiters) > 0 && c.dirty+c.writeback <= c.cfg.LimitPages {
		w := c.waiters[0]
		c.waiters = c.waiters[1:]
		c.Stats.ThrottledNs += c.k.Now() - w.since
		c.k.Schedule(c.k.Now(), w.h, w.arg)
	}
	if len(c.waiters) == 0 {
		c.waiters = c.waiters[:0:0]
	}
}

// startWriteback submits one request writing gid and the dirty pages that
// follow it in the same file, up to MaxBatch pages.
func (c *Cache) startWriteback(g int32, f *fsyncOp) {
	n := int32(1)
	for int(n) < c.cfg.MaxBatch {
		h := g + n
		if int(h) >= len(c.flags) || c.flags[h]&fDirty == 0 || c.flags[h]&fWriteback != 0 {
			break
		}
		if c.SameFile != nil && !c.SameFile(g, h) {
			break
		}
		n++
	}
	for p := g; p < g+n; p++ {
		c.flags[p] = c.flags[p]&^fDirty | fWriteback
		c.dirty--
		c.writeback++
	}
	c.inFlight++
	c.Stats.WritebackPages += uint64(n)
	c.Stats.WritebackRequests++
	if f != nil {
		c.Stats.FsyncPages += uint64(n)
		f.remaining++
	}
	r := c.req()
	r.read, r.gid, r.n, r.fsync = false, g, n, f
	r.active = len(c.active)
	c.active = append(c.active, r)
	c.dev.Submit(storage.Write, int64(g), int(n), r, 0)
}

// kick starts the flusher now if it is idle.
func (c *Cache) kick() {
	if !c.flusherOn {
		c.flusherOn = true
		c.k.Schedule(c.k.Now(), c, evRun)
	}
}

// OnEvent runs the flusher (periodic tick or a kick).
func (c *Cache) OnEvent(arg int64) {
	if arg == evTick {
		c.k.After(c.cfg.WakeInterval, c, evTick)
		c.flusherOn = true
	}
	c.pump()
}

// pump submits writeback while there is room in the queue: first the
// pages fsync() callers are waiting for, then pages dirty for longer than
// Expire, and, while the dirty total is above the background threshold,
// the oldest dirty pages.
func (c *Cache) pump() {
	now := c.k.Now()
	for c.inFlight < c.cfg.MaxInFlight && c.fsyncHead < len(c.fsyncQ) {
		fp := c.fsyncQ[c.fsyncHead]
		c.fsyncQ[c.fsyncHead] = fsyncPage{}
		c.fsyncHead++
		if c.flags[fp.gid]&fDirty != 0 && c.flags[fp.gid]&fWriteback == 0 {
			c.startWriteback(fp.gid, fp.op)
		}
		fp.op.queued--
		fp.op.maybeFlush()
	}
	if c.fsyncHead == len(c.fsyncQ) {
		c.fsyncQ, c.fsyncHead = c.fsyncQ[:0], 0
	}
	for c.inFlight < c.cfg.MaxInFlight {
		e, ok := c.oldestDirty()
		if !ok {
			break
		}
		expired := c.cfg.Expire >= 0 && now-e.at >= c.cfg.Expire
		if !expired && c.dirty <= c.cfg.BackgroundPages {
			break
		}
		c.fifoHead++
		c.startWriteback(e.gid, nil)
	}
	if c.inFlight == 0 {
		c.flusherOn = false
	}
	c.compactFIFO()
}

// oldestDirty returns the oldest still-valid dirty entry, dropping stale
// ones (pages cleaned, or re-dirtied later, since the entry was queued).
func (c *Cache) oldestDirty() (dirtyEntry, bool) {
	for c.fifoHead < len(c.fifo) {
		e := c.fifo[c.fifoHead]
		if c.flags[e.gid]&fDirty != 0 && c.flags[e.gid]&fWriteback == 0 && c.dirtyAt[e.gid] == e.at {
			return e, true
		}
		// Stale (cleaned, or dirtied again later), or under writeback:
		// a page dirtied during its writeback is queued again when the
		// write completes.
		c.fifoHead++
	}
	return dirtyEntry{}, false
}

func (c *Cache) compactFIFO() {
	if c.fifoHead > 4096 && c.fifoHead*2 > len(c.fifo) {
		n := copy(c.fifo, c.fifo[c.fifoHead:])
		c.fifo = c.fifo[:n]
		c.fifoHead = 0
	}
}

// StartWriteback is sync_file_range(SYNC_FILE_RANGE_WRITE) on single pages
// (PostgreSQL's checkpoint_flush_after / bgwriter_flush_after hints):
// writeback of the listed pages that are dirty starts now, without
// waiting. The pages should be sorted so that runs merge.
func (c *Cache) StartWriteback(gids []int32) {
	for _, g := range gids {
		if int(g) < len(c.flags) && c.flags[g]&fDirty != 0 && c.flags[g]&fWriteback == 0 {
			c.startWriteback(g, nil)
		}
	}
}

// Fsync writes every dirty page for which inFile returns true, waits for
// those writes and for the file's writeback already in flight, then
// flushes the device cache; done.OnEvent(arg) fires when the fsync
// returns. Its writes share the device queue (at most MaxInFlight requests
// in flight) with background writeback, ahead of it.
func (c *Cache) Fsync(inFile func(gid int32) bool, done sim.Handler, arg int64) {
	f := &fsyncOp{c: c, done: done, arg: arg}
	var pages []int32
	for i := c.fifoHead; i < len(c.fifo); i++ {
		e := c.fifo[i]
		if c.flags[e.gid]&fDirty != 0 && c.dirtyAt[e.gid] == e.at && inFile(e.gid) {
			pages = append(pages, e.gid)
		}
	}
	slices.Sort(pages) // in file order, so runs merge
	c.Stats.Fsyncs++
	// Writes of the file already in flight must complete first
	// (filemap_write_and_wait waits on pages under writeback).
	for _, r := range c.active {
		if inFile(r.gid) {
			r.waiters = append(r.waiters, f)
			f.remaining++
		}
	}
	for _, g := range pages {
		c.fsyncQ = append(c.fsyncQ, fsyncPage{gid: g, op: f})
	}
	f.queued = len(pages)
	if len(pages) > 0 {
		c.flusherOn = true
		c.pump()
	}
	f.maybeFlush()
}

func (f *fsyncOp) maybeFlush() {
	if f.queued > 0 || f.remaining > 0 || f.flushing {
		return
	}
	f.flushing = true
	f.c.dev.Submit(storage.Flush, -1, 0, f, 0)
}

// OnEvent completes the fsync's device cache flush.
func (f *fsyncOp) OnEvent(int64) {
	if f.done != nil {
		f.done.OnEvent(f.arg)
	}
}

// LRU is a quiescent page cache's contents, its pages from the most to the
// least recently used, with the counters: what a prewarm leaves behind
// (WarmAll), kept so that other runs can start from it (RestoreLRU).
type LRU struct {
	order []int32
	size  int // len(flags) of the cache saved, so a restored one is sized alike
	stats Stats
}

// Pages returns the number of pages the saved cache held.
func (l *LRU) Pages() int { return len(l.order) }

// quiescent reports why the cache holds more than a list of clean pages,
// or "".
func (c *Cache) quiescent() string {
	switch {
	case c.dirty > 0 || c.writeback > 0:
		return "it holds dirty pages"
	case c.inFlight > 0 || len(c.active) > 0 || len(c.reading) > 0 || len(c.waiters) > 0 || c.fsyncHead < len(c.fsyncQ):
		return "it has I/O in flight"
	case c.flusherOn:
		return "its flusher is running"
	}
	for _, f := range c.flags {
		if f&^fCached != 0 {
			return "its pages carry readahead marks or I/O flags"
		}
	}
	return ""
}

// SaveLRU returns the cache's contents. It refuses a cache with anything
// besides clean cached pages (dirty pages, I/O, readahead marks), whose
// state a list of pages does not describe.
func (c *Cache) SaveLRU() (*LRU, error) {
	if why := c.quiescent(); why != "" {
		return nil, fmt.Errorf("the page cache cannot be saved: %s", why)
	}
	l := &LRU{order: make([]int32, 0, c.n), size: len(c.flags), stats: c.Stats}
	for g := c.head; g != nilPage; g = c.next[g] {
		l.order = append(l.order, g)
	}
	return l, nil
}

// RestoreLRU replaces the contents of a quiescent cache with l's, and its
// counters with l's: the cache is then the one SaveLRU saved. l is only
// read, so many caches may restore from it at the same time.
func (c *Cache) RestoreLRU(l *LRU) error {
	if why := c.quiescent(); why != "" {
		return fmt.Errorf("the page cache cannot be restored: %s", why)
	}
	for g := c.head; g != nilPage; g = c.next[g] {
		c.flags[g] &^= fCached
	}
	if l.size > 0 {
		c.grow(int32(l.size - 1))
	}
	c.head, c.tail = nilPage, nilPage
	for i, g := range l.order {
		c.flags[g] |= fCached
		c.prev[g], c.next[g] = nilPage, nilPage
		if i > 0 {
			c.prev[g] = l.order[i-1]
			c.next[l.order[i-1]] = g
		}
	}
	if len(l.order) > 0 {
		c.head, c.tail = l.order[0], l.order[len(l.order)-1]
	}
	c.n = int64(len(l.order))
	c.Stats = l.stats
	return nil
}

// Order returns the saved pages, the most recently used first.
func (l *LRU) Order() []int32 { return slices.Clone(l.order) }

// Encode writes the saved cache (a prewarm kept on disk:
// model/prewarmcache.go).
func (l *LRU) Encode(w *policies.StateWriter) error {
	w.Put(int64(l.size), l.order, l.stats)
	return w.Err()
}

// DecodeLRU reads what Encode wrote, for a cache of at most capacity pages
// over page ids below gidSpace.
func DecodeLRU(r *policies.StateReader, capacity int64, gidSpace int32) (*LRU, error) {
	l := &LRU{}
	var size int64
	r.Get(0, &size)
	r.Get(capacity, &l.order)
	r.Get(0, &l.stats)
	if err := r.Err(); err != nil {
		return nil, err
	}
	// The cache's arrays grow ahead of the page ids in use (grow).
	if size < 0 || size > 2*int64(gidSpace)+1<<16 {
		return nil, fmt.Errorf("the saved page cache covers %d page ids, the run %d", size, gidSpace)
	}
	seen := make([]bool, gidSpace)
	for _, g := range l.order {
		if g < 0 || g >= gidSpace || seen[g] {
			return nil, fmt.Errorf("the saved page cache lists a page twice or one the run has not")
		}
		seen[g] = true
	}
	l.size = int(size)
	return l, nil
}
