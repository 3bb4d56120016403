package model

import (
	"strings"
	"testing"
)

// rtPrewarm runs one client doing the given pg_prewarm steps, in order, on
// table t of pages pages with nbuffers shared buffers.
func rtPrewarm(t *testing.T, version string, nbuffers, pages int64, steps ...PrewarmStep) (*engine, *Result) {
	t.Helper()
	sc := rtIdleScenario(nbuffers, pages)
	sc.Server.Version = version
	sc.Workload.Phases[0].Script.Steps = nil
	for i := range steps {
		sc.Workload.Phases[0].Script.Steps = append(sc.Workload.Phases[0].Script.Steps, Step{Prewarm: &steps[i]})
	}
	return rtRun(t, sc)
}

func rtPrewarmStep(mode string) PrewarmStep {
	p := PrewarmStep{Table: "t"}
	p.Defaults()
	p.Mode = mode
	return p
}

// tableUsage counts t's buffers by usage count.
func tableUsage(e *engine, name string) (hist [6]int64, lo, hi int32) {
	lo, hi = -1, -1
	t := e.db.groups[name][0]
	for s := int32(0); s < e.pool.N; s++ {
		if e.pool.Tag[s] < 0 {
			continue
		}
		rel, blk := e.cat.Locate(e.pool.Tag[s])
		if rel != t.rel {
			continue
		}
		hist[e.pool.Usage(s)]++
		if lo < 0 || blk < lo {
			lo = blk
		}
		hi = max(hi, blk)
	}
	return hist, lo, hi
}

// pg_prewarm's buffer mode (pg_prewarm.c: ReadBufferExtended with no
// strategy per block, released at once): every block read once into shared
// buffers (heap_blks_read), no ring, each buffer's usage_count 1 after the
// first call and one more per call, up to BM_MAX_USAGE_COUNT (5).
func TestPgPrewarmBufferMode(t *testing.T) {
	pw := rtPrewarmStep("buffer")
	for calls := 1; calls <= 6; calls++ {
		steps := make([]PrewarmStep, calls)
		for i := range steps {
			steps[i] = pw
		}
		e, r := rtPrewarm(t, "15", 16384, 2000, steps...)
		st := r.Phases[0].StatioTables[0]
		if st.HeapBlksRead != 2000 || st.HeapBlksHit != int64(calls-1)*2000 {
			t.Errorf("%d calls: heap_blks_read %d, heap_blks_hit %d; want 2000, %d", calls, st.HeapBlksRead, st.HeapBlksHit, (calls-1)*2000)
		}
		hist, _, _ := tableUsage(e, "t")
		if want := min(calls, 5); hist[want] != 2000 {
			t.Errorf("%d calls: t's buffers by usage count %v, want all 2000 at %d", calls, hist, want)
		}
	}
}

// A relation larger than shared buffers goes through no ring either: it
// fills the pool (StrategyGetBuffer: the free list, then the clock sweep
// over buffers of usage_count 1), and what stays is its last blocks. Other
// tables' blocks are evicted unless the sweep still finds them in use.
func TestPgPrewarmLargerThanSharedBuffers(t *testing.T) {
	_, r := rtPrewarm(t, "15", 4096, 10000, rtPrewarmStep("buffer"))
	if st := r.Phases[0].StatioTables[0]; st.HeapBlksRead != 10000 || st.HeapBlksHit != 0 {
		t.Errorf("heap_blks_read %d, heap_blks_hit %d; want 10000, 0", st.HeapBlksRead, st.HeapBlksHit)
	}
	e, _ := rtPrewarm(t, "15", 4096, 10000, rtPrewarmStep("buffer"))
	hist, lo, hi := tableUsage(e, "t")
	n := hist[0] + hist[1]
	if n != 4096 || hi != 9999 || lo != 10000-4096 {
		t.Errorf("t holds %d buffers (blocks %d-%d, by usage %v); want the last 4096 blocks (5904-9999)", n, lo, hi, hist)
	}
}

