package oscache

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/model/storage"
	"github.com/pgbufsim/pgbufsim/sim"
)

// Linux writeback rules the page-cache model must follow
// (docs/model.md; mm/page-writeback.c,
// Documentation/admin-guide/sysctl/vm.rst): a pwrite only dirties the page
// cache; the flusher wakes every dirty_writeback_centisecs and writes pages
// dirty for longer than dirty_expire_centisecs; above
// dirty_background_ratio writeback runs until below it; above dirty_ratio
// writers are throttled (balance_dirty_pages); fsync writes every dirty
// page of the file and waits for it; reads share the device queue.

const ms = sim.Millisecond

type recorder struct {
	k     *sim.Kernel
	times []int64
}

func (r *recorder) OnEvent(int64) { r.times = append(r.times, r.k.Now()) }

// testCache builds a cache over a jitter-free device: random writes 8 ms,
// reads 10 ms, sequential pages 1 ms, cache flush 4 ms. Files are 1000
// pages long (gid / 1000).
func testCache(t *testing.T, channels int, cfg Config) (*sim.Kernel, *storage.Device, *Cache) {
	t.Helper()
	k := sim.NewKernel()
	dev, err := storage.New(k, "data", storage.Params{Channels: channels, ReadTime: 10 * ms, WriteTime: 8 * ms, SeqTime: ms, FlushTime: 4 * ms}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	c := New(k, dev, cfg)
	c.SameFile = func(a, b int32) bool { return a/1000 == b/1000 }
	return k, dev, c
}

func defaultCfg() Config {
	return Config{
		CapacityPages:   100000,
		BackgroundPages: 10000,
		LimitPages:      20000,
		Expire:          30 * sim.Second,
		WakeInterval:    5 * sim.Second,
		MaxInFlight:     128,
		MaxBatch:        64,
	}
}

// A pwrite copies the page into the cache and marks it dirty; nothing
// reaches the device while the page is younger than the expiry and the
// dirty total is under the background threshold (bufmgr.c FlushBuffer:
// "the real write to disk won't happen until the kernel feels like it").
func TestPwriteOnlyDirtiesThePageCache(t *testing.T) {
	k, dev, c := testCache(t, 1, defaultCfg())
	for g := int32(0); g < 50; g += 2 {
		if !c.Write(g, nil, 0) {
			t.Fatalf("pwrite of page %d was throttled with 1 dirty page", g)
		}
	}
	if c.DirtyPages() != 25 || !c.Contains(4) {
		t.Fatalf("dirty %d, cached(4) %v: want 25 dirty, cached", c.DirtyPages(), c.Contains(4))
	}
	k.RunUntil(29 * sim.Second)
	if dev.Stats.Writes != 0 {
		t.Fatalf("%d device writes before any page expired", dev.Stats.Writes)
	}
	// A read of a page written earlier is a cache hit: no device read.
	if !c.Read(4, nil, nil, 0) || dev.Stats.Reads != 0 {
		t.Fatalf("read of a dirty cached page went to the device")
	}
}

// dirty_expire_centisecs = 3000 and dirty_writeback_centisecs = 500: the
// flusher, waking at 5, 10, ... s, writes a page dirtied at t once
// now - t >= 30 s: a page dirtied at 0 s goes at the 30 s wake-up, one
// dirtied at 12 s at the 45 s wake-up (42 s is not a wake-up time).
func TestExpiredPagesWrittenByPeriodicFlusher(t *testing.T) {
	k, dev, c := testCache(t, 1, defaultCfg())
	c.Write(100, nil, 0)
	k.RunUntil(12 * sim.Second)
	c.Write(500, nil, 0)
	k.RunUntil(30*sim.Second - 1)
	if dev.Stats.Writes != 0 {
		t.Fatalf("page written before it was 30 s old")
	}
	k.RunUntil(30 * sim.Second)
	if dev.Stats.Writes != 1 {
		t.Fatalf("at 30 s: %d device writes, want 1 (the page dirtied at 0 s)", dev.Stats.Writes)
	}
	k.RunUntil(45*sim.Second - 1)
	if dev.Stats.Writes != 1 {
		t.Fatalf("the page dirtied at 12 s was written before the 45 s wake-up")
	}
	k.RunUntil(45 * sim.Second)
	if dev.Stats.Writes != 2 {
		t.Fatalf("at 45 s: %d device writes, want 2", dev.Stats.Writes)
	}
	k.RunUntil(46 * sim.Second)
	if c.DirtyPages() != 0 || c.Stats.WritebackPages != 2 {
		t.Fatalf("dirty %d, written back %d: want 0 and 2", c.DirtyPages(), c.Stats.WritebackPages)
	}
}

// Above dirty_background_ratio the flusher writes the oldest dirty pages at
// once, until the dirty total is back at the threshold — no more (the rest
// waits for expiry).
func TestBackgroundWritebackAboveThreshold(t *testing.T) {
	cfg := defaultCfg()
	cfg.BackgroundPages, cfg.LimitPages, cfg.MaxBatch = 10, 1000, 1
	k, dev, c := testCache(t, 1, cfg)
	for i := int32(0); i < 15; i++ {
		c.Write(i*3, nil, 0) // scattered pages: one request each
	}
	k.RunUntil(sim.Second)
	if dev.Stats.Writes != 5 || c.DirtyPages() != 10 {
		t.Fatalf("%d pages written, %d dirty: want 5 written (back to the threshold of 10), 10 dirty", dev.Stats.Writes, c.DirtyPages())
	}
	// The oldest pages went first: a fsync of the first five pages' file
	// range finds nothing left to write there.
	before := c.Stats.FsyncPages
	f := &recorder{k: k}
	c.Fsync(func(g int32) bool { return g < 5*3 }, f, 0)
	k.RunUntil(2 * sim.Second)
	if c.Stats.FsyncPages != before || len(f.times) != 1 {
		t.Fatalf("fsync of the oldest pages wrote %d pages, want 0 (background writeback took them)", c.Stats.FsyncPages-before)
	}
}

// Above dirty_ratio (dirty + writeback > limit) a writer is throttled until
// writeback has brought the total under the limit (balance_dirty_pages).
// 20 pages are dirty (the limit), the flusher has 4 of them in flight when
// 4 more pwrites arrive: all 4 wait. On one channel the writes complete
// every 8 ms and each completion starts the next; after the 4th (32 ms)
// dirty + writeback is back at 20 and the writers resume.
func TestWritersThrottledAboveDirtyLimit(t *testing.T) {
	cfg := defaultCfg()
	cfg.BackgroundPages, cfg.LimitPages, cfg.MaxInFlight, cfg.MaxBatch = 10, 20, 4, 1
	k, _, c := testCache(t, 1, cfg)
	w := &recorder{k: k}
	for i := int32(0); i < 20; i++ {
		if !c.Write(i*3, w, 0) {
			t.Fatalf("write %d throttled below the limit", i)
		}
	}
	k.RunUntil(ms) // the flusher (kicked above the background threshold) has 4 writes in flight
	if c.DirtyPages() != 20 || c.Stats.WritebackRequests != 4 {
		t.Fatalf("dirty+writeback %d, requests %d: want 20 and 4", c.DirtyPages(), c.Stats.WritebackRequests)
	}
	for i := int32(0); i < 4; i++ {
		if c.Write(500+i*3, w, 0) {
			t.Fatalf("pwrite %d went through with dirty+writeback above dirty_ratio", i)
		}
	}
	k.RunUntil(sim.Second)
	if len(w.times) != 4 || c.Stats.ThrottledWrites != 4 {
		t.Fatalf("%d throttled writers resumed (%d throttled), want 4", len(w.times), c.Stats.ThrottledWrites)
	}
	for _, at := range w.times {
		if at != 32*ms {
			t.Fatalf("throttled writers resumed at %v, want all at 32 ms (4 x 8 ms of writeback)", w.times)
		}
	}
	if c.Stats.ThrottledNs != 4*31*ms {
		t.Fatalf("throttled time %d ns, want %d", c.Stats.ThrottledNs, 4*31*ms)
	}
}

// fsync writes every dirty page of the file (and only of that file),
// contiguous pages merged, then flushes the device cache, and returns after
// both; the other file's pages stay dirty.
func TestFsyncWritesEveryDirtyPageOfTheFile(t *testing.T) {
	k, dev, c := testCache(t, 1, defaultCfg())
	c.Read(6, nil, nil, 0) // page 6 cached clean: it must not join the run 3-5-6-7
	k.RunUntil(sim.Second)
	for _, g := range []int32{7, 3, 4, 5, 900} { // file 0: 3-5 contiguous, 7, 900
		c.Write(g, nil, 0)
	}
	for _, g := range []int32{1003, 1500} { // file 1
		c.Write(g, nil, 0)
	}
	done := &recorder{k: k}
	c.Fsync(func(g int32) bool { return g < 1000 }, done, 0)
	k.RunUntil(2 * sim.Second)
	if len(done.times) != 1 {
		t.Fatalf("fsync did not return")
	}
	// Requests: 3-5 (8 + 2 ms), 7 (8 ms: page 6 is clean, a seek), 900
	// (8 ms), then the cache flush (4 ms): 30 ms.
	if done.times[0] != sim.Second+30*ms {
		t.Fatalf("fsync returned at %d ns, want 30 ms after its call at 1 s", done.times[0])
	}
	if c.Stats.FsyncPages != 5 || dev.Stats.Writes != 3 || dev.Stats.Flushes != 1 {
		t.Fatalf("fsync wrote %d pages in %d requests with %d flushes; want 5 pages, 3 requests, 1 flush", c.Stats.FsyncPages, dev.Stats.Writes, dev.Stats.Flushes)
	}
	if c.DirtyPages() != 2 {
		t.Fatalf("%d pages dirty after fsync of file 0, want file 1's 2", c.DirtyPages())
	}
}

// fsync must not return before pages of the file already under writeback
// (e.g. started by a sync_file_range hint, checkpoint_flush_after) reach
// the device: Linux's fsync waits on them (file_write_and_wait_range ->
// filemap_fdatawait_range). On a multi-channel device the model's cache
// flush can overtake such a write.
func TestFsyncWaitsForWritebackInFlight(t *testing.T) {
	k, _, c := testCache(t, 4, defaultCfg())
	c.Write(10, nil, 0)
	c.StartWriteback([]int32{10}) // 8 ms write in flight
	done := &recorder{k: k}
	c.Fsync(func(g int32) bool { return g < 1000 }, done, 0)
	k.RunUntil(sim.Second)
	if len(done.times) != 1 || done.times[0] < 8*ms+4*ms {
		t.Fatalf("fsync returned at %v ns, want >= 12 ms (the in-flight 8 ms write, then the 4 ms cache flush)", done.times)
	}
}

// Reads share the device queue with writeback: a read miss issued behind a
// burst of sync_file_range writeback waits for it (the seed's "reads
// queue behind writes").
func TestReadMissQueuesBehindWriteback(t *testing.T) {
	k, dev, c := testCache(t, 1, defaultCfg())
	var burst []int32
	for i := int32(0); i < 10; i++ {
		g := i * 5
		c.Write(g, nil, 0)
		burst = append(burst, g)
	}
	c.StartWriteback(burst) // ten scattered 8 ms writes
	r := &recorder{k: k}
	if c.Read(2001, nil, r, 0) {
		t.Fatalf("read of an uncached page reported a hit")
	}
	k.RunUntil(sim.Second)
	if len(r.times) != 1 || r.times[0] != 90*ms {
		t.Fatalf("read completed at %v, want 90 ms (10 x 8 ms writes, then 10 ms)", r.times)
	}
	if !c.Contains(2001) || dev.ReadLatency.Max() != 90*ms {
		t.Fatalf("page not cached after the read, or latency %d recorded", dev.ReadLatency.Max())
	}
}

// The cache is an LRU of clean pages: when it is full, the least recently
// used clean page is dropped; dirty pages cannot be dropped before they are
// written.
func TestLRUEvictsCleanPagesOnly(t *testing.T) {
	cfg := defaultCfg()
	cfg.CapacityPages = 3
	k, _, c := testCache(t, 1, cfg)
	c.Write(1, nil, 0) // dirty, oldest
	for _, g := range []int32{2, 3} {
		c.Read(g, nil, nil, 0)
	}
	k.RunUntil(sim.Second)
	c.Read(2, nil, nil, 0) // 2 becomes most recent: LRU order 1 (dirty), 3, 2
	c.Read(4, nil, nil, 0)
	k.RunUntil(2 * sim.Second)
	if !c.Contains(1) || c.Contains(3) || !c.Contains(2) || !c.Contains(4) {
		t.Fatalf("cached 1:%v 2:%v 3:%v 4:%v; want 1 (dirty), 2, 4 kept and 3 (LRU clean) dropped",
			c.Contains(1), c.Contains(2), c.Contains(3), c.Contains(4))
	}
}

// A page written again while its writeback is in flight is dirty again
// (the in-flight write carries the old contents), so a later fsync of its
// file, or the flusher once it expires, must write it again. Here the
// flusher runs (on another request's completion) while the page is still
// under writeback with its new dirtying queued.
func TestPageRedirtiedDuringWritebackIsWrittenAgain(t *testing.T) {
	cfg := defaultCfg()
	cfg.BackgroundPages = 0 // the flusher writes whatever is dirty
	k, dev, c := testCache(t, 2, cfg)
	c.Write(200, nil, 0)
	c.Write(10, nil, 0)
	k.RunUntil(ms) // both in flight on the two channels until 8 ms
	if dev.Stats.Writes != 2 {
		t.Fatalf("%d writes in flight, want 2", dev.Stats.Writes)
	}
	c.Write(10, nil, 0) // re-dirtied during its write
	k.RunUntil(sim.Second)
	done := &recorder{k: k}
	c.Fsync(func(g int32) bool { return g < 1000 }, done, 0)
	k.RunUntil(2 * sim.Second)
	if c.DirtyPages() != 0 || dev.Stats.PagesWrite != 3 {
		t.Fatalf("after writeback and fsync of the file: %d pages dirty, %d pages written; want 0 and 3 (page 10 twice)", c.DirtyPages(), dev.Stats.PagesWrite)
	}
}

// WarmAll(seq) leaves the cache exactly as Warm of each page in turn: the
// same pages in the same LRU order, for sequences with repeats, capacities
// smaller and larger than the distinct pages, and pages cached before.
func TestWarmAllEqualsSequentialWarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		cfg := defaultCfg()
		cfg.CapacityPages = int64(1 + rng.IntN(300))
		_, _, a := testCache(t, 1, cfg)
		_, _, b := testCache(t, 1, cfg)
		_, _, c := testCache(t, 1, cfg)
		span := 1 + rng.IntN(600)
		for i := rng.IntN(400); i > 0; i-- { // content before
			g := int32(rng.IntN(span))
			a.Warm(g)
			b.Warm(g)
			c.Warm(g)
		}
		dirty := trial%4 == 3
		if dirty { // a dirty page: eviction must skip it (the fallback path)
			g := int32(rng.IntN(span))
			a.Write(g, nil, 0)
			b.Write(g, nil, 0)
		}
		seq := make([]int32, rng.IntN(2000))
		for i := range seq {
			if rng.IntN(3) == 0 {
				seq[i] = int32(rng.IntN(20)) // a hot set
			} else {
				seq[i] = int32(rng.IntN(span))
			}
		}
		for _, g := range seq {
			a.Warm(g)
		}
		b.WarmAll(seq)
		sameCache(t, trial, "WarmAll", a, b)
		if !dirty {
			// The shortened sequence a long prewarm keeps (LastDistinct)
			// leaves the same cache.
			short, _ := LastDistinct(slices.Clone(seq), int(cfg.CapacityPages), nil)
			if len(short) > int(cfg.CapacityPages) {
				t.Fatalf("trial %d: LastDistinct kept %d pages of a %d-page cache", trial, len(short), cfg.CapacityPages)
			}
			if len(short) > 0 {
				c.WarmAll(short)
			}
			sameCache(t, trial, "WarmAll(LastDistinct)", a, c)
		}
	}
}

