package oscache

import (
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/sim"
)

// Linux readahead rules the page-cache model must follow (readahead.go;
// mm/readahead.c page_cache_sync_ra, page_cache_async_ra,
// get_init_ra_size, get_next_ra_size; mm/filemap.c filemap_get_pages).

// testFiles lays out files of 1000 blocks, file f at gids [1000f, 1000f+1000).
type testFiles struct{ nblocks int32 }

func (f testFiles) Locate(gid int32) (int64, int32, int32) {
	return int64(gid / 1000), gid % 1000, f.nblocks
}
func (f testFiles) Page(file int64, block int32) int32 { return int32(file)*1000 + block }

func raCache(t *testing.T, readAheadKB int64, nblocks int32) (*sim.Kernel, *Cache) {
	t.Helper()
	cfg := defaultCfg()
	cfg.ReadAheadKPages = readAheadKB / 4
	cfg.MaxBatch = 1 << 20
	k, _, c := testCache(t, 1, cfg)
	c.Files = testFiles{nblocks: nblocks}
	return k, c
}

// seqReader reads blocks from..to-1 of file 0 one after another, each read
// issued when the previous returns, as a sequential scan does; it records
// the device requests' sizes as they are submitted.
type seqReader struct {
	c        *Cache
	ra       RAState
	next, to int32
}

func (r *seqReader) OnEvent(int64) { r.run() }

func (r *seqReader) run() {
	for r.next < r.to {
		g := r.next
		r.next++
		if !r.c.Read(g, &r.ra, r, 0) {
			return
		}
	}
}

// requestSizes returns the page counts of the device reads submitted while
// f runs, in order.
func requestSizes(c *Cache, f func()) []int32 {
	var sizes []int32
	c.onReadRun = func(n int32) { sizes = append(sizes, n) }
	f()
	c.onReadRun = nil
	return sizes
}

// A sequential reader from the start of a file: the first miss reads an
// initial window (get_init_ra_size(2 pages, 32) = 4 kernel pages, two
// blocks); each window's first asynchronous page starts the next, four
// times as large while small, then twice, up to read_ahead_kb (128 kB =
// 16 blocks). The reader never misses again, and the last window stops at
// the end of the file.
func TestSequentialReadWindowsGrow(t *testing.T) {
	k, c := raCache(t, 128, 100)
	r := &seqReader{c: c, to: 100}
	sizes := requestSizes(c, func() { r.run(); k.RunUntil(10 * sim.Second) })
	want := []int32{2, 4, 8, 16, 16, 16, 16, 16, 6}
	if !slices.Equal(sizes, want) {
		t.Fatalf("device reads of %v blocks, want %v", sizes, want)
	}
	if c.Stats.Misses != 1 || c.Stats.ReadPages != 100 || c.Stats.ReadaheadPages != 99 {
		t.Fatalf("misses %d, pages read %d, read ahead %d; want 1, 100, 99", c.Stats.Misses, c.Stats.ReadPages, c.Stats.ReadaheadPages)
	}
	if r.next != 100 {
		t.Fatalf("reader stopped at block %d", r.next)
	}
}

// A larger read_ahead_kb (8 MB, as virtio disks set it) starts at the
// same two blocks but grows x4 while below 1/16 of the maximum.
func TestWindowGrowthToLargeMaximum(t *testing.T) {
	k, c := raCache(t, 8192, 1000)
	r := &seqReader{c: c, to: 1000}
	sizes := requestSizes(c, func() { r.run(); k.RunUntil(60 * sim.Second) })
	// kernel pages: init 8 (size 2 <= 2048/32: x4) with 6 asynchronous;
	// then 32, 128 (x4 below 128), 256, 512, 1024 (x2), 2048: blocks 4,
	// 16, 64, 128, 256, 512, then the rest of the 1000-block file (20).
	want := []int32{4, 16, 64, 128, 256, 512, 20}
	if !slices.Equal(sizes, want) {
		t.Fatalf("device reads of %v blocks, want %v", sizes, want)
	}
}