// Read mode (smgrread) goes through the OS page cache alone: no buffer
// statistic counts it and shared buffers hold none of it; prefetch mode
// (posix_fadvise) advises each block not in shared buffers and waits for
// none: a cold table's prefetch takes a fraction of its read, and a buffer
// prewarm after it reads every block from the page cache.
func TestPgPrewarmReadAndPrefetch(t *testing.T) {
	run := func(modes ...string) (*engine, *Result) {
		sc := rtIdleScenario(16384, 2000)
		sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 1, ReadTime: 200_000, WriteTime: 200_000, SeqTime: 200_000, TransferTime: 5_000, FlushTime: 1_000_000, Scheduler: "fifo"}
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = nil
		for _, m := range modes {
			p := rtPrewarmStep(m)
			sc.Workload.Phases[0].Script.Steps = append(sc.Workload.Phases[0].Script.Steps, Step{Prewarm: &p})
		}
		return rtRun(t, sc)
	}
	e, r := run("read")
	ph := r.Phases[0]
	if st := ph.StatioTables[0]; st.HeapBlksRead != 0 || st.HeapBlksHit != 0 || ph.BufferUsage.SharedBlksRead != 0 {
		t.Errorf("read mode: heap_blks_read %d, hit %d, shared_blks_read %d; want 0", st.HeapBlksRead, st.HeapBlksHit, ph.BufferUsage.SharedBlksRead)
	}
	if hist, _, _ := tableUsage(e, "t"); hist != [6]int64{} {
		t.Errorf("read mode left t in shared buffers: %v", hist)
	}
	if ph.OSCache.ReadCalls != 2000 || ph.OSCache.Misses == 0 || ph.OSCache.AdviceCalls != 0 {
		t.Errorf("read mode: %d read calls (want 2000), %d misses (want some), %d advice calls (want 0)", ph.OSCache.ReadCalls, ph.OSCache.Misses, ph.OSCache.AdviceCalls)
	}
	readMS := ph.LatencyMS.Mean

	_, r = run("prefetch")
	ph = r.Phases[0]
	if ph.OSCache.AdviceCalls != 2000 || ph.OSCache.ReadCalls != 0 || ph.StatioTables[0].HeapBlksRead != 0 {
		t.Errorf("prefetch: %d advice calls, %d read calls, heap_blks_read %d; want 2000, 0, 0", ph.OSCache.AdviceCalls, ph.OSCache.ReadCalls, ph.StatioTables[0].HeapBlksRead)
	}
	// One device request per advised block (each its own fadvise), 0.2
	// ms each on this one-channel device: 400 ms the statement does not
	// wait for.
	if ph.Disk.Reads != 2000 || ph.LatencyMS.Mean > 20 {
		t.Errorf("prefetch: %d device reads (want 2000), %.2f ms (read mode %.2f ms; want under 20: it waits for none of 400 ms of reads)", ph.Disk.Reads, ph.LatencyMS.Mean, readMS)
	}

	_, r = run("prefetch", "buffer")
	ph = r.Phases[0]
	if ph.StatioTables[0].HeapBlksRead != 2000 || ph.OSCache.Misses != 0 {
		t.Errorf("buffer after prefetch: heap_blks_read %d (want 2000), %d page-cache misses (want 0: the advice read every block)", ph.StatioTables[0].HeapBlksRead, ph.OSCache.Misses)
	}
	// A block already in shared buffers is not advised.
	_, r = run("buffer", "prefetch")
	if n := r.Phases[0].OSCache.AdviceCalls; n != 0 {
		t.Errorf("prefetch of a table in shared buffers: %d advice calls, want 0", n)
	}
}

