package model

import (
	"sort"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
)

// Statistics as PostgreSQL's views count them, for the run's
// server.version (docs/metrics.md maps each to its view and column):
//
//   - per relation (pg_statio_user_tables, pg_statio_user_indexes): every
//     ReadBufferExtended is "fetched" and, if the page was resident, "hit";
//     the views show hit and fetched - hit as _read (pgstat_relation.c,
//     system_views.sql). A relation's visibility-map and free-space-map
//     forks count into the relation itself (vm_readbuf and fsm_readbuf pass
//     it). Up to 15 a relation extension (P_NEW) is fetched without a hit,
//     so it shows as a read; from 16 extensions bypass the counters
//     (ExtendBufferedRel). pg_stat_database's blks_hit and blks_read are the
//     sums;
//   - per backend (pgBufferUsage: EXPLAIN (BUFFERS), pg_stat_statements):
//     shared_blks_hit, _read (real reads), _dirtied (clean-to-dirty
//     transitions), _written (its own writes of dirty victims, plus every
//     extension: up to 15 smgrextend writes the page at once, from 16
//     ExtendBufferedRelShared counts the pages it extended by);
//   - pg_stat_io (16+): per backend type and buffer-access context, hits,
//     reads, extends, writes, evictions (a valid page evicted for another
//     outside a ring) and reuses (a ring's own buffer taken again).

// Backend types of pg_stat_io.
const (
	btClient = iota
	btAutovacuum
	btBgwriter
	btCheckpointer
	btBgworker
	// btIOWorker is io_method worker's processes (18): PostgreSQL lists
	// their rows, which stay 0 for relation I/O, since the backend that
	// starts a read counts it (bufmgr.c AsyncReadBuffers'
	// pgstat_count_io_op_time) and the worker only performs it.
	btIOWorker
	nBackendTypes
)

var backendTypeNames = [nBackendTypes]string{"client backend", "autovacuum worker", "background writer", "checkpointer", "background worker", "io worker"}

// Buffer-access contexts (IOContextForStrategy).
const (
	ctxNormal = iota
	ctxBulkread
	ctxBulkwrite
	ctxVacuum
	nContexts
)

var contextNames = [nContexts]string{"normal", "bulkread", "bulkwrite", "vacuum"}

func ringContext(r *bufpool.Ring) int {
	if r == nil {
		return ctxNormal
	}
	switch r.Kind {
	case bufpool.BulkRead:
		return ctxBulkread
	case bufpool.BulkWrite:
		return ctxBulkwrite
	case bufpool.Vacuum:
		return ctxVacuum
	}
	return ctxNormal
}

// ioCounters is one pg_stat_io row's buffer counters.
type ioCounters struct {
	hits, reads, extends, writes, evictions, reuses uint64
	// readOps and extendOps are I/O operations: a read of several blocks
	// (a read stream's preadv) or an extension by several pages is one;
	// pg_stat_io counts those from 18, with their bytes
	// (pgstat_count_io_op(..., cnt, bytes)).
	readOps, extendOps uint64
	fsyncs             uint64 // files fsynced (the checkpointer's ProcessSyncRequests)
	// writebacks are the blocks whose writeback was asked for
	// (IssuePendingWritebacks: checkpoint_flush_after,
	// bgwriter_flush_after).
	writebacks uint64
	// readNs, writeNs, extendNs and fsyncNs are the time those I/Os took
	// (pg_stat_io's read_time, write_time, extend_time, fsync_time, 16+;
	// noteIOTime).
	readNs, writeNs, extendNs, fsyncNs int64
}

// relCounters are one relation fork's access counters and, for a table's
// main fork, its row counters (pgstat_count_heap_insert, _update, _delete:
// pg_stat_user_tables' n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del).
type relCounters struct {
	hits, reads, extends  uint64
	ins, upd, hotUpd, del uint64
	// VACUUMs and ANALYZEs completed, by a client or an autovacuum
	// worker (pgstat_report_vacuum, pgstat_report_analyze).
	vacuums, autovacuums, analyzes, autoanalyzes uint64
	// Scans and the tuples they returned and fetched
	// (pgstat_count_heap_scan, pgstat_count_index_scan,
	// pgstat_count_heap_getnext, pgstat_count_index_tuples,
	// pgstat_count_heap_fetch): numscans, tuples_returned, tuples_fetched
	// of pg_stat_get_*; countScan and its siblings say which call counts
	// what on which relation.
	scans, returned, fetched uint64
}

