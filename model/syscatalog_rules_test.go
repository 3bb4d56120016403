package model_test

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// catalogAccesses is what pg_stat_database counts beyond the user
// relations' pg_statio rows: the system catalogs' page accesses.
func catalogAccesses(m model.Metrics) int64 {
	n := m.PGStatDatabase.BlksHit + m.PGStatDatabase.BlksRead
	for _, r := range m.StatioTables {
		n -= r.HeapBlksHit + r.HeapBlksRead + r.IdxBlksHit + r.IdxBlksRead
	}
	return n
}

// docs/model.md "System catalogs": a new connection reads 58 catalog pages
// (InitPostgres), the first use of a relation in a backend 20 for the table
// and 20 for its index (RelationBuildDesc, the planner's lookups), the
// first plan of a statement kind 29 (catalog cache misses); later
// transactions of the same connection none. Each phase's clients are new
// connections. pgbench's built-in scripts add its setup connection's 686.
func TestCatalogAccessesPerConnectionRelationAndStatementKind(t *testing.T) {
	const doc = `name: catalogs
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  relations:
    - {name: t, rows: 10000, index: true}
    - {name: u, rows: 1000}
workload:
  phases:
    - name: one
      transactions: 50
      clients: 3
      script:
        - select: {table: t, key: "random(1, :rows)"}
        - seqscan: u
    - name: two
      transactions: 50
      clients: 2
      script:
        - begin: true
        - update: {table: t, key: "random(1, :rows)"}
        - select: {table: t, key: "random(1, :rows)"}
        - commit: true
`
	r := bhRunYAML(t, doc)
	// Phase one, per client: the connection, t and its index, u, SELECT.
	if got, want := catalogAccesses(bhPhase(t, r, "one").Metrics), int64(3*(58+20+20+20+29)); got != want {
		t.Errorf("phase one: %d catalog accesses, want 3 x (58 + 20 + 20 + 20 + 29) = %d", got, want)
	}
	// buffer_usage is the executor's pgBufferUsage (EXPLAIN's execution
	// line): neither the catalog pages nor the planner's metapage reads of
	// t's index (one per client) are in it.
	one := bhPhase(t, r, "one").Metrics
	var user int64
	for _, s := range one.StatioTables {
		user += s.HeapBlksHit + s.HeapBlksRead + s.IdxBlksHit + s.IdxBlksRead
	}
	if u := one.BufferUsage; u.SharedBlksHit+u.SharedBlksRead != user-3 {
		t.Errorf("phase one: buffer_usage %d hits + %d reads, want the user relations' %d accesses less 3 metapage reads", u.SharedBlksHit, u.SharedBlksRead, user)
	}
	// Phase two, per client: the connection, t and its index, UPDATE, SELECT.
	if got, want := catalogAccesses(bhPhase(t, r, "two").Metrics), int64(2*(58+20+20+29+29)); got != want {
		t.Errorf("phase two: %d catalog accesses, want 2 x (58 + 20 + 20 + 29 + 29) = %d", got, want)
	}
	off := bhRunYAML(t, doc, "server.system_catalogs=false")
	if got := catalogAccesses(off.Totals); got != 0 {
		t.Errorf("system_catalogs: false still reads %d catalog pages", got)
	}
	// A pgbench built-in script: its setup connection, then per client the
	// connection, accounts, tellers, branches (with their indexes) and
	// history, SELECT, UPDATE and INSERT: 285 per client (measured: 284).
	pg := bhRunYAML(t, `name: catalogs-pgbench
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, transactions: 20, clients: 4, script: tpcb-like}
`)
	if got, want := catalogAccesses(pg.Totals), int64(686+4*(58+7*20+3*29)); got != want {
		t.Errorf("pgbench: %d catalog accesses, want 686 + 4 x 285 = %d", got, want)
	}
	// The planner reads each index's metapage once per backend
	// (_bt_getrootheight, cached in rd_amcache): pgbench_tellers is
	// scanned sequentially at scale 1, so its index sees only that.
	meta := int64(-1)
	for _, ix := range pg.Totals.StatioIndexes {
		if ix.Indexrelname == "pgbench_tellers_pkey" {
			meta = ix.IdxBlksHit + ix.IdxBlksRead
		}
	}
	if meta != 4 {
		t.Errorf("pgbench_tellers_pkey: %d accesses; want 4 metapage accesses, one per client", meta)
	}
	// pg_statio_sys is that difference.
	if s, got := pg.Totals.StatioSys, catalogAccesses(pg.Totals); s == nil || s.BlksHit+s.BlksRead != got {
		t.Errorf("pg_statio_sys %+v, want its blocks to sum to the %d catalog accesses", s, got)
	}
	if off.Totals.StatioSys != nil {
		t.Errorf("system_catalogs: false reports pg_statio_sys %+v", off.Totals.StatioSys)
	}
}

