package model_test

import "testing"

// A row is deleted once (ExecDelete on TM_Deleted: "tuple already deleted;
// nothing to do"; heap_update likewise for an UPDATE): eight clients delete
// and update random rows, each statement its own transaction, among the first 20, by index scan (ti) and by
// sequential scan (ts, no index). A statement whose row was deleted before
// its snapshot finds no visible version; one whose row was deleted by a
// transaction that committed after its snapshot, or that waited for the
// deleter, finds the newest version deleted. Either way nothing changes, so
// n_tup_del is at most 20 per table and every update and delete past that
// is a no-op (before, the sequential path deleted and updated deleted rows
// again, and the index path those deleted after its snapshot).
func TestDeletedRowIsDeletedOnce(t *testing.T) {
	r := bhRunYAML(t, `
name: tmdeleted
seed: 3
server: {version: "15", shared_buffers: 64MB, cpus: 2, autovacuum: false}
tables:
  relations:
    - {name: ti, rows: 1000, index: true}
    - {name: ts, rows: 20, index: true} # one page: the planner scans it (the sequential path)
workload:
  phases:
    - name: run
      duration: 2s
      clients: 8
      script:
        - delete: {table: ti, key: "random(1, 20)"}
        - update: {table: ti, key: "random(1, 20)"}
        - delete: {table: ts, key: "random(1, 20)"}
        - update: {table: ts, key: "random(1, 20)"}
        - sleep: 1ms
`)
	p := bhPhase(t, r, "run")
	if p.Failed != 0 {
		// An aborted DELETE counts in n_tup_del too (pgstat counts
		// attempted actions) and leaves the row to be deleted again.
		t.Fatalf("%d failed transactions: the test needs none", p.Failed)
	}
	if p.Transactions < 200 {
		t.Fatalf("%d transactions: the test needs many statements per row", p.Transactions)
	}
	if len(p.StatUserTables) != 2 {
		t.Fatalf("%d pg_stat_user_tables rows", len(p.StatUserTables))
	}
	for _, s := range p.StatUserTables {
		if s.NTupDel > 20 || s.NTupDel < 15 {
			t.Errorf("%s: n_tup_del %d, want each of the 20 rows deleted once (at least 15 of them in %d transactions)", s.Relname, s.NTupDel, p.Transactions)
		}
		if s.NTupUpd >= p.Transactions/2 {
			t.Errorf("%s: n_tup_upd %d in %d transactions: updates of deleted rows changed them", s.Relname, s.NTupUpd, p.Transactions)
		}
	}
}
