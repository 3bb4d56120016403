package model

import "testing"

// docs/model.md "Read streams" (read_stream.c, heapam.c heap_beginscan,
// PostgreSQL 17+): a cold sequential scan reads 1, 2, 4, 8, then
// io_combine_limit (16) blocks per vectored read, so 20000 blocks take
// 1254 preadv calls instead of 20000 pread calls; pg_statio,
// pgBufferUsage and the ring see the same blocks read as before. A stream
// pins no more than a backend's share of shared buffers
// (LimitAdditionalPins: NBuffers / 127 processes up to 17, less the 8
// pins it assumes held), which in a small pool caps the reads.
func TestSeqScanReadStream(t *testing.T) {
	for _, tc := range []struct {
		version          string
		nbuffers, blocks int64
		combine          int64
		readCalls        int64
	}{
		{"15", 4096, 20000, 128 << 10, 20000},
		// 1 + 2 + 4 + 8 = 15 blocks in 4 reads, then 19985 in 1250
		// (1249 of 16 and one of 1).
		{"17", 4096, 20000, 128 << 10, 1254},
		// io_combine_limit 64kB: 1, 2, 4, 8, then 8 at a time: 4 + 2499.
		{"17", 4096, 20000, 64 << 10, 2503},
		// 512 buffers: a backend's share, 512 / 127 = 4, is less than
		// the 8 pins LimitAdditionalPins assumes it holds
		// (REFCOUNT_ARRAY_ENTRIES): max_pinned_buffers 1, a block a read.
		{"17", 512, 1000, 128 << 10, 1000},
	} {
		sc := rtIdleScenario(tc.nbuffers, tc.blocks) // > NBuffers/4: the BULKREAD ring
		sc.Server.Version = tc.version
		sc.Server.IOCombineLimit = tc.combine
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		e, r := rtRun(t, sc)
		ph := r.Phases[0]
		if ph.OSCache.ReadCalls != tc.readCalls {
			t.Errorf("%s, %d buffers, io_combine_limit %d kB: %d read calls, want %d", tc.version, tc.nbuffers, tc.combine>>10, ph.OSCache.ReadCalls, tc.readCalls)
		}
		if ph.StatioTables[0].HeapBlksRead != tc.blocks || ph.BufferUsage.SharedBlksRead != tc.blocks || int64(e.pool.Stats.RingReuses) != tc.blocks-32 {
			t.Errorf("%s: heap_blks_read %d, shared_blks_read %d, ring reuses %d; want %d, %d, %d",
				tc.version, ph.StatioTables[0].HeapBlksRead, ph.BufferUsage.SharedBlksRead, e.pool.Stats.RingReuses, tc.blocks, tc.blocks, tc.blocks-32)
		}
	}
}

// From 18 each read of a stream is at most what GetAdditionalPinLimit
// allows when it starts (read_stream_start_pending_read): the backend's
// share, NBuffers / 174 processes, less the 8 pins assumed held, at
// least one block. Measured on PostgreSQL 18.3 (io_method worker and
// sync alike, effective_io_concurrency 16, 0 or 1), a cold count(*) of a
// 1552-page table, pg_stat_io's client backend reads: 519 with
// shared_buffers 16MB (1, 2, then 3 blocks a read, through the BULKREAD
// ring), 107 with 32MB (1, 2, 4, 7, 8, then 15), 101 with 128MB (1, 1,
// 2, 4, 8, then 16; normal context, no ring), and with 4MB one block a
// read.
func TestReadStreamReadsWithinThePinLimit(t *testing.T) {
	for _, tc := range []struct {
		nbuffers, blocks int64
		method           string
		ctx              string
		reads            int64
	}{
		{2048, 1552, "worker", "bulkread", 519},
		{2048, 1552, "sync", "bulkread", 519},
		{4096, 1552, "worker", "bulkread", 107},
		{16384, 1552, "worker", "normal", 101},
		{512, 100, "worker", "normal", 100},
	} {
		sc := rtIdleScenario(tc.nbuffers, tc.blocks)
		sc.Server.Version = "18"
		sc.Server.IOMethod = tc.method
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		_, r := rtRun(t, sc)
		var got int64 = -1
		for _, row := range r.Phases[0].Metrics.PGStatIO {
			if row.BackendType == "client backend" && row.Context == tc.ctx {
				got = row.Reads
			}
		}
		if got != tc.reads {
			t.Errorf("18, %d buffers, %d-page table, io_method %s: %d %s reads, want %d", tc.nbuffers, tc.blocks, tc.method, got, tc.ctx, tc.reads)
		}
	}
}

