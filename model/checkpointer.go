package model

import (
	"slices"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/wal"
	"github.com/pgbufsim/pgbufsim/policies"
)

// The checkpointer (src/backend/postmaster/checkpointer.c, bufmgr.c
// BufferSync; docs/model.md):
//
//   - a checkpoint starts checkpoint_timeout after the previous one started,
//     or earlier when WAL since the redo point reaches CheckPointSegments
//     segments (XLogCheckpointNeeded: max_wal_size / 16 MB /
//     (1 + checkpoint_completion_target) from PG 11, (2 + target) in 9.5-10,
//     checkpoint_segments up to 9.4);
//   - at its start the redo point moves (every page's next change gets a
//     full-page image) and every dirty buffer is marked
//     BM_CHECKPOINT_NEEDED; only those are written, sorted by relation and
//     block (9.6+), each after the WAL up to its LSN is flushed;
//   - after each buffer, CheckpointWriteDelay sleeps 100 ms if the
//     checkpoint is ahead of schedule (progress x completion_target ahead of
//     both elapsed time / checkpoint_timeout and WAL used / CheckPointSegments),
//     and does not sleep otherwise;
//   - every checkpoint_flush_after writes it asks the kernel to start
//     writeback of the pending pages (sync_file_range);
//   - then it fsyncs every relation file written since the last checkpoint,
//     one after another, logs the standby snapshot (wal_level replica, 10+)
//     and the checkpoint record, flushes that, and the checkpoint ends
//     (17+ also logs XLOG_CHECKPOINT_REDO at the redo point).

const (
	ckEvStart = iota
	ckEvWriteDone
	ckEvWALFlushed
	ckEvSleepDone
	ckEvSyncDone
	ckEvRecordFlushed
	ckEvTimer // + generation * 8
)

// Checkpoint describes one checkpoint (summary.json "checkpoints").
type Checkpoint struct {
	Reason   string  `json:"reason"` // "time" or "wal"
	StartS   float64 `json:"start_s"`
	WriteS   float64 `json:"write_done_s"`
	EndS     float64 `json:"end_s"`
	ToWrite  int     `json:"buffers_to_write"`
	Written  int64   `json:"buffers_written"`
	Files    int     `json:"files_synced"`
	SyncS    float64 `json:"sync_s"`
	WALBytes int64   `json:"wal_bytes_since_previous"`
	// Complete is false for a checkpoint still running when the run
	// ended: its buffers_written are the writes done so far, and the
	// times it had not reached are 0.
	Complete bool `json:"complete"`
}

type ckItem struct {
	key  uint64 // relation << 32 | block: BufferSync's sort order
	slot int32
	gid  int32
}

type checkpointer struct {
	e        *engine
	segments int64 // CheckPointSegments
	target   float64

	running   bool
	requested string // a WAL-triggered request waiting for the running checkpoint
	startTime int64
	startLSN  int64
	// recStart and recEnd are where the last checkpoint record began and
	// ended (ControlFile->checkPoint; -1: none yet); logged: the running
	// checkpoint has inserted its records.
	recStart, recEnd int64
	logged           bool
	redoSeg          int64
	lastStart        int64
	timerGen         int64

	items   []ckItem
	next    int
	written int64
	hints   []int32
	hintN   int

	dirtyRels map[catalog.RelID]bool // files with writes since the last sync (register_dirty_segment)
	syncRels  []catalog.RelID
	syncNext  int
	syncStart int64
	// writeFrom is when the current write or fsync began (noteIOTime).
	writeFrom int64

	cur  Checkpoint
	list []Checkpoint

	// CHECKPOINT commands waiting for a checkpoint that starts after
	// their request (RequestCheckpoint with CHECKPOINT_WAIT).
	waiters   []ckWaiter
	immediate bool // CHECKPOINT_IMMEDIATE: no pacing sleeps
}

type ckWaiter struct {
	b    *backend
	when int64
}

// requestImmediate is the CHECKPOINT command: the running checkpoint, if
// any, finishes without sleeping, and a new one (which the caller waits
// for) starts after it.
func (c *checkpointer) requestImmediate(b *backend) {
	c.waiters = append(c.waiters, ckWaiter{b: b, when: c.e.k.Now()})
	c.immediate = true
	if c.running {
		c.requested = "immediate"
		return
	}
	c.begin("immediate")
}