// From 17 buffer mode reads through a read stream with READ_STREAM_FULL:
// io_combine_limit blocks per preadv from the first read (2000 blocks in
// 125 calls, where a sequential scan's stream ramps up 1, 2, 4, 8); from
// 18 with asynchronous I/O it keeps maintenance_io_concurrency reads in
// flight, so on a device whose latency dominates it finishes sooner than
// 18 with io_method sync. The counters are those of the same blocks read.
func TestPgPrewarmReadStream(t *testing.T) {
	run := func(version, method string) *Result {
		sc := rtIdleScenario(16384, 2000)
		sc.Server.Version = version
		if method != "" {
			sc.Server.IOMethod = method
		}
		sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 16, ReadTime: 500_000, WriteTime: 500_000, SeqTime: 500_000, TransferTime: 5_000, FlushTime: 1_000_000, Scheduler: "fifo"}
		sc.Workload.Phases[0].DropOSCache = true
		p := rtPrewarmStep("buffer")
		sc.Workload.Phases[0].Script.Steps = []Step{{Prewarm: &p}}
		_, r := rtRun(t, sc)
		return r
	}
	for _, tc := range []struct {
		version string
		calls   int64
	}{{"16", 2000}, {"17", 125}} {
		ph := run(tc.version, "").Phases[0]
		if ph.OSCache.ReadCalls != tc.calls || ph.StatioTables[0].HeapBlksRead != 2000 {
			t.Errorf("%s: %d read calls, heap_blks_read %d; want %d, 2000", tc.version, ph.OSCache.ReadCalls, ph.StatioTables[0].HeapBlksRead, tc.calls)
		}
	}
	sync := run("18", "sync").Phases[0]
	worker := run("18", "worker").Phases[0]
	t.Logf("18: sync %.1f ms, worker %.1f ms", sync.LatencyMS.Mean, worker.LatencyMS.Mean)
	if worker.LatencyMS.Mean >= 0.8*sync.LatencyMS.Mean || worker.StatioTables[0].HeapBlksRead != 2000 {
		t.Errorf("18: worker %.1f ms vs sync %.1f ms (want under 0.8x), heap_blks_read %d (want 2000)", worker.LatencyMS.Mean, sync.LatencyMS.Mean, worker.StatioTables[0].HeapBlksRead)
	}
}

// first_block and last_block bound the blocks done; outside the relation
// they are PostgreSQL's errors, which stop the run.
func TestPgPrewarmBlockRange(t *testing.T) {
	p := rtPrewarmStep("buffer")
	p.FirstBlock, p.LastBlock = 100, 199
	e, r := rtPrewarm(t, "15", 16384, 2000, p)
	if st := r.Phases[0].StatioTables[0]; st.HeapBlksRead != 100 {
		t.Errorf("blocks 100-199: heap_blks_read %d, want 100", st.HeapBlksRead)
	}
	if hist, lo, hi := tableUsage(e, "t"); hist[1] != 100 || lo != 100 || hi != 199 {
		t.Errorf("blocks 100-199: t's buffers %v, blocks %d-%d", hist, lo, hi)
	}
	p.FirstBlock, p.LastBlock = 1900, 2000
	sc := rtIdleScenario(16384, 2000)
	sc.Workload.Phases[0].Script.Steps = []Step{{Prewarm: &p}}
	_, err := rtBuild(t, sc).run(Options{})
	if err == nil || !strings.Contains(err.Error(), "ending block number must be between 0 and 1999") {
		t.Errorf("last_block 2000 of 2000 blocks: %v, want PostgreSQL's error", err)
	}
}

// In a pgbench script, SELECT pg_prewarm(...) is the same statement, its
// block bounds constants or variables (before, the model took any SELECT
// without FROM for SELECT 1).
func TestPgPrewarmInScriptFile(t *testing.T) {
	sc := rtIdleScenario(16384, 2000)
	sc.Workload.Phases[0].Script = Script{Text: "\\set last 109\nSELECT pg_prewarm('t', first_block => 10, last_block => :last);\nSELECT pg_prewarm('t'::regclass, 'buffer', 'main', NULL, 9);\n"}
	e, r := rtRun(t, sc)
	if st := r.Phases[0].StatioTables[0]; st.HeapBlksRead != 110 || st.HeapBlksHit != 0 {
		t.Errorf("blocks 10-109 then 0-9: heap_blks_read %d, hit %d; want 110, 0", st.HeapBlksRead, st.HeapBlksHit)
	}
	if hist, lo, hi := tableUsage(e, "t"); hist[1] != 110 || lo != 0 || hi != 109 {
		t.Errorf("t's buffers %v, blocks %d-%d; want 110 at usage 1, blocks 0-109", hist, lo, hi)
	}
}