// docs/model.md "Asynchronous I/O" (18+: aio.c, method_worker.c,
// method_io_uring.c, read_stream.c): with io_method worker or io_uring a
// sequential scan's stream starts its reads ahead of the scan, so on a
// device whose latency dominates a cold scan finishes sooner than with
// io_method sync, while PostgreSQL's counters stay those of the same
// blocks read; the BULKREAD ring grows with effective_io_concurrency.
func TestSeqScanAsynchronousIO(t *testing.T) {
	run := func(method string, eic int) (*engine, *Result) {
		sc := rtIdleScenario(16384, 20000) // 128 MB; 20000 pages > NBuffers/4: the ring
		sc.Server.Version = "18"
		sc.Server.IOMethod = method
		sc.Server.EffectiveIOConcurrency = eic
		sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 16, ReadTime: 500_000, WriteTime: 500_000, SeqTime: 500_000, TransferTime: 5_000, FlushTime: 1_000_000, Scheduler: "fifo"}
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		return rtRun(t, sc)
	}
	_, sync := run("sync", -1)
	eSync, _ := run("sync", -1)
	syncMS := sync.Phases[0].LatencyMS.Mean
	if n := eSync.bulkReadRingBuffers(); n != 16384/174 {
		t.Errorf("18's BULKREAD ring with effective_io_concurrency 16: %d buffers, want the pin limit %d (32 + 16 x 16 = 288 is more)", n, 16384/174)
	}
	// io_uring keeps up to effective_io_concurrency reads in flight; the
	// worker method as many as it has workers (3).
	for _, tc := range []struct {
		method string
		most   float64
	}{{"worker", 0.95}, {"io_uring", 0.8}} {
		m := tc.method
		_, r := run(m, -1)
		ph := r.Phases[0]
		t.Logf("%s: %.1f ms, sync %.1f ms", m, ph.LatencyMS.Mean, syncMS)
		if ms := ph.LatencyMS.Mean; ms >= tc.most*syncMS {
			t.Errorf("%s: the cold scan took %.1f ms, sync %.1f ms; want under %.0f %% of it (reads in flight ahead of the scan)", m, ms, syncMS, 100*tc.most)
		}
		if ph.StatioTables[0].HeapBlksRead != 20000 || ph.BufferUsage.SharedBlksRead != 20000 {
			t.Errorf("%s: heap_blks_read %d, shared_blks_read %d; want 20000 each", m, ph.StatioTables[0].HeapBlksRead, ph.BufferUsage.SharedBlksRead)
		}
	}
	// effective_io_concurrency 0 turns asynchronous reads off: the scan
	// is the synchronous one.
	_, off := run("worker", 0)
	if off.Phases[0].LatencyMS.Mean != syncMS {
		t.Errorf("worker with effective_io_concurrency 0: %.3f ms, want sync's %.3f", off.Phases[0].LatencyMS.Mean, syncMS)
	}
}

// io_method exists from 18: refused before, at the key.
func TestIOMethodNeeds18(t *testing.T) {
	sc := rtIdleScenario(512, 10)
	sc.Server.Version = "17"
	sc.Server.IOMethod = "io_uring"
	ps := Check(sc)
	if len(ps) == 0 || ps[0].Path != "server.io_method" {
		t.Fatalf("io_method io_uring at 17: problems %v, want one at server.io_method", ps)
	}
}

// pg_stat_io (pgstat_io.c): up to 17 reads count blocks; from 18 they
// count I/O operations, with read_bytes (a read stream's vectored read of
// 15 blocks is one read of 122880 bytes).
func TestPgStatIOReadsByVersion(t *testing.T) {
	for _, tc := range []struct {
		version, method string
		reads           int64
	}{
		{"17", "", 20000},
		// 1, 2, 4, 8, then 15 at a time: the backend's share, 4096 / 174
		// = 23 buffers, less the 8 pins GetAdditionalPinLimit assumes
		// held (TestReadStreamReadsWithinThePinLimit).
		{"18", "sync", 1337},
	} {
		sc := rtIdleScenario(4096, 20000)
		sc.Server.Version = tc.version
		sc.Server.IOMethod = tc.method
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		_, r := rtRun(t, sc)
		var row *IORow
		for i, x := range r.Phases[0].PGStatIO {
			if x.BackendType == "client backend" && x.Context == "bulkread" {
				row = &r.Phases[0].PGStatIO[i]
			}
		}
		if row == nil {
			t.Fatalf("%s: no client backend / bulkread row in %+v", tc.version, r.Phases[0].PGStatIO)
		}
		if row.Reads != tc.reads {
			t.Errorf("%s: pg_stat_io bulkread reads %d, want %d", tc.version, row.Reads, tc.reads)
		}
		if tc.version == "17" && row.ReadBytes != nil {
			t.Errorf("17: read_bytes %d, want none (the column is 18's)", *row.ReadBytes)
		}
		if tc.version == "18" && (row.ReadBytes == nil || *row.ReadBytes != 20000*8192) {
			t.Errorf("18: read_bytes %v, want %d", row.ReadBytes, 20000*8192)
		}
	}
}

