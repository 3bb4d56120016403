package model

// WAL record sizes by release. PostgreSQL 9.5 rewrote the record format
// (src/include/access/xlogrecord.h: a 24-byte XLogRecord, then block
// references naming each page's relation and block); before it
// (src/include/access/xlog.h of 9.1-9.4) a record had a 32-byte header and
// each record type carried its relation and tuple id in its own struct
// (xl_heaptid, 18 bytes). Sizes are the records' own lengths (xl_tot_len,
// what pg_waldump and pg_stat_wal count), for the records pgbench-like
// work writes. From 9.5 on they are the constants and formulas used
// against PostgreSQL 15 (pg_waldump, pg_stat_wal: docs/fidelity.md).
//
// Before 9.5, from the releases' headers (docs/model.md "WAL before 9.5"):
//   - heap_insert: header 32, xl_heap_insert 21 (target xl_heaptid 18,
//     all_visible_cleared / flags), xl_heap_header 5, the tuple's data
//     (t_len less its 23-byte header);
//   - heap_update, new version on the same page (HOT) or another: 9.1 and
//     9.2 log xl_heap_update (28) and the whole new tuple, 9.3 adds the
//     old tuple's xmax and infobits (37); 9.4 compresses a same-page
//     update's tuple to what changed (prefix and suffix, commit a3115f0d:
//     82 bytes for pgbench's rows) and logs xl_heap_update 36 plus
//     xl_heap_header_len 7 for a version on another page;
//   - _bt_insertonpg of an int4 key: header 32, xl_btree_insert 18, the
//     16-byte index tuple;
//   - heap_page_prune's XLOG_HEAP2_CLEAN for one redirect and one unused
//     line pointer: header 32, xl_heap_clean 24, 6 bytes of offsets;
//   - a commit without subtransactions or invalidations: xl_xact_commit
//     (9.1, 32 bytes of body) or xl_xact_commit_compact (9.2-9.4, 12).
//
// DELETE, lock, visible and full-page-image records keep the sizes of the
// newer format in every release.

// walFormat is the record format of the scenario's release.
type walFormat int

const (
	walFormat95 walFormat = iota // 9.5 and later
	walFormat94                  // 9.4
	walFormat93                  // 9.3
	walFormat92                  // 9.2
	walFormat91                  // 9.1 (and older)
)

func walFormatOf(ver int) walFormat {
	switch {
	case ver >= 905:
		return walFormat95
	case ver >= 904:
		return walFormat94
	case ver >= 903:
		return walFormat93
	case ver >= 902:
		return walFormat92
	}
	return walFormat91
}

// old-format building blocks
const (
	walHeader9x      = 32 // XLogRecord before 9.5
	walHeapHeader    = 5  // xl_heap_header
	walHeapInsert9x  = 21 // xl_heap_insert
	walHeapUpdate91  = 28 // xl_heap_update, 9.1-9.2
	walHeapUpdate93  = 37 // xl_heap_update, 9.3
	walHeapUpdate94  = 36 // xl_heap_update, 9.4
	walHeaderLen94   = 7  // xl_heap_header_len, 9.4
	walHOTUpdate94   = 82 // a prefix/suffix-compressed same-page update, 9.4
	walIndexInsert9x = walHeader9x + 18 + 16
	walPrune9x       = walHeader9x + 24
	walHeapTid       = 18 // xl_heaptid: RelFileNode and item pointer
	walCommit91      = walHeader9x + 32
	walCommit92      = walHeader9x + 12
)

// tupleWAL is the new tuple's data as heap_insert and heap_update log it:
// t_len less the 23-byte fixed header.
func (t *table) tupleWAL() int64 { return t.tupleData + 1 }

// walInsertRecord is heap_insert's record for one tuple of t.
func (e *engine) walInsertRecord(t *table) int64 {
	if e.walFmt == walFormat95 {
		// XLogRecord 24, block reference 20, main-data header 2,
		// xl_heap_insert 3, xl_heap_header 5, data.
		return 24 + 20 + 2 + 3 + walHeapHeader + t.tupleWAL()
	}
	return walHeader9x + walHeapInsert9x + walHeapHeader + t.tupleWAL()
}