func newCheckpointer(e *engine) *checkpointer {
	s := e.sc.Server
	c := &checkpointer{e: e, target: s.CheckpointCompletionTarget, dirtyRels: map[catalog.RelID]bool{}, recStart: -1, recEnd: -1}
	segs := float64(s.MaxWALSize) / wal.SegmentSize
	switch {
	case e.ver <= 904:
		c.segments = int64(s.CheckpointSegments)
	case e.ver < 1100:
		c.segments = int64(segs / (2 + c.target))
	default:
		c.segments = int64(segs / (1 + c.target))
	}
	c.segments = max(c.segments, 1)
	c.hintN = int(s.CheckpointFlushAfter / 8192)
	return c
}

func (c *checkpointer) start() {
	c.armTimer(c.e.sc.Server.CheckpointTimeout)
	c.e.wal.OnSegment = c.onSegment
}

func (c *checkpointer) armTimer(d int64) {
	c.timerGen++
	c.e.k.After(d, c, ckEvTimer+c.timerGen*8)
}

// onSegment is XLogCheckpointNeeded, asked by XLogWrite with the number of
// each segment whose last page it wrote: a checkpoint is needed once that
// is CheckPointSegments - 1 segments past the redo point's.
func (c *checkpointer) onSegment(seg int64) {
	if seg >= c.redoSeg+c.segments-1 {
		if c.running {
			c.requested = "wal"
		} else {
			c.begin("wal")
		}
	}
}

func (c *checkpointer) OnEvent(arg int64) {
	switch {
	case arg >= ckEvTimer:
		if (arg-ckEvTimer)/8 != c.timerGen {
			return
		}
		if c.running {
			c.requested = "time"
			return
		}
		if c.idle() {
			// CreateCheckPoint skips a timed checkpoint on an idle system.
			c.armTimer(c.e.sc.Server.CheckpointTimeout)
			return
		}
		c.begin("time")
	case arg == ckEvWriteDone:
		c.afterWrite()
	case arg == ckEvWALFlushed:
		c.writeOne()
	case arg == ckEvSleepDone:
		c.writeLoop()
	case arg == ckEvRecordFlushed:
		c.syncLoop()
	case arg == ckEvSyncDone:
		// ProcessSyncRequests times each file's fsync.
		c.e.noteIOTime(btCheckpointer, ctxNormal, ioFsync, c.e.k.Now()-c.writeFrom, false)
		c.syncNext++
		c.syncLoop()
	}
}

// idle is CreateCheckPoint's test for skipping a timed checkpoint: from
// 9.6 no important WAL since the previous checkpoint's record (the last
// important record is that record, or there is none: standby snapshots
// do not count), before 9.6 no WAL at all after it (before the run's
// first checkpoint: none since the run began).
func (c *checkpointer) idle() bool {
	w := c.e.wal
	switch {
	case c.e.ver >= 906:
		return w.LastImportant() == c.recStart
	case c.recEnd < 0:
		return w.InsertLSN() == c.startLSN
	}
	return w.InsertLSN() == c.recEnd
}

// logRecords is CreateCheckPoint's WAL after CheckPointGuts: the standby
// snapshot (wal_level replica), then the checkpoint record, which the
// checkpointer flushes before the checkpoint is done. It returns the
// record's end.
func (c *checkpointer) logRecords() int64 {
	e := c.e
	if e.standbySnapshots() {
		e.logStandbySnapshot()
	}
	return c.insertRecord()
}

// insertRecord inserts the checkpoint record (XLOG_CHECKPOINT_ONLINE, or
// _SHUTDOWN at a restart: the same size) and notes where it lies
// (ControlFile->checkPoint). It returns the record's end.
func (c *checkpointer) insertRecord() int64 {
	c.recStart = c.e.wal.InsertLSN()
	c.recEnd = c.e.wal.Insert(c.e.walCheckpointRecord())
	return c.recEnd
}