// 18's VACUUM reads its heap pass through a stream (vacuumlazy.c
// lazy_scan_heap, heap_vac_scan_next_block): the same pages, the same
// skipping of all-visible runs and the same counters as 17's block-by-block
// pass, in larger reads, and with asynchronous I/O
// (maintenance_io_concurrency) sooner on a device whose latency decides.
func TestVacuumReadStream(t *testing.T) {
	run := func(version, method string) *Result {
		sc := rtIdleScenario(16384, 20000)
		sc.Server.Version = version
		sc.Server.IOMethod = method
		off := false
		sc.Server.DataChecksums = &off // 18's initdb default is on: hint bits would log full pages
		tbl := rtTable("t", 20000)
		tbl.State = "fresh" // loaded, never vacuumed: every page is read and set all-visible
		sc.Tables.Relations = []TableConfig{tbl}
		sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 16, ReadTime: 500_000, WriteTime: 500_000, SeqTime: 500_000, TransferTime: 5_000, FlushTime: 1_000_000, Scheduler: "fifo"}
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Vacuum: &TableStep{Table: "t"}}}
		_, r := rtRun(t, sc)
		return r
	}
	v17, sync, worker := run("17", ""), run("18", "sync"), run("18", "worker")
	reads := func(r *Result) int64 { return r.Phases[0].StatioTables[0].HeapBlksRead }
	if reads(v17) != reads(sync) || reads(v17) != reads(worker) || reads(v17) < 20000 {
		t.Errorf("heap_blks_read 17 %d, 18 sync %d, 18 worker %d: want the same, at least 20000", reads(v17), reads(sync), reads(worker))
	}
	calls := func(r *Result) int64 { return r.Phases[0].OSCache.ReadCalls }
	if calls(sync) >= calls(v17)/4 {
		t.Errorf("read calls 17 %d, 18 %d: want 18's stream to combine reads", calls(v17), calls(sync))
	}
	ms := func(r *Result) float64 { return r.Phases[0].LatencyMS.Mean }
	t.Logf("VACUUM of 20000 cold pages: 17 %.1f ms, 18 sync %.1f ms, 18 worker %.1f ms", ms(v17), ms(sync), ms(worker))
	if ms(worker) >= 0.9*ms(v17) {
		t.Errorf("18 worker %.1f ms against 17's %.1f: want under 90 %%", ms(worker), ms(v17))
	}
}

// pg_stat_io lists io_method worker's processes (18, backend type "io
// worker"), whose relation rows stay 0: the backend that starts a read
// counts it (bufmgr.c AsyncReadBuffers), the worker only performs it.
// With io_uring or sync there are no such processes.
func TestIOWorkerRowsCountNothing(t *testing.T) {
	for _, method := range []string{"worker", "io_uring", "sync"} {
		p := rtAnalyze(t, "18", 6000, "vacuumed", func(sc *Scenario) { sc.Server.IOMethod = method })
		var worker *IORow
		var clientReads int64
		for i, r := range p.PGStatIO {
			switch r.BackendType {
			case "io worker":
				worker = &p.PGStatIO[i]
			case "client backend":
				clientReads += r.Reads
			}
		}
		if clientReads == 0 {
			t.Errorf("%s: the client backend's rows count no reads", method)
		}
		switch {
		case method == "worker" && (worker == nil || *worker != IORow{BackendType: "io worker", Context: "normal", ReadBytes: worker.ReadBytes, WriteBytes: worker.WriteBytes, ExtendBytes: worker.ExtendBytes} || *worker.ReadBytes != 0):
			t.Errorf("worker: io worker row %+v, want one row of zeros", worker)
		case method != "worker" && worker != nil:
			t.Errorf("%s: an io worker row %+v, want none", method, *worker)
		}
	}
}
