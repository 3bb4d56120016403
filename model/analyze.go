package model

import (
	"math"
	"math/rand/v2"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/clog"
	"github.com/pgbufsim/pgbufsim/model/heap"
	"github.com/pgbufsim/pgbufsim/sim"
)

// ANALYZE (src/backend/commands/analyze.c), as a statement, as the second
// half of VACUUM ANALYZE and in autovacuum workers:
//
//   - do_analyze_rel asks each column for its sample size (std_typanalyze:
//     300 x default_statistics_target rows) and acquire_sample_rows draws
//     that many blocks of the table, or all of them (BlockSampler_Init,
//     Knuth's Algorithm S: a uniform sample in block order).
//   - Each sampled block is read with the command's BAS_VACUUM strategy
//     (ReadBufferExtended with vac_strategy: the VACUUM ring), share-locked,
//     and every tuple on it judged by HeapTupleSatisfiesVacuum
//     (heapam_scan_analyze_next_tuple), which sets hint bits as it goes and
//     so may dirty the page; LIVE rows are sampled (Vitter's reservoir),
//     DEAD and RECENTLY_DEAD ones and LP_DEAD items counted as dead. No
//     pruning.
//   - From 14 it advises the kernel of the blocks maintenance_io_concurrency
//     ahead (PrefetchBuffer -> posix_fadvise WILLNEED); from 17 it reads
//     through a read stream (block_sampling_read_stream_next,
//     READ_STREAM_MAINTENANCE), which also combines adjacent sampled blocks
//     into one read and advises each read that does not continue the last
//     as one range, unless its I/O is asynchronous (18, io_method worker or
//     io_uring).
//   - An autovacuum worker's ANALYZE sleeps at vacuum_delay_point like its
//     VACUUM.
//   - It then computes each column's statistics from the sample
//     (compute_scalar_stats: a sort per column), writes them to pg_statistic
//     (update_attstats: an update of the column's row, WAL-logged) and
//     sets pg_class's reltuples and relpages in place (vac_update_relstats;
//     for each index too unless VACUUM just did), then reports the
//     estimated live and dead rows (pgstat_report_analyze: n_live_tup,
//     n_dead_tup, and n_mod_since_analyze back to 0). The estimate is
//     liverows / sampled blocks x blocks.
//
// The model does not check the sample's rows beyond counting them (its
// planner reads reltuples and relpages), and sizes its pg_statistic
// records per column as measured (docs/model.md "ANALYZE").

// analyzeRowsPerTarget is std_typanalyze's 300 rows per statistics target
// ("a reasonable minimum sample size", analyze.c).
const analyzeRowsPerTarget = 300

// walStatisticRecord is the XLOG_HEAP_HOT_UPDATE of a column's
// pg_statistic row whose statistics did not change: heap_update logs only
// the bytes between the common prefix and suffix of the old and new
// tuples (heapam.c log_heap_update: XLH_UPDATE_PREFIX_FROM_OLD,
// XLH_UPDATE_SUFFIX_FROM_OLD), 76 bytes. A column whose histogram was
// drawn anew logs it: 4 bytes a bound, target + 1 bounds of a 4-byte key
// (measured on PostgreSQL 15 with pg_waldump: 479 bytes at target 100,
// 120 at 10, for an integer key; a constant text column 76 whatever the
// sample; pgbench_accounts' bid and abalance 157 and 281, which the model
// takes as unchanged).
const walStatisticRecord = 76

// walStatisticKeyRecord is the record of the key column's row when its
// statistics changed.
func walStatisticKeyRecord(target int) int64 { return walStatisticRecord + 4*int64(target+1) }

// A never-analyzed table's first ANALYZE inserts its pg_statistic rows:
// XLOG_HEAP_INSERT of the whole tuple (measured 310 bytes for a constant
// text column, 564-byte rows for an integer key at target 100: about 54
// bytes of headers and the row), and an XLOG_BTREE_INSERT_LEAF of 64 for
// each row's index entry.
const (
	walStatisticInsertOther = 310
	walBtreeInsertLeaf      = 64
)

