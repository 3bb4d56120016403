package wal

import "github.com/pgbufsim/pgbufsim/sim"

// The WAL writer process (src/backend/postmaster/walwriter.c WalWriterMain
// and xlog.c XLogBackgroundFlush, XLogSetAsyncXactLSN). Each round it
// writes the WAL that fills whole pages, or, when that is flushed already,
// the WAL of the latest asynchronous commit; it fsyncs what it wrote only
// when wal_writer_delay has passed since its last fsync or
// wal_writer_flush_after worth of WAL is waiting. With synchronous commits,
// whose own XLogFlush leaves it nothing, it soon finds no work: after
// LOOPS_UNTIL_HIBERNATE rounds without any it sleeps HIBERNATE_FACTOR
// delays at a time, and only an asynchronous commit or abort sets its latch
// (XLogSetAsyncXactLSN). A bulk statement on a quiet server therefore meets
// a sleeping writer and writes all its WAL buffer pages itself
// (AdvanceXLInsertBuffer, pg_stat_wal's wal_buffers_full).

const (
	loopsUntilHibernate = 50 // walwriter.c LOOPS_UNTIL_HIBERNATE
	hibernateFactor     = 25 // walwriter.c HIBERNATE_FACTOR
)

// WriterConfig is the WAL writer's configuration.
type WriterConfig struct {
	Delay int64 // wal_writer_delay, ns
	// FlushAfter is wal_writer_flush_after in bytes (whole WAL pages;
	// 0: fsync at every round that writes).
	FlushAfter int64
	// Version is the server version as 100*major+minor for 9.x, 100*major
	// from 10 (1500 for 15): hibernation exists from 9.2, the flush rules
	// of wal_writer_flush_after from 9.6, and from 17 an asynchronous
	// commit wakes a running writer only once wal_writer_flush_after worth
	// of WAL is unflushed (before 17: once a whole page is).
	Version int
}

// Writer event kinds (the timer's generation is added in steps of
// writerGenStep, so that a wake-up supersedes the pending timeout).
const (
	writerTimer   = 0
	writerResume  = 1 // the WAL write lock is free, or the writer's fsync ended
	writerGenStep = 2
)

// Where a round of the writer waits (walWriter.stage).
const (
	stageIdle     = iota // not in a round, or a round that waits for nothing
	stageLockWait        // for a backend's flush to release WALWriteLock
	stageFsync           // for its own fsync
)

// walWriter is the WAL writer process.
type walWriter struct {
	w   *WAL
	cfg WriterConfig
	// left is left_till_hibernate; sleeping is XLogCtl->WalWriterSleeping,
	// what the writer advertised at the start of its round.
	left     int
	sleeping bool
	// lastFlush is when it last fsynced (XLogBackgroundFlush's static
	// lastflush; everFlushed false: 0, the first call).
	lastFlush   int64
	everFlushed bool
	gen         int64
	// waitLatch: between rounds, in WaitLatch; latch: set during a round,
	// so the next one follows at once.
	waitLatch, latch bool
	// The round in progress: XLogBackgroundFlush found work (did); its
	// request while it waits (stage).
	did      bool
	stage    int
	rqst     int64
	flexible bool
	flush    bool
}

// StartWriter starts the WAL writer (no writer if cfg.Delay is 0).
func (w *WAL) StartWriter(cfg WriterConfig) {
	if cfg.Delay <= 0 {
		return
	}
	ww := &walWriter{w: w, cfg: cfg, left: loopsUntilHibernate}
	w.writer = ww
	ww.sleepFor(cfg.Delay)
}

// Restart is a clean server restart: the shutdown checkpoint flushes all
// WAL, and a new WAL writer process starts with its hibernation count and
// last-flush time reset.
func (w *WAL) Restart() {
	if !w.flushing && w.insert > w.flushed {
		// The shutdown checkpoint's XLogFlush (instant, as the model's
		// restart is).
		if w.insert > w.written {
			w.Stats.Writes++
		}
		w.Stats.Flushes++
		w.written, w.flushed = w.insert, w.insert
	}
	ww := w.writer
	if ww == nil {
		return
	}
	ww.left, ww.sleeping, ww.everFlushed, ww.latch = loopsUntilHibernate, false, false, false
	if ww.stage == stageIdle {
		ww.sleepFor(ww.cfg.Delay)
	}
}

// SetAsyncXactLSN is XLogSetAsyncXactLSN: an asynchronous commit or an
// abort (or a transaction without an xid that wrote WAL: pruning, VACUUM)
// ended its WAL at lsn. The writer's latch is set if it is sleeping, else
// if it has enough to write: a whole page unflushed (before 17), or
// wal_writer_flush_after worth (17+, and only for an LSN beyond the
// previous asynchronous one).
func (w *WAL) SetAsyncXactLSN(lsn int64) {
	prev := w.asyncXactLSN
	w.asyncXactLSN = max(prev, lsn)
	ww := w.writer
	if ww == nil || ww.cfg.Version < 902 {
		return // before 9.2 the writer never sleeps longer than its delay
	}
	if ww.cfg.Version >= 1700 {
		if lsn <= prev {
			return
		}
		if fa := ww.cfg.FlushAfter / pageSize; !ww.sleeping && fa > 0 && lsn/pageSize-w.flushed/pageSize < fa {
			return
		}
	} else if !ww.sleeping && lsn-lsn%pageSize <= w.flushed {
		return
	}
	ww.setLatch()
}

