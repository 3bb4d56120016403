package model

import (
	"math"
	"testing"
)

// I/O timings as PostgreSQL counts them with track_io_timing on
// (pgstat_io.c pgstat_count_io_op_time, 16+; bufmgr.c ReadBuffer_common
// and FlushBuffer up to 15): each read's system call is timed, so a read
// served by the OS page cache takes the copy's price (os_read) and
// nothing else. EXPLAIN's and pg_stat_statements' blk_read_time
// (pgBufferUsage) add the exact times; pg_stat_database adds whole
// microseconds per read (INSTR_TIME_GET_MICROSEC), so 1.7 us reads count
// 1 us each there; pg_stat_io (16+) has the exact time in the scan's
// context (bulkread: the table is over a quarter of shared buffers).
func TestIOTimingReadsFromThePageCache(t *testing.T) {
	const pages, osRead = 2000, 1700 // ns
	for _, version := range []string{"15", "16", "17"} {
		sc := rtIdleScenario(4096, pages)
		sc.Server.Version = version
		sc.Costs.OSRead = osRead
		scan := Script{Steps: []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}}
		sc.Workload.Phases = []Phase{
			{Name: "warm", Clients: 1, Threads: 1, Transactions: 1, Script: scan},
			{Name: "scan", Clients: 1, Threads: 1, Transactions: 1, Script: scan, Restart: true},
		}
		_, r := rtRun(t, sc)
		ph := r.Phases[1]
		if ph.BufferUsage.SharedBlksRead != pages || ph.OSCache.Hits < pages {
			t.Fatalf("%s: %d blocks read, %d page-cache hits; want %d read from the page cache", version, ph.BufferUsage.SharedBlksRead, ph.OSCache.Hits, pages)
		}
		want := float64(pages) * osRead / 1e6 // 3.4 ms
		if got := *ph.BufferUsage.BlkReadTime; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: buffer_usage.blk_read_time %.6f ms, want %d reads x %d ns = %.6f", version, got, pages, osRead, want)
		}
		// Whole microseconds per read call: 2000 x 1 us; from 17 per
		// vectored read of the stream (1, 2, 4, 8, then 16 blocks: 1 + 3
		// + 6 + 13 us, then 124 x 27 us and the last block's 1 us).
		wantUs := float64(pages) * 1 / 1e3
		if version == "17" {
			wantUs = float64(1+3+6+13+124*27+1) / 1e3
		}
		if got := *ph.PGStatDatabase.BlkReadTime; got != wantUs {
			t.Errorf("%s: pg_stat_database.blk_read_time %.3f ms, want %.3f (whole microseconds per read call)", version, got, wantUs)
		}
		if *ph.BufferUsage.BlkWriteTime != 0 || *ph.PGStatDatabase.BlkWriteTime != 0 {
			t.Errorf("%s: a scan of clean pages wrote for %.6f / %.3f ms", version, *ph.BufferUsage.BlkWriteTime, *ph.PGStatDatabase.BlkWriteTime)
		}
		if version == "15" {
			if len(ph.PGStatIO) != 0 {
				t.Errorf("15 has no pg_stat_io: %+v", ph.PGStatIO)
			}
			continue
		}
		row := ioRow(ph.PGStatIO, "client backend", "bulkread")
		if row == nil || math.Abs(row.ReadTime-want) > 1e-9 {
			t.Errorf("%s: pg_stat_io client backend/bulkread %+v, want read_time %.6f", version, row, want)
		}
	}
}

