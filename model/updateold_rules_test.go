package model_test

import (
	"fmt"
	"math"
	"testing"
)

// costs.tuple_update_old is paid once per row an UPDATE changes, beside
// tuple_update (which heap_insert pays too): by an UPDATE of every row
// (a scan, heap_update per visible tuple), rolled back or not, and by a
// keyed UPDATE of one row (pgbench's); an INSERT and a DELETE of as many
// rows do not pay it.
func TestTupleUpdateOldPerUpdatedRow(t *testing.T) {
	for _, c := range []struct {
		sql  string
		txns int
		rows float64 // rows updated in all
	}{
		{"UPDATE t SET v = v + 1;", 1, 5000},
		{"BEGIN;\nUPDATE t SET v = v + 1;\nROLLBACK;", 3, 3 * 5000},
		{"\\set k random(1, 5000)\nUPDATE t SET v = v + 1 WHERE id = :k;", 200, 200},
		{"INSERT INTO t SELECT g, g FROM generate_series(5001, 10000) g;", 1, 0},
		{"BEGIN;\nDELETE FROM t;\nROLLBACK;", 2, 0},
	} {
		doc := fmt.Sprintf(`name: tuple-update-old
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 5000, row_width: 8, index: true, key: id, state: vacuumed}
workload:
  phases:
    - {name: run, transactions: %d, script: {text: %q}}
`, c.txns, c.sql+"\n")
		free := bhPhase(t, bhRunYAML(t, doc, "costs.tuple_update_old=0s"), "run").CPU.BusySeconds
		priced := bhPhase(t, bhRunYAML(t, doc, "costs.tuple_update_old=1us"), "run").CPU.BusySeconds
		if d, want := priced-free, c.rows*1e-6; math.Abs(d-want) > 1e-7 {
			t.Errorf("%q: busy %.7f s more at 1 us a row, want %.0f rows = %.7f s", c.sql, d, c.rows, want)
		}
	}
}
