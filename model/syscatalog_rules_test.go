package model_test

import (
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// catalogAccesses is what pg_stat_database counts beyond the user
// relations' pg_statio rows: the system catalogs' page accesses.
func catalogAccesses(m model.Metrics) int64 {
	n := m.PGStatDatabase.BlksHit + m.PGStatDatabase.BlksRead
	if s := m.PGStatDatabaseShared; s != nil {
		n += s.BlksHit + s.BlksRead
	}
	for _, r := range m.StatioTables {
		n -= r.HeapBlksHit + r.HeapBlksRead + r.IdxBlksHit + r.IdxBlksRead
	}
	return n
}

// sharedAccesses is pg_stat_database's row for shared objects: its blocks.
func sharedAccesses(m model.Metrics) int64 {
	if s := m.PGStatDatabaseShared; s != nil {
		return s.BlksHit + s.BlksRead
	}
	return 0
}

// docs/model.md "System catalogs": a new connection reads 58 catalog pages
// (InitPostgres; 25 of them shared catalogs), the first use of a relation
// in a backend 18 for the table and 30 for its index (RelationBuildDesc,
// the planner's lookups), the backend's first plan 44 and the first plan of
// each further statement kind 9 (catalog cache misses); later
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
	// Phase one, per client: the connection, t and its index, u, the
	// first plan (a SELECT).
	if got, want := catalogAccesses(bhPhase(t, r, "one").Metrics), int64(3*(58+18+30+18+44)); got != want {
		t.Errorf("phase one: %d catalog accesses, want 3 x (58 + 18 + 30 + 18 + 44) = %d", got, want)
	}
	// Of each connection's 58, 25 are to the shared catalogs
	// (InitPostgres), which pg_stat_database counts in its row for shared
	// objects (datid 0), not in the database's: measured on PostgreSQL 15,
	// 25 for a session that runs a statement.
	if got := sharedAccesses(bhPhase(t, r, "one").Metrics); got != 3*25 {
		t.Errorf("phase one: pg_stat_database's shared row %d, want 3 connections x 25", got)
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
	// Phase two, per client: the connection, t and its index, the first
	// plan (an UPDATE) and a SELECT's.
	if got, want := catalogAccesses(bhPhase(t, r, "two").Metrics), int64(2*(58+18+30+44+9)); got != want {
		t.Errorf("phase two: %d catalog accesses, want 2 x (58 + 18 + 30 + 44 + 9) = %d", got, want)
	}
	off := bhRunYAML(t, doc, "server.system_catalogs=false")
	if got := catalogAccesses(off.Totals); got != 0 {
		t.Errorf("system_catalogs: false still reads %d catalog pages", got)
	}
	// A pgbench built-in script: its setup connection, then per client the
	// connection, accounts, tellers, branches (with their indexes) and
	// history, the first plan, two more kinds: 282 per client (measured:
	// 284).
	pg := bhRunYAML(t, `name: catalogs-pgbench
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, transactions: 20, clients: 4, script: tpcb-like}
`)
	if got, want := catalogAccesses(pg.Totals), int64(686+4*(58+4*18+3*30+44+2*9)); got != want {
		t.Errorf("pgbench: %d catalog accesses, want 686 + 4 x 282 = %d", got, want)
	}
	if got := sharedAccesses(pg.Totals); got != 5*25 {
		t.Errorf("pgbench: pg_stat_database's shared row %d, want 5 connections (setup and 4 clients) x 25 (measured: 125)", got)
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
// touches 16 distinct core pages, a relation's first use eleven more shared by
// every relation (five of them outside the core) plus its pg_attribute page (three relations a page), its
// pg_class page (ten a page) and five index leaves (fifty a page), a
// statement kind twelve, a session's first plan 4 outside the core and
// its name lookups 3. After a restart the first connection rebuilds the
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
	resident := func(m model.Metrics, name string) int64 {
		for _, rel := range m.PGBuffercache.Relations {
			if rel.Relname == name {
				return rel.Buffers
			}
		}
		return -1
	}
	per := int64(58 + 30*18 + 44) // the connection with its tablespace lookup (55 + 3), 30 relations, SELECT
	one, two := bhPhase(t, r, "one").Metrics, bhPhase(t, r, "two").Metrics
	if got := catalogAccesses(one); got != per {
		t.Errorf("phase one: %d catalog accesses, want %d", got, per)
	}
	// The rebuilding connection reads 15 shared pages instead of 22.
	if got := catalogAccesses(two); got != per+1580-7 {
		t.Errorf("phase two, after a restart: %d catalog accesses, want %d + 1580 for the init files - 7 shared", got, per)
	}
	// 16 + 3 + 12 core pages (a table's 18 accesses less its 9 on pages
	// of its own and 6 on the cold roots leave 3 for the core's roots of
	// pg_class_oid_index and pg_attribute's index), the first plan's 4,
	// the tables' 4 (no index: not pg_index's root) and the name lookups'
	// 3 outside the core, 10 pg_attribute, 3 pg_class and 4 leaf pages
	// (pg_class_oid_index's, pg_attribute's, pg_class_relname_nsp_index's
	// and, the tables being analyzed, pg_statistic's; not pg_index's), and
	// the 14 shared catalog pages of the connection (11) and the
	// tablespace lookup (3).
	if got, shared := resident(one, model.SystemCatalogRelname), resident(one, model.SharedCatalogRelname); got != 16+3+12+4+4+3+10+3+4 || shared != 14 {
		t.Errorf("phase one: %d catalog pages and %d shared ones in shared buffers, want 59 and 14", got, shared)
	}
	// After the restart the rebuild's 105 core pages hold the others' 31;
	// the 28 outside the core are read again.
	if got := resident(two, model.SystemCatalogRelname); got != 105+4+4+3+10+3+4 {
		t.Errorf("phase two: %d catalog pages in shared buffers, want 133", got)
	}
	pg := bhRunYAML(t, `name: catalog-init-pgbench
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, transactions: 20, clients: 4, restart: true, script: tpcb-like}
`)
	if got, want := catalogAccesses(pg.Totals), int64(1580-7+686+4*(58+4*18+3*30+44+2*9)); got != want {
		t.Errorf("pgbench after a restart: %d catalog accesses, want the setup connection's rebuild, 1580 - 7 + 686 + 4 x 282 = %d", got, want)
	}
}

// pgbench's setup connection for script files runs no query (GetTableInfo
// is for built-in scripts): it reads 22 shared catalog pages and 31 in the
// database. Measured on PostgreSQL 15: a tpcb-like script file at 4
// clients, 122 shared accesses (4 x 25 + 22); pgbench -n -f of one
// SELECT 1, 31 in the database and 22 shared more than psql -c of it.
func TestPgbenchSetupConnectionForScriptFiles(t *testing.T) {
	r := bhRunYAML(t, `name: catalogs-file
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - name: run
      transactions: 20
      clients: 4
      script: {text: "\\set aid random(1, 100000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"}
`)
	if got := sharedAccesses(r.Totals); got != 4*25+22 {
		t.Errorf("pg_stat_database's shared row %d, want 4 clients x 25 + the setup connection's 22", got)
	}
	// Per client: the connection, accounts and its index, the first plan.
	if got, want := catalogAccesses(r.Totals), int64(22+31+4*(58+18+30+44)); got != want {
		t.Errorf("%d catalog accesses, want 22 + 31 + 4 x (58 + 18 + 30 + 44) = %d", got, want)
	}
}

// ANALYZE's catalog work (docs/model.md "ANALYZE"), measured on PostgreSQL
// 15 in one session: the first ANALYZE of a table with a primary key 215
// accesses in the database (its relation cache entries 33, no planner
// lookups and no metapage; the statistics' operators and types, the
// pg_statistic and pg_class rows) and 3 in the shared catalogs, the same
// ANALYZE again 16 to 22 (the model: 18), another table's first 51 to 55
// (33 + 18). No plan: a SELECT after them is still the session's first,
// and its planner does the lookups on t that ANALYZE did not (48 - 33) and
// reads t's index metapage. A script file's phase adds pgbench's setup
// connection (22 shared accesses and 31 in the database).
func TestAnalyzeCatalogAccesses(t *testing.T) {
	r := bhRunYAML(t, `name: catalogs-analyze
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  relations:
    - {name: t, rows: 6100, index: true}
    - {name: u, rows: 6100, index: true}
workload:
  phases:
    - {name: a, transactions: 1, script: {text: "ANALYZE t;\nANALYZE t;\nANALYZE u;\nSELECT * FROM t WHERE id = 1;\n"}}
`)
	m := bhPhase(t, r, "a").Metrics
	want := int64(22 + 31 + 55 + 215 + 3 + 18 + 51 + 15 + 44)
	if got := catalogAccesses(m); got != want {
		t.Errorf("%d catalog accesses, want 22 + 31 (pgbench's setup connection) + 55 + 215 + 3 + 18 + (33 + 18) + 15 + 44 = %d", got, want)
	}
	if got := sharedAccesses(m); got != 22+22+3 {
		t.Errorf("pg_stat_database's shared row %d, want 22 (pgbench's setup connection) + 22 (the connection) + 3 (the first ANALYZE's pg_tablespace)", got)
	}
	// The SELECT's planner reads t's metapage; ANALYZE read no index page.
	for _, ix := range m.StatioIndexes {
		want := int64(0)
		if ix.Indexrelname == "t_pkey" {
			want = 1 + 2 // the metapage, then the lookup's root and leaf
		}
		if got := ix.IdxBlksHit + ix.IdxBlksRead; got != want {
			t.Errorf("%s: %d accesses, want %d", ix.Indexrelname, got, want)
		}
	}
}

// A statement's functions, aggregates, ordering comparisons and ORDER BY
// are catalog lookups of their own, once per session (docs/model.md
// "System catalogs"): measured on PostgreSQL 15 after a point SELECT by
// key in the same session, sum(length(pad)) over a BETWEEN range 59
// accesses (sum 19, length 12, >= and <= 28), the same statement again
// none, an ORDER BY on it 72 more.
func TestStatementLookups(t *testing.T) {
	r := bhRunYAML(t, `name: catalogs-lookups
server: {shared_buffers: 64MB, autovacuum: false}
tables:
  relations:
    - {name: t, rows: 6100, index: true}
workload:
  phases:
    - {name: point, transactions: 1, script: {text: "SELECT * FROM t WHERE id = 1;\n"}}
    - name: range
      transactions: 2
      script: {text: "SELECT * FROM t WHERE id = 1;\nSELECT sum(length(pad)) FROM t WHERE id BETWEEN 1 AND 9;\nSELECT pad FROM t WHERE id BETWEEN 1 AND 9 ORDER BY id;\n"}
`)
	point := catalogAccesses(bhPhase(t, r, "point").Metrics)
	rng := catalogAccesses(bhPhase(t, r, "range").Metrics)
	if got, want := rng-point, int64(59+72); got != want {
		t.Errorf("the range statements' lookups: %d catalog accesses more than a point SELECT's session, want 59 + 72 = %d (once: the second execution finds them cached)", got, want)
	}
}

// readsAfterRestart is the database reads of a session that runs stmt
// (statements separated by ";\n") right after a restart, whose first
// connection rebuilt the init files and ran first (psql's one
// connection; nothing if first is "").
func readsAfterRestart(t *testing.T, first, stmt string) int64 {
	t.Helper()
	script := "[{sleep: 1ms}]"
	if first != "" {
		script = `{text: "` + first + `\n"}`
	}
	r := bhRunYAML(t, `name: first-plan
server: {shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 10000, row_width: 105, index: true, key: id, state: vacuumed}
workload:
  phases:
    - {name: rebuild, warmup: true, restart: true, transactions: 1, program: psql, script: `+script+`}
    - {name: q, transactions: 1, script: {text: "`+stmt+`;"}}
`)
	return bhPhase(t, r, "q").Metrics.PGStatDatabase.BlksRead
}

// Right after a restart (the init files rebuilt by a connection that ran
// nothing), a session's first plan reads the catalog pages no rebuild
// reads. Measured on PostgreSQL 15 with pg_buffercache (each statement in
// a new session of a freshly restarted server, the same in two rounds): a
// point SELECT by key 43 database reads, 39 of them catalog pages (the
// output types' 4, the name lookups' 3, the table's 12, pg_proc's 2 and
// the = qual's 18: docs/model.md "System catalogs") and the table's heap
// page, its index's metapage, root and leaf; SELECT 1 alone 4; a first
// INSERT ... VALUES 22 (no planner statistics, no = qual); a DELETE by key
// 44 (the publication catalogs' two index metapages, no heap page: the key
// was absent); each function, aggregate or comparison the pages of its
// kind and its own on top: length() 10, sum() 11, md5() 5, abs() 7 (the
// model 8), BETWEEN 4 (the model 5), ORDER BY on the key 7 (on pad 10:
// the model does not tell the sort's type), sum(length(pad)) over a
// BETWEEN range 22, each measured after the point SELECT in the same
// session. sum(id) and abs(id) read only the key, so they are index-only
// scans, which read the visibility map's page; the two BETWEEN ranges'
// lower bounds lie in the key's first histogram bin, so their plans read
// it too, probing the index for the actual minimum
// (get_actual_variable_range). Before those were modelled sum() and the
// BETWEEN sum were one read short and abs() and BETWEEN exact. A first ANALYZE reads the output types', the name lookups',
// pg_proc's and the B-tree operator family's pages too (std_typanalyze's
// operators): alone 206 (the model 212), after the point SELECT 174 more
// (178).
func TestFirstPlanAfterRestartReads(t *testing.T) {
	reads := func(stmt string) int64 { t.Helper(); return readsAfterRestart(t, "", stmt) }
	const point = "SELECT pad FROM t WHERE id = 1;\\n"
	for _, c := range []struct {
		stmt string
		want int64
	}{
		{"SELECT 1", 4},
		{"SELECT pad FROM t WHERE id = 1", 43},
		{"INSERT INTO t VALUES (20001, 'x')", 24},
		{"DELETE FROM t WHERE id = 20001", 44},
		{point + "SELECT length(pad) FROM t WHERE id = 1", 43 + 10},
		{point + "SELECT sum(id) FROM t WHERE id = 1", 43 + 11},
		{point + "SELECT md5(pad) FROM t WHERE id = 1", 43 + 5},
		{point + "SELECT abs(id) FROM t WHERE id = 1", 43 + 8},
		{point + "SELECT pad FROM t WHERE id BETWEEN 1 AND 2", 43 + 5},
		{point + "SELECT pad FROM t WHERE id = 1 ORDER BY id", 43 + 7},
		{point + "SELECT sum(length(pad)) FROM t WHERE id BETWEEN 20 AND 50", 43 + 22},
		{"ANALYZE t", 212},
		{point + "ANALYZE t", 221},
	} {
		if got := reads(c.stmt); got != c.want {
			t.Errorf("%s right after a restart: %d database reads, want %d", c.stmt, got, c.want)
		}
	}
}

// The harness's monitor (internal/pgcompare) after a restart stands in
// the differential test's scenarios as a warm-up phase that calls a
// statistics function inside an aggregate (docs/fidelity.md): measured on
// PostgreSQL 15, a point SELECT by key in the session after the monitor's
// first snapshot read 34 database pages where it read 43 after a
// connection that ran nothing (the output types', the name lookups' and
// pg_proc's 2 shared index pages were read), and sum(length(pad)) over a
// BETWEEN range then 16 more (22 after nothing: pg_proc's name index and
// pg_aggregate's pages were read too).
func TestMonitorStandInWarmsTheSharedLookups(t *testing.T) {
	reads := func(stmt string) int64 {
		t.Helper()
		return readsAfterRestart(t, "SELECT count(pg_stat_get_blocks_fetched(1));", stmt)
	}
	const point = "SELECT pad FROM t WHERE id = 1"
	if got := reads(point); got != 34 {
		t.Errorf("a point SELECT after the monitor: %d database reads, want 34", got)
	}
	// The 16 include the visibility-map page of the planner's probe for
	// the actual minimum (the bound 20 lies in the key's first histogram
	// bin: get_actual_variable_range), 15 before it was modelled.
	if got := reads(point + ";\\nSELECT sum(length(pad)) FROM t WHERE id BETWEEN 20 AND 50"); got != 34+16 {
		t.Errorf("sum(length(pad)) BETWEEN after the monitor and a point SELECT: %d database reads, want 34 + 16", got)
	}
}

// relcache.c RelationBuildTupleDesc, CheckNNConstraintFetch (18+): a table
// with a NOT NULL column (in the model, one with a primary key) fetches
// its NOT NULL constraints from pg_constraint when it gets its relation
// cache entry. Measured on PostgreSQL 18.3 against 15, a point SELECT by
// key in a new session after a restart: 164 database accesses against
// 137 (4 of them pg_constraint's pages, read the first time: 19 database
// reads against 15), a second table with a primary key in the same
// session 4 more (202 against 171), a count(*) of tables without a NOT
// NULL column the same on both. And a table never VACUUMed nor ANALYZEd
// (reltuples -1) has 2 more pg_statistic accesses in its first plan
// (plancat.c get_rel_data_width's width lookups).
func TestNotNullConstraintFetch18(t *testing.T) {
	run := func(version, script string) model.PhaseResult {
		t.Helper()
		r := bhRunYAML(t, `name: not-null
server: {version: "`+version+`", shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 1000, row_width: 105, index: true, key: id, state: vacuumed}
    - {name: u, rows: 1000, row_width: 105, index: true, key: id, state: vacuumed}
    - {name: h, rows: 1000, row_width: 105, state: vacuumed}
    - {name: f, rows: 1000, row_width: 105, state: fresh}
    - {name: g, rows: 1000, row_width: 105, state: fresh}
workload:
  phases:
    - {name: rebuild, warmup: true, restart: true, transactions: 1, script: [{sleep: 1ms}]}
    - {name: q, transactions: 1, script: {text: "`+script+`"}}
    - {name: again, transactions: 1, script: {text: "`+script+`"}}
`)
		return bhPhase(t, r, "q")
	}
	for _, c := range []struct {
		script            string
		moreHit, moreRead int64
	}{
		// The first time after the restart pg_constraint's 4 pages are
		// reads, the other 23 accesses hits.
		{"SELECT pad FROM t WHERE id = 6;", 23, 4},
		{"SELECT pad FROM t WHERE id = 6; SELECT pad FROM u WHERE id = 6;", 23 + 4, 4},
		{"SELECT count(*) FROM h;", 0, 0},
		// Tables never VACUUMed nor ANALYZEd: 2 more pg_statistic
		// accesses each (PostgreSQL 18.3: 98 accesses against 96 for
		// one, 123 against 119 for two in a session).
		{"SELECT count(*) FROM f;", 2, 0},
		{"SELECT count(*) FROM f; SELECT count(*) FROM g;", 4, 0},
	} {
		a, b := run("15", c.script), run("18", c.script)
		dh := b.Metrics.PGStatDatabase.BlksHit - a.Metrics.PGStatDatabase.BlksHit
		dr := b.Metrics.PGStatDatabase.BlksRead - a.Metrics.PGStatDatabase.BlksRead
		if dh != c.moreHit || dr != c.moreRead {
			t.Errorf("%s at 18 against 15: %+d database hits, %+d reads; want %+d, %+d", c.script, dh, dr, c.moreHit, c.moreRead)
		}
	}
}

// The lookups of generate_series() and repeat() (lookupCost), measured on
// PostgreSQL 15 in the first session after a restart (whose first
// connection rebuilt the init files and ran nothing), after a point
// SELECT: an INSERT ... SELECT g, 'x' FROM generate_series(1, 1) g made 7
// database accesses and 5 reads more than an INSERT ... VALUES of the
// same row (its 2 pages and the 3 of pg_proc's name index that a
// session's first function lookup reads), one of repeat('x', 100) 6
// accesses and 3 reads more again.
func TestGenerateSeriesAndRepeatLookups(t *testing.T) {
	run := func(insert string) model.Metrics {
		t.Helper()
		r := bhRunYAML(t, `name: lookups
server: {version: "15", shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 10000, row_width: 105, index: true, key: id, state: vacuumed}
    - {name: i, rows: 0, row_width: 105}
workload:
  phases:
    - {name: rebuild, warmup: true, restart: true, transactions: 1, script: [{sleep: 1ms}]}
    - {name: q, transactions: 1, script: {text: "SELECT pad FROM t WHERE id = 1; `+insert+`;"}}
`)
		return bhPhase(t, r, "q").Metrics
	}
	val := run("INSERT INTO i VALUES (1, 'x')")
	gs := run("INSERT INTO i SELECT g, 'x' FROM generate_series(1, 1) g")
	gsr := run("INSERT INTO i SELECT g, repeat('x', 100) FROM generate_series(1, 1) g")
	acc := func(m model.Metrics) int64 { return m.PGStatDatabase.BlksHit + m.PGStatDatabase.BlksRead }
	for _, c := range []struct {
		what            string
		a, b            model.Metrics
		accesses, reads int64
	}{
		{"generate_series()", val, gs, 7, 5},
		{"repeat()", gs, gsr, 6, 3},
	} {
		if da, dr := acc(c.b)-acc(c.a), c.b.PGStatDatabase.BlksRead-c.a.PGStatDatabase.BlksRead; da != c.accesses || dr != c.reads {
			t.Errorf("%s: %+d database accesses, %+d reads; want %+d, %+d", c.what, da, dr, c.accesses, c.reads)
		}
	}
}

// program: psql runs a script file in one connection per client, without
// pgbench's setup connection (pgbench.c main's doConnect). After a
// restart that connection rebuilds the init files and reads 15 shared
// catalog accesses on 5 pages, and the next session reads the other 6
// (measured on PostgreSQL 15 with pg_buffercache: pg_database's,
// pg_authid's name and oid indexes'); under pgbench the setup connection
// rebuilds and the client's own connection reads all 11, 22 accesses
// (SELECT 1 plans no scan: no tablespace lookup, catalogTablespace).
func TestPsqlProgramHasNoSetupConnection(t *testing.T) {
	for _, c := range []struct {
		program          string
		firstHits, reads int64 // the first phase's shared accesses, the next phase's shared reads
	}{{"psql", 15, 6}, {"pgbench", 15 + 22, 0}} {
		r := bhRunYAML(t, `name: program
server: {shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 1000, index: true}
workload:
  phases:
    - {name: a, restart: true, transactions: 1, program: `+c.program+`, script: {text: "SELECT 1;\n"}}
    - {name: b, transactions: 1, program: psql, script: {text: "SELECT 1;\n"}}
`)
		a, b := bhPhase(t, r, "a").Metrics.PGStatDatabaseShared, bhPhase(t, r, "b").Metrics.PGStatDatabaseShared
		if a == nil || b == nil {
			t.Fatalf("%s: no shared-objects row", c.program)
		}
		if got := a.BlksHit + a.BlksRead; got != c.firstHits {
			t.Errorf("%s: the restart's phase made %d shared catalog accesses, want %d", c.program, got, c.firstHits)
		}
		if b.BlksRead != c.reads {
			t.Errorf("%s: the next session read %d shared catalog pages, want %d", c.program, b.BlksRead, c.reads)
		}
	}
}

// A session looks its tablespace up once (catalogTablespace: spccache.c
// get_tablespace, pg_tablespace's page and its oid index's two), at the
// first plan that costs a scan of a relation, ANALYZE (14+) or read
// stream (17+: pg_prewarm's buffer mode; 18's VACUUM). Measured on
// PostgreSQL 15 and 18.3, one statement per new session, shared catalog
// accesses (pg_stat_database, datid 0): SELECT 1, INSERT ... VALUES and
// INSERT ... SELECT FROM generate_series 22; a point SELECT, count(*), a
// DELETE and ANALYZE 25; VACUUM 26 on 15 (its pg_database work, 4) and 29
// on 18; pg_prewarm 25 in buffer mode on 18, 22 in read mode.
func TestTablespaceLookupPerSession(t *testing.T) {
	for _, c := range []struct {
		version, stmt string
		shared        int64
	}{
		{"15", "SELECT 1;", 22},
		{"15", "INSERT INTO t VALUES (100001, 'x');", 22},
		{"15", "INSERT INTO t SELECT g, 'x' FROM generate_series(200001, 200010) g;", 22},
		{"15", "SELECT pad FROM t WHERE id = 5;", 25},
		{"15", "SELECT count(*) FROM t;", 25},
		{"15", "DELETE FROM t WHERE id = 7;", 25},
		{"15", "ANALYZE t;", 25},
		{"15", "SELECT count(*) FROM t;\nANALYZE t;", 25},
		{"15", "VACUUM t;", 26},
		{"18", "VACUUM t;", 29},
		{"18", "SELECT pg_prewarm('t');", 25},
		{"18", "SELECT pg_prewarm('t', 'read');", 22},
		{"15", "SELECT pg_prewarm('t');", 22},
	} {
		r := bhRunYAML(t, `name: tablespace
server: {version: "`+c.version+`", shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 1000, index: true}
workload:
  phases:
    - {name: warm, transactions: 1, program: psql, script: {text: "SELECT 1;\n"}}
    - {name: s, transactions: 1, program: psql, script: {text: "`+strings.ReplaceAll(c.stmt, "\n", `\n`)+`\n"}}
`)
		m := bhPhase(t, r, "s").Metrics.PGStatDatabaseShared
		if m == nil {
			t.Fatalf("%s: no shared row", c.stmt)
		}
		if got := m.BlksHit + m.BlksRead; got != c.shared {
			t.Errorf("%s at %s: %d shared catalog accesses, want %d", c.stmt, c.version, got, c.shared)
		}
	}
}

// Each VACUUM command's vac_update_datfrozenxid scans all of pg_class
// (catalogClassScanCold): the first VACUUM after a restart reads the
// pg_class pages no relation cache build or lookup reads, a VACUUM of
// another table after it finds them cached (after a first connection
// that rebuilt the relation cache's init files, and another that planned
// on both tables). Measured on PostgreSQL 15 and
// 18.3 with pg_stat_get_blocks_fetched per catalog relation, after a
// restart and keyed DELETEs: 8 and 5 pg_class pages read.
func TestVacuumScansPgClass(t *testing.T) {
	for _, c := range []struct {
		version string
		cold    int64
	}{{"15", 8}, {"18", 5}} {
		r := bhRunYAML(t, `name: vacuum-pg-class
server: {version: "`+c.version+`", shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 10000, index: true, state: vacuumed}
    - {name: u, rows: 10000, index: true, state: vacuumed}
workload:
  phases:
    - {name: init, transactions: 1, restart: true, program: psql, script: {text: "SELECT 1;\n"}}
    - {name: warm, transactions: 1, program: psql, script: {text: "SELECT count(*) FROM t;\nSELECT count(*) FROM u;\n"}}
    - {name: v1, transactions: 1, program: psql, script: {text: "VACUUM t;\n"}}
    - {name: v2, transactions: 1, program: psql, script: {text: "VACUUM u;\n"}}
`)
		read := func(phase string) int64 {
			s := bhPhase(t, r, phase).Metrics.StatioSys
			if s == nil {
				t.Fatalf("%s: no pg_statio_sys", phase)
			}
			return s.BlksRead
		}
		if v1, v2 := read("v1"), read("v2"); v1-v2 != c.cold {
			t.Errorf("%s: the first VACUUM read %d catalog pages, the second %d; want %d more in the first", c.version, v1, v2, c.cold)
		}
	}
}
