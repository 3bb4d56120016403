package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/policies"
)

// The checkpointer (docs/model.md): triggers,
// BufferSync's choice and order of buffers, CheckpointWriteDelay's pacing,
// the fsync of written files, and full-page images after the redo point.

// docs/model.md (xlog.c CalculateCheckpointSegments): CheckPointSegments is
// checkpoint_segments up to 9.4; floor(max_wal_size / 16 MB / (2 + target))
// in 9.5-10; floor(max_wal_size / 16 MB / (1 + target)) from 11; at least
// 1. At max_wal_size 1 GB: 25 (9.5-10, target 0.5), 42 (11-13, 0.5), 33
// (14+, 0.9).
func TestCheckPointSegmentsByVersion(t *testing.T) {
	cases := []struct {
		version string
		maxWAL  int64
		want    int64
	}{
		{"9.4", 1 << 30, 3}, // checkpoint_segments default
		{"9.5", 1 << 30, 25},
		{"10", 1 << 30, 25},
		{"11", 1 << 30, 42},
		{"13", 1 << 30, 42},
		{"14", 1 << 30, 33},
		{"17", 1 << 30, 33},
		{"17", 160 << 20, 5},
		{"17", 2 << 20, 1},
	}
	for _, c := range cases {
		sc := rtIdleScenario(128, 10)
		sc.Server.Version = c.version
		sc.Server.MaxWALSize = c.maxWAL
		e := rtBuild(t, sc)
		if e.ckpt.segments != c.want {
			t.Errorf("version %s, max_wal_size %d MB: CheckPointSegments %d, want %d", c.version, c.maxWAL>>20, e.ckpt.segments, c.want)
		}
	}
}

// rtCkptEngine: n buffers filled with pages of two tables t and u in random
// slots, `dirty` of them dirty (LSN 0, so no WAL flush is needed).
func rtCkptEngine(t *testing.T, n int64, dirty int, mod func(*Scenario)) (*engine, []int32) {
	t.Helper()
	sc := rtIdleScenario(n, 2*n)
	sc.Tables.Relations = append(sc.Tables.Relations, rtTable("u", 2*n))
	if mod != nil {
		mod(&sc)
	}
	e := rtBuild(t, sc)
	tt, uu := e.db.lookup("t")[0], e.db.lookup("u")[0]
	rng := rand.New(rand.NewPCG(3, 4))
	p := e.pool
	for s := int32(0); s < p.N; s++ {
		rel := tt.rel
		if rng.IntN(2) == 0 {
			rel = uu.rel
		}
		gid := e.cat.GID(rel, int32(rng.IntN(int(2*n))))
		for p.Lookup(gid) >= 0 {
			gid = e.cat.GID(rel, int32(rng.IntN(int(2*n))))
		}
		v, _ := p.GetVictim(nil, 0)
		p.Assign(v, gid, 0, false)
		p.ReadDone(v)
		p.Unpin(v)
	}
	var dirtied []int32
	for _, s := range rng.Perm(int(n))[:dirty] {
		p.MarkDirty(int32(s), 0)
		dirtied = append(dirtied, int32(s))
	}
	return e, dirtied
}

type rtRelBlk struct {
	rel catalog.RelID
	blk int32
}

// rtRunCheckpoint starts a checkpoint and steps the kernel until it ends,
// calling during(i) after each event and recording the order in which
// buffers dirty at the start became clean.
func rtRunCheckpoint(t *testing.T, e *engine, during func(step int)) (order []rtRelBlk) {
	t.Helper()
	p := e.pool
	was := make([]bool, p.N)
	for s := range was {
		was[s] = rtDirty(p, int32(s))
	}
	note := func() {
		for s := int32(0); s < p.N; s++ {
			if was[s] && !rtDirty(p, s) {
				was[s] = false
				r, b := e.cat.Locate(p.Tag[s])
				order = append(order, rtRelBlk{r, b})
			}
		}
	}
	e.ckpt.begin("time")
	note()
	for i := 0; e.ckpt.running; i++ {
		if !e.k.Step() {
			t.Fatalf("checkpoint stalled")
		}
		if during != nil {
			during(i)
		}
		note()
	}
	return order
}

