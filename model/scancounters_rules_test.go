package model_test

import (
	"fmt"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// pg_stat_user_tables' seq_scan and seq_tup_read and pg_stat_user_indexes'
// idx_scan, idx_tup_read and idx_tup_fetch count where PostgreSQL counts
// them (initscan, heapgettup_pagemode, _bt_first, index_getnext_tid,
// index_fetch_heap). The figures are PostgreSQL 15's for the same
// statements (docs/fidelity.md, range-open and bulk-dml): an index scan
// of id > 99500 is two index scans (the planner's probe of the key's
// maximum is one) returning 501 entries and fetching 500 tuples; a
// count(*) of every key one index-only scan returning 100000 entries and
// fetching none; an UPDATE of every row one sequential scan returning its
// 100000 rows, not its own new versions.
func TestScanCountersAsPostgreSQL(t *testing.T) {
	for _, c := range []struct {
		sql                                                string
		seqScan, seqTupRead, idxScan, idxTupRead, idxFetch int64
	}{
		{"SELECT sum(length(pad)) FROM t WHERE id > 99500", 0, 0, 2, 501, 500},
		{"SELECT count(*) FROM t", 0, 0, 1, 100000, 0},
		{"SELECT count(pad) FROM t", 1, 100000, 0, 0, 0},
		{"SELECT pad FROM t WHERE id = 5", 0, 0, 1, 1, 1},
		{"UPDATE t SET pad = 'y'", 1, 100000, 0, 0, 0},
	} {
		doc := fmt.Sprintf(`name: scan-counters
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id}
    - {name: other, rows: 100, row_width: 105}
workload:
  phases:
    - {name: analyze, transactions: 1, warmup: true, script: {text: "ANALYZE t;"}}
    - {name: run, transactions: 1, script: {text: "%s;"}}
`, c.sql)
		p := bhPhase(t, bhRunYAML(t, doc), "run")
		tab, ix := tableScans(p, "t"), indexScans(p, "t_pkey")
		if tab.SeqScan != c.seqScan || tab.SeqTupRead != c.seqTupRead || ix.IdxScan != c.idxScan || ix.IdxTupRead != c.idxTupRead || ix.IdxTupFetch != c.idxFetch {
			t.Errorf("%s: seq_scan %d seq_tup_read %d, idx_scan %d idx_tup_read %d idx_tup_fetch %d; PostgreSQL %d %d, %d %d %d",
				c.sql, tab.SeqScan, tab.SeqTupRead, ix.IdxScan, ix.IdxTupRead, ix.IdxTupFetch, c.seqScan, c.seqTupRead, c.idxScan, c.idxTupRead, c.idxFetch)
		}
		if tab.IdxScan == nil || *tab.IdxScan != ix.IdxScan || *tab.IdxTupFetch != ix.IdxTupFetch {
			t.Errorf("%s: the table's idx_scan and idx_tup_fetch are its index's", c.sql)
		}
		if o := tableScans(p, "other"); o.IdxScan != nil || o.SeqScan != 0 {
			t.Errorf("%s: a table without an index has no idx_scan (NULL), and this one was not scanned: %+v", c.sql, o)
		}
	}

	// pgbench's tpcb-like at scale 1 (PostgreSQL's pgbench cases, per
	// transaction at scale 5: tellers' and branches' UPDATEs are
	// sequential scans of all their rows, accounts' UPDATE and SELECT two
	// index scans fetching a tuple each), and the setup connection's
	// count(*) of pgbench_branches once.
	doc := `name: scan-counters-pgbench
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, transactions: 100, clients: 1, script: {builtin: tpcb-like}}
`
	p := bhPhase(t, bhRunYAML(t, doc), "run")
	for _, c := range []struct {
		rel           string
		scans, tuples int64
	}{{"pgbench_tellers", 100, 1000}, {"pgbench_branches", 101, 101}} {
		if s := tableScans(p, c.rel); s.SeqScan != c.scans || s.SeqTupRead != c.tuples {
			t.Errorf("%s: seq_scan %d, seq_tup_read %d; want %d, %d", c.rel, s.SeqScan, s.SeqTupRead, c.scans, c.tuples)
		}
	}
	if ix := indexScans(p, "pgbench_accounts_pkey"); ix.IdxScan != 200 || ix.IdxTupFetch != 200 || ix.IdxTupRead < 200 {
		t.Errorf("pgbench_accounts_pkey: idx_scan %d, idx_tup_read %d, idx_tup_fetch %d; want 200, at least 200, 200", ix.IdxScan, ix.IdxTupRead, ix.IdxTupFetch)
	}
}

func tableScans(p model.PhaseResult, rel string) model.TableStats {
	for _, s := range p.StatUserTables {
		if s.Relname == rel {
			return s
		}
	}
	return model.TableStats{}
}

func indexScans(p model.PhaseResult, rel string) model.IndexScanStats {
	for _, s := range p.StatUserIndexes {
		if s.Indexrelname == rel {
			return s
		}
	}
	return model.IndexScanStats{}
}