func walStatisticInsert(target int) int64 { return 54 + 160 + 4*int64(target+1) }

// analyzeSampleBlocks appends to out the blocks acquire_sample_rows reads
// of a table of nblocks blocks for a sample of targrows rows: all of them
// when the table has no more blocks than that, otherwise targrows blocks
// chosen by Knuth's Algorithm S (utils/misc/sampling.c BlockSampler_Next),
// in ascending order.
func analyzeSampleBlocks(rng *rand.Rand, out []int32, nblocks int32, targrows int) []int32 {
	N, n := int64(nblocks), int64(targrows)
	for t, m := int64(0), int64(0); t < N && m < n; m++ {
		K, k := N-t, n-m
		if k < K {
			v := rng.Float64()
			p := 1 - float64(k)/float64(K)
			for v < p {
				t++
				K--
				p *= 1 - float64(k)/float64(K)
			}
		}
		out = append(out, int32(t))
		t++
	}
	return out
}

// analyzeRNG is the block sampler's random stream (the server seeds it
// from pg_prng per ANALYZE; the model draws every ANALYZE's blocks from
// one stream of its own, so that an ANALYZE perturbs no other draw).
func (e *engine) analyzeRNG() *rand.Rand {
	if e.anRNG == nil {
		e.anRNG = sim.NewStream(uint64(e.sc.Seed), e.sc.Replicate, "analyze/blocks")
	}
	return e.anRNG
}

// analyzePrefetches reports whether ANALYZE advises the kernel of the
// blocks ahead (14+, maintenance_io_concurrency > 0), which it does
// through its read stream from 17 unless the stream's I/O is
// asynchronous.
func (b *backend) analyzePrefetches() bool {
	e := b.e
	if e.ver < 1400 || e.sc.Server.MaintenanceIOConcurrency <= 0 {
		return false
	}
	return !(e.usesReadStream() && b.streamAsync())
}

// analyzeAhead is the last sampled block (its index) to advise when the
// next to read is from: maintenance_io_concurrency blocks ahead
// (acquire_sample_rows' prefetch_maximum); through 17's stream, as many
// reads ahead, within 4 x maintenance_io_concurrency blocks (the stream's
// distance: max_ios reads, max_pinned_buffers).
func (b *backend) analyzeAhead(from int) int {
	mic := b.e.sc.Server.MaintenanceIOConcurrency
	if !b.e.usesReadStream() {
		return from + mic - 1
	}
	runs, i := 0, from
	for ; i < len(b.anBlocks) && i < from+4*mic; i++ {
		if i == from || b.anBlocks[i-1] != b.anBlocks[i]-1 {
			runs++
			if runs > mic {
				break
			}
		}
	}
	return i - 1
}

// analyzePrefetch is PrefetchBuffer for the sampled blocks up to index
// upto: each one not in shared buffers is advised to the kernel
// (posix_fadvise, priced as the pread it stands for, as pg_prewarm's
// prefetch mode). Measured with strace on PostgreSQL 15: one
// fadvise64(WILLNEED) per sampled block not in shared buffers, even when
// every block is sampled.
func (b *backend) analyzePrefetch(t *table, upto int) {
	e := b.e
	for ; b.anPref < len(b.anBlocks) && b.anPref <= upto; b.anPref++ {
		blk := b.anBlocks[b.anPref]
		gid := e.cat.GID(t.rel, blk)
		if e.usesReadStream() {
			if b.anPref > 0 && b.anBlocks[b.anPref-1] == blk-1 {
				// The stream advises only a read that does not continue
				// the previous one (read_stream_start_pending_read: no
				// READ_BUFFERS_ISSUE_ADVICE for sequential blocks, which
				// the kernel's readahead serves).
				continue
			}
			// The read it starts there: the sampled blocks that follow
			// it without a gap and are not in shared buffers, up to
			// io_combine_limit, advised in one call (StartReadBuffers ->
			// smgrprefetch of the range).
			n := int32(0)
			for i := b.anPref; i < len(b.anBlocks) && n < e.ioCombineBlocks() && b.anBlocks[i] == blk+n && e.pool.Lookup(gid+n) < 0 && e.cat.GID(t.rel, blk+n) == gid+n; i++ {
				n++
			}
			b.cpu += e.costs.BufferHit
			if n > 0 {
				b.cpu += e.costs.OSRead
				e.os.PrefetchRange(gid, n)
			}
			continue
		}
		b.cpu += e.costs.BufferHit
		if e.pool.Lookup(gid) < 0 {
			b.cpu += e.costs.OSRead
			e.os.Prefetch(gid)
		}
	}
}