// checkpoints lists the checkpoints of the run so far, the running one
// last (Complete false, with the writes it has done).
func (c *checkpointer) checkpoints() []Checkpoint {
	out := append([]Checkpoint{}, c.list...)
	if c.running {
		cur := c.cur
		cur.Written = c.written
		out = append(out, cur)
	}
	return out
}

// noteWrite records that a data file has a write the next checkpoint must
// fsync (mdwrite/mdextend -> register_dirty_segment).
func (e *engine) noteWrite(gid int32) {
	rel, _ := e.cat.Locate(gid)
	e.ckpt.dirtyRels[rel] = true
}

// begin starts a checkpoint: new redo point, mark dirty buffers.
func (c *checkpointer) begin(reason string) {
	e := c.e
	now := e.k.Now()
	if reason == "time" {
		e.ckptTimed++ // checkpoints_timed / num_timed
	} else {
		e.ckptRequested++ // checkpoints_req / num_requested
	}
	c.running = true
	c.requested = ""
	c.startTime = now
	c.lastStart = now
	c.armTimer(e.sc.Server.CheckpointTimeout)
	prevLSN := c.startLSN
	c.startLSN = e.wal.InsertLSN()
	c.logged = false
	if e.ver >= 1700 {
		// XLOG_CHECKPOINT_REDO marks the redo point (17+), which is
		// where it begins.
		e.wal.Insert(walCheckpointRedo)
	}
	c.redoSeg = c.startLSN / wal.SegmentSize
	e.cycle++ // the redo point moves: next change of every page logs an FPI
	c.cur = Checkpoint{Reason: reason, StartS: e.at(now), WALBytes: c.startLSN - prevLSN}

	p := e.pool
	c.items = c.items[:0]
	for s := int32(0); s < p.N; s++ {
		if p.Flags[s]&bufpool.Dirty != 0 && p.Tag[s] >= 0 {
			p.Flags[s] |= bufpool.CheckpointNeeded
			rel, blk := e.cat.Locate(p.Tag[s])
			c.items = append(c.items, ckItem{key: uint64(rel)<<32 | uint64(uint32(blk)), slot: s, gid: p.Tag[s]})
		}
	}
	// Sorting by (relation, block) came with 9.6 (commit 9cd00c45,
	// "Checkpoint sorting and balancing"); before it BufferSync wrote the
	// marked buffers in buffer-descriptor order starting at the clock
	// sweep point (StrategySyncStart: "we might as well dump
	// soon-to-be-recycled buffers first"), so each write landed wherever
	// its page happened to sit on disk.
	if e.ver >= 906 {
		c.sortItems()
	} else if h, ok := p.Policy.(policies.ClockHand); ok {
		next, _ := h.Hand()
		i, _ := slices.BinarySearchFunc(c.items, next, func(it ckItem, s int32) int { return int(it.slot - s) })
		slices.Reverse(c.items[:i])
		slices.Reverse(c.items[i:])
		slices.Reverse(c.items) // rotate left by i: the hand's slot first
	}
	c.cur.ToWrite = len(c.items)
	c.next = 0
	c.written = 0
	e.marks = append(e.marks, Mark{TimeS: e.at(now), Label: "checkpoint start (" + reason + ")"})
	c.writeLoop()
}

// writeLoop writes the marked buffers in order, pacing as
// CheckpointWriteDelay does.
func (c *checkpointer) writeLoop() {
	for c.next < len(c.items) {
		it := c.items[c.next]
		p := c.e.pool
		if p.Tag[it.slot] != it.gid || p.Flags[it.slot]&bufpool.CheckpointNeeded == 0 || p.Flags[it.slot]&bufpool.Dirty == 0 {
			// Cleaned (or evicted) by someone else meanwhile: counts as
			// progress, not written.
			c.next++
			continue
		}
		p.Frames.Pins[it.slot]++
		c.writeOne()
		return
	}
	c.endWrites()
}