// walUpdateSamePage is heap_update's record for a new version of t's row
// on the old version's page (a HOT update, or one that fit there).
func (e *engine) walUpdateSamePage(t *table) int64 {
	switch e.walFmt {
	case walFormat95:
		return walUpdate // prefix and suffix compressed (pg_waldump's pgbench average)
	case walFormat94:
		return walHOTUpdate94
	}
	return e.walWholeTupleUpdate(t)
}

// walWholeTupleUpdate is 9.1-9.3's heap_update record on any page: the
// whole new tuple after xl_heap_update and xl_heap_header.
func (e *engine) walWholeTupleUpdate(t *table) int64 {
	update := int64(walHeapUpdate91)
	if e.walFmt == walFormat93 {
		update = walHeapUpdate93
	}
	return walHeader9x + update + walHeapHeader + t.tupleWAL()
}

// walUpdateOtherPage is log_heap_update's record for a new version of t's
// row on another page (one record for both pages; never compressed).
func (e *engine) walUpdateOtherPage(t *table) int64 {
	switch e.walFmt {
	case walFormat95:
		// A second block reference to the same relation (8 bytes),
		// xl_heap_update 14, xl_heap_header 5, the whole tuple's data.
		return 24 + 20 + 8 + 2 + 14 + walHeapHeader + t.tupleWAL()
	case walFormat94:
		return walHeader9x + walHeapUpdate94 + walHeaderLen94 + t.tupleWAL()
	}
	return e.walWholeTupleUpdate(t)
}

// walIndexInsertRecord is a B-tree leaf insertion's record.
func (e *engine) walIndexInsertRecord() int64 {
	if e.walFmt == walFormat95 {
		return walIndexInsert
	}
	return walIndexInsert9x
}

// walPruneRecord is heap_page_prune's record for n tuples removed, of
// kept rows a newer version stays on the page: its fixed part, then an
// offset (2 bytes) per line pointer it changes — the root of each kept
// row's chain becomes a redirect (two offsets), every other removed
// version's line pointer dead or unused (one). 9.5+ (heapam.c
// heap_page_prune, log_heap_clean / XLOG_HEAP2_PRUNE): XLogRecord 24, the
// block reference 20, the main data's header 2 and xl_heap_prune 8; one
// redirected HOT chain of one dead version is 58 bytes, one dead tuple 56,
// as pg_waldump shows them. Before 9.5: the 32-byte header and
// xl_heap_clean's 24 (relation and block in the record).
func (e *engine) walPruneRecord(n, kept int) int64 {
	offsets := int64(2*n + 2*kept)
	if e.walFmt == walFormat95 {
		return walPrune + offsets
	}
	return walPrune9x + offsets
}

// walVacuumRecord is lazy_vacuum_heap_page's record for n line pointers
// marked unused: 9.5+ XLOG_HEAP2_VACUUM (heapam.c, xl_heap_vacuum: its
// 2-byte count, the block reference, the unused offsets: 48 + 2n bytes);
// before 9.5 log_heap_clean's XLOG_HEAP2_CLEAN with only unused offsets.
func (e *engine) walVacuumRecord(n int) int64 {
	if e.walFmt == walFormat95 {
		return walVacuum + int64(2*n)
	}
	return walPrune9x + int64(2*n)
}

// walBtreeVacuumRecord is _bt_delitems_vacuum's record for n entries
// deleted from a leaf: 9.5+ XLOG_BTREE_VACUUM (nbtxlog.h xl_btree_vacuum,
// 4 bytes in 13+, and the deleted offsets: 50 + 2n); before 9.5 the
// 32-byte header and xl_btree_vacuum's relation, block and
// lastBlockVacuumed (20 bytes).
func (e *engine) walBtreeVacuumRecord(n int) int64 {
	if e.walFmt == walFormat95 {
		return walBtreeVacuum + int64(2*n)
	}
	return walHeader9x + 20 + int64(2*n)
}