// execAnalyze is analyze_rel on o.t. Stages 49-62 of b.sub (49: the
// ANALYZE of VACUUM ANALYZE, which keeps VACUUM's strategy); false: b
// blocked.
func (b *backend) execAnalyze(o *op) bool {
	e := b.e
	t := o.t
	s := &e.sc.Server
	if b.sub == 1 || b.sub == 49 {
		// vacuum(): a BAS_VACUUM strategy per command, which VACUUM
		// ANALYZE's two halves share.
		if b.vacring == nil && s.VacuumBufferUsageLimit > 0 {
			b.vacring = e.pool.NewRing(bufpool.Vacuum, int(s.VacuumBufferUsageLimit/8192))
		}
		if b.vacring != nil && b.sub == 1 {
			b.vacring.Reset()
		}
		if b.worker || b.sub == 49 {
			// An autovacuum worker's ANALYZE, and VACUUM ANALYZE's, runs in
			// a transaction of its own whose snapshot, unlike VACUUM's
			// (PROC_IN_VACUUM), holds the horizon back (analyze_rel sets
			// no such flag): a fresh one, whose xmin is no older than the
			// horizon.
			b.takeSnapshot()
			e.x.horizonOK = false
		}
		b.inAnalyze = true
		b.horizon = e.oldestXmin() // GetOldestNonRemovableTransactionId
		b.anBlocks = analyzeSampleBlocks(e.analyzeRNG(), b.anBlocks[:0], t.heap.NBlocks(), analyzeRowsPerTarget*s.DefaultStatisticsTarget)
		b.anNext, b.anPref = 0, 0
		b.anLive, b.anDead = 0, 0
		b.vcost = 0
		b.sub = 51
		if len(b.anBlocks) > 0 {
			if b.analyzePrefetches() {
				b.analyzePrefetch(t, b.analyzeAhead(0))
			}
			if e.usesReadStream() {
				b.scanEnd = b.anBlocks[len(b.anBlocks)-1] + 1
				b.streamBegin(t, b.vacring, streamAnalyze, b.anBlocks[0])
			}
		}
	}
	for b.sub >= 51 && b.sub <= 53 {
		switch b.sub {
		case 51:
			if b.anNext >= len(b.anBlocks) {
				b.sub = 55
				continue
			}
			if b.yield() {
				return false
			}
			b.sub = 52
		case 52:
			blk := b.anBlocks[b.anNext]
			gid := e.cat.GID(t.rel, blk)
			slot, ok := b.readListedBlock(t, blk, e.usesReadStream(), "ANALYZE")
			if !ok {
				return false
			}
			if b.analyzePrefetches() {
				b.analyzePrefetch(t, b.analyzeAhead(b.anNext+1))
			}
			if b.lastMiss {
				b.vcost += s.VacuumCostPageMiss
			} else {
				b.vcost += s.VacuumCostPageHit
			}
			b.analyzePage(t, blk, slot, gid)
			b.releaseBuffer(slot)
			b.anNext++
			b.sub = 51
			if b.vacuumDelayPoint(53) {
				return false
			}
		case 53: // back from vacuum_delay_point's sleep
			b.wakeAt = 0
			b.sub = 51
		}
	}
	if b.sub == 55 {
		// compute_scalar_stats per column over the sample.
		rows := min(b.anLive, int64(analyzeRowsPerTarget*s.DefaultStatisticsTarget))
		b.cpu += rows * int64(max(t.columns, 1)) * e.costs.AnalyzeValue
		b.sub = 56
	}
	if b.sub == 56 {
		// update_attstats: each column's pg_statistic row updated (HOT)
		// on the table's pg_statistic page, one catalog cache
		// invalidation each. The key column's histogram is new unless the
		// sample held every row of a table unchanged since the last
		// ANALYZE.
		b.assignXid()
		ncol := int64(max(t.columns, 1))
		targrows := int64(analyzeRowsPerTarget * s.DefaultStatisticsTarget)
		key := int64(walStatisticRecord)
		if b.anLive > targrows || len(b.anBlocks) < int(t.heap.NBlocks()) || t.modSinceAnalyze > 0 {
			key = walStatisticKeyRecord(s.DefaultStatisticsTarget)
		}
		other := int64(walStatisticRecord)
		if !t.analyzed {
			// The first ANALYZE inserts the rows (heap_insert: the whole
			// tuple) and their pg_statistic_relid_att_inh_index entries.
			key, other = walStatisticInsert(s.DefaultStatisticsTarget), walStatisticInsertOther
		}
		if s.SystemCatalogs {
			// An update stays on the table's page (HOT); new rows go to
			// the page with free space at pg_statistic's end and their
			// entries to a leaf of its index.
			page := analyzeStatisticPage(t)
			if !t.analyzed {
				page = analyzeStatisticInsertPage
			}
			gid := e.cat.GID(e.db.sysCatalog, page)
			slot, ok := b.readBuffer(gid, nil, false, true)
			if !ok {
				return false
			}
			b.modify(slot, gid, key)
			b.modifyN(slot, gid, ncol-1, other)
			b.releaseBuffer(slot)
			b.sub = 57
		} else {
			b.cpu += ncol * e.costs.WALRecord
			b.walInsert(1, key, 0)
			if ncol > 1 {
				b.walInsert(ncol-1, other, 0)
			}
			if !t.analyzed {
				b.cpu += ncol * e.costs.WALRecord
				b.walInsert(ncol, walBtreeInsertLeaf, 0)
			}
			b.invals += int(ncol)
			b.sub = 58
		}
	}
	if b.sub == 57 {
		// The new rows' index entries (never-analyzed table).
		if !t.analyzed {
			gid := e.cat.GID(e.db.sysCatalog, analyzeStatisticLeafPage)
			slot, ok := b.readBuffer(gid, nil, false, true)
			if !ok {
				return false
			}
			b.modifyN(slot, gid, int64(max(t.columns, 1)), walBtreeInsertLeaf)
			b.releaseBuffer(slot)
		}
		b.invals += max(t.columns, 1)
		b.sub = 58
	}
	if b.sub == 58 {
		// visibilitymap_count: every page of the visibility map, with
		// no strategy.
		b.fsmGids = e.appendVMPages(t, b.fsmGids[:0])
		b.touched = 0
		b.sub = 59
	}
	if b.sub == 59 {
		if !b.touchPages(b.fsmGids, e.costs.FSMPage) {
			return false
		}
		nb := t.heap.NBlocks()
		tuples, dead := int64(0), int64(0)
		if m := len(b.anBlocks); m > 0 {
			scale := float64(nb) / float64(m)
			tuples = int64(math.Floor(float64(b.anLive)*scale + 0.5))
			dead = int64(math.Floor(float64(b.anDead)*scale + 0.5))
		}
		// vac_update_relstats writes pg_class's row in place only when a
		// value changed: the table's, and its index's unless VACUUM has
		// just done it (each with two catalog cache invalidations and a
		// relation cache one).
		if tuples != t.reltuples || int64(nb) != t.relpages || !t.analyzed {
			n := int64(1)
			if t.pkey != nil && o.kind == opAnalyze {
				n++
			}
			b.cpu += n * e.costs.WALRecord
			b.walInsert(n, b.inplaceRecord(), 0)
			b.invals += 3 * int(n)
		}
		// pgstat_report_analyze.
		t.reltuples, t.relpages, t.deadTuples = tuples, int64(nb), dead
		t.relallvisible = int64(t.heap.AllVisibleCount()) // do_analyze_rel: visibilitymap_count
		t.modSinceAnalyze = 0
		t.analyzed, t.relstats = true, true
		if c := e.relCounter(t.rel); b.worker {
			c.autoanalyzes++
		} else {
			c.analyzes++
		}
		b.inAnalyze = false
		if b.worker || o.kind == opVacuum {
			b.releaseSnapshot() // the horizon may rise again
		}
		b.sub = 62
	}
	return true
}

