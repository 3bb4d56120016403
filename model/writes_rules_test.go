package model

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
)

// Who writes dirty pages, and when (/work/shared/docs/pg-buffers-facts.md
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

// WAL before data (facts §1.6, bufmgr.c FlushBuffer -> XLogFlush(page
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