// A read from the device: the read system call waits for it, so each
// read takes the device's time and the copy (a custom device of 1 ms per
// read, no readahead, one client): an index fetch of one row from a cold
// cache reads the B-tree's root and leaf and the heap page.
func TestIOTimingReadsFromTheDevice(t *testing.T) {
	const osRead = 2000
	sc := rtIdleScenario(4096, 2000)
	sc.Server.Version = "16"
	sc.Costs.OSRead = osRead
	sc.OS.ReadAhead = 0
	sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 1, ReadTime: 1_000_000, WriteTime: 1_000_000, SeqTime: 1_000_000, FlushTime: 1_000_000, Scheduler: "fifo"}
	sc.Workload.Phases[0] = Phase{Name: "fetch", Clients: 1, Threads: 1, Transactions: 1, DropOSCache: true,
		Script: Script{Steps: []Step{{Select: &KeyStep{Table: "t", Pick: "client", Key: "1000"}}}}}
	_, r := rtRun(t, sc)
	ph := r.Phases[0]
	reads := ph.BufferUsage.SharedBlksRead
	if reads < 3 || ph.OSCache.Misses != reads {
		t.Fatalf("%d blocks read, %d page-cache misses: want the root, leaf and heap page read from the device", reads, ph.OSCache.Misses)
	}
	want := float64(reads) * (1_000_000 + osRead) / 1e6
	if got := *ph.BufferUsage.BlkReadTime; math.Abs(got-want) > 1e-9 {
		t.Errorf("blk_read_time %.6f ms for %d reads, want %.6f (1 ms on the device + the copy each)", got, reads, want)
	}
	if got := *ph.PGStatDatabase.BlkReadTime; got != float64(reads)*1.002 {
		t.Errorf("pg_stat_database.blk_read_time %.3f ms, want %.3f", got, float64(reads)*1.002)
	}
	if row := ioRow(ph.PGStatIO, "client backend", "normal"); row == nil || math.Abs(row.ReadTime-want) > 1e-9 {
		t.Errorf("pg_stat_io client backend/normal %+v, want read_time %.6f", row, want)
	}
	// The statement's latency is those reads and CPU: the reads' time
	// cannot exceed it.
	if lat := ph.LatencyMS.Max; lat < want {
		t.Errorf("the statement took %.3f ms, less than its reads' %.3f", lat, want)
	}
}

// Writes: a backend's relation extensions count in pg_stat_io's
// extend_time from 16 (ExtendBufferedRelShared times smgrzeroextend), and
// in blk_write_time only from 17 (pgstat_count_io_op_time adds IOOP_EXTEND
// to the write time; 16 only IOOP_WRITE; 15 does not time smgrextend).
// The checkpointer's writes and fsyncs count in its own pg_stat_io row,
// never in pg_stat_database (pgstat_update_dbstats: a process connected
// to no database reports no times).
func TestIOTimingWritesExtendsAndFsyncs(t *testing.T) {
	const osWrite = 5000
	for _, version := range []string{"15", "16", "17"} {
		sc := rtIdleScenario(4096, 10)
		sc.Server.Version = version
		sc.Costs.OSWrite = osWrite
		sc.Workload.Phases[0].Script.Steps = []Step{
			{Insert: &InsertStep{Table: "t", Pick: "client", Rows: 6100}}, // 100 new pages
			{Checkpoint: true},
		}
		_, r := rtRun(t, sc)
		m := r.Totals
		extends := m.Buffers.BackendExtend
		if extends < 100 {
			t.Fatalf("%s: %d extensions for 100 pages of rows", version, extends)
		}
		var bwt float64
		if m.BufferUsage.BlkWriteTime != nil {
			bwt = *m.BufferUsage.BlkWriteTime
		}
		dbwt := *m.PGStatDatabase.BlkWriteTime
		ext := float64(extends) * osWrite / 1e6
		switch version {
		case "15", "16":
			if bwt != 0 || dbwt != 0 {
				t.Errorf("%s: blk_write_time %.6f (pg_stat_database %.3f) ms with no buffer written by a backend, want 0: extensions are not write time before 17", version, bwt, dbwt)
			}
		case "17":
			if math.Abs(bwt-ext) > 1e-9 || dbwt != float64(extends)*0.005 {
				t.Errorf("17: blk_write_time %.6f (pg_stat_database %.3f) ms, want the %d extensions' %.6f", bwt, dbwt, extends, ext)
			}
		}
		if version == "15" {
			continue
		}
		cl := ioRow(m.PGStatIO, "client backend", "normal")
		if cl == nil || math.Abs(cl.ExtendTime-ext) > 1e-9 {
			t.Errorf("%s: client backend/normal %+v, want extend_time %.6f", version, cl, ext)
		}
		ck := ioRow(m.PGStatIO, "checkpointer", "normal")
		if ck == nil || ck.Writes == 0 || math.Abs(ck.WriteTime-float64(ck.Writes)*osWrite/1e6) > 1e-9 || ck.Fsyncs == 0 || ck.FsyncTime <= 0 {
			t.Errorf("%s: checkpointer %+v: want write_time = writes x %d ns and fsync_time > 0", version, ck, osWrite)
		}
		// checkpoint_flush_after (256 kB on Linux): every page written
		// is asked to be written back (IssuePendingWritebacks).
		if ck != nil && ck.Writebacks != ck.Writes {
			t.Errorf("%s: checkpointer %d writebacks for %d writes", version, ck.Writebacks, ck.Writes)
		}
	}
}

// ioRow returns the pg_stat_io row of a backend type and context, or nil.
func ioRow(rows []IORow, backendType, context string) *IORow {
	for i := range rows {
		if rows[i].BackendType == backendType && rows[i].Context == context {
			return &rows[i]
		}
	}
	return nil
}