// appendVMPages appends every page of t's visibility map, as
// visibilitymap_count reads them (VACUUM's end, ANALYZE).
func (e *engine) appendVMPages(t *table, out []int32) []int32 {
	for v := range e.cat.Rel(t.vm).NBlocks {
		out = append(out, e.cat.GID(t.vm, v))
	}
	return out
}

// readListedBlock reads blk of t, one of a known list of blocks the
// command reads with its VACUUM ring (ANALYZE's sample, VACUUM's second
// heap pass): through its read stream when stream, else ReadBufferExtended
// with the strategy. b.lastMiss tells whether the block was read. false:
// b blocked (call again).
func (b *backend) readListedBlock(t *table, blk int32, stream bool, what string) (int32, bool) {
	if stream {
		slot, miss, ok := b.streamNextBlock(t, blk, false, what)
		b.lastMiss = miss
		return slot, ok
	}
	return b.readBuffer(b.e.cat.GID(t.rel, blk), b.vacring, false, false)
}

// analyzeStatisticPage is the catalog page that holds t's pg_statistic
// rows: one of the core pages, shared by tables analyzed one after the
// other (measured on PostgreSQL 15: a two-column table's rows take 564
// and 279 bytes, so a page holds about nine such tables'; the model puts
// four tables on a page, pgbench's having four to six columns).
func analyzeStatisticPage(t *table) int32 {
	first := catalogConnPages + catalogRelPages + (prewarmKindBit+2)*catalogKindPages
	return int32((first + (t.ord/statisticTablesPerPage)%catalogKindPages) * catalogStride % catalogCorePages)
}