// sameCache fails unless b's LRU list and contents are a's.
func sameCache(t *testing.T, trial int, how string, a, b *Cache) {
	t.Helper()
	if a.n != b.n || a.head != b.head || a.tail != b.tail {
		t.Fatalf("trial %d, %s: n %d/%d head %d/%d tail %d/%d", trial, how, a.n, b.n, a.head, b.head, a.tail, b.tail)
	}
	for g, n := a.head, 0; g != nilPage; g, n = a.next[g], n+1 {
		if b.prev[g] != a.prev[g] || b.next[g] != a.next[g] {
			t.Fatalf("trial %d, %s: page %d (position %d) linked differently", trial, how, g, n)
		}
	}
	for g := 0; g < max(len(a.flags), len(b.flags)); g++ {
		if a.Contains(int32(g)) != b.Contains(int32(g)) {
			t.Fatalf("trial %d, %s: page %d cached %v sequentially, %v here", trial, how, g, a.Contains(int32(g)), b.Contains(int32(g)))
		}
	}
}

// posix_fadvise(WILLNEED) over a range (mm/fadvise.c ->
// force_page_cache_readahead): one call, each run of pages not cached
// submitted as one read; a cached page splits the range.
func TestPrefetchRangeReadsUncachedRuns(t *testing.T) {
	k, _, c := testCache(t, 1, defaultCfg())
	c.Prefetch(104)
	k.RunUntil(sim.Second)
	before := c.Stats
	c.PrefetchRange(100, 8) // 100-103 and 105-107 are not cached
	k.RunUntil(2 * sim.Second)
	if got := c.Stats.AdviceCalls - before.AdviceCalls; got != 1 {
		t.Errorf("%d advice calls, want 1", got)
	}
	if got := c.Stats.ReadRequests - before.ReadRequests; got != 2 {
		t.Errorf("%d read requests, want 2 (the runs around the cached page)", got)
	}
	if got := c.Stats.ReadPages - before.ReadPages; got != 7 {
		t.Errorf("%d pages read, want 7", got)
	}
}

