// Package wal models PostgreSQL's write-ahead log as a byte counter (the
// LSN) with XLogInsert and XLogFlush semantics (src/backend/access/transam/
// xlog.c):
//
//   - Insert appends a record and returns its end LSN;
//   - Flush(upto) makes the WAL durable up to upto. If no flush is in
//     progress, one starts at once and writes everything inserted so far
//     (XLogFlush writes up to the current insert position, which is what
//     makes group commit work: committers that inserted their records
//     while a flush was running share the next one);
//   - a data page may be written only after WAL is flushed up to the page's
//     LSN (FlushBuffer's XLogFlush, the WAL-before-data rule).
//
// A flush is one device request: the bytes since the last flush written
// sequentially, then a cache flush (fdatasync).
//
// The LSN counts what the log's files hold: each record MAXALIGNed
// (ReserveXLogInsertLocation) and every 8 kB WAL page's header
// (XLogBytePosToEndRecPtr: 24 bytes, 40 on a segment's first page), so
// segments fill, and max_wal_size's checkpoints come, as in PostgreSQL;
// Stats.Bytes is pg_stat_wal's wal_bytes, the records' own lengths.
package wal

import (
	"github.com/pgbufsim/pgbufsim/model/storage"
	"github.com/pgbufsim/pgbufsim/sim"
)

// SegmentSize is the WAL segment size (16 MB, the initdb default).
const SegmentSize = 16 << 20

// The WAL page layout (xlog_internal.h): XLOG_BLCKSZ pages, each starting
// with XLogPageHeaderData (SizeOfXLogShortPHD), a segment's first with
// XLogLongPageHeaderData (SizeOfXLogLongPHD).
const (
	pageSize        = 8192
	shortPageHeader = 24
	longPageHeader  = 40
	usableInPage    = pageSize - shortPageHeader
	usableInFirst   = pageSize - longPageHeader
	usableInSegment = (SegmentSize/pageSize-1)*usableInPage + usableInFirst
	maxAlign        = 8
)

// endRecPtr is XLogBytePosToEndRecPtr: the LSN at which pos usable bytes
// end (a position at a page's end is not moved past the next header).
func endRecPtr(pos int64) int64 {
	seg, left := pos/usableInSegment, pos%usableInSegment
	var off int64
	switch {
	case left == 0:
	case left < usableInFirst:
		off = left + longPageHeader
	default:
		left -= usableInFirst
		off = pageSize + left/usableInPage*pageSize
		if rest := left % usableInPage; rest > 0 {
			off += rest + shortPageHeader
		}
	}
	return seg*SegmentSize + off
}

// Stats are cumulative WAL counters (pg_stat_wal names where they exist).
type Stats struct {
	Records uint64
	Bytes   int64
	Flushes uint64 // device flushes (fdatasync calls)
	FPI     uint64 // full-page images for data changes
	FPIHint uint64 // full-page images for hint bits (XLOG_FPI_FOR_HINT)
	// BuffersFull counts WAL buffer pages an inserting backend found not
	// yet written and wrote itself (pg_stat_wal's wal_buffers_full, 14+);
	// Writes the write() calls of WAL, a flush's and each of those
	// (wal_write).
	BuffersFull uint64
	Writes      uint64
}

// WAL is the log.
type WAL struct {
	k   *sim.Kernel
	dev *storage.Device

	insert, flushed int64
	// written is what has been written to the kernel (LogwrtResult.Write):
	// at least flushed, and a flush writes its range when it starts.
	written int64
	// buffers is wal_buffers in bytes (SetBuffers; 0: unbounded).
	buffers     int64
	bytePos     int64 // usable bytes reserved so far (CurrBytePos)
	flushing    bool
	flushTarget int64
	waiters     []waiter
	// asyncXactLSN is the end of the latest asynchronous commit's or
	// abort's WAL (XLogCtl->asyncXactLSN, XLogSetAsyncXactLSN).
	asyncXactLSN int64
	writer       *walWriter
	// lastImportantPos is the usable-byte position (CurrBytePos) at which
	// the last record not marked unimportant began (GetLastImportantRecPtr:
	// XLOG_MARK_UNIMPORTANT records, such as the standby snapshots, do not
	// count); -1: none yet. LastImportant converts it to an LSN.
	lastImportantPos int64

	// OnSegment, if set, is called with a segment's number when its last
	// page is written (XLogWrite's finishing_seg, where PostgreSQL asks
	// XLogCheckpointNeeded: the checkpointer's hook).
	OnSegment func(segment int64)

	Stats Stats
}

