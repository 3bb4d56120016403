package wal

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/sim"
)

// The WAL writer (walwriter.c WalWriterMain; xlog.c XLogBackgroundFlush and
// XLogSetAsyncXactLSN; docs/model.md "WAL writer").

func writerAt(t *testing.T, version int, ringPages int64) (*sim.Kernel, *WAL) {
	t.Helper()
	k := sim.NewKernel()
	w := New(k, walDevice(t, k))
	w.SetBuffers(ringPages * pageSize)
	w.StartWriter(WriterConfig{Delay: 200 * sim.Millisecond, FlushAfter: 1 << 20, Version: version})
	return k, w
}

// bulkInsert inserts pages of WAL, a page every millisecond, as a backend
// does: each insert writes the buffer pages it must reuse itself
// (AdvanceXLInsertBuffer). It returns the pages the backend wrote.
func bulkInsert(k *sim.Kernel, w *WAL, pages int) int64 {
	var wrote int64
	for range pages {
		w.Insert(usableInPage)
		p, _ := w.WriteFullBuffers()
		wrote += p
		k.RunUntil(k.Now() + sim.Millisecond)
	}
	return wrote
}

// An asynchronous commit's record, less than a page: the writer's next
// round finds no whole page, falls back to asyncXactLSN and writes and
// fsyncs it (its first fsync: lastflush is 0). No asynchronous commit, no
// flush: a synchronous workload's partial page is left to its commits.
func TestWALWriterFlushesAsyncCommit(t *testing.T) {
	k, w := writerAt(t, 1500, 64)
	w.Insert(500)
	k.RunUntil(sim.Second)
	if w.FlushedLSN() != 0 || w.Stats.Flushes != 0 {
		t.Fatalf("the writer flushed %d bytes of a partial page nobody committed asynchronously", w.FlushedLSN())
	}
	lsn := w.Insert(100)
	w.SetAsyncXactLSN(lsn) // awake, no whole page: no wake-up before 17
	k.RunUntil(sim.Second + 199*sim.Millisecond)
	if w.FlushedLSN() != 0 {
		t.Fatalf("flushed before the writer's next round")
	}
	k.RunUntil(sim.Second + 202*sim.Millisecond)
	if w.FlushedLSN() != lsn || w.Stats.Flushes != 1 {
		t.Fatalf("flushed to %d with %d flushes after the round, want %d and 1", w.FlushedLSN(), w.Stats.Flushes, lsn)
	}
}

// XLogBackgroundFlush backs off to the last whole page, and fsyncs only if
// wal_writer_delay has passed since its last fsync or wal_writer_flush_after
// is unflushed; otherwise it only writes.
func TestWALWriterWritesWholePagesAndFlushesByTimeOrVolume(t *testing.T) {
	k, w := writerAt(t, 1500, 1024)
	k.RunUntil(100 * sim.Millisecond)
	w.InsertN(7, usableInPage/2) // 3.5 pages
	k.RunUntil(202 * sim.Millisecond)
	if w.FlushedLSN() != 3*pageSize || w.written != 3*pageSize {
		t.Fatalf("first round: flushed %d, written %d; want both at the third page's end %d", w.FlushedLSN(), w.written, 3*pageSize)
	}
	// Two more pages by the next round (at 400 ms plus the first fsync's
	// 1.3 ms): wal_writer_delay has passed since that fsync, so it fsyncs
	// again.
	w.InsertN(4, usableInPage/2)
	k.RunUntil(450 * sim.Millisecond)
	if w.FlushedLSN() != 5*pageSize {
		t.Fatalf("second round: flushed %d, want %d", w.FlushedLSN(), 5*pageSize)
	}
	flushes := w.Stats.Flushes
	// A writer woken early (an asynchronous commit while a whole page is
	// unflushed) within wal_writer_delay of its fsync, with less than
	// wal_writer_flush_after waiting: it writes and does not fsync.
	lsn := w.InsertN(2, usableInPage)
	w.SetAsyncXactLSN(lsn)
	k.RunUntil(k.Now() + sim.Millisecond)
	if w.Stats.Flushes != flushes || w.written < 6*pageSize || w.FlushedLSN() != 5*pageSize {
		t.Fatalf("early round: %d new flushes, written %d, flushed %d; want a write to at least %d and no fsync", w.Stats.Flushes-flushes, w.written, w.FlushedLSN(), 6*pageSize)
	}
	// wal_writer_flush_after (1 MB = 128 pages) waiting: fsync at once.
	lsn = w.InsertN(130, usableInPage)
	w.SetAsyncXactLSN(lsn)
	k.RunUntil(k.Now() + 20*sim.Millisecond)
	if w.Stats.Flushes != flushes+1 || w.FlushedLSN() < 130*pageSize {
		t.Fatalf("a megabyte unflushed: %d new flushes, flushed %d; want one fsync past %d", w.Stats.Flushes-flushes, w.FlushedLSN(), 130*pageSize)
	}
}

