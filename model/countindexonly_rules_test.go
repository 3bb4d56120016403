package model_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// SELECT count(*) FROM t without WHERE, on a table whose primary key's
// index is much smaller than its heap and which VACUUM left all-visible,
// is an Index Only Scan of the whole key (the planner's
// fullScanCosts / scanByIndexOnly): measured on PostgreSQL 15 after
// pgbench -i -s 1, EXPLAIN (ANALYZE, BUFFERS) of SELECT count(*) FROM
// pgbench_accounts and of SELECT aid FROM pgbench_accounts: shared
// hit=276 (the root, the 274 leaves and the visibility map's page; the
// metapage is in the relcache's copy), Heap Fetches 0, and in
// pg_statio_user_tables idx_blks_hit 276 (the planner's read of the
// metapage counts there) and heap_blks_hit 1 (the map's page). A SELECT
// list reading another column (count(abalance)) scans the heap's 1640
// pages; so does every count(*) on 9.1, which had no index-only scans,
// and on a table never VACUUMed (relallvisible 0: the heap's pages cost
// the index-only scan as much as an index scan).
func TestCountStarByIndexOnlyScan(t *testing.T) {
	for _, c := range []struct {
		version, sql   string
		hits, heapHits int64
	}{
		{"15", "SELECT count(*) FROM pgbench_accounts", 276, 1},
		{"15", "SELECT aid FROM pgbench_accounts", 276, 1},
		{"18", "SELECT count(*) FROM pgbench_accounts", 276, 1},
		{"9.2", "SELECT count(*) FROM pgbench_accounts", 276, 1},
		{"15", "SELECT count(abalance) FROM pgbench_accounts", 1640, 1640},
		{"9.1", "SELECT count(*) FROM pgbench_accounts", 1640, 1640},
	} {
		doc := fmt.Sprintf(`name: count-index-only
server: {version: "%s", autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: warm, transactions: 1, warmup: true, script: {text: "%[2]s;"}}
    - {name: run, transactions: 1, script: {text: "%[2]s;"}}
`, c.version, c.sql)
		p := bhPhase(t, bhRunYAML(t, doc), "run")
		if p.BufferUsage.SharedBlksHit != c.hits || p.BufferUsage.SharedBlksRead != 0 {
			t.Errorf("%s on %s: shared hit=%d read=%d, want hit=%d", c.sql, c.version, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, c.hits)
		}
		for _, r := range p.StatioTables {
			if r.Relname == "pgbench_accounts" && r.HeapBlksHit != c.heapHits {
				t.Errorf("%s on %s: heap_blks_hit %d, want %d", c.sql, c.version, r.HeapBlksHit, c.heapHits)
			}
		}
	}

	// Rows inserted during the run are in the index, but the model finds
	// only the loaded rows by key: such a table is scanned whole rather
	// than counted short.
	inserted := `name: count-after-insert
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id}
workload:
  phases:
    - {name: insert, transactions: 1, warmup: true, script: {text: "INSERT INTO t SELECT g, 'x' FROM generate_series(1, 580) g;"}}
    - {name: vacuum, transactions: 1, warmup: true, script: {text: "VACUUM t;"}}
    - {name: warm, transactions: 1, warmup: true, script: {text: "SELECT count(*) FROM t;"}}
    - {name: run, transactions: 1, script: {text: "SELECT count(*) FROM t;"}}
`
	if p := bhPhase(t, bhRunYAML(t, inserted), "run"); p.BufferUsage.SharedBlksHit != 1735 {
		t.Errorf("count(*) of 1725 + 10 pages after an INSERT: shared hit=%d, want 1735 (every heap page)", p.BufferUsage.SharedBlksHit)
	}
	// A table of the same shape never VACUUMed: the planner scans it.
	for _, c := range []struct {
		state string
		hits  int64
	}{{"vacuumed", 276}, {"hinted", 1725}} {
		p := warmRun(t, "15", c.state, false, "SELECT count(*) FROM t")
		if p.BufferUsage.SharedBlksHit != c.hits {
			t.Errorf("count(*) of a %s table of 1725 pages with a 276-page key: shared hit=%d, want %d", c.state, p.BufferUsage.SharedBlksHit, c.hits)
		}
	}
}

