package model_test

import "testing"

// An UPDATE without a key updates every row once (HeapTupleSatisfiesMVCC:
// a version whose cmin is the statement's own curcid was "inserted after
// scan started"), though some of its new versions land on pages ahead of
// its scan; a second UPDATE in the same transaction sees the first's
// versions (an earlier command) and updates each once more. The scenario
// is the differential test's bulk-dml case (docs/fidelity.md), where
// PostgreSQL 15 updates 100000 rows with 305174 heap hits and 1724 reads;
// before the model kept command ids, `simulate` on that case updated
// 100050 (50 of its own new versions again, 305326 hits), and the two
// UPDATEs here 200100.
func TestUnkeyedUpdateSkipsItsOwnVersions(t *testing.T) {
	const bulkDML = `
name: fidelity-bulk-dml
seed: 1
server: {version: "15", shared_buffers: 128MB, cpus: 2, autovacuum: false}
os: {page_cache: 2GB}
tables:
  relations:
    - {name: t_ins, rows: 0, row_width: 105}
    - {name: t_pk, rows: 0, row_width: 105, index: true}
    - {name: t_upd, rows: 0, row_width: 105}
workload:
  phases:
    - {name: insert, transactions: 1, script: [{insert: {table: t_ins, rows: 100000}}]}
    - {name: delete, transactions: 1, script: [{delete: t_ins}]}
    - {name: insert-pk, transactions: 1, script: [{insert: {table: t_pk, rows: 100000}}]}
    - {name: fill-upd, transactions: 1, warmup: true, script: [{insert: {table: t_upd, rows: 100000}}]}
    - {name: update, transactions: 1, script: `
	for _, c := range []struct {
		script string
		want   int64
	}{
		{"[{update: {table: t_upd}}]", 100000},
		{"[{begin: true}, {update: {table: t_upd}}, {update: {table: t_upd}}, {commit: true}]", 200000},
	} {
		r := bhRunYAML(t, bulkDML+c.script+"}\n")
		p := bhPhase(t, r, "update")
		var upd int64 = -1
		for _, s := range p.StatUserTables {
			if s.Relname == "t_upd" {
				upd = s.NTupUpd
			}
		}
		for _, s := range p.StatioTables {
			if s.Relname == "t_upd" {
				t.Logf("%s: heap hits %d, reads %d", c.script, s.HeapBlksHit, s.HeapBlksRead)
			}
		}
		if upd != c.want {
			t.Errorf("%s: n_tup_upd %d, want %d", c.script, upd, c.want)
		}
	}
}