func (c *checkpointer) writeOne() {
	e := c.e
	it := c.items[c.next]
	if e.pool.Flags[it.slot]&bufpool.Dirty == 0 {
		// Cleaned by someone else while we waited: progress, no write.
		e.pool.Frames.Pins[it.slot]--
		c.next++
		c.writeLoop()
		return
	}
	if lsn := e.pool.LSN[it.slot]; e.wal.NeedsFlush(lsn) {
		if !e.wal.Flush(lsn, c, ckEvWALFlushed) {
			return
		}
	}
	e.pool.MarkClean(it.slot)
	e.bufWrites.checkpoint++
	c.written++
	e.noteWrite(it.gid)
	c.writeFrom = e.k.Now()
	if !e.os.Write(it.gid, c, ckEvWriteDone) {
		return // throttled
	}
	c.afterWrite()
}

func (c *checkpointer) afterWrite() {
	e := c.e
	// FlushBuffer's smgrwrite, as the background writer's (bgwriter.written).
	e.noteIOTime(btCheckpointer, ctxNormal, ioWrite, e.costs.OSWrite+e.k.Now()-c.writeFrom, false)
	it := c.items[c.next]
	// SyncOneBuffer -> ScheduleBufferTagForWriteback, after FlushBuffer's
	// write: the page is dirty in the page cache when its writeback is
	// asked for.
	if c.hintN > 0 {
		c.hints = append(c.hints, it.gid)
		if len(c.hints) >= c.hintN {
			c.issueHints()
		}
	}
	e.pool.Frames.Pins[it.slot]--
	c.next++
	if !c.immediate && c.onSchedule() {
		e.k.After(100*1e6, c, ckEvSleepDone)
		return
	}
	c.writeLoop()
}

// progress is what BufferSync passes to CheckpointWriteDelay: from 9.6
// the share of marked buffers processed, written or found cleaned by
// someone else; before, num_written / num_to_write, its own writes only.
func (c *checkpointer) progress() float64 {
	done := c.next
	if c.e.ver < 906 {
		done = int(c.written)
	}
	return float64(done) / float64(max(len(c.items), 1))
}

// onSchedule is IsCheckpointOnSchedule.
func (c *checkpointer) onSchedule() bool {
	e := c.e
	progress := c.progress() * c.target
	elapsedWAL := float64(e.wal.InsertLSN()-c.startLSN) / wal.SegmentSize / float64(c.segments)
	if progress < elapsedWAL {
		return false
	}
	elapsedTime := float64(e.k.Now()-c.startTime) / float64(e.sc.Server.CheckpointTimeout)
	return progress >= elapsedTime
}

// issueHints is IssuePendingWritebacks: sync_file_range over the pending
// pages (already in file order: BufferSync writes sorted); pg_stat_io
// counts them as writebacks (pgstat_count_io_op_time(..., IOOP_WRITEBACK,
// ..., nr_pending), 16+).
func (c *checkpointer) issueHints() {
	c.e.os.StartWriteback(c.hints)
	c.e.stats.io[btCheckpointer][ctxNormal].writebacks += uint64(len(c.hints))
	c.hints = c.hints[:0]
}

func (c *checkpointer) endWrites() {
	e := c.e
	if len(c.hints) > 0 {
		c.issueHints()
	}
	c.cur.WriteS = e.at(e.k.Now())
	c.cur.Written = c.written
	// CheckPointCLOG: write every dirty clog page.
	for _, page := range e.x.clog.DirtyPages() {
		e.writeClogPage(page)
	}
	c.syncRels = c.syncRels[:0]
	for r := range c.dirtyRels {
		c.syncRels = append(c.syncRels, r)
	}
	slices.Sort(c.syncRels)
	clear(c.dirtyRels)
	c.syncNext = 0
	c.syncStart = e.k.Now()
	c.syncLoop()
}