// A range bounded on one side is a range scan like BETWEEN's (the index
// from the bound's leaf on, or from the first leaf), not a sequential
// scan with a filter. EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL 15 of a
// warm 100000-row table of 1725 pages (int key, 100-character text,
// VACUUM ANALYZE), the executions' buffers: an Index Scan of 14 for
// id > 99500 and of 12 for id <= 500 (the descent, the range's leaves,
// its heap pages once each), an Index Only Scan of 16 for count(*) of
// id < 5001 (the root, 14 leaves, the map's page) and of 140 for
// 50000 <= id. Before, each was a sequential scan of 1725 pages.
func TestOneSidedRangesReadTheIndex(t *testing.T) {
	for _, c := range []struct {
		sql  string
		hits int64
	}{
		{"SELECT sum(length(pad)) FROM t WHERE id > 99500", 14},
		{"SELECT sum(length(pad)) FROM t WHERE id <= 500", 12},
		{"SELECT count(*) FROM t WHERE id < 5001", 16},
		{"SELECT count(*) FROM t WHERE 50000 <= id", 140},
	} {
		p := warmRun(t, "15", "vacuumed", false, c.sql)
		if p.BufferUsage.SharedBlksHit != c.hits || p.BufferUsage.SharedBlksRead != 0 {
			t.Errorf("%s: shared hit=%d read=%d, PostgreSQL 15 hit=%d", c.sql, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, c.hits)
		}
	}
}

// min(key) and max(key) are answered from one end of the key's index
// (planagg.c preprocess_minmax_aggregates: an InitPlan per aggregate, a
// Limit 1 over an Index Only Scan, Backward for max), and a lookup by key
// with other conditions reads the row by the key's index and filters it.
// EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL 15 of the same warm table:
// max(id) and max(id) + 1 3 buffers (the root, the last leaf, the map's
// page), min(id), max(id) 6, count(*), max(id) an Aggregate over the whole
// index (276: another aggregate, no min/max plan), max(pad) a Seq Scan of
// 1725, id = 5000 AND pad <> 'y' an Index Scan with a Filter, 3 (either
// order of the conditions). On 9.1, an index scan: the heap's page
// instead of the map's.
func TestMinMaxAndFilteredLookups(t *testing.T) {
	for _, c := range []struct {
		version, sql string
		hits         int64
	}{
		{"15", "SELECT max(id) FROM t", 3},
		{"15", "SELECT max(id) + 1 FROM t", 3},
		{"15", "SELECT min(id), max(id) FROM t", 6},
		{"15", "SELECT count(*), max(id) FROM t", 276},
		{"15", "SELECT max(pad) FROM t", 1725},
		{"15", "SELECT length(pad) FROM t WHERE id = 5000 AND pad <> 'y'", 3},
		{"15", "SELECT length(pad) FROM t WHERE pad <> 'y' AND 5000 = id", 3},
		{"9.1", "SELECT min(id) FROM t", 3},
	} {
		p := warmRun(t, c.version, "vacuumed", false, c.sql)
		if p.BufferUsage.SharedBlksHit != c.hits || p.BufferUsage.SharedBlksRead != 0 {
			t.Errorf("%s on %s: shared hit=%d read=%d, PostgreSQL hit=%d", c.sql, c.version, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, c.hits)
		}
	}
}