// With readahead off (read_ahead_kb = 0) every 8 kB read is a device
// request of its own.
func TestReadaheadOff(t *testing.T) {
	k, c := raCache(t, 0, 100)
	r := &seqReader{c: c, to: 50}
	sizes := requestSizes(c, func() { r.run(); k.RunUntil(10 * sim.Second) })
	if len(sizes) != 50 || c.Stats.Misses != 50 || c.Stats.ReadaheadPages != 0 {
		t.Fatalf("%d requests, %d misses, %d read ahead; want 50, 50, 0", len(sizes), c.Stats.Misses, c.Stats.ReadaheadPages)
	}
}

// A read far from the previous one, with no cached run before it, is a
// standalone random read: the page alone, and the file's state is kept
// (an index scan does not disturb a sequential stream's window).
func TestRandomReadReadsThePageAlone(t *testing.T) {
	k, c := raCache(t, 128, 1000)
	ra := RAState{}
	r := &recorder{k: k}
	c.Read(0, &ra, r, 0) // the start of the file: an initial window
	k.RunUntil(sim.Second)
	before := ra
	sizes := requestSizes(c, func() { c.Read(800, &ra, r, 0); k.RunUntil(2 * sim.Second) })
	if !slices.Equal(sizes, []int32{1}) {
		t.Fatalf("random read issued %v, want one request of one block", sizes)
	}
	if ra.start != before.start || ra.size != before.size || ra.async != before.async {
		t.Fatalf("random read changed the window: %+v -> %+v", before, ra)
	}
}

// A fresh reader that misses right after a cached run (blocks 10-19) reads
// ahead as far as that run is long plus its request (the context
// readahead): 20 + 2 kernel pages = 11 blocks, its mark on the last page.
// A run cached from the file's start counts double.
func TestContextReadahead(t *testing.T) {
	k, c := raCache(t, 128, 1000)
	for g := int32(10); g < 20; g++ {
		c.Warm(g)
	}
	ra := RAState{prevPos: 700*kpb + 1}
	sizes := requestSizes(c, func() { c.Read(20, &ra, &recorder{k: k}, 0); k.RunUntil(sim.Second) })
	if !slices.Equal(sizes, []int32{11}) {
		t.Fatalf("context readahead read %v blocks, want [11]", sizes)
	}
	if c.flags[30]&(fReadahead|fRAOdd) != fReadahead|fRAOdd {
		t.Fatalf("mark not on block 30's second page: flags %b", c.flags[30])
	}

	k, c = raCache(t, 128, 1000)
	for g := int32(1000); g < 1010; g++ {
		c.Warm(g) // file 1, blocks 0-9
	}
	ra = RAState{prevPos: 700*kpb + 1}
	sizes = requestSizes(c, func() { c.Read(1010, &ra, &recorder{k: k}, 0); k.RunUntil(sim.Second) })
	// 20 cached kernel pages from the start, doubled: min(40 + 2, 32) = 16 blocks.
	if !slices.Equal(sizes, []int32{16}) {
		t.Fatalf("readahead after a run cached from the start read %v blocks, want [16]", sizes)
	}
}

// A reader that needs a page another reader's window is still reading
// waits for that read: one device request, two readers resumed together.
func TestReaderWaitsForPageInFlight(t *testing.T) {
	k, c := raCache(t, 128, 1000)
	a, b := RAState{}, RAState{prevPos: 900*kpb + 1}
	ra, rb := &recorder{k: k}, &recorder{k: k}
	c.Read(0, &a, ra, 0) // initial window: blocks 0 and 1
	if c.Read(0, &b, rb, 0) {
		t.Fatal("a page still being read was served as a hit")
	}
	k.RunUntil(sim.Second)
	if c.Stats.ReadRequests != 1 || c.Stats.InflightWaits != 1 {
		t.Fatalf("%d device reads, %d in-flight waits; want 1 and 1", c.Stats.ReadRequests, c.Stats.InflightWaits)
	}
	if len(ra.times) != 1 || len(rb.times) != 1 || ra.times[0] != rb.times[0] {
		t.Fatalf("readers resumed at %v and %v, want together", ra.times, rb.times)
	}
}