// The catalog pages take room in shared buffers: a pool of 64 buffers
// holding a connection's catalog pages keeps fewer of the tables' pages.
func TestCatalogPagesTakeRoomInTheBufferPool(t *testing.T) {
	const doc = `name: catalog-room
server: {shared_buffers: 1MB, autovacuum: false}
tables:
  relations:
    - {name: t, rows: 20000, index: true}
workload:
  phases:
    - {name: warm, warmup: true, transactions: 500, clients: 4, script: [{select: {table: t, key: "random(1, :rows)"}}]}
    - {name: run, transactions: 2000, clients: 4, script: [{select: {table: t, key: "random(1, :rows)"}}]}
`
	with, without := bhRunYAML(t, doc), bhRunYAML(t, doc, "server.system_catalogs=false")
	hit := func(m model.Metrics) float64 {
		for _, r := range m.StatioTables {
			if r.Relname == "t" {
				return float64(r.HeapBlksHit+r.IdxBlksHit) / float64(r.HeapBlksHit+r.IdxBlksHit+r.HeapBlksRead+r.IdxBlksRead)
			}
		}
		return 0
	}
	if a, b := hit(with.Totals), hit(without.Totals); a >= b {
		t.Errorf("table t's hit ratio %.4f with catalog pages, %.4f without: the catalogs should cost it", a, b)
	}
}

// A prewarm stands for a server that has been running the workload: its
// connections have read the catalogs, so the run's new connections find
// every catalog page in shared buffers.
func TestPrewarmReadsTheCatalogs(t *testing.T) {
	const doc = `name: catalog-prewarm
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  pgbench: {scale: 1}
workload:
  prewarm: 1000
  phases:
    - {name: run, transactions: 20, clients: 4, script: tpcb-like}
`
	s := bhRunYAML(t, doc).Totals.StatioSys
	if s == nil || s.BlksHit == 0 || s.BlksRead != 0 {
		t.Errorf("after a prewarm the catalogs gave %+v; want hits only", s)
	}
}

// The catalogs' pages as PostgreSQL 15 lays them out (docs/model.md "System
// catalogs", measured with a reader that touches no buffer): a connection
// touches 24 distinct core pages, a relation's first use ten more shared by
// every relation plus its pg_attribute page (three relations a page), its
// pg_class page (ten a page) and four index leaves (fifty a page), a
// statement kind twelve. After a restart the first connection rebuilds the
// relation cache's init files (relcache.c RelationCacheInitFileRemove):
// 1580 accesses more on 105 core pages; pgbench's setup connection alone
// pays it for a built-in script, and a phase without a restart does not.
func TestCatalogLayoutAndInitFileRebuild(t *testing.T) {
	const doc = `name: catalog-layout
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  relations:
    - {name: s, rows: 100, count: 30}
workload:
  phases:
    - {name: one, transactions: 30, clients: 1, script: [{seqscan: {table: s, pick: cycle}}]}
    - {name: two, transactions: 30, clients: 1, restart: true, script: [{seqscan: {table: s, pick: cycle}}]}
`
	r := bhRunYAML(t, doc)
	resident := func(m model.Metrics) int64 {
		for _, rel := range m.PGBuffercache.Relations {
			if rel.Relname == model.SystemCatalogRelname {
				return rel.Buffers
			}
		}
		return -1
	}
	per := int64(58 + 30*20 + 29) // the connection, 30 relations, SELECT
	one, two := bhPhase(t, r, "one").Metrics, bhPhase(t, r, "two").Metrics
	if got := catalogAccesses(one); got != per {
		t.Errorf("phase one: %d catalog accesses, want %d", got, per)
	}
	if got := catalogAccesses(two); got != per+1580 {
		t.Errorf("phase two, after a restart: %d catalog accesses, want %d + 1580 for the init files", got, per)
	}
	// 24 + 10 + 12 core pages, 10 pg_attribute, 3 pg_class and 4 leaf pages.
	if got := resident(one); got != 24+10+12+10+3+4 {
		t.Errorf("phase one: %d catalog pages in shared buffers, want 63", got)
	}
	// After the restart the rebuild's 105 core pages hold the others' 46.
	if got := resident(two); got != 105+10+3+4 {
		t.Errorf("phase two: %d catalog pages in shared buffers, want 122", got)
	}
	pg := bhRunYAML(t, `name: catalog-init-pgbench
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, transactions: 20, clients: 4, restart: true, script: tpcb-like}
`)
	if got, want := catalogAccesses(pg.Totals), int64(1580+686+4*(58+7*20+3*29)); got != want {
		t.Errorf("pgbench after a restart: %d catalog accesses, want the setup connection's rebuild, 1580 + 686 + 4 x 285 = %d", got, want)
	}
}