// A range ORDER BY the key with a LIMIT is a Limit over the index scan,
// which stops once it has returned the rows: EXPLAIN (ANALYZE, BUFFERS) on
// PostgreSQL 15 of the warm table: id > 50000 ORDER BY id LIMIT 10 and
// ORDER BY id LIMIT 10 3 buffers (the root, a leaf, a heap page), SELECT
// id ... id >= 20000 ORDER BY id LIMIT 1000 an index-only scan of 6 (the
// root, four leaves, the map's page); LIMIT 0 runs no scan. Without the
// LIMIT, BETWEEN 1 AND 90000 ORDER BY id is an index scan too (a sort of
// 90000 rows costs more), where the same range unordered is a sequential
// scan of 1725 pages.
func TestOrderedRangesWithLimit(t *testing.T) {
	for _, c := range []struct {
		sql  string
		hits int64
	}{
		{"SELECT * FROM t WHERE id > 50000 ORDER BY id LIMIT 10", 3},
		{"SELECT * FROM t ORDER BY id LIMIT 10", 3},
		{"SELECT id FROM t WHERE id >= 20000 ORDER BY id LIMIT 1000", 6},
		{"SELECT * FROM t ORDER BY id LIMIT 0", 0},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 90000", 1725},
	} {
		p := warmRun(t, "15", "vacuumed", true, c.sql)
		if p.BufferUsage.SharedBlksHit != c.hits || p.BufferUsage.SharedBlksRead != 0 {
			t.Errorf("%s: shared hit=%d read=%d, PostgreSQL hit=%d", c.sql, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, c.hits)
		}
	}
	p := warmRun(t, "15", "vacuumed", true, "SELECT * FROM t WHERE id BETWEEN 1 AND 90000 ORDER BY id")
	if s := tableScans(p, "t"); s.SeqScan != 0 || *s.IdxScan != 2 {
		t.Errorf("BETWEEN 1 AND 90000 ORDER BY id: seq_scan %d, idx_scan %d; want an index scan (and the planner's probe of the key's start)", s.SeqScan, *s.IdxScan)
	}
}

// warmRun runs sql twice on a table t of 100000 rows of 105 bytes (an int
// key and a 100-character text: 1725 pages, a 276-page key) in state
// (vacuumed, hinted), on server version, after an ANALYZE when analyze,
// and returns the second run's phase: a warm statement's buffers, as
// EXPLAIN's second run shows them.
func warmRun(t *testing.T, version, state string, analyze bool, sql string) model.PhaseResult {
	t.Helper()
	first := ""
	if analyze {
		first = "    - {name: analyze, transactions: 1, warmup: true, script: {text: 'ANALYZE t;'}}\n"
	}
	q := strings.ReplaceAll(sql, "'", "''")
	doc := fmt.Sprintf(`name: warm-run
server: {version: "%s", autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: %s}
workload:
  phases:
%s    - {name: warm, transactions: 1, warmup: true, script: {text: '%s;'}}
    - {name: run, transactions: 1, script: {text: '%s;'}}
`, version, state, first, q, q)
	return bhPhase(t, bhRunYAML(t, doc), "run")
}

// A range of the key AND other conditions is the index scan of the range
// with a Filter (pgscript's Ranges), not a sequential scan: EXPLAIN
// (ANALYZE, BUFFERS) on PostgreSQL 15, warm: BETWEEN 20001 AND 20500 AND
// pad <> 'x' 14 buffers, id > 50000 AND pad <> 'x' 1002 (the planner
// prices its quals as one comparison on the index and a filter), and on
// pgbench_accounts at scale 1 bid = 1 AND aid >= 500 AND aid < 510 (an
// equality on another column: the range on the key is still used) 3.
func TestRangesWithFilters(t *testing.T) {
	for _, c := range []struct {
		sql  string
		hits int64
	}{
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 20001 AND 20500 AND pad <> 'x'", 14},
		{"SELECT count(*) FROM t WHERE id > 50000 AND pad <> 'x'", 1002},
	} {
		p := warmRun(t, "15", "vacuumed", true, c.sql)
		if p.BufferUsage.SharedBlksHit != c.hits || p.BufferUsage.SharedBlksRead != 0 {
			t.Errorf("%s: shared hit=%d read=%d, PostgreSQL hit=%d", c.sql, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, c.hits)
		}
	}
	doc := `name: range-filter-pgbench
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: warm, transactions: 1, warmup: true, script: {text: "SELECT abalance FROM pgbench_accounts WHERE bid = 1 AND aid >= 500 AND aid < 510;"}}
    - {name: run, transactions: 1, script: {text: "SELECT abalance FROM pgbench_accounts WHERE bid = 1 AND aid >= 500 AND aid < 510;"}}
`
	if p := bhPhase(t, bhRunYAML(t, doc), "run"); p.BufferUsage.SharedBlksHit != 3 {
		t.Errorf("bid = 1 AND aid >= 500 AND aid < 510: shared hit=%d, PostgreSQL 3", p.BufferUsage.SharedBlksHit)
	}
}