// A cached page between the window's pages splits the read in two
// requests (page_cache_ra_unbounded skips cached pages).
func TestCachedPageSplitsWindow(t *testing.T) {
	k, c := raCache(t, 128, 1000)
	c.Warm(1)
	ra := RAState{}
	sizes := requestSizes(c, func() {
		// The initial window is blocks 0 and 1; 1 is cached.
		c.Read(0, &ra, &recorder{k: k}, 0)
		k.RunUntil(sim.Second)
	})
	if !slices.Equal(sizes, []int32{1}) {
		t.Fatalf("initial window over a cached block read %v, want [1]", sizes)
	}
}

func TestRASizes(t *testing.T) {
	for _, tc := range []struct{ size, max, init int64 }{
		{2, 32, 4}, {2, 2048, 8}, {2, 2, 2}, {3, 32, 8}, {16, 32, 32},
	} {
		if got := initRASize(tc.size, tc.max); got != tc.init {
			t.Errorf("get_init_ra_size(%d, %d) = %d, want %d", tc.size, tc.max, got, tc.init)
		}
	}
	for _, tc := range []struct{ cur, max, next int64 }{
		{4, 32, 8}, {1, 32, 4}, {16, 32, 32}, {32, 32, 32}, {8, 2048, 32}, {128, 2048, 256},
	} {
		if got := nextRASize(tc.cur, tc.max); got != tc.next {
			t.Errorf("get_next_ra_size(%d, %d) = %d, want %d", tc.cur, tc.max, got, tc.next)
		}
	}
}

// A preadv of 16 blocks (PostgreSQL 17's io_combine_limit 128 kB) from
// the start of a file: the request itself is the initial window
// (get_init_ra_size(32, 32) = 32 kernel pages), half of it asynchronous, so
// the reads that follow find their pages read ahead; one device request
// per 16 blocks, returned once all 16 are up to date.
func TestVectoredReadReadsAhead(t *testing.T) {
	k, c := raCache(t, 128, 1000)
	ra := RAState{}
	r := &recorder{k: k}
	var sizes []int32
	c.onReadRun = func(n int32) { sizes = append(sizes, n) }
	for b := int32(0); b < 64; b += 16 {
		if c.ReadV(b, 16, &ra, r, 0) {
			r.OnEvent(0)
		}
		k.RunUntil(k.Now() + sim.Second)
	}
	if len(r.times) != 4 || c.Stats.Misses != 1 {
		t.Fatalf("%d reads returned, %d misses; want 4 and 1", len(r.times), c.Stats.Misses)
	}
	if !slices.Equal(sizes, []int32{16, 16, 16, 16, 16}) {
		t.Fatalf("device reads of %v blocks, want five of 16 (the last read ahead)", sizes)
	}
	// Without readahead the kernel reads such a request a page at a time
	// (page_cache_sync_ra with ra_pages 0: one page).
	k, c = raCache(t, 0, 1000)
	sizes = nil
	c.onReadRun = func(n int32) { sizes = append(sizes, n) }
	r = &recorder{k: k}
	c.ReadV(0, 16, &RAState{}, r, 0)
	k.RunUntil(sim.Second)
	if len(sizes) != 16 || len(r.times) != 1 || r.times[0] != 10*sim.Millisecond+15*sim.Millisecond {
		t.Fatalf("readahead off: %d requests, done at %v; want 16 one-block reads one after another (10 ms, then 1 ms each)", len(sizes), r.times)
	}
}