const statisticTablesPerPage = 4

// The core pages that stand for pg_statistic's last page, where a
// never-analyzed table's rows are inserted, and for the leaf of
// pg_statistic_relid_att_inh_index their entries go to.
var (
	analyzeStatisticInsertPage = int32((catalogConnPages + catalogRelPages + (prewarmKindBit+3)*catalogKindPages - 1) * catalogStride % catalogCorePages)
	analyzeStatisticLeafPage   = int32((catalogConnPages + catalogRelPages + (prewarmKindBit+3)*catalogKindPages - 2) * catalogStride % catalogCorePages)
)

// catalogPageHole is the free space of a pg_statistic page, which its
// full-page image leaves out: ANALYZE's first update of one after a
// checkpoint logged 6.6 to 7.0 kB on PostgreSQL 15 (pg_waldump). On 18.3
// the same statement of the differential test logged 3.4 kB with its
// other records, an image of about 2.7 kB: a new 18 cluster's pg_statistic
// page where a new table's rows go holds 3.4 kB less
// (catalogPageHole18).
const (
	catalogPageHole   = 1500
	catalogPageHole18 = 4900
)

// walFPIStatisticLeaf is the record of the first new entry on
// pg_statistic_relid_att_inh_index's rightmost leaf after a checkpoint,
// with its image: the leaf is mostly empty (measured 933 and 1053 bytes).
const walFPIStatisticLeaf = 1000

