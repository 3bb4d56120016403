package model_test

import "testing"

// A DELETE or UPDATE of every row that rolls back leaves every row live: a
// later statement deletes or updates each of them again (heap_delete and
// heap_update take a tuple whose xmax aborted, HeapTupleSatisfiesUpdate's
// TM_Ok, and stamp their own xmax). pg_stat counts the attempted rows of
// the rolled-back statements too (pgstat_relation.c
// AtEOXact_PgStat_Relations counts them "regardless of commit/abort").
// Before this rule the model took an aborted xmax for a deletion: a second
// DELETE after a ROLLBACK deleted nothing. (The keyed statements followed
// the rule already.)
func TestRolledBackDeleteLeavesRowsLive(t *testing.T) {
	const scenario = `
name: rollback
seed: 1
server: {version: "15", shared_buffers: 128MB, synchronous_commit: false, autovacuum: false}
os: {page_cache: 2GB}
tables:
  relations:
    - {name: t_del, rows: 5000, rows_per_page: 226, state: vacuumed}
    - {name: t_upd, rows: 5000, rows_per_page: 226, state: vacuumed}
    - {name: t_key, rows: 5000, rows_per_page: 226, state: vacuumed, index: true}
workload:
  phases:
    - {name: delete-rolled-back, transactions: 3, script: {text: "BEGIN;\nDELETE FROM t_del;\nROLLBACK;\n"}}
    - {name: delete, transactions: 1, script: {text: "DELETE FROM t_del;\n"}}
    - {name: delete-again, transactions: 1, script: {text: "DELETE FROM t_del;\n"}}
    - {name: update-rolled-back, transactions: 2, script: {text: "BEGIN;\nUPDATE t_upd SET v = v + 1;\nROLLBACK;\n"}}
    - {name: update, transactions: 1, script: {text: "UPDATE t_upd SET v = v + 1;\n"}}
    - {name: keyed-rolled-back, transactions: 2, script: {text: "BEGIN;\nDELETE FROM t_key WHERE id = 5;\nUPDATE t_key SET v = v + 1 WHERE id = 6;\nROLLBACK;\n"}}
    - {name: keyed, transactions: 1, script: {text: "DELETE FROM t_key WHERE id = 5;\nUPDATE t_key SET v = v + 1 WHERE id = 6;\n"}}
    - {name: keyed-again, transactions: 1, script: {text: "DELETE FROM t_key WHERE id = 5;\nUPDATE t_key SET v = v + 1 WHERE id = 6;\n"}}
`
	r := bhRunYAML(t, scenario)
	for _, c := range []struct {
		phase, table string
		del, upd     int64
	}{
		{"delete-rolled-back", "t_del", 15000, 0},
		{"delete", "t_del", 5000, 0},
		{"delete-again", "t_del", 0, 0},
		{"update-rolled-back", "t_upd", 0, 10000},
		{"update", "t_upd", 0, 5000},
		// By key: the row a rolled-back DELETE left is deleted once more,
		// then it is gone; the updated row is there every time.
		{"keyed-rolled-back", "t_key", 2, 2},
		{"keyed", "t_key", 1, 1},
		{"keyed-again", "t_key", 0, 1},
	} {
		p := bhPhase(t, r, c.phase)
		found := false
		for _, s := range p.StatUserTables {
			if s.Relname == c.table {
				found = true
				if s.NTupDel != c.del || s.NTupUpd != c.upd {
					t.Errorf("%s: %s n_tup_del %d, n_tup_upd %d; want %d, %d", c.phase, c.table, s.NTupDel, s.NTupUpd, c.del, c.upd)
				}
			}
		}
		if !found {
			t.Errorf("%s: no pg_stat_user_tables row for %s", c.phase, c.table)
		}
	}
}