// minus returns c - b, counter by counter.
func (c relCounters) minus(b relCounters) relCounters {
	return relCounters{c.hits - b.hits, c.reads - b.reads, c.extends - b.extends,
		c.ins - b.ins, c.upd - b.upd, c.hotUpd - b.hotUpd, c.del - b.del,
		c.vacuums - b.vacuums, c.autovacuums - b.autovacuums, c.analyzes - b.analyzes, c.autoanalyzes - b.autoanalyzes,
		c.scans - b.scans, c.returned - b.returned, c.fetched - b.fetched}
}

// plus returns c + b, counter by counter.
func (c relCounters) plus(b relCounters) relCounters {
	return relCounters{c.hits + b.hits, c.reads + b.reads, c.extends + b.extends,
		c.ins + b.ins, c.upd + b.upd, c.hotUpd + b.hotUpd, c.del + b.del,
		c.vacuums + b.vacuums, c.autovacuums + b.autovacuums, c.analyzes + b.analyzes, c.autoanalyzes + b.autoanalyzes,
		c.scans + b.scans, c.returned + b.returned, c.fetched + b.fetched}
}

// countSeqScan counts a sequential scan of t beginning (heapam.c initscan:
// pgstat_count_heap_scan for SO_TYPE_SEQSCAN only: neither ANALYZE's
// sample nor a bitmap heap scan counts): pg_stat_user_tables.seq_scan.
func (e *engine) countSeqScan(t *table) { e.relCounter(t.rel).scans++ }

// countSeqTuples counts n tuples a sequential scan of t returned, the
// visible ones (heapgettup_pagemode's, pgstat_count_heap_getnext):
// seq_tup_read.
func (e *engine) countSeqTuples(t *table, n int) { e.relCounter(t.rel).returned += uint64(n) }

// countIndexScan counts a scan of t's key index beginning (nbtsearch.c
// _bt_first's pgstat_count_index_scan, before it descends): an index or
// index-only scan, a bitmap index scan, and each of the planner's probes
// of the key's ends (get_actual_variable_endpoint is an index scan).
// pg_stat_user_indexes.idx_scan, summed into pg_stat_user_tables'.
func (e *engine) countIndexScan(t *table) { e.relCounter(t.pkey.rel).scans++ }

// countIndexTuples counts n index entries a scan of t's key returned
// (indexam.c index_getnext_tid, one each; index_getbitmap, the bitmap's
// TIDs): idx_tup_read. Entries marked dead (LP_DEAD) are not returned.
func (e *engine) countIndexTuples(t *table, n int) { e.relCounter(t.pkey.rel).returned += uint64(n) }

// countIndexFetch counts a tuple index_fetch_heap found visible through
// t's key index (pgstat_count_heap_fetch on the index): idx_tup_fetch.
// An index-only scan's entries on all-visible pages fetch nothing.
func (e *engine) countIndexFetch(t *table) { e.relCounter(t.pkey.rel).fetched++ }

// countBitmapFetch counts a tuple a bitmap heap scan of t returned
// (heapam_scan_bitmap_next_tuple's pgstat_count_heap_fetch, on the
// table): pg_stat_user_tables.idx_tup_fetch adds the table's own to its
// indexes'.
func (e *engine) countBitmapFetch(t *table) { e.relCounter(t.rel).fetched++ }

// countTuples counts rows inserted, updated (hot of them HOT) and deleted
// in table t, as heap_insert, heap_update and heap_delete call
// pgstat_count_heap_insert, pgstat_count_heap_update and
// pgstat_count_heap_delete (pgstat_relation.c): per tuple, whether the
// transaction commits or not.
func (e *engine) countTuples(t *table, ins, upd, hot, del int64) {
	c := e.relCounter(t.rel)
	c.ins += uint64(ins)
	c.upd += uint64(upd)
	c.hotUpd += uint64(hot)
	c.del += uint64(del)
}