// ORDER BY the key DESC reads the index backward, and a LIMIT with an
// OFFSET stops the scan after OFFSET + LIMIT rows (ExecLimit fetches the
// skipped rows): EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL 15 and 18.3,
// warm, execution's buffers, the table of warmRun (leaves of 366 keys:
// 1099 begins one). From 9.5 to 17 a backward step re-reads the leaf it
// leaves for its left link, and a backward scan that runs out of its
// range reads its last leaf again (and the leaf to its left when the
// range begins a leaf, which a forward scan's high key spares it); 18
// keeps the left link and reads neither. An index-only scan keeps its pin
// and re-reads nothing.
func TestDescendingRangesAndOffsets(t *testing.T) {
	for _, c := range []struct {
		sql        string
		pg15, pg18 int64
	}{
		{"SELECT * FROM t ORDER BY id LIMIT 10 OFFSET 1000", 22, 22},
		{"SELECT * FROM t WHERE id > 50000 ORDER BY id LIMIT 10 OFFSET 5000", 103, 103},
		{"SELECT id FROM t WHERE id >= 20000 ORDER BY id LIMIT 100 OFFSET 900", 6, 6},
		{"SELECT * FROM t ORDER BY id LIMIT 10 OFFSET 40000", 801, 801},
		{"SELECT * FROM t ORDER BY id OFFSET 99990", 2000, 2000},
		{"SELECT * FROM t WHERE id BETWEEN 1000 AND 1500 OFFSET 100", 13, 13},
		{"SELECT * FROM t ORDER BY id DESC LIMIT 10", 4, 4},
		{"SELECT * FROM t WHERE id < 50000 ORDER BY id DESC LIMIT 10", 4, 4},
		{"SELECT * FROM t ORDER BY id DESC LIMIT 10 OFFSET 500", 16, 14},
		{"SELECT * FROM t WHERE id BETWEEN 1110 AND 1160 ORDER BY id DESC", 4, 3},
		{"SELECT * FROM t WHERE id BETWEEN 1050 AND 1160 ORDER BY id DESC", 7, 5},
		{"SELECT * FROM t WHERE id BETWEEN 1000 AND 1500 ORDER BY id DESC", 16, 13},
		{"SELECT * FROM t WHERE id BETWEEN 1099 AND 1200 ORDER BY id DESC", 7, 6},
		{"SELECT * FROM t WHERE id BETWEEN 1098 AND 1200 ORDER BY id DESC", 8, 6},
		{"SELECT * FROM t WHERE id <= 1200 ORDER BY id DESC", 30, 26},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 90000 ORDER BY id DESC", 2045, 1799},
		{"SELECT id FROM t WHERE id <= 30000 ORDER BY id DESC LIMIT 1000", 5, 5},
		{"SELECT id FROM t WHERE id BETWEEN 1000 AND 1500 ORDER BY id DESC", 5, 5},
		{"SELECT id FROM t WHERE id BETWEEN 1099 AND 1200 ORDER BY id DESC", 4, 4},
	} {
		for _, v := range []struct {
			version string
			hits    int64
		}{{"15", c.pg15}, {"18", c.pg18}} {
			p := warmRun(t, v.version, "vacuumed", true, c.sql)
			if p.BufferUsage.SharedBlksHit != v.hits || p.BufferUsage.SharedBlksRead != 0 {
				t.Errorf("%s on %s: shared hit=%d read=%d, PostgreSQL hit=%d", c.sql, v.version, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, v.hits)
			}
		}
	}
	// The OFFSET from a variable, as a pagination script draws it.
	doc := `name: offset-variable
server: {version: "15", autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: vacuumed}
workload:
  phases:
    - {name: analyze, transactions: 1, warmup: true, script: {text: 'ANALYZE t;'}}
    - {name: warm, transactions: 1, warmup: true, script: {text: "\\set o 1000\nSELECT * FROM t ORDER BY id LIMIT 10 OFFSET :o;"}}
    - {name: run, transactions: 1, script: {text: "\\set o 1000\nSELECT * FROM t ORDER BY id LIMIT 10 OFFSET :o;"}}
`
	if p := bhPhase(t, bhRunYAML(t, doc), "run"); p.BufferUsage.SharedBlksHit != 22 {
		t.Errorf("OFFSET :o (1000) LIMIT 10: shared hit=%d, PostgreSQL 22", p.BufferUsage.SharedBlksHit)
	}
}

