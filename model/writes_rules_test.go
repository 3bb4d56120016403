package model

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
)

// Who writes dirty pages, and when (docs/model.md
// §1.6, §3.3, §4.2): every page dirtied in shared buffers is eventually
// written once by the bgwriter (buffers_clean), the checkpointer
// (buffers_checkpoint) or a backend evicting it (buffers_backend), or is
// still dirty; and no data page is written before the WAL up to its LSN
// is flushed (FlushBuffer's XLogFlush).

// writeLoad is a tpcb-like run on a small pool with every writer active:
// bgwriter, timed checkpoints, autovacuum, backend evictions. Asynchronous
// commit with a slow WAL writer leaves many dirty pages whose LSN is not
// yet flushed, which is when the WAL-before-data rule matters.
func writeLoad(asyncCommit bool) Scenario {
	sc := DefaultScenario()
	sc.Name = "writes"
	sc.Server.SharedBuffers = 64 * 8192
	sc.Server.CPUs = 2
	sc.Server.CheckpointTimeout = 30 * sec
	sc.Server.AutovacuumNaptime = 5 * sec
	sc.Server.BgwriterDelay = 50 * ms
	if asyncCommit {
		sc.Server.SynchronousCommit = false
		sc.Server.WALWriterDelay = 2 * sec
	}
	sc.OS.PageCache = 64 << 20
	sc.Tables.PGBench = PGBenchTables{Scale: 1, Fillfactor: 100}
	sc.Workload.Phases = []Phase{{Name: "run", Clients: 4, Threads: 1, Duration: 34 * sec, Script: Script{Builtin: "tpcb-like"}}}
	return sc
}

// Conservation: clean->dirty transitions (pool.Stats.Dirtied) = pages
// written by the bgwriter + checkpointer + backends (relation extensions,
// counted in buffers_backend by md.c mdextend but not dirty pages, aside)
// + buffers still dirty at the end. A page written twice for one dirtying
// (two writers racing) or dropped dirty breaks the equation.
func TestEveryDirtiedPageIsWrittenOnceOrStillDirty(t *testing.T) {
	for _, async := range []bool{false, true} {
		e, _ := rtRun(t, writeLoad(async))
		w := e.bufWrites
		if w.clean == 0 || w.checkpoint == 0 || w.backend-w.extends == 0 {
			t.Fatalf("async=%v: the load should exercise all three writers: clean %d, checkpoint %d, backend %d", async, w.clean, w.checkpoint, w.backend-w.extends)
		}
		dirtied := e.pool.Stats.Dirtied
		accounted := w.clean + w.checkpoint + (w.backend - w.extends) + uint64(e.pool.DirtyCount())
		if dirtied != accounted {
			t.Errorf("async=%v: %d pages dirtied, but clean %d + checkpoint %d + backend %d + still dirty %d = %d",
				async, dirtied, w.clean, w.checkpoint, w.backend-w.extends, e.pool.DirtyCount(), accounted)
		}
		n := int32(0)
		for s := int32(0); s < e.pool.N; s++ {
			if rtDirty(e.pool, s) {
				n++
			}
		}
		if n != e.pool.DirtyCount() {
			t.Errorf("async=%v: DirtyCount %d, %d slots flagged dirty", async, e.pool.DirtyCount(), n)
		}
	}
}

// WAL before data (bufmgr.c FlushBuffer -> XLogFlush(page
// LSN)): whenever a buffer goes from dirty to clean (it was written), the
// WAL is durable up to the LSN the page had. Checked every simulated
// microsecond over a run where many page LSNs are not yet flushed.
func TestNoDataPageWrittenBeforeItsWAL(t *testing.T) {
	e := rtBuild(t, writeLoad(true))
	p := e.pool
	lsn := make([]int64, p.N)
	gid := make([]int32, p.N)
	for s := range gid {
		gid[s] = -1
	}
	var writes, needed int
	flushedBefore := int64(0)
	check := func(int64, uint64) {
		flushed := e.wal.FlushedLSN()
		for s := int32(0); s < p.N; s++ {
			d := p.Flags[s]&bufpool.Dirty != 0
			if gid[s] >= 0 && p.Tag[s] == gid[s] && !d {
				writes++
				if lsn[s] > flushedBefore {
					needed++ // this write had to wait for a WAL flush
				}
				if flushed < lsn[s] {
					t.Fatalf("slot %d (gid %d) written with page LSN %d but WAL flushed only to %d", s, gid[s], lsn[s], flushed)
				}
			}
			if d {
				gid[s], lsn[s] = p.Tag[s], p.LSN[s]
			} else {
				gid[s] = -1
			}
		}
		flushedBefore = flushed
	}
	if _, err := e.run(Options{Progress: check, ProgressEvery: 1000}); err != nil {
		t.Fatal(err)
	}
	if writes < 1000 || needed < 100 {
		t.Fatalf("only %d writes observed, %d of them needing a WAL flush: the check proves little", writes, needed)
	}
}