// analyzePage is heapam_scan_analyze_next_tuple over every tuple of blk:
// HeapTupleSatisfiesVacuum judges each (setting its hint bits), live
// tuples are counted (and sampled), dead ones and LP_DEAD items counted
// as dead; tuples whose inserter is still running are not counted.
func (b *backend) analyzePage(t *table, blk, slot, gid int32) {
	e := b.e
	h := t.heap
	// HeapTupleSatisfiesVacuum per tuple; the page's access is priced
	// by the buffer manager (measured on PostgreSQL 15: a warm ANALYZE
	// costs 1.8 us per page of 58 tuples besides its statistics).
	b.cpu += int64(h.Tuples(blk)) * e.costs.VacuumTuple
	b.hintForVacuum(t, blk, slot, gid)
	b.anDead += int64(h.DeadItems(blk))
	var buf [1]heap.Group
	for _, g := range h.Groups(blk, &buf) {
		n := int64(g.N())
		frozen := g.Hints&heap.Frozen == heap.Frozen
		switch {
		case !frozen && g.Hints&heap.XminInvalid != 0:
			b.anDead += n // inserted by an aborted transaction: DEAD
		case !frozen && g.Hints&heap.XminCommitted == 0:
			// INSERT_IN_PROGRESS: not counted (its inserter's own
			// statistics will count it), unless it is ours.
			if g.Xmin == b.xid && b.xid != 0 {
				b.anLive += n
			}
		case g.Xmax == 0 || g.Hints&heap.XmaxInvalid != 0:
			b.anLive += n
		case g.Hints&heap.XmaxCommitted != 0:
			b.anDead += n // DEAD or RECENTLY_DEAD
		default:
			// DELETE_IN_PROGRESS: counted live, unless we deleted it.
			if g.Xmax == b.xid && b.xid != 0 {
				b.anDead += n
			} else {
				b.anLive += n
			}
		}
	}
}

// hintForVacuum is HeapTupleSatisfiesVacuum's side effect on blk: every
// tuple whose inserter or deleter has ended gets its hint bits
// (SetHintBits, MarkBufferDirtyHint), judged by the clog once per xid.
func (b *backend) hintForVacuum(t *table, blk, slot, gid int32) {
	e := b.e
	h := t.heap
	changed := false
	var buf [1]heap.Group
	var judged [8]struct {
		xid uint32
		st  clog.Status
	}
	nj := 0
	status := func(xid uint32) clog.Status {
		for _, j := range judged[:nj] {
			if j.xid == xid {
				return j.st
			}
		}
		st := clog.InProgress
		running := false
		for _, x := range e.x.running {
			if x == xid {
				running = true
				break
			}
		}
		b.cpu += e.costs.ProcArrayPerProc * e.numProcs()
		if !running {
			st = b.fetchStatus(xid)
		}
		if nj < len(judged) {
			judged[nj].xid, judged[nj].st = xid, st
			nj++
		}
		return st
	}
	for _, g := range h.Groups(blk, &buf) {
		if g.Hints&(heap.XminCommitted|heap.XminInvalid) == 0 {
			if status(g.Xmin) != clog.InProgress {
				changed = true
			}
		}
		if g.Xmax != 0 && g.Hints&(heap.XmaxCommitted|heap.XmaxInvalid) == 0 {
			if status(g.Xmax) != clog.InProgress {
				changed = true
			}
		}
	}
	if !changed {
		e.foldSettled(t, blk)
		return
	}
	// hint is the bit SetHintBits sets for xid's outcome: committed (when
	// its commit record is flushed, canSetCommitHint) or invalid.
	hint := func(xid uint32, committed, invalid uint8) uint8 {
		switch status(xid) {
		case clog.Committed:
			if e.canSetCommitHint(xid, slot) {
				return committed
			}
		case clog.Aborted:
			return invalid
		}
		return 0
	}
	h.SetGroupHints(blk, func(g heap.Group) uint8 {
		var bits uint8
		if g.Hints&(heap.XminCommitted|heap.XminInvalid) == 0 {
			bits |= hint(g.Xmin, heap.XminCommitted, heap.XminInvalid)
		}
		if g.Xmax != 0 && g.Hints&(heap.XmaxCommitted|heap.XmaxInvalid) == 0 {
			bits |= hint(g.Xmax, heap.XmaxCommitted, heap.XmaxInvalid)
		}
		if bits != 0 {
			e.vis.hintBitsSet += int64(g.N())
		}
		return bits
	})
	if e.pool.Flags[slot]&bufpool.Dirty == 0 {
		b.vcost += e.sc.Server.VacuumCostPageDirty
	}
	b.markDirtyHint(slot, gid)
	e.foldSettled(t, blk)
}