// syncLoop fsyncs the files one after another.
func (c *checkpointer) syncLoop() {
	e := c.e
	if c.syncNext < len(c.syncRels) {
		rel := c.syncRels[c.syncNext]
		e.stats.io[btCheckpointer][ctxNormal].fsyncs++
		c.writeFrom = e.k.Now()
		e.os.Fsync(func(gid int32) bool { r, _ := e.cat.Locate(gid); return r == rel }, c, ckEvSyncDone)
		return
	}
	now := e.k.Now()
	if !c.logged {
		c.logged = true
		c.cur.Files = len(c.syncRels)
		c.cur.SyncS = secs(now - c.syncStart)
		if !e.wal.Flush(c.logRecords(), c, ckEvRecordFlushed) {
			return
		}
	}
	c.cur.EndS = e.at(now)
	c.cur.Complete = true
	c.list = append(c.list, c.cur)
	e.marks = append(e.marks, Mark{TimeS: e.at(now), Label: "checkpoint end"})
	c.running = false
	// Wake CHECKPOINT commands that this checkpoint satisfies.
	keep := c.waiters[:0]
	for _, w := range c.waiters {
		if w.when <= c.startTime {
			e.k.Schedule(now, w.b, evResume)
		} else {
			keep = append(keep, w)
		}
	}
	c.waiters = keep
	c.immediate = len(c.waiters) > 0
	if c.requested != "" {
		c.begin(c.requested)
	}
}

func secs(ns int64) float64 { return round6(float64(ns) / 1e9) }

// at is a simulated instant as reported: seconds since the run began (after
// any prewarm).
func (e *engine) at(ns int64) float64 { return secs(ns - e.t0) }

// sortItems orders the checkpoint's writes by (relation, block), as
// BufferSync's ckpt_buforder_comparator does (one tablespace, main fork).
func (c *checkpointer) sortItems() {
	slices.SortFunc(c.items, func(a, b ckItem) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	})
}

// restartServer is a clean restart between phases (pg_ctl restart): the
// shutdown checkpoint writes every dirty shared buffer (and dirty clog
// page) through the OS and is listed as a checkpoint of reason "shutdown";
// then shared buffers and the clog SLRU are emptied, so the free list hands
// out buffers 0, 1, 2, ... again (PostgreSQL <= 18). The OS page cache
// keeps its pages (dirty ones are written back by the kernel as usual).
// Buffers a background process is writing at that instant stay until it is
// done. Autovacuum is off (model.Check).
func (e *engine) restartServer() {
	p := e.pool
	now := e.k.Now()
	ck := Checkpoint{Reason: "shutdown", StartS: e.at(now), WriteS: e.at(now), EndS: e.at(now), Complete: true}
	for s := int32(0); s < p.N; s++ {
		if p.Tag[s] >= 0 && p.Flags[s]&bufpool.Dirty != 0 && p.Frames.Pins[s] == 0 {
			gid := p.Tag[s]
			p.MarkClean(s)
			e.os.Write(gid, nil, 0)
			e.bufWrites.checkpoint++
			e.noteWrite(gid)
			ck.ToWrite++
			ck.Written++
		}
	}
	for _, page := range e.x.clog.DropSLRU() {
		e.writeClogPage(page)
	}
	e.cycle++ // the shutdown checkpoint is a redo point: next changes log FPIs
	// XLOG_CHECKPOINT_SHUTDOWN (no standby snapshot at shutdown), then
	// every WAL record is flushed.
	e.ckpt.insertRecord()
	e.wal.Restart()
	e.ckpt.list = append(e.ckpt.list, ck)
	e.marks = append(e.marks, Mark{TimeS: e.at(now), Label: "restart"})
	e.initFileStale = true
	if e.sc.Server.Autoprewarm {
		e.autoprewarmDump()
	}
	if e.usedSlots != nil {
		// A new shared memory segment: no buffer used since this start
		// but the ones still held below (startUsedSlots).
		defer e.startUsedSlots()
	}
	for s := p.N - 1; s >= 0; s-- {
		if p.Tag[s] >= 0 && p.Frames.Pins[s] == 0 && p.Flags[s]&bufpool.Dirty == 0 {
			p.Invalidate(s)
		}
	}
	// New shared memory and new auxiliary processes: the clock hand at
	// buffer 0, the background writer's and the checkpointer's state as
	// at their start.
	p.Restart()
	e.bgw.restart()
	if c := e.ckpt; !c.running {
		// The shutdown checkpoint is the redo point the next one's WAL
		// volume counts from (XLogCheckpointNeeded's RedoRecPtr).
		c.startLSN, c.redoSeg = c.recStart, c.recStart/wal.SegmentSize
		c.armTimer(e.sc.Server.CheckpointTimeout)
	}
}