// setLatch wakes the writer: at once if it waits on its latch, else after
// the round it is in.
func (ww *walWriter) setLatch() {
	if !ww.waitLatch {
		ww.latch = true
		return
	}
	ww.sleepFor(0)
}

// sleepFor is WaitLatch with a timeout; a later wake-up supersedes it.
func (ww *walWriter) sleepFor(d int64) {
	ww.gen++
	ww.waitLatch = true
	ww.w.k.After(d, ww, writerTimer+ww.gen*writerGenStep)
}

func (ww *walWriter) OnEvent(arg int64) {
	if arg == writerResume {
		ww.resume()
		return
	}
	if arg/writerGenStep != ww.gen || !ww.waitLatch {
		return // a timeout superseded by a wake-up
	}
	ww.waitLatch = false
	ww.round()
}

// round is one iteration of WalWriterMain's loop.
func (ww *walWriter) round() {
	// Advertise whether this round may end in hibernation, then reset the
	// latch.
	ww.sleeping = ww.cfg.Version >= 902 && ww.left <= 1
	ww.latch = false
	ww.backgroundFlush()
	if ww.stage == stageIdle {
		ww.endRound()
	}
}

// endRound counts the round towards hibernation and sleeps.
func (ww *walWriter) endRound() {
	if ww.did {
		ww.left = loopsUntilHibernate
	} else if ww.left > 0 {
		ww.left--
	}
	timeout := ww.cfg.Delay
	if ww.left == 0 && ww.cfg.Version >= 902 {
		timeout *= hibernateFactor
	}
	if ww.latch {
		timeout = 0
	}
	ww.sleepFor(timeout)
}

// backgroundFlush is XLogBackgroundFlush.
func (ww *walWriter) backgroundFlush() {
	w := ww.w
	// LogwrtRqst.Write (advanced by every insert that crosses a page
	// boundary) backed off to the last completed page.
	rqst := w.insert - w.insert%pageSize
	flexible := true
	if rqst <= w.flushed {
		rqst, flexible = w.asyncXactLSN, false
	}
	ww.did = rqst > w.flushed
	if !ww.did {
		return
	}
	now := w.k.Now()
	flush := true
	if ww.cfg.Version >= 906 && ww.cfg.FlushAfter > 0 && ww.everFlushed &&
		now-ww.lastFlush < ww.cfg.Delay && rqst/pageSize-w.flushed/pageSize < ww.cfg.FlushAfter/pageSize {
		flush = false // only write, this time round
	}
	if flush {
		ww.lastFlush, ww.everFlushed = now, true
	}
	ww.rqst, ww.flexible, ww.flush = rqst, flexible, flush
	ww.xlogWrite()
}

// xlogWrite takes the WAL write lock and calls XLogWrite for the round's
// request if WAL is not yet written or flushed that far. A flexible write
// (the whole-page request) writes one contiguous run of WAL buffer pages:
// it stops at the end of the buffer ring or of a segment.
func (ww *walWriter) xlogWrite() {
	w := ww.w
	if ww.rqst <= w.written && (!ww.flush || ww.rqst <= w.flushed) {
		ww.stage = stageIdle
		return
	}
	if w.flushing {
		// A backend's flush holds WALWriteLock: wait for it to end.
		ww.stage = stageLockWait
		w.waiters = append(w.waiters, waiter{upto: w.flushTarget, h: ww, arg: writerResume})
		return
	}
	end := ww.rqst
	if ww.flexible {
		end = min(end, w.contiguousEnd())
	}
	// XLogWrite fsyncs a segment as soon as it wrote the segment's last
	// page (finishing_seg), whatever the round asked.
	finishedSegment := false
	if end > w.written {
		w.Stats.Writes++
		finishedSegment = w.wrote(end) > 0
	}
	if (ww.flush || finishedSegment) && w.flushed < w.written {
		ww.stage = stageFsync
		w.waiters = append(w.waiters, waiter{upto: w.written, h: ww, arg: writerResume})
		w.start(w.written)
		return
	}
	ww.stage = stageIdle
}

// resume continues the round after the lock wait or the fsync.
func (ww *walWriter) resume() {
	if ww.stage == stageLockWait {
		ww.xlogWrite()
		if ww.stage != stageIdle {
			return
		}
	}
	ww.stage = stageIdle
	ww.endRound()
}

// contiguousEnd is where XLogWrite's first run of pages from the first
// unwritten one ends: the last buffer of the ring (XLogRecPtrToBufIdx: a
// page's buffer is its number modulo the ring's pages) or the segment's
// end, whichever comes first.
func (w *WAL) contiguousEnd() int64 {
	first := w.written / pageSize
	end := (first*pageSize/SegmentSize + 1) * SegmentSize
	if n := w.buffers / pageSize; n > 0 {
		end = min(end, (first+n-first%n)*pageSize)
	}
	return end
}

var _ sim.Handler = (*walWriter)(nil)