// After 50 rounds without work the writer sleeps 25 delays at a time, and a
// bulk insert does not wake it: the backend writes every WAL buffer page
// it reuses itself. An awake writer writes some of them first. An
// asynchronous commit wakes the sleeping writer at once.
func TestWALWriterHibernatesAndAsyncCommitWakesIt(t *testing.T) {
	k, w := writerAt(t, 1500, 64)
	k.RunUntil(9*sim.Second + 900*sim.Millisecond)
	if w.writer.sleeping {
		t.Fatalf("advertised sleeping after 49 rounds")
	}
	k.RunUntil(10*sim.Second + sim.Millisecond)
	if !w.writer.sleeping || w.writer.left != 0 {
		t.Fatalf("not hibernating after 50 idle rounds (left %d)", w.writer.left)
	}
	k.RunUntil(11 * sim.Second)
	// 400 pages of records reach into page 400 (the first page's long
	// header): the backend writes pages 0-336 of them.
	wrote := bulkInsert(k, w, 400)
	if wrote != 401-64 || w.Stats.BuffersFull != uint64(wrote) || w.Stats.Flushes != 0 {
		t.Fatalf("the backend wrote %d pages of 401 with a 64-page ring (%d flushes), want 337 and none: the writer sleeps", wrote, w.Stats.Flushes)
	}
	lsn := w.Insert(100)
	now := k.Now()
	w.SetAsyncXactLSN(lsn)
	k.RunUntil(now + 10*sim.Millisecond)
	if w.Stats.Flushes == 0 {
		t.Fatalf("an asynchronous commit did not wake the hibernating writer")
	}

	// The same insert with the writer awake (1 s after its start).
	k2, w2 := writerAt(t, 1500, 64)
	k2.RunUntil(sim.Second)
	if wrote2 := bulkInsert(k2, w2, 400); wrote2 >= 337-8 || w2.Stats.Flushes == 0 {
		t.Fatalf("with the writer awake the backend wrote %d pages (%d flushes), want fewer than 329: a round inside the insert writes a run of pages first", wrote2, w2.Stats.Flushes)
	}
}

// A flexible write (the whole-page request) is one run of contiguous
// buffer pages: it stops at the ring's last buffer (XLogWrite's set ends
// where curridx == XLogCacheBlck).
func TestWALWriterWriteStopsAtRingEnd(t *testing.T) {
	k, w := writerAt(t, 1500, 8)
	k.RunUntil(100 * sim.Millisecond)
	// 13 pages' worth of records (the first page's long header pushes the
	// last into page 13): the backend wrote pages 0-5 itself, whose
	// buffers pages 8-13 took over.
	for range 13 {
		w.Insert(usableInPage)
		_, _ = w.WriteFullBuffers()
	}
	if w.written != 6*pageSize || w.InsertLSN()/pageSize != 13 {
		t.Fatalf("backend wrote up to %d with the insert at %d, want %d and page 13", w.written, w.InsertLSN(), 6*pageSize)
	}
	k.RunUntil(250 * sim.Millisecond)
	// The run from page 5 ends at buffer 7: page 7's end.
	if w.FlushedLSN() != 8*pageSize {
		t.Fatalf("the writer's run ended at %d, want %d (the ring's end)", w.FlushedLSN(), 8*pageSize)
	}
}

// From 17 an awake writer is woken by an asynchronous commit only when
// wal_writer_flush_after is unflushed; before 17 a whole page is enough.
// Either way a sleeping writer is woken.
func TestWALWriterWakeRuleByVersion(t *testing.T) {
	for _, c := range []struct {
		version int
		woken   bool
	}{{1500, true}, {1600, true}, {1700, false}, {1800, false}} {
		k, w := writerAt(t, c.version, 1024)
		k.RunUntil(sim.Second + 50*sim.Millisecond) // awake, between rounds
		lsn := w.InsertN(3, usableInPage)
		w.SetAsyncXactLSN(lsn)
		k.RunUntil(sim.Second + 60*sim.Millisecond)
		if woken := w.Stats.Flushes > 0; woken != c.woken {
			t.Errorf("version %d: writer woken by 3 unflushed pages: %v, want %v", c.version, woken, c.woken)
		}
	}
}

// A clean restart: the shutdown checkpoint flushes every inserted byte (one
// write and one fsync, counted), and a new writer process starts awake,
// its hibernation count and last fsync reset: its first round comes one
// wal_writer_delay later, not at the end of the old one's long sleep.
func TestWALWriterRestart(t *testing.T) {
	k, w := writerAt(t, 1500, 64)
	k.RunUntil(11 * sim.Second) // hibernating: the next round at 15.2 s
	if !w.writer.sleeping {
		t.Fatalf("not hibernating before the restart")
	}
	lsn := w.Insert(500)
	w.Restart()
	if w.FlushedLSN() != lsn || w.written != lsn || w.Stats.Flushes != 1 || w.Stats.Writes != 1 {
		t.Fatalf("after the restart: flushed %d, written %d, %d flushes, %d writes; want %d, %d, 1, 1", w.FlushedLSN(), w.written, w.Stats.Flushes, w.Stats.Writes, lsn, lsn)
	}
	if w.writer.sleeping || w.writer.left != loopsUntilHibernate || w.writer.everFlushed {
		t.Fatalf("the new writer is not fresh: sleeping %v, left %d, flushed before %v", w.writer.sleeping, w.writer.left, w.writer.everFlushed)
	}
	// An asynchronous commit's partial page: an awake writer is not woken
	// (before 17), its next round, 200 ms after the restart, flushes it.
	now := k.Now()
	lsn = w.Insert(100)
	w.SetAsyncXactLSN(lsn)
	k.RunUntil(now + 199*sim.Millisecond)
	if w.FlushedLSN() == lsn {
		t.Fatalf("flushed before the new writer's first round")
	}
	k.RunUntil(now + 210*sim.Millisecond)
	if w.FlushedLSN() != lsn {
		t.Fatalf("the new writer's first round (200 ms after the restart) did not flush: flushed %d, want %d", w.FlushedLSN(), lsn)
	}
}
