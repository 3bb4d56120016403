package wal

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model/storage"
	"github.com/pgbufsim/pgbufsim/sim"
)

// XLogInsert / XLogFlush semantics (src/backend/access/transam/xlog.c;
// docs/model.md): a flush writes
// everything inserted so far, so committers that queue while a flush is
// running share the next one (group commit); a flush request already
// covered returns at once. The WAL writer's rules are in
// walwriter_rules_test.go.

type woken struct {
	k     *sim.Kernel
	times []int64
}

func (w *woken) OnEvent(int64) { w.times = append(w.times, w.k.Now()) }

// walDevice: sequential 8 kB page 100 us, fdatasync 1 ms, no jitter.
func walDevice(t *testing.T, k *sim.Kernel) *storage.Device {
	t.Helper()
	d, err := storage.New(k, "wal", storage.Params{Channels: 1, ReadTime: sim.Millisecond, WriteTime: sim.Millisecond, SeqTime: 100 * sim.Microsecond, FlushTime: sim.Millisecond}, sim.NewStream(1, 0, "wal"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Ten backends have inserted their commit records when the first calls
// XLogFlush: that flush writes up to the insert position and covers all
// ten. Ten more commit while it runs: they all wait for it, then share a
// single second flush. 20 commits, 2 flushes.
func TestGroupCommitSharesFlushes(t *testing.T) {
	k := sim.NewKernel()
	w := New(k, walDevice(t, k))
	first := &woken{k: k}
	var lsns []int64
	for i := 0; i < 10; i++ {
		lsns = append(lsns, w.Insert(34))
	}
	for i, lsn := range lsns {
		if w.Flush(lsn, first, 0) {
			t.Fatalf("commit %d: WAL reported flushed before any flush", i)
		}
	}
	if w.Stats.Flushes != 1 {
		t.Fatalf("%d flushes started for 10 simultaneous commits, want 1", w.Stats.Flushes)
	}
	k.RunUntil(500 * sim.Microsecond) // the flush (100 us + 1 ms) is still running
	second := &woken{k: k}
	for i := 0; i < 10; i++ {
		w.Flush(w.Insert(34), second, 0)
	}
	k.Run()
	if w.Stats.Flushes != 2 {
		t.Fatalf("%d flushes for 20 commits in two waves, want 2", w.Stats.Flushes)
	}
	flush := int64(1100 * sim.Microsecond)
	for _, at := range first.times {
		if at != flush {
			t.Fatalf("first wave woke at %v, want all at %d", first.times, flush)
		}
	}
	if len(second.times) != 10 || second.times[0] != 2*flush {
		t.Fatalf("second wave woke at %v, want 10 at %d (after the running flush, one more)", second.times, 2*flush)
	}
	// 20 records of 34 bytes, each MAXALIGNed to 40, after the segment's
	// 40-byte long page header.
	if w.FlushedLSN() != w.InsertLSN() || w.FlushedLSN() != 40+20*40 || w.Stats.Bytes != 20*34 {
		t.Fatalf("flushed %d, inserted %d, wal_bytes %d; want LSN 840 and 680 bytes", w.FlushedLSN(), w.InsertLSN(), w.Stats.Bytes)
	}
	// Already durable: XLogFlush returns at once, no device request.
	if !w.Flush(100, second, 0) || w.NeedsFlush(680) || w.Stats.Flushes != 2 {
		t.Fatalf("flush of an already durable LSN started I/O or waited")
	}
}

// A flush writes the bytes since the previous flush as sequential pages,
// then fdatasync: 3 records of 8000 bytes = 3 pages (300 us) + 1 ms.
func TestFlushWritesInsertedBytes(t *testing.T) {
	k := sim.NewKernel()
	w := New(k, walDevice(t, k))
	var lsn int64
	for i := 0; i < 3; i++ {
		lsn = w.Insert(8000)
	}
	done := &woken{k: k}
	w.Flush(lsn, done, 0)
	k.Run()
	if done.times[0] != 1300*sim.Microsecond {
		t.Fatalf("flush of 24000 bytes took %d ns, want 1.3 ms", done.times[0])
	}
}

// XLogCheckpointNeeded is asked in XLogWrite when a segment's last page
// is written (finishing_seg), with that segment's number: OnSegment fires
// once per segment finished, by a backend's write of a full WAL buffer,
// by a flush or by the WAL writer, never at the insert that enters a new
// segment.
func TestOnSegmentWhenASegmentIsWritten(t *testing.T) {
	k := sim.NewKernel()
	w := New(k, walDevice(t, k))
	var segs []int64
	w.OnSegment = func(s int64) { segs = append(segs, s) }
	for w.InsertLSN() < 3*SegmentSize+100 {
		w.Insert(8240)
	}
	if len(segs) != 0 {
		t.Fatalf("segments reported %v before any write, want none", segs)
	}
	w.Flush(w.InsertLSN(), nil, 0)
	if len(segs) != 3 || segs[0] != 0 || segs[1] != 1 || segs[2] != 2 {
		t.Fatalf("segments reported %v by the flush's write, want [0 1 2]", segs)
	}
	k.RunUntil(k.Now() + sim.Second)
	// A backend's own writes of full WAL buffers finish segment 3.
	w.SetBuffers(512 * pageSize)
	for w.InsertLSN() < 5*SegmentSize {
		w.Insert(usableInPage)
		_, _ = w.WriteFullBuffers()
	}
	if len(segs) != 4 || segs[3] != 3 {
		t.Fatalf("segments reported %v after the backend's writes, want [0 1 2 3] (segment 4's last page still in the buffers)", segs)
	}
}

// The LSN is a position in the log's files (xlog.c ReserveXLogInsertLocation
// and XLogBytePosToEndRecPtr): records MAXALIGNed, a 24-byte header at
// every 8 kB page's start and a 40-byte one at a segment's; wal_bytes
// (pg_stat_wal) counts the records' own lengths. pg_waldump over a
// PostgreSQL 15 pgbench run agrees: the LSN distance was wal_bytes plus
// the records' alignment plus 24 bytes a page and 40 a segment, exactly.
func TestLSNCountsAlignmentAndPageHeaders(t *testing.T) {
	k := sim.NewKernel()
	w := New(k, walDevice(t, k))
	// The first page holds 8152 usable bytes: 1019 records of 8.
	var lsn int64
	for range 1019 {
		lsn = w.Insert(5)
	}
	if lsn != 8192 || w.Stats.Bytes != 1019*5 {
		t.Fatalf("a full first page ends at %d (wal_bytes %d), want 8192 (5095)", lsn, w.Stats.Bytes)
	}
	if lsn = w.Insert(8); lsn != 8192+24+8 {
		t.Fatalf("the next record ends at %d, want 8224 after the second page's header", lsn)
	}
	// A record of 20000 bytes spans pages: two more headers inside it.
	if lsn = w.Insert(20000); lsn != 8224+20000+2*24 {
		t.Fatalf("a 20000-byte record ends at %d, want %d", lsn, 8224+20000+2*24)
	}
	// Up to the segment's end, then into the next one (its long header).
	w2 := New(k, walDevice(t, k))
	w2.InsertN(1, usableInSegment)
	if w2.InsertLSN() != SegmentSize {
		t.Fatalf("a segment's usable bytes end at %d, want %d", w2.InsertLSN(), SegmentSize)
	}
	if lsn = w2.Insert(16); lsn != SegmentSize+40+16 {
		t.Fatalf("the next segment's first record ends at %d, want %d", lsn, SegmentSize+40+16)
	}
}

// wal_buffers as XLOGChooseNumBuffers and check_wal_buffers size it:
// -1 is shared_buffers/32, at least 8 pages and at most a segment; a set
// value is whole pages, at least 4.
func TestChooseBuffers(t *testing.T) {
	for _, c := range []struct{ setting, shared, want int64 }{
		{-8192, 128 << 20, 4 << 20},
		{-8192, 32 << 20, 1 << 20},
		{-8192, 1 << 20, 64 << 10},
		{-8192, 8 << 30, SegmentSize},
		{8192, 128 << 20, 32 << 10},
		{0, 128 << 20, 32 << 10},
		{1 << 20, 128 << 20, 1 << 20},
	} {
		if got := ChooseBuffers(c.setting, c.shared); got != c.want {
			t.Errorf("wal_buffers %d with shared_buffers %d: %d bytes, want %d", c.setting, c.shared, got, c.want)
		}
	}
}

// XLogWrite fsyncs a segment as soon as it wrote the segment's last page
// (finishing_seg, issue_xlog_fsync), in the process that wrote it: a
// backend whose full WAL buffers make it write that page is told to sync
// the segment, and the sync writes nothing more (the pages after the
// segment stay in the buffers, for the next backend that needs them).
// Measured on PostgreSQL 15 with 512 WAL buffers: an INSERT whose own
// writes crossed one segment boundary made 2 fsyncs (wal_sync), one that
// crossed two 3, and four 5 or 6 (with the commit's, and a WAL writer
// round in the longer statement).
func TestFinishedSegmentIsFsyncedByItsWriter(t *testing.T) {
	k := sim.NewKernel()
	w := New(k, walDevice(t, k))
	w.SetBuffers(512 * pageSize)
	segPages := int64(SegmentSize / pageSize)
	var syncs []int64
	for range segPages + 600 {
		w.Insert(usableInPage)
		if _, to := w.WriteFullBuffers(); to != 0 {
			syncs = append(syncs, to)
		}
	}
	if len(syncs) != 1 || syncs[0] != SegmentSize || w.written <= SegmentSize {
		t.Fatalf("segment syncs %v with WAL written to %d, want one at the segment's end (%d), given when the write reached it", syncs, w.written, SegmentSize)
	}
	written, writes := w.written, w.Stats.Writes
	var done woken
	done.k = k
	if w.SyncSegment(syncs[0], &done, 0) {
		t.Fatal("the segment was durable before its sync")
	}
	k.RunUntil(k.Now() + sim.Second)
	if len(done.times) != 1 || w.FlushedLSN() != SegmentSize || w.written != written || w.Stats.Writes != writes || w.Stats.Flushes != 1 {
		t.Errorf("after the sync: woken %d times, flushed to %d, written %d (was %d), writes %d (was %d), flushes %d; want once, the segment's end, nothing more written, 1 flush",
			len(done.times), w.FlushedLSN(), w.written, written, w.Stats.Writes, writes, w.Stats.Flushes)
	}
	if !w.SyncSegment(SegmentSize, nil, 0) {
		t.Error("a second sync of a durable segment waits")
	}
}