// docs/model.md (bufmgr.c BufferSync): the checkpoint marks the buffers dirty
// at its start (BM_CHECKPOINT_NEEDED) and writes only those — pages
// dirtied later wait for the next checkpoint — sorted by (tablespace,
// relation, fork, block); one cleaned by someone else meanwhile counts as
// progress without a write. buffers_checkpoint counts its writes.
func TestCheckpointWritesOnlyBuffersDirtyAtStartInRelationBlockOrder(t *testing.T) {
	e, dirtied := rtCkptEngine(t, 400, 120, nil)
	p := e.pool
	later := map[int32]bool{}
	var stolen int32 = -1
	order := rtRunCheckpoint(t, e, func(step int) {
		if step == 5 {
			// A backend dirties 10 clean buffers after the start...
			for s := int32(0); s < p.N && len(later) < 10; s++ {
				if !rtDirty(p, s) && p.Flags[s]&bufpool.CheckpointNeeded == 0 {
					p.MarkDirty(s, 0)
					later[s] = true
				}
			}
			// ...and evicts (writes) one of the marked buffers still pending.
			for _, s := range dirtied {
				if rtDirty(p, s) && stolen < 0 {
					stolen = s
					p.MarkClean(s)
				}
			}
		}
	})
	ck := e.ckpt.list[0]
	if ck.ToWrite != 120 {
		t.Fatalf("checkpoint marked %d buffers, want the 120 dirty at its start", ck.ToWrite)
	}
	if ck.Written != 119 || e.bufWrites.checkpoint != 119 {
		t.Fatalf("checkpoint wrote %d (buffers_checkpoint %d), want 119 (120 marked, 1 cleaned by another process)", ck.Written, e.bufWrites.checkpoint)
	}
	for s := range later {
		if !rtDirty(p, s) {
			t.Errorf("slot %d, dirtied after the checkpoint started, was written by it", s)
		}
	}
	// The write order (the stolen buffer's cleaning is recorded when it
	// happened; drop it).
	r, b := e.cat.Locate(p.Tag[stolen])
	var writes []rtRelBlk
	for _, x := range order {
		if x != (rtRelBlk{r, b}) {
			writes = append(writes, x)
		}
	}
	if len(writes) != 119 {
		t.Fatalf("%d buffers became clean, want 119", len(writes))
	}
	for i := 1; i < len(writes); i++ {
		a, c := writes[i-1], writes[i]
		if a.rel > c.rel || a.rel == c.rel && a.blk >= c.blk {
			t.Fatalf("write %d (%v) after %v: not in (relation, block) order", i, c, a)
		}
	}
}