// usageCounters is pgBufferUsage and pgWalUsage summed over one backend
// type.
type usageCounters struct {
	hit, read, dirtied, written uint64
	walRecords, walFPI          uint64
	walBytes                    int64
	// readNs and writeNs are pgBufferUsage's blk_read_time and
	// blk_write_time (17: shared_blk_read_time, shared_blk_write_time);
	// readUs and writeUs the same I/Os as pg_stat_database adds them, in
	// whole microseconds per I/O (noteIOTime).
	readNs, writeNs int64
	readUs, writeUs int64
}

// pgStats holds the run's cumulative statistics.
type pgStats struct {
	rel   []relCounters // by catalog.RelID
	io    [nBackendTypes][nContexts]ioCounters
	usage [nBackendTypes]usageCounters
}

func (b *backend) backendType() int {
	if b.worker {
		return btAutovacuum
	}
	if b.apw {
		return btBgworker
	}
	return btClient
}

func (e *engine) relCounter(rel catalog.RelID) *relCounters {
	for int(rel) >= len(e.stats.rel) {
		e.stats.rel = append(e.stats.rel, relCounters{})
	}
	return &e.stats.rel[rel]
}

// noteAccess counts a backend's ReadBuffer outcomes on gid: hits, reads
// and extensions (ctx is the access's buffer-access context).
func (e *engine) noteAccess(b *backend, gid int32, hits, reads, extends uint64, ctx int) {
	rel, _ := e.cat.Locate(gid)
	rc := e.relCounter(rel)
	rc.hits += hits
	rc.reads += reads
	rc.extends += extends
	bt := b.backendType()
	io := &e.stats.io[bt][ctx]
	io.hits += hits
	io.reads += reads
	io.extends += extends
	if b.catalogWork {
		// Catalog lookups (and the planner's index metapage reads)
		// happen while connecting and planning: EXPLAIN shows them as
		// "Planning: Buffers", not in the execution's pgBufferUsage
		// that buffer_usage mirrors.
		return
	}
	u := &e.stats.usage[bt]
	u.hit += hits
	u.read += reads
	// An extension counts as written: up to 15 smgrextend writes the new
	// page at once; from 16 ExtendBufferedRelShared adds every page it
	// extended by (pgBufferUsage.shared_blks_written += extend_by),
	// written or fallocated.
	u.written += extends
}

// walInsert appends n WAL records of bytes each for b (XLogInsert in b's
// process), with fpi full-page images among them, and counts them in b's
// pgWalUsage; it returns the end LSN.
func (b *backend) walInsert(n, bytes int64, fpi uint64) int64 {
	e := b.e
	lsn := e.wal.InsertN(n, bytes)
	b.xactLastRecEnd = lsn
	b.writeFullWALBuffers()
	u := &e.stats.usage[b.backendType()]
	u.walRecords += uint64(n)
	u.walFPI += fpi
	u.walBytes += n * bytes
	return lsn
}

// writeFullWALBuffers pays the write() calls of the WAL buffer pages b
// had to write itself to insert its record (xlog.c AdvanceXLInsertBuffer:
// the WAL buffers are full), each a pwrite of a page into the OS cache.
// A write that finished a segment leaves b to fsync it (XLogWrite's
// finishing_seg) before it goes on: advance waits for it.
func (b *backend) writeFullWALBuffers() {
	if pages, syncTo := b.e.wal.WriteFullBuffers(); pages > 0 {
		b.cpu += pages * b.e.costs.OSWrite
		b.walSegmentSync = max(b.walSegmentSync, syncTo)
	}
}

// noteDirtied counts a clean-to-dirty transition caused by b.
func (e *engine) noteDirtied(b *backend) { e.stats.usage[b.backendType()].dirtied++ }

// noteBackendWrite counts b's write of a dirty victim.
func (e *engine) noteBackendWrite(b *backend, ctx int) {
	e.stats.io[b.backendType()][ctx].writes++
	e.stats.usage[b.backendType()].written++
}

// I/O operations whose time PostgreSQL tracks (IOOp).
const (
	ioRead = iota
	ioWrite
	ioExtend
	ioFsync
)