// A LIMIT without ORDER BY lets the planner take the path that is
// cheapest at the LIMIT's share of the rows (get_cheapest_fractional_path):
// the sequential scan starts at once and wins a small LIMIT over a range
// of many rows, then reads the table from its first page until it has
// met that many rows of the range. EXPLAIN (ANALYZE, BUFFERS) on
// PostgreSQL 15 and 18.3, warm, and seq_tup_read (WHERE id > 50000 LIMIT
// 10: "Rows Removed by Filter: 50000" and 10 rows). 18's read stream pins
// one page ahead of the scan, which it reads and drops when the LIMIT
// stops the scan.
func TestLimitWithoutOrder(t *testing.T) {
	for _, c := range []struct {
		sql                string
		pg15, pg18, tuples int64
		seq                bool
	}{
		{"SELECT * FROM t WHERE id > 50000 LIMIT 10", 863, 864, 50010, true},
		{"SELECT * FROM t WHERE id BETWEEN 20001 AND 70000 LIMIT 10", 345, 346, 20010, true},
		{"SELECT * FROM t WHERE id BETWEEN 20001 AND 30000 LIMIT 10", 3, 3, 0, false},
		{"SELECT * FROM t WHERE id BETWEEN 20001 AND 70000 LIMIT 30000", 603, 603, 0, false},
		{"SELECT id FROM t WHERE id > 50000 LIMIT 10", 3, 3, 0, false},
		{"SELECT * FROM t LIMIT 10", 1, 2, 10, true},
		{"SELECT id FROM t LIMIT 10", 1, 2, 10, true},
		{"SELECT * FROM t LIMIT 100 OFFSET 1000", 19, 20, 1100, true},
		{"SELECT count(*) FROM t LIMIT 1", 276, 276, 0, false},
	} {
		for _, v := range []struct {
			version string
			hits    int64
		}{{"15", c.pg15}, {"18", c.pg18}} {
			p := warmRun(t, v.version, "vacuumed", true, c.sql)
			s := tableScans(p, "t")
			if p.BufferUsage.SharedBlksHit != v.hits || p.BufferUsage.SharedBlksRead != 0 {
				t.Errorf("%s on %s: shared hit=%d read=%d, PostgreSQL hit=%d", c.sql, v.version, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, v.hits)
			}
			if (s.SeqScan == 1) != c.seq || s.SeqTupRead != c.tuples {
				t.Errorf("%s on %s: seq_scan %d, seq_tup_read %d; PostgreSQL: a sequential scan %v, %d tuples", c.sql, v.version, s.SeqScan, s.SeqTupRead, c.seq, c.tuples)
			}
		}
	}
}