// Before 9.6 BufferSync did not sort: it wrote the marked buffers in
// buffer-descriptor order (the sort came with commit 9cd00c45, "Checkpoint
// sorting and balancing"), starting at the clock sweep point
// (StrategySyncStart: "we might as well dump soon-to-be-recycled buffers
// first") and wrapping around. Pages sit in random slots, so that order is
// not the (relation, block) order.
func TestCheckpointBefore96WritesInBufferOrderFromTheClockHand(t *testing.T) {
	e, _ := rtCkptEngine(t, 400, 0, func(sc *Scenario) { sc.Server.Version = "9.5" })
	p := e.pool
	hand := p.Policy.(policies.ClockHand)
	// Move the hand to slot 137: each victim search takes the next slot,
	// whose page goes straight back in.
	for {
		next, _ := hand.Hand()
		if next == 137 {
			break
		}
		gid := p.Tag[next]
		v, _ := p.GetVictim(nil, 0)
		if v != next {
			t.Fatalf("victim %d, the hand was at %d", v, next)
		}
		p.Assign(v, gid, 0, false)
		p.ReadDone(v)
		p.Unpin(v)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range rng.Perm(int(p.N))[:120] {
		p.MarkDirty(int32(s), 0)
	}
	var want []rtRelBlk
	for i := int32(0); i < p.N; i++ {
		if s := (137 + i) % p.N; rtDirty(p, s) {
			r, b := e.cat.Locate(p.Tag[s])
			want = append(want, rtRelBlk{r, b})
		}
	}
	got := rtRunCheckpoint(t, e, nil)
	if !slices.Equal(got, want) {
		t.Fatalf("9.5 checkpoint wrote %d buffers in order %v..., want buffer order from slot 137 %v...", len(got), got[:min(5, len(got))], want[:min(5, len(want))])
	}
	sorted := slices.IsSortedFunc(got, func(a, b rtRelBlk) int {
		if a.rel != b.rel {
			return int(a.rel) - int(b.rel)
		}
		return int(a.blk - b.blk)
	})
	if sorted {
		t.Fatalf("buffer order happened to be (relation, block) order: the test cannot tell the two apart")
	}
}

// CheckpointWriteDelay's progress: from 9.6 the share of marked buffers
// processed, those another process cleaned meanwhile included; before 9.6
// num_written / num_to_write, BufferSync's own writes only. Here a backend
// cleans 60 of the 120 marked buffers before the checkpoint's write loop
// gets to them; the loop then writes 20 of the rest.
func TestCheckpointProgressCountsOthersCleaningFrom96(t *testing.T) {
	for _, c := range []struct {
		version string
		want    float64
	}{{"9.6", 0}, {"9.5", 20.0 / 120}} {
		e, dirtied := rtCkptEngine(t, 400, 120, func(sc *Scenario) { sc.Server.Version = c.version })
		p := e.pool
		e.ckpt.begin("time")
		for _, s := range dirtied[:60] {
			if rtDirty(p, s) {
				p.MarkClean(s)
			}
		}
		for e.ckpt.written < 20 {
			if !e.k.Step() {
				t.Fatal("checkpoint stalled")
			}
		}
		ck := e.ckpt
		want := c.want
		if c.version == "9.6" {
			want = float64(ck.next) / 120 // every processed buffer, the 60 cleaned ones it met included
			if ck.next <= 20 {
				t.Fatalf("9.6: %d processed for 20 written: the cleaned buffers it met should count", ck.next)
			}
		}
		if got := ck.progress(); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: progress %.4f after writing 20 of 120 marked (60 cleaned by others), want %.4f", c.version, got, want)
		}
	}
}

// docs/model.md (checkpointer.c CheckpointWriteDelay, IsCheckpointOnSchedule):
// after each buffer, sleep 100 ms if progress x completion_target is ahead
// of elapsed time / checkpoint_timeout, else go on at once. A checkpoint of
// 50 buffers is always ahead: 50 writes, each followed by a 100 ms sleep,
// take exactly 5 s. One of 1000 buffers with timeout 30 s and target 0.5
// follows the line to 0.5 x 30 s = 15 s.
func TestCheckpointWritesSpreadToCompletionTarget(t *testing.T) {
	e, _ := rtCkptEngine(t, 2000, 50, nil)
	rtRunCheckpoint(t, e, nil)
	ck := e.ckpt.list[0]
	if d := ck.WriteS - ck.StartS; d != 5.0 {
		t.Errorf("50 buffers ahead of schedule: write phase %.3f s, want 50 x 100 ms = 5 s", d)
	}
	e, _ = rtCkptEngine(t, 2000, 1000, func(sc *Scenario) {
		sc.Server.CheckpointTimeout = 30 * sec
		sc.Server.CheckpointCompletionTarget = 0.5
	})
	rtRunCheckpoint(t, e, nil)
	ck = e.ckpt.list[0]
	if d := ck.WriteS - ck.StartS; d < 14.8 || d > 15.1 {
		t.Errorf("1000 buffers, timeout 30 s, target 0.5: write phase %.3f s, want ~15 s", d)
	}
	if ck.Written != 1000 {
		t.Errorf("wrote %d of 1000", ck.Written)
	}
	// With target 0.9 the same checkpoint takes ~27 s.
	e, _ = rtCkptEngine(t, 2000, 1000, func(sc *Scenario) {
		sc.Server.CheckpointTimeout = 30 * sec
		sc.Server.CheckpointCompletionTarget = 0.9
	})
	rtRunCheckpoint(t, e, nil)
	ck = e.ckpt.list[0]
	if d := ck.WriteS - ck.StartS; d < 26.8 || d > 27.1 {
		t.Errorf("1000 buffers, timeout 30 s, target 0.9: write phase %.3f s, want ~27 s", d)
	}
	// CHECKPOINT (immediate) does not sleep at all.
	e, _ = rtCkptEngine(t, 2000, 1000, nil)
	e.ckpt.immediate = true
	rtRunCheckpoint(t, e, nil)
	if ck = e.ckpt.list[0]; ck.WriteS != ck.StartS {
		t.Errorf("immediate checkpoint paced its writes over %.3f s", ck.WriteS-ck.StartS)
	}
}