// Asynchronous reads (18, io_method io_uring): AsyncReadBuffers times only
// the submission (free in the model) and WaitReadBuffers the wait for a
// read that had not completed (pgaio_wref_wait), so a cold scan's
// read_time is the time the backend waited: more than nothing, less than
// the scan took, and less than with io_method sync, whose reads are timed
// whole.
func TestIOTimingAsynchronousReads(t *testing.T) {
	run := func(method string) PhaseResult {
		sc := rtIdleScenario(16384, 20000)
		sc.Server.Version = "18"
		sc.Server.IOMethod = method
		sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 16, ReadTime: 500_000, WriteTime: 500_000, SeqTime: 500_000, TransferTime: 5_000, FlushTime: 1_000_000, Scheduler: "fifo"}
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		_, r := rtRun(t, sc)
		return r.Phases[0]
	}
	sync, uring := run("sync"), run("io_uring")
	syncRead, uringRead := *sync.BufferUsage.BlkReadTime, *uring.BufferUsage.BlkReadTime
	t.Logf("read time: sync %.3f ms of %.3f; io_uring %.3f ms of %.3f", syncRead, sync.LatencyMS.Max, uringRead, uring.LatencyMS.Max)
	if syncRead <= 0.5*sync.LatencyMS.Max || syncRead > sync.LatencyMS.Max {
		t.Errorf("sync: reads took %.3f ms of the scan's %.3f: a cold scan is mostly its reads", syncRead, sync.LatencyMS.Max)
	}
	if uringRead <= 0 || uringRead > uring.LatencyMS.Max || uringRead >= syncRead {
		t.Errorf("io_uring: waits for reads %.3f ms, scan %.3f ms, sync's reads %.3f: want 0 < waits <= scan and waits < sync's", uringRead, uring.LatencyMS.Max, syncRead)
	}
	if row := ioRow(uring.PGStatIO, "client backend", "bulkread"); row == nil || row.ReadTime != uringRead {
		t.Errorf("io_uring: pg_stat_io client backend/bulkread %+v, want read_time %.6f", row, uringRead)
	}
}

// The catalog lookups of a new connection and of a statement's first plan
// read pages too: their time counts in pg_stat_database (the backend's
// database, the shared catalogs' reads included: the time is the
// process's, not the relation's) and not in the statement's EXPLAIN "I/O
// Timings" (planning's buffers are shown apart), as their blocks are not
// in its shared_blks_read. Every read here comes from a 1 ms device.
func TestIOTimingCatalogReadsArePlanning(t *testing.T) {
	const osRead = 2000
	sc := rtIdleScenario(4096, 2000)
	sc.Server.Version = "15"
	sc.Server.SystemCatalogs = true
	sc.Costs.OSRead = osRead
	sc.OS.ReadAhead = 0
	sc.Storage.Data = DeviceConfig{Preset: "custom", Channels: 1, ReadTime: 1_000_000, WriteTime: 1_000_000, SeqTime: 1_000_000, FlushTime: 1_000_000, Scheduler: "fifo"}
	sc.Workload.Phases[0] = Phase{Name: "fetch", Clients: 1, Threads: 1, Transactions: 1, Restart: true, DropOSCache: true,
		Script: Script{Steps: []Step{{Select: &KeyStep{Table: "t", Pick: "client", Key: "1000"}}}}}
	_, r := rtRun(t, sc)
	ph := r.Phases[0]
	perRead := float64(1_000_000+osRead) / 1e6
	stmt := ph.BufferUsage.SharedBlksRead
	all := ph.PGStatDatabase.BlksRead + ph.PGStatDatabaseShared.BlksRead
	if all <= stmt || ph.OSCache.Misses != all {
		t.Fatalf("%d blocks read in all (%d page-cache misses), %d by the statement: want the catalogs' reads too, all from the device", all, ph.OSCache.Misses, stmt)
	}
	if got, want := *ph.BufferUsage.BlkReadTime, float64(stmt)*perRead; math.Abs(got-want) > 1e-9 {
		t.Errorf("buffer_usage.blk_read_time %.6f ms, want the statement's %d reads: %.6f", got, stmt, want)
	}
	if got, want := *ph.PGStatDatabase.BlkReadTime, float64(all)*perRead; math.Abs(got-want) > 1e-6 {
		t.Errorf("pg_stat_database.blk_read_time %.3f ms, want all %d reads of the session: %.3f", got, all, want)
	}
	if got := *ph.PGStatDatabaseShared.BlkReadTime; got != 0 {
		t.Errorf("the shared objects' row has %.3f ms of read time, want 0", got)
	}
}