// noteIOTime counts the time d (ns) of one I/O of kind op by a process of
// backend type bt in buffer-access context ctx, as PostgreSQL does with
// track_io_timing on: the I/O's system call is timed around it (smgrread
// in ReadBuffer_common, smgrreadv in WaitReadBuffers (17), smgrwrite in
// FlushBuffer, smgrextend / smgrzeroextend, the checkpointer's fsync in
// ProcessSyncRequests) and added (pgstat_count_io_op_time, 16+) to
// pg_stat_io's time of the op; reads and writes also to pgBufferUsage's
// blk_read_time / blk_write_time (EXPLAIN's "I/O Timings",
// pg_stat_statements) and to pg_stat_database's, which adds whole
// microseconds per I/O (pgstat_count_buffer_read_time(
// INSTR_TIME_GET_MICROSEC(io_time))). From 17 an extension's time counts
// as write time there too; up to 15 extensions are not timed at all.
// Fsyncs count in pg_stat_io only. The I/O of a connection's or a plan's
// catalog lookups (planning) is left out of pgBufferUsage as their
// buffers are (noteAccess: EXPLAIN shows them under "Planning"), and
// counted in the views.
func (e *engine) noteIOTime(bt, ctx, op int, d int64, planning bool) {
	if d <= 0 {
		return
	}
	io := &e.stats.io[bt][ctx]
	u := &e.stats.usage[bt]
	var usage *int64 // pgBufferUsage's time, unless planning
	switch op {
	case ioRead:
		io.readNs += d
		u.readUs += d / 1000
		usage = &u.readNs
	case ioWrite:
		io.writeNs += d
		u.writeUs += d / 1000
		usage = &u.writeNs
	case ioExtend:
		io.extendNs += d
		if e.ver >= 1700 {
			u.writeUs += d / 1000
			usage = &u.writeNs
		}
	case ioFsync:
		io.fsyncNs += d
	}
	if usage != nil && !planning {
		*usage += d
	}
}

// noteIOTime counts one of b's I/Os (engine.noteIOTime).
func (b *backend) noteIOTime(ctx, op int, d int64) {
	b.e.noteIOTime(b.backendType(), ctx, op, d, b.catalogWork)
}

// RelationStats is one relation's row of pg_statio_user_tables.
type RelationStats struct {
	Relname       string `json:"relname"`
	HeapBlksRead  int64  `json:"heap_blks_read"`
	HeapBlksHit   int64  `json:"heap_blks_hit"`
	IdxBlksRead   int64  `json:"idx_blks_read"`
	IdxBlksHit    int64  `json:"idx_blks_hit"`
	ToastBlksRead int64  `json:"toast_blks_read"`
	ToastBlksHit  int64  `json:"toast_blks_hit"`
	TidxBlksRead  int64  `json:"tidx_blks_read"`
	TidxBlksHit   int64  `json:"tidx_blks_hit"`
}

// TableStats is one relation's row of pg_stat_user_tables: rows
// inserted, updated (HOT ones among them) and deleted, counted per tuple
// by the heap access method whether the transaction commits or not; the
// VACUUMs and ANALYZEs completed by clients and by autovacuum; and, as
// they stand at the end of the phase, the estimates autovacuum decides
// by.
type TableStats struct {
	Relname          string `json:"relname"`
	NTupIns          int64  `json:"n_tup_ins"`
	NTupUpd          int64  `json:"n_tup_upd"`
	NTupDel          int64  `json:"n_tup_del"`
	NTupHotUpd       int64  `json:"n_tup_hot_upd"`
	VacuumCount      int64  `json:"vacuum_count"`
	AutovacuumCount  int64  `json:"autovacuum_count"`
	AnalyzeCount     int64  `json:"analyze_count"`
	AutoanalyzeCount int64  `json:"autoanalyze_count"`
	// NDeadTup, NModSinceAnalyze and NInsSinceVacuum are gauges: the
	// values at the end of the phase (of the run, in the totals).
	NDeadTup         int64 `json:"n_dead_tup"`
	NModSinceAnalyze int64 `json:"n_mod_since_analyze"`
	NInsSinceVacuum  int64 `json:"n_ins_since_vacuum"`
	// SeqScan and SeqTupRead are the sequential scans begun on the table
	// and the tuples they returned; IdxScan and IdxTupFetch the scans of
	// its indexes and the live tuples fetched through them (and by
	// bitmap heap scans), absent for a table without an index (NULL in
	// the view).
	SeqScan     int64  `json:"seq_scan"`
	SeqTupRead  int64  `json:"seq_tup_read"`
	IdxScan     *int64 `json:"idx_scan,omitempty"`
	IdxTupFetch *int64 `json:"idx_tup_fetch,omitempty"`
}