// docs/model.md and §5 (md.c register_dirty_segment, checkpointer.c sync
// phase): after the writes, every file with a write since the previous
// checkpoint is fsynced, so when the checkpoint ends the OS cache holds no
// dirty page of those files. Here: the two tables and pg_xact
// (CheckPointCLOG writes the dirty clog page).
func TestCheckpointFsyncsEveryFileWritten(t *testing.T) {
	e, _ := rtCkptEngine(t, 400, 100, nil)
	rtRunCheckpoint(t, e, nil)
	ck := e.ckpt.list[0]
	if ck.Files != 3 {
		t.Errorf("%d files synced, want 3 (t, u, pg_xact)", ck.Files)
	}
	if d := e.os.DirtyPages(); d != 0 {
		t.Errorf("%d pages dirty in the OS cache after the checkpoint's fsyncs", d)
	}
	// After the fsyncs, the checkpoint record is logged and flushed
	// (CreateCheckPoint's XLogFlush) before the checkpoint ends.
	if rec := ck.EndS - ck.WriteS - ck.SyncS; ck.EndS <= ck.WriteS || rec <= 0 || rec > 0.005 || e.wal.FlushedLSN() < e.ckpt.recEnd {
		t.Errorf("sync phase %.6f s, end %.6f, writes done %.6f (the record's flush %.6f s), WAL flushed to %d, record ends at %d", ck.SyncS, ck.EndS, ck.WriteS, rec, e.wal.FlushedLSN(), e.ckpt.recEnd)
	}
	// The next checkpoint has nothing to sync: no file was written since.
	rtRunCheckpoint(t, e, nil)
	if f := e.ckpt.list[1].Files; f != 0 {
		t.Errorf("second checkpoint synced %d files with no writes since the first", f)
	}
}

