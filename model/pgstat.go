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
//     transitions), _written (its own writes of dirty victims, plus up to
//     15 every extension, which smgrextend writes at once);
//   - pg_stat_io (16+): per backend type and buffer-access context, hits,
//     reads, extends, writes, evictions (a valid page evicted for another
//     outside a ring) and reuses (a ring's own buffer taken again).

// Backend types of pg_stat_io.
const (
	btClient = iota
	btAutovacuum
	btBgwriter
	btCheckpointer
	nBackendTypes
)

var backendTypeNames = [nBackendTypes]string{"client backend", "autovacuum worker", "background writer", "checkpointer"}

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
}

// relCounters are one relation fork's access counters.
type relCounters struct {
	hits, reads, extends uint64
}

// usageCounters is pgBufferUsage summed over one backend type.
type usageCounters struct {
	hit, read, dirtied, written uint64
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
	if e.ver <= 1500 {
		u.written += extends // smgrextend writes the new page at once
	}
}

// noteDirtied counts a clean-to-dirty transition caused by b.
func (e *engine) noteDirtied(b *backend) { e.stats.usage[b.backendType()].dirtied++ }

// noteBackendWrite counts b's write of a dirty victim.
func (e *engine) noteBackendWrite(b *backend, ctx int) {
	e.stats.io[b.backendType()][ctx].writes++
	e.stats.usage[b.backendType()].written++
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

// IndexStats is one index's row of pg_statio_user_indexes.
type IndexStats struct {
	Relname      string `json:"relname"`
	Indexrelname string `json:"indexrelname"`
	IdxBlksRead  int64  `json:"idx_blks_read"`
	IdxBlksHit   int64  `json:"idx_blks_hit"`
}

// IORow is one row of pg_stat_io (object "relation", op_bytes 8192).
type IORow struct {
	BackendType string `json:"backend_type"`
	Context     string `json:"context"`
	Reads       int64  `json:"reads"`
	Writes      int64  `json:"writes"`
	Extends     int64  `json:"extends"`
	Hits        int64  `json:"hits"`
	Evictions   int64  `json:"evictions"`
	Reuses      int64  `json:"reuses"`
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
		return relCounters{c.hits - b.hits, c.reads - b.reads, c.extends - b.extends}
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