type waiter struct {
	upto int64
	h    sim.Handler
	arg  int64
}

// New creates an empty log on dev.
func New(k *sim.Kernel, dev *storage.Device) *WAL {
	return &WAL{k: k, dev: dev, lastImportantPos: -1}
}

// SetBuffers sets wal_buffers, in bytes (whole pages; 0: unbounded).
func (w *WAL) SetBuffers(bytes int64) { w.buffers = bytes / pageSize * pageSize }

// ChooseBuffers is wal_buffers in bytes for the setting (bytes; negative
// is -1, auto) and shared_buffers (bytes): auto is shared_buffers/32
// between 64 kB and a segment (xlog.c XLOGChooseNumBuffers); a set value
// of fewer than 4 pages is 4 pages (check_wal_buffers).
func ChooseBuffers(setting, sharedBuffers int64) int64 {
	if setting >= 0 {
		return max(setting/pageSize, 4) * pageSize
	}
	return min(max(sharedBuffers/pageSize/32, 8), SegmentSize/pageSize) * pageSize
}

// WriteFullBuffers is AdvanceXLInsertBuffer's part in an insert that just
// ended at the insert position: the WAL buffers are a ring of wal_buffers
// pages, and a page can take new WAL only once the page wal_buffers
// earlier, whose buffer it reuses, is written. The inserting backend
// writes what is not (XLogWrite, no fsync), a page at a time (each
// AdvanceXLInsertBuffer call asks for the one page it needs). It returns
// the pages written, for the caller to pay their write() calls, and
// syncTo, the end of the last segment whose last page this write wrote
// (0 if none, or if it is durable already): XLogWrite fsyncs a segment
// as soon as its last page is written (finishing_seg: issue_xlog_fsync),
// in the process that wrote it, which waits for it (SyncSegment).
func (w *WAL) WriteFullBuffers() (pages, syncTo int64) {
	if w.buffers <= 0 || w.insert == 0 {
		return 0, 0
	}
	// The last inserted byte's page needs the buffer of the page
	// wal_buffers earlier written out up to its end.
	need := ((w.insert-1)/pageSize+1)*pageSize - w.buffers
	if need <= w.written {
		return 0, 0
	}
	pages = (need - w.written + pageSize - 1) / pageSize
	if end := w.wrote(need); end > w.flushed {
		syncTo = end
	}
	w.Stats.BuffersFull += uint64(pages)
	w.Stats.Writes += uint64(pages)
	return pages, syncTo
}

// SyncSegment makes WAL durable up to end, the end of a segment already
// written (XLogWrite's fsync of a segment it finished writing: only the
// fsync, no further write). It returns true if that is already so;
// otherwise h.OnEvent(arg) fires once it is.
func (w *WAL) SyncSegment(end int64, h sim.Handler, arg int64) bool {
	if end <= w.flushed {
		return true
	}
	w.waiters = append(w.waiters, waiter{upto: end, h: h, arg: arg})
	if !w.flushing {
		w.start(min(end, w.written))
	}
	return false
}

// InsertLSN is the current end of WAL.
func (w *WAL) InsertLSN() int64 { return w.insert }

// FlushedLSN is the durable end of WAL.
func (w *WAL) FlushedLSN() int64 { return w.flushed }

// Insert appends a record of the given size and returns its end LSN.
func (w *WAL) Insert(bytes int64) int64 { return w.InsertN(1, bytes) }