// Autoprewarm (autoprewarm.c): a restart dumps the blocks in shared
// buffers and a background worker loads them again in relation and block
// order, so a scan right after the restart finds them in shared buffers
// (its reads become hits); the worker's reads are pg_stat_io's
// "background worker" row's. Without it the scan reads them all. It
// loads while the free list has buffers: a dump of a full pool loads
// whole into the emptied pool.
func TestAutoprewarmAfterRestart(t *testing.T) {
	run := func(apw bool, version string) (*Result, PhaseResult) {
		sc := rtIdleScenario(1024, 3000)
		sc.Server.Version = version
		sc.Server.Autoprewarm = apw
		p := rtPrewarmStep("buffer")
		p.FirstBlock, p.LastBlock = 1000, 2999 // more than the pool: it keeps blocks 1976-2999
		sc.Workload.Phases = []Phase{
			{Name: "fill", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Prewarm: &p}}}},
			{Name: "after", Clients: 1, Threads: 1, Transactions: 1, Restart: true, Script: Script{Steps: []Step{{Sleep: sec}, {Seqscan: &TableStep{Table: "t", Pick: "client"}}}}},
		}
		_, r := rtRun(t, sc)
		return r, r.Phases[1]
	}
	for _, version := range []string{"16", "19"} {
		_, off := run(false, version)
		r, on := run(true, version)
		if st := off.StatioTables[0]; st.HeapBlksRead != 3000 {
			t.Errorf("%s without autoprewarm: the scan after the restart read %d blocks, want 3000", version, st.HeapBlksRead)
		}
		// The worker loaded blocks 1976-2999 into slots 0-1023. The scan
		// (3000 blocks > 1024/4: a 32-buffer BULKREAD ring) takes its
		// ring's first buffers from the clock sweep, the free list being
		// empty: slots 0-31, blocks 1976-2007, which it then reads again;
		// it hits the other 992.
		st := on.StatioTables[0]
		if st.HeapBlksRead != 1024+1976+32 || st.HeapBlksHit != 992 {
			t.Errorf("%s with autoprewarm: heap_blks_read %d, hit %d; want 3032 (1024 by the worker, 2008 by the scan) and 992", version, st.HeapBlksRead, st.HeapBlksHit)
		}
		var bg int64
		for _, row := range r.Totals.PGStatIO {
			if row.BackendType == "background worker" {
				bg += row.Reads
			}
		}
		if bg != 1024 {
			t.Errorf("%s: pg_stat_io's background worker read %d, want 1024", version, bg)
		}
	}
}

// The worker stops when the free list is empty: a client reading another
// table right after the restart takes free buffers too, and the worker
// loads only the rest, never evicting anything (apw_load_buffers).
func TestAutoprewarmStopsAtEmptyFreeList(t *testing.T) {
	sc := rtIdleScenario(1024, 3000)
	sc.Tables.Relations = append(sc.Tables.Relations, rtTable("u", 200))
	sc.Server.Autoprewarm = true
	p := rtPrewarmStep("buffer")
	sc.Workload.Phases = []Phase{
		{Name: "fill", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Prewarm: &p}}}},
		{Name: "after", Clients: 1, Threads: 1, Transactions: 1, Restart: true, Script: Script{Steps: []Step{{Seqscan: &TableStep{Table: "u", Pick: "client"}}}}},
	}
	_, r := rtRun(t, sc)
	var bgReads, bgEvictions int64
	for _, row := range r.Totals.PGStatIO {
		if row.BackendType == "background worker" {
			bgReads += row.Reads
			bgEvictions += row.Evictions
		}
	}
	var uReads int64
	for _, st := range r.Phases[1].StatioTables {
		if st.Relname == "u" {
			uReads = st.HeapBlksRead
		}
	}
	if uReads != 200 || bgReads >= 1024 || bgReads+uReads < 1024 || bgEvictions != 0 {
		t.Errorf("worker read %d (evicting %d), the client %d of u: want the worker to stop once the 1024 free buffers are taken, evicting none", bgReads, bgEvictions, uReads)
	}
}