// A saved cache restored into another (which held other pages) is the
// same cache, and evicts in the same order afterwards; the saved one is
// not changed by the other's use. A cache holding a dirty page cannot be
// saved, nor restored into.
func TestSaveAndRestoreLRU(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := defaultCfg()
	cfg.CapacityPages = 150
	_, _, a := testCache(t, 1, cfg)
	_, _, b := testCache(t, 1, cfg)
	for range 1000 {
		a.Warm(int32(rng.IntN(400)))
		b.Warm(int32(400 + rng.IntN(100)))
	}
	saved, err := a.SaveLRU()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RestoreLRU(saved); err != nil {
		t.Fatal(err)
	}
	sameCache(t, 0, "RestoreLRU", a, b)
	for range 500 {
		g := int32(rng.IntN(600))
		a.Warm(g)
		b.Warm(g)
	}
	sameCache(t, 1, "after RestoreLRU", a, b)
	if o := saved.Order(); len(o) != 150 || saved.Pages() != 150 {
		t.Fatalf("the saved cache changed: %d pages", len(o))
	}
	a.Write(3, nil, 0)
	if _, err := a.SaveLRU(); err == nil {
		t.Fatal("a cache with a dirty page was saved")
	}
	if err := a.RestoreLRU(saved); err == nil {
		t.Fatal("a saved cache was restored over a dirty page")
	}
}