// InsertN appends n records of the given size each, as n calls of Insert
// would, and returns the last one's end LSN.
func (w *WAL) InsertN(n, bytes int64) int64 {
	if n > 0 {
		// The last record begins where the one before it ends.
		w.lastImportantPos = w.bytePos + (n-1)*maxAligned(bytes)
	}
	return w.insertN(n, bytes)
}

// InsertUnimportant appends a record marked XLOG_MARK_UNIMPORTANT: it does
// not count as activity for GetLastImportantRecPtr (idle checkpoints are
// skipped, standby snapshots not repeated).
func (w *WAL) InsertUnimportant(bytes int64) int64 { return w.insertN(1, bytes) }

// LastImportant is GetLastImportantRecPtr: where the last important
// record began, -1 if there is none (at a page boundary: where the
// previous record ended, as InsertLSN was before it).
func (w *WAL) LastImportant() int64 {
	if w.lastImportantPos < 0 {
		return -1
	}
	return endRecPtr(w.lastImportantPos)
}

// maxAligned is a record's size MAXALIGNed (ReserveXLogInsertLocation).
func maxAligned(bytes int64) int64 { return (bytes + maxAlign - 1) &^ (maxAlign - 1) }

func (w *WAL) insertN(n, bytes int64) int64 {
	w.bytePos += n * maxAligned(bytes)
	w.insert = endRecPtr(w.bytePos)
	w.Stats.Records += uint64(n)
	w.Stats.Bytes += n * bytes
	return w.insert
}

// wrote advances the written position to end (XLogWrite's write()s):
// each segment whose last page that wrote is finished, and OnSegment is
// told its number. It returns the end of the last segment finished, 0 if
// none was.
func (w *WAL) wrote(end int64) (finished int64) {
	from := w.written
	w.written = end
	for seg := from / SegmentSize; (seg+1)*SegmentSize <= end; seg++ {
		finished = (seg + 1) * SegmentSize
		if w.OnSegment != nil {
			w.OnSegment(seg)
		}
	}
	return finished
}

// NeedsFlush reports whether WAL up to lsn is not yet durable
// (XLogNeedsFlush).
func (w *WAL) NeedsFlush(lsn int64) bool { return lsn > w.flushed }

// Flush makes WAL durable up to upto. It returns true if that is already
// so; otherwise h.OnEvent(arg) fires once it is.
func (w *WAL) Flush(upto int64, h sim.Handler, arg int64) bool {
	if upto <= w.flushed {
		return true
	}
	w.waiters = append(w.waiters, waiter{upto: upto, h: h, arg: arg})
	if !w.flushing {
		w.start(w.insert)
	}
	return false
}

// start begins a flush of everything up to target (XLogWrite with a flush
// request): what is not yet written is written, then fdatasync.
func (w *WAL) start(target int64) {
	w.flushing = true
	w.flushTarget = target
	w.Stats.Flushes++
	if w.flushTarget > w.written {
		// XLogWrite writes what is not yet written (one write() of the
		// contiguous pages), then fsyncs.
		w.Stats.Writes++
		w.wrote(w.flushTarget)
	}
	w.dev.SubmitSized(w.flushTarget-w.flushed, true, w, 0)
}

// OnEvent completes a flush: wake every waiter it covers and start the next
// flush if someone still waits.
func (w *WAL) OnEvent(int64) {
	w.flushing = false
	w.flushed = w.flushTarget
	keep := w.waiters[:0]
	var pending bool
	for _, wt := range w.waiters {
		if wt.upto <= w.flushed {
			if wt.h != nil {
				w.k.Schedule(w.k.Now(), wt.h, wt.arg)
			}
		} else {
			keep = append(keep, wt)
			pending = true
		}
	}
	clear(w.waiters[len(keep):])
	w.waiters = keep
	if pending {
		// The next waiter's XLogFlush writes up to the insert position.
		w.start(w.insert)
	}
}