// IndexScanStats is one index's row of pg_stat_user_indexes: the scans of
// it begun, the entries they returned, the live tuples fetched through
// them.
type IndexScanStats struct {
	Relname      string `json:"relname"`
	Indexrelname string `json:"indexrelname"`
	IdxScan      int64  `json:"idx_scan"`
	IdxTupRead   int64  `json:"idx_tup_read"`
	IdxTupFetch  int64  `json:"idx_tup_fetch"`
}

// RelationSize is a relation's size in 8 kB pages at the end of the
// phase (or of the run, in the totals), fork by fork, as
// pg_relation_size(rel, fork) / 8192 reports it: main, and for a table its
// free space map and visibility map forks (0 until they exist).
type RelationSize struct {
	Relname string `json:"relname"`
	Kind    string `json:"kind"` // "table" or "index"
	Main    int64  `json:"main"`
	FSM     int64  `json:"fsm"`
	VM      int64  `json:"vm"`
}

// IndexStats is one index's row of pg_statio_user_indexes.
type IndexStats struct {
	Relname      string `json:"relname"`
	Indexrelname string `json:"indexrelname"`
	IdxBlksRead  int64  `json:"idx_blks_read"`
	IdxBlksHit   int64  `json:"idx_blks_hit"`
}

// userTableStats is pg_stat_user_tables' row counters from the per-relation
// counter difference rel, in relname order.
func (e *engine) userTableStats(rel []relCounters) []TableStats {
	var ts []TableStats
	for _, t := range e.db.tables {
		var c relCounters
		if int(t.rel) < len(rel) {
			c = rel[t.rel]
		}
		st := TableStats{Relname: t.name, NTupIns: int64(c.ins), NTupUpd: int64(c.upd), NTupDel: int64(c.del), NTupHotUpd: int64(c.hotUpd),
			VacuumCount: int64(c.vacuums), AutovacuumCount: int64(c.autovacuums), AnalyzeCount: int64(c.analyzes), AutoanalyzeCount: int64(c.autoanalyzes),
			NDeadTup: t.deadTuples, NModSinceAnalyze: t.modSinceAnalyze, NInsSinceVacuum: t.insSinceVacuum,
			SeqScan: int64(c.scans), SeqTupRead: int64(c.returned)}
		if t.pkey != nil {
			var ix relCounters
			if int(t.pkey.rel) < len(rel) {
				ix = rel[t.pkey.rel]
			}
			scans, fetched := int64(ix.scans), int64(ix.fetched+c.fetched)
			st.IdxScan, st.IdxTupFetch = &scans, &fetched
		}
		ts = append(ts, st)
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Relname < ts[j].Relname })
	return ts
}

// userIndexStats is pg_stat_user_indexes from the per-relation counter
// difference rel, in indexrelname order.
func (e *engine) userIndexStats(rel []relCounters) []IndexScanStats {
	var is []IndexScanStats
	for _, t := range e.db.tables {
		if t.pkey == nil {
			continue
		}
		var c relCounters
		if int(t.pkey.rel) < len(rel) {
			c = rel[t.pkey.rel]
		}
		is = append(is, IndexScanStats{Relname: t.name, Indexrelname: t.pkey.name, IdxScan: int64(c.scans), IdxTupRead: int64(c.returned), IdxTupFetch: int64(c.fetched)})
	}
	sort.SliceStable(is, func(i, j int) bool { return is[i].Indexrelname < is[j].Indexrelname })
	return is
}

