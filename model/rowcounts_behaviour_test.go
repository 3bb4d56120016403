package model_test

import (
	"fmt"
	"testing"
)

// pg_stat_user_tables' row counters (pgstat_count_heap_insert, _update,
// _delete): pgbench's tpcb-like updates one row of accounts, tellers and
// branches and inserts one history row per transaction, whatever the
// contention. At scale 2 with 8 clients every branch row is contended:
// a statement waits for the row's updater (and goes on with the newest
// version, READ COMMITTED's EvalPlanQual), or finds it updated by a
// transaction that committed after its snapshot and goes on with the newest
// version without waiting. Both must update the row: before the model
// followed update chains by xmax, and rechecked rows updated after the
// snapshot, about 99 % of the branch updates at this scale found no visible
// newest version and updated nothing.
func TestEveryUpdateUpdatesItsRow(t *testing.T) {
	for _, scale := range []int64{2, 60} { // tellers and branches by seq scan; branches by seq scan, tellers by index
		r := bhRunYAML(t, `
name: rowcounts
seed: 1
server: {version: "15", shared_buffers: 64MB, cpus: 2, autovacuum: false}
tables:
  pgbench: {scale: 2}
workload:
  phases:
    - {name: run, transactions: 1000, clients: 8, threads: 2, script: tpcb-like}
`, fmt.Sprintf("tables.pgbench.scale=%d", scale))
		p := bhPhase(t, r, "run")
		if p.Failed != 0 {
			t.Fatalf("scale %d: %d failed transactions", scale, p.Failed)
		}
		want := map[string][2]int64{ // n_tup_upd, n_tup_ins
			"pgbench_accounts": {p.Transactions, 0},
			"pgbench_tellers":  {p.Transactions, 0},
			"pgbench_branches": {p.Transactions, 0},
			"pgbench_history":  {0, p.Transactions},
		}
		for _, s := range p.StatUserTables {
			w := want[s.Relname]
			if s.NTupUpd != w[0] || s.NTupIns != w[1] || s.NTupDel != 0 {
				t.Errorf("scale %d: %s n_tup_upd %d n_tup_ins %d n_tup_del %d, want %d, %d, 0 (%d transactions)", scale, s.Relname, s.NTupUpd, s.NTupIns, s.NTupDel, w[0], w[1], p.Transactions)
			}
			if s.NTupHotUpd > s.NTupUpd {
				t.Errorf("scale %d: %s n_tup_hot_upd %d > n_tup_upd %d", scale, s.Relname, s.NTupHotUpd, s.NTupUpd)
			}
			delete(want, s.Relname)
		}
		if len(want) != 0 {
			t.Errorf("scale %d: no pg_stat_user_tables rows for %v", scale, want)
		}
		if p.RowLockWaits == 0 || p.EPQRechecks == 0 {
			t.Errorf("scale %d: %d row lock waits, %d EvalPlanQual rechecks: the test needs both", scale, p.RowLockWaits, p.EPQRechecks)
		}
		// The relations' sizes at the phase's end: accounts' 61 rows per
		// page (pgbench -i, fillfactor 100) plus the pages non-HOT updates
		// put new versions on, its free space map.
		for _, s := range p.RelationSize {
			if s.Relname == "pgbench_accounts" && (s.Kind != "table" || s.Main <= 100000*scale/61 || s.FSM == 0) {
				t.Errorf("scale %d: accounts' size %+v", scale, s)
			}
		}
	}
}