// walBeforeDataEngine: a filled pool whose dirty pages carry an LSN that
// is not flushed yet (the WAL writer sleeps 10 s), a client that reads
// pages of t beyond the pool, and a checker that fails if any of those
// pages is cleaned before the WAL covers its LSN.
func walBeforeDataEngine(t *testing.T, steps []Step) (e *engine, check func(int64, uint64), lsn int64) {
	t.Helper()
	sc := rtIdleScenario(128, 1000)
	sc.Server.WALWriterDelay = 10 * sec
	sc.Server.BgwriterLRUMaxpages = 0
	sc.Workload.Phases[0].Script.Steps = steps
	e = rtBuild(t, sc)
	rtFillPool(t, e, e.db.lookup("t")[0])
	lsn = e.wal.Insert(4000)
	for s := int32(1); s < e.pool.N; s++ {
		e.pool.MarkDirty(s, lsn)
	}
	check = func(int64, uint64) {
		for s := int32(1); s < e.pool.N; s++ {
			if !rtDirty(e.pool, s) && e.wal.FlushedLSN() < lsn {
				t.Fatalf("slot %d written at %d ns before the WAL was flushed to its LSN %d (flushed %d)", s, e.k.Now(), lsn, e.wal.FlushedLSN())
			}
		}
	}
	return e, check, lsn
}

// A backend whose victim is dirty flushes the WAL up to the victim's LSN
// before writing it (bufmgr.c GetVictimBuffer -> FlushBuffer -> XLogFlush).
func TestDirtyVictimWaitsForWALFlush(t *testing.T) {
	e, check, lsn := walBeforeDataEngine(t, []Step{{Select: &KeyStep{Table: "t", Key: "900*61", Pick: "client"}}})
	if _, err := e.run(Options{Progress: check, ProgressEvery: 1000}); err != nil {
		t.Fatal(err)
	}
	if e.bufWrites.backend == 0 || e.wal.FlushedLSN() < lsn {
		t.Fatalf("backend writes %d, WAL flushed to %d (page LSN %d): the select should have written a dirty victim after flushing", e.bufWrites.backend, e.wal.FlushedLSN(), lsn)
	}
}

// The bgwriter (SyncOneBuffer -> FlushBuffer) and the checkpointer
// (BufferSync -> SyncOneBuffer) flush WAL to the page LSN before writing.
func TestBgwriterAndCheckpointerFlushWALBeforeWriting(t *testing.T) {
	e, check, lsn := walBeforeDataEngine(t, []Step{{Sleep: sec}})
	e.sc.Server.BgwriterLRUMaxpages = 1000
	e.bgw.lastAlloc = int64(e.pool.Stats.Alloc) - 100 // recent allocations: a busy round
	e.bgw.round()
	check(0, 0)
	for e.k.Step() && e.bgw.active {
		check(0, 0)
	}
	if e.bufWrites.clean == 0 || e.wal.FlushedLSN() < lsn {
		t.Fatalf("bgwriter wrote %d pages, WAL flushed to %d of %d", e.bufWrites.clean, e.wal.FlushedLSN(), lsn)
	}
	e, check, lsn = walBeforeDataEngine(t, []Step{{Sleep: sec}})
	e.ckpt.begin("time")
	check(0, 0)
	for e.k.Step() && e.ckpt.running {
		check(0, 0)
	}
	if e.bufWrites.checkpoint != uint64(e.pool.N-1) || e.wal.FlushedLSN() < lsn {
		t.Fatalf("checkpoint wrote %d of %d pages, WAL flushed to %d of %d", e.bufWrites.checkpoint, e.pool.N-1, e.wal.FlushedLSN(), lsn)
	}
}

// A dirty page is written once even when two writers want it at the same
// time: FlushBuffer starts with StartBufferIO, which returns false when
// the buffer is no longer dirty because another process wrote it meanwhile
// (bufmgr.c; docs/model.md). Here a backend's dirty victim waits for its WAL
// flush while an immediate checkpoint, started in that window, wants the
// same buffer first (it holds the lowest block).
func TestRacingWritersWriteADirtyPageOnce(t *testing.T) {
	e, check, _ := walBeforeDataEngine(t, []Step{{Select: &KeyStep{Table: "t", Key: "900*61", Pick: "client"}}})
	started := false
	progress := func(now int64, ev uint64) {
		check(now, ev)
		if started {
			return
		}
		for _, b := range e.backends {
			if b.pending == wWALFlush && b.ps == psVictimWrite {
				started = true
				e.ckpt.immediate = true
				e.ckpt.begin("immediate")
			}
		}
	}
	if _, err := e.run(Options{Progress: progress, ProgressEvery: 1000}); err != nil {
		t.Fatal(err)
	}
	if !started {
		t.Fatalf("the backend never waited for a WAL flush before writing its victim")
	}
	for e.ckpt.running && e.k.Step() {
	}
	w := e.bufWrites
	accounted := w.clean + w.checkpoint + (w.backend - w.extends) + uint64(e.pool.DirtyCount())
	if e.pool.Stats.Dirtied != accounted {
		t.Fatalf("%d pages dirtied, %d written by backends + %d by the checkpointer + %d still dirty = %d: a page was written twice",
			e.pool.Stats.Dirtied, w.backend-w.extends, w.checkpoint, e.pool.DirtyCount(), accounted)
	}
}