// relationSizes is every user relation's size now, tables then indexes,
// each in relname order.
func (e *engine) relationSizes() []RelationSize {
	blocks := func(rel catalog.RelID) int64 { return int64(e.cat.Rel(rel).NBlocks) }
	var tables, indexes []RelationSize
	for _, t := range e.db.tables {
		tables = append(tables, RelationSize{Relname: t.name, Kind: "table", Main: blocks(t.rel), FSM: blocks(t.fsm.rel), VM: blocks(t.vm)})
		if t.pkey != nil {
			indexes = append(indexes, RelationSize{Relname: t.pkey.name, Kind: "index", Main: blocks(t.pkey.rel)})
		}
	}
	byName := func(a []RelationSize) {
		sort.SliceStable(a, func(i, j int) bool { return a[i].Relname < a[j].Relname })
	}
	byName(tables)
	byName(indexes)
	return append(tables, indexes...)
}

// IORow is one row of pg_stat_io (object "relation"). Up to 17 reads,
// writes and extends count blocks (op_bytes 8192); from 18 they count
// I/O operations (a read stream's vectored read, an extension by several
// pages is one) and read_bytes, write_bytes and extend_bytes the bytes.
type IORow struct {
	BackendType string `json:"backend_type"`
	Context     string `json:"context"`
	Reads       int64  `json:"reads"`
	Writes      int64  `json:"writes"`
	Extends     int64  `json:"extends"`
	Hits        int64  `json:"hits"`
	Evictions   int64  `json:"evictions"`
	Reuses      int64  `json:"reuses"`
	// Fsyncs are the files fsynced: the checkpointer's, one per relation
	// file it wrote since the previous checkpoint (ProcessSyncRequests);
	// backends hand theirs to it. The model syncs a relation as one file.
	Fsyncs int64 `json:"fsyncs"`
	// Writebacks are the blocks whose writeback the checkpointer and the
	// background writer asked the kernel to start (sync_file_range, every
	// checkpoint_flush_after / bgwriter_flush_after writes:
	// IssuePendingWritebacks). Their writeback_time is not given: the
	// model's sync_file_range returns at once.
	Writebacks int64 `json:"writebacks"`
	// ReadTime, WriteTime, ExtendTime and FsyncTime are the time (ms)
	// those I/Os took, as with track_io_timing on (noteIOTime).
	ReadTime    float64 `json:"read_time"`
	WriteTime   float64 `json:"write_time"`
	ExtendTime  float64 `json:"extend_time"`
	FsyncTime   float64 `json:"fsync_time"`
	ReadBytes   *int64  `json:"read_bytes,omitempty"`
	WriteBytes  *int64  `json:"write_bytes,omitempty"`
	ExtendBytes *int64  `json:"extend_bytes,omitempty"`
}

// fetched returns what pgstat counts for a fork as (hit, read): extensions
// are fetched without a hit up to 15, and not counted from 16.
func (e *engine) fetched(c relCounters) (hit, read int64) {
	hit, read = int64(c.hits), int64(c.reads)
	if e.ver <= 1500 {
		read += int64(c.extends)
	}
	return hit, read
}

// relationStats folds per-fork counter differences (cur - base) into the
// statio views: heap, vm and fsm forks into the table's heap_blks, its
// primary key into idx_blks.
func (e *engine) relationStats(cur, base []relCounters) ([]RelationStats, []IndexStats) {
	diff := func(rel catalog.RelID) relCounters {
		var c, b relCounters
		if int(rel) < len(cur) {
			c = cur[rel]
		}
		if int(rel) < len(base) {
			b = base[rel]
		}
		return c.minus(b)
	}
	var rs []RelationStats
	var is []IndexStats
	for _, t := range e.db.tables {
		r := RelationStats{Relname: t.name}
		for _, f := range []catalog.RelID{t.rel, t.vm, t.fsm.rel} {
			h, rd := e.fetched(diff(f))
			r.HeapBlksHit += h
			r.HeapBlksRead += rd
		}
		if t.pkey != nil {
			h, rd := e.fetched(diff(t.pkey.rel))
			r.IdxBlksHit, r.IdxBlksRead = h, rd
			is = append(is, IndexStats{Relname: t.name, Indexrelname: t.pkey.name, IdxBlksRead: rd, IdxBlksHit: h})
		}
		rs = append(rs, r)
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Relname < rs[j].Relname })
	sort.SliceStable(is, func(i, j int) bool { return is[i].Indexrelname < is[j].Indexrelname })
	return rs, is
}