// walDeleteRecord is heap_delete's XLOG_HEAP_DELETE: 9.5+ 54 bytes
// (xl_heap_delete, 8); 9.3 and 9.4 the 32-byte header and xl_heap_delete
// with its tuple id, xmax, infobits and flag (24); 9.1 and 9.2 the tuple
// id and all_visible_cleared only (19).
func (e *engine) walDeleteRecord() int64 {
	switch e.walFmt {
	case walFormat95:
		return walDelete
	case walFormat91, walFormat92:
		return walHeader9x + walHeapTid + 1
	}
	return walHeader9x + walHeapTid + 6
}

// walLockRecord is XLOG_HEAP_LOCK, which heap_update writes for the old
// tuple before it looks for another page: 9.5+ 54 bytes; 9.3 and 9.4
// xl_heap_lock's tuple id, locking xid and infobits (23); 9.1 and 9.2
// (where the record came with the 2016 point releases that fixed
// heap_update's torn-page risk) the tuple id, xid and two flags (24).
func (e *engine) walLockRecord() int64 {
	switch e.walFmt {
	case walFormat95:
		return walLock
	case walFormat91, walFormat92:
		return walHeader9x + walHeapTid + 6
	}
	return walHeader9x + walHeapTid + 5
}

// walVisibleRecord is visibilitymap_set's XLOG_HEAP2_VISIBLE: 9.5+ 59
// bytes; 9.2-9.4 the 32-byte header and xl_heap_visible (relation, block,
// cutoff xid: 20); 9.1 logs none (0: the VM bit and PD_ALL_VISIBLE are
// set without WAL until 9.2 made the map crash-safe for index-only scans).
func (e *engine) walVisibleRecord() int64 {
	switch e.walFmt {
	case walFormat95:
		return walVisible
	case walFormat91:
		return 0
	}
	return walHeader9x + 20
}

// walCommitRecord is a writer's commit record.
func (e *engine) walCommitRecord() int64 {
	switch e.walFmt {
	case walFormat95:
		return walCommit
	case walFormat91:
		return walCommit91
	}
	return walCommit92
}

// The standby snapshot and the checkpoint's records (measured with
// pg_waldump on 15 and 18.3):
//   - XLOG_RUNNING_XACTS (standby.c LogCurrentRunningXacts): 50 bytes and
//     4 per running xid;
//   - XLOG_CHECKPOINT_ONLINE and _SHUTDOWN (xlog.c CreateCheckPoint): an
//     XLogRecord of 24 bytes, a short data header of 2 and the release's
//     CheckPoint (pg_control.h): 88 bytes from 12 (nextXid a
//     FullTransactionId, with its padding), 80 in 9.5 to 11 (an epoch and
//     an xid), so 114 and 106; before 9.5 a 32-byte header and 72 bytes in
//     9.3 and 9.4 (PrevTimeLineID, oldestMulti and its database added), 64
//     in 9.2 (fullPageWrites added), 56 in 9.1;
//   - XLOG_CHECKPOINT_REDO (17+: an online checkpoint's redo point): 30.
const (
	walRunningXacts       = 50
	walRunningXactsPerXid = 4
	walCheckpointRedo     = 30
)

// walCheckpointRecord is the checkpoint record's size in the scenario's
// release.
func (e *engine) walCheckpointRecord() int64 {
	switch {
	case e.ver >= 1200:
		return 114
	case e.ver >= 905:
		return 106
	case e.ver >= 903:
		return walHeader9x + 72
	case e.ver >= 902:
		return walHeader9x + 64
	}
	return walHeader9x + 56
}

// logStandbySnapshot is LogStandbySnapshot (standby.c) at wal_level
// replica, the default from 10: an XLOG_RUNNING_XACTS record of the
// running transactions, marked unimportant, whose LSN goes to the WAL
// writer (LogCurrentRunningXacts' XLogSetAsyncXactLSN: flushed in due
// time, not waited for). It returns the record's end.
func (e *engine) logStandbySnapshot() int64 {
	lsn := e.wal.InsertUnimportant(walRunningXacts + walRunningXactsPerXid*int64(len(e.x.running)))
	e.wal.SetAsyncXactLSN(lsn)
	return lsn
}

// standbySnapshots reports whether the release logs standby snapshots at
// its default wal_level (replica from 10; minimal before).
func (e *engine) standbySnapshots() bool { return e.ver >= 1000 }
