package model_test

import (
	"math"
	"strconv"
	"testing"
)

// costs.tuple_byte is charged per byte of a new tuple's user data, as the
// page holds it (MAXALIGNed): an INSERT of 1000 rows of 105 bytes (112
// as declared) pays 1000 x 105 x the price, an UPDATE of every row the same
// for the new versions, and rows of 8 bytes a fourteenth of it.
func TestTupleBytePerByteOfNewTuples(t *testing.T) {
	doc := `name: tuple-byte
server: {autovacuum: false, cpus: 2}
tables:
  relations:
    - {name: t, rows: 1000, row_width: 105, state: vacuumed, index: false}
workload:
  phases:
    - {name: ins, transactions: 1, script: [{insert: {table: t, rows: 1000}}]}
    - {name: upd, transactions: 1, script: [{update: {table: t}}]}
`
	for _, c := range []struct {
		width, data int
	}{{105, 105}, {8, 8}} {
		set := []string{"tables.relations[0].row_width=" + strconv.Itoa(c.width)}
		free := bhRunYAML(t, doc, set...)
		priced := bhRunYAML(t, doc, append(set, "costs.tuple_byte=10ns")...)
		for _, ph := range []struct {
			name string
			rows float64
		}{{"ins", 1000}, {"upd", 2000}} {
			d := bhPhase(t, priced, ph.name).CPU.BusySeconds - bhPhase(t, free, ph.name).CPU.BusySeconds
			if want := ph.rows * float64(c.data) * 10e-9; math.Abs(d-want) > 2e-6 {
				t.Errorf("width %d, %s: busy %.6f s more with the price, want %.0f new tuples x %d bytes x 10 ns = %.6f s", c.width, ph.name, d, ph.rows, c.data, want)
			}
		}
	}
}