// An IN list on the key (and = ANY): EXPLAIN (ANALYZE, BUFFERS) on
// PostgreSQL 15 and 18.3, warm, and pg_stat_user_indexes' idx_scan. Up to
// 16 every key is a primitive index scan of its own (_bt_first: root and
// leaf, counted in idx_scan), the heap page kept while the next row is on
// it; from 17 the scan goes on along its leaf and descends again for a
// key on another leaf only. On a table loaded in random order the
// planner takes a bitmap heap scan (ten keys: their descents and ten heap
// pages on both).
func TestInListsAsPostgreSQL(t *testing.T) {
	keys := func(n, step int) string {
		var p []string
		for i := 1; i <= n; i++ {
			p = append(p, strconv.Itoa(i*step))
		}
		return strings.Join(p, ", ")
	}
	for _, c := range []struct {
		sql                        string
		pg15, pg18, scan15, scan18 int64
	}{
		{"SELECT * FROM t WHERE id IN (5, 500, 5000, 50000)", 12, 12, 4, 4},
		{"SELECT * FROM t WHERE id IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", 21, 3, 10, 1},
		{"SELECT * FROM t WHERE id IN (300, 200, 100, 1, 1)", 12, 6, 4, 1},
		{"SELECT * FROM t WHERE id IN (" + keys(50, 1000) + ")", 150, 150, 50, 50},
		{"SELECT * FROM t WHERE id IN (" + keys(100, 7) + ")", 213, 17, 100, 2},
		{"SELECT * FROM t WHERE id = ANY('{5,500,5000}')", 9, 9, 3, 3},
		{"SELECT * FROM t WHERE id IN (1100, 1200, 1300, 1400, 50000)", 15, 9, 5, 2},
		{"SELECT id FROM t WHERE id IN (1100, 1200, 1300, 1400, 50000)", 11, 5, 5, 2},
	} {
		for _, v := range []struct {
			version     string
			hits, scans int64
		}{{"15", c.pg15, c.scan15}, {"18", c.pg18, c.scan18}} {
			p := warmRun(t, v.version, "vacuumed", true, c.sql)
			s := tableScans(p, "t")
			if p.BufferUsage.SharedBlksHit != v.hits || p.BufferUsage.SharedBlksRead != 0 || s.SeqScan != 0 || *s.IdxScan != v.scans {
				t.Errorf("%.70s on %s: shared hit=%d read=%d, seq_scan %d, idx_scan %d; PostgreSQL hit=%d, idx_scan %d", c.sql, v.version, p.BufferUsage.SharedBlksHit, p.BufferUsage.SharedBlksRead, s.SeqScan, *s.IdxScan, v.hits, v.scans)
			}
		}
	}
	for _, v := range []string{"15", "18"} {
		doc := `name: in-list-random
server: {version: "` + v + `", autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: vacuumed, load_order: random}
workload:
  phases:
    - {name: analyze, transactions: 1, warmup: true, script: {text: 'ANALYZE t;'}}
    - {name: warm, transactions: 1, warmup: true, script: {text: 'SELECT * FROM t WHERE id IN (` + keys(10, 1000) + `);'}}
    - {name: run, transactions: 1, script: {text: 'SELECT * FROM t WHERE id IN (` + keys(10, 1000) + `);'}}
`
		p := bhPhase(t, bhRunYAML(t, doc), "run")
		if s := tableScans(p, "t"); p.BufferUsage.SharedBlksHit != 30 || *s.IdxScan != 10 || *s.IdxTupFetch != 10 {
			t.Errorf("ten keys of a table in random order on %s: shared hit=%d, idx_scan %d, idx_tup_fetch %d; PostgreSQL: a bitmap heap scan, 30, 10, 10", v, p.BufferUsage.SharedBlksHit, *s.IdxScan, *s.IdxTupFetch)
		}
	}
}

// The prewarm replays a script's page references: a sequential scan under
// a LIMIT warms only the pages the scan reads (seqScanLastBlock, as
// scanLimitPage stops it), in key order the LIMIT's row's page: WHERE id >
// 50000 LIMIT 10 over 1725 pages of 58 rows reads up to page 862 (863
// pages, PostgreSQL 15: TestLimitWithoutOrder). Without the LIMIT the
// planner reads the range by the index, and the prewarm warms the range's
// pages.
func TestPrewarmStopsWhereALimitedScanDoes(t *testing.T) {
	run := func(sql string) int64 {
		doc := `name: prewarm-limit
server: {version: "15", autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: vacuumed}
workload:
  prewarm: 3
  phases:
    - {name: run, transactions: 1, script: {text: '` + sql + `;'}}
`
		p := bhPhase(t, bhRunYAML(t, doc), "run")
		for _, r := range p.PGBuffercache.Relations {
			if r.Relname == "t" {
				return r.Buffers
			}
		}
		return 0
	}
	if got := run("SELECT * FROM t WHERE id > 50000 LIMIT 10"); got != 863 {
		t.Errorf("WHERE id > 50000 LIMIT 10: %d of t's pages in shared buffers, want the scan's 863", got)
	}
	if got := run("SELECT * FROM t LIMIT 10"); got != 1 {
		t.Errorf("LIMIT 10: %d of t's pages in shared buffers, want the scan's first", got)
	}
}