// docs/model.md (xloginsert.c XLogRecordAssemble, XLogCheckBufferNeedsBackup):
// with full_page_writes on, a page's first WAL-logged change after the redo
// point carries a full-page image (8 kB plus headers), later changes in
// the same checkpoint cycle do not; a new checkpoint starts a new cycle.
func TestFullPageImageOnFirstChangeAfterCheckpointStart(t *testing.T) {
	for _, fpw := range []bool{true, false} {
		sc := rtIdleScenario(128, 256)
		sc.Server.FullPageWrites = fpw
		e := rtBuild(t, sc)
		rtFillPool(t, e, e.db.lookup("t")[0])
		b := &backend{e: e}
		slot := int32(5)
		gid := e.pool.Tag[slot]
		change := func() (fpi uint64, bytes int64) {
			f, w := e.wal.Stats.FPI, e.wal.Stats.Bytes
			b.modify(slot, gid, walUpdate)
			return e.wal.Stats.FPI - f, e.wal.Stats.Bytes - w
		}
		wantFPI := uint64(0)
		wantBytes := int64(walUpdate)
		if fpw {
			wantFPI, wantBytes = 1, walUpdate+walFPI
		}
		if f, w := change(); f != wantFPI || w != wantBytes {
			t.Errorf("fpw=%v first change: %d FPI, %d bytes; want %d, %d", fpw, f, w, wantFPI, wantBytes)
		}
		if f, w := change(); f != 0 || w != walUpdate {
			t.Errorf("fpw=%v second change in the cycle: %d FPI, %d bytes; want 0, %d", fpw, f, w, walUpdate)
		}
		e.ckpt.begin("time")
		if f, _ := change(); f != wantFPI {
			t.Errorf("fpw=%v first change after the next checkpoint start: %d FPI, want %d", fpw, f, wantFPI)
		}
		if f, _ := change(); f != 0 {
			t.Errorf("fpw=%v second change after the next checkpoint start: %d FPI, want 0", fpw, f)
		}
	}
}

// pg_stat_io's fsyncs (16+; sync.c ProcessSyncRequests counts one per
// file the checkpointer fsyncs): the checkpointer's row adds up the files
// every checkpoint synced; the backends' rows show none.
func TestPgStatIOFsyncs(t *testing.T) {
	sc := rtIdleScenario(512, 100)
	sc.Server.Version = "16"
	sc.Workload.Phases[0].Script.Steps = []Step{{Update: &KeyStep{Table: "t"}}, {Checkpoint: true}, {Update: &KeyStep{Table: "t"}}, {Checkpoint: true}}
	_, r := rtRun(t, sc)
	files := int64(0)
	for _, c := range r.Checkpoints {
		files += int64(c.Files)
	}
	var ckpt, others int64
	for _, row := range r.Totals.PGStatIO {
		if row.BackendType == "checkpointer" {
			ckpt += row.Fsyncs
		} else {
			others += row.Fsyncs
		}
	}
	if files == 0 || ckpt != files || others != 0 {
		t.Errorf("checkpoints synced %d files; pg_stat_io fsyncs: checkpointer %d, others %d; want %d and 0", files, ckpt, others, files)
	}
}

// bufmgr.c SyncOneBuffer -> ScheduleBufferTagForWriteback, after
// FlushBuffer's write; IssuePendingWritebacks every checkpoint_flush_after
// pages and at the end of BufferSync: every page the checkpoint wrote is
// asked to be written back while dirty in the page cache, so the fsyncs
// find none of them still dirty, and pg_stat_io (16+) counts each as a
// writeback of the checkpointer. (Asked before its own write, the last
// page of each batch was still clean in the page cache then, and was left
// for the fsync.)
func TestCheckpointAsksWritebackOfEveryPageItWrote(t *testing.T) {
	e, _ := rtCkptEngine(t, 400, 100, func(sc *Scenario) {
		sc.Server.Version = "16"
		sc.Server.CheckpointFlushAfter = 32 * 8192
	})
	rtRunCheckpoint(t, e, nil)
	io := e.stats.io[btCheckpointer][ctxNormal]
	if io.writes != 0 && io.writes != 100 {
		t.Fatalf("checkpointer writes %d", io.writes)
	}
	if io.writebacks != 100 {
		t.Errorf("%d writebacks, want 100 (every page written)", io.writebacks)
	}
	// The fsyncs write one page: pg_xact's, which CheckPointCLOG writes
	// through the SLRU, without a writeback request. (Before, the pages
	// at the 32nd, 64th and 96th writes were left too: 4.)
	if f := e.os.Stats.FsyncPages; f != 1 {
		t.Errorf("the fsyncs wrote %d pages, want 1 (pg_xact's): pages the checkpoint wrote were never asked to be written back", f)
	}
}
