package model_test

import (
	"fmt"
	"math"
	"testing"
)

// costs.text_char is paid per byte of the text a SELECT list's
// character-walking call reads, once per row the statement returns
// (textlen's pg_mbstrlen_with_len; upper and lower three times): a range
// of 500 keys by an index scan and of 90000 keys by a sequential scan pay
// it on their rows only, count(*) of the same ranges not at all. The
// table's rows are a 4-byte key and 100 characters of text.
func TestTextCharPerByteOfEachReturnedRow(t *testing.T) {
	for _, c := range []struct {
		sql   string
		txns  int
		bytes float64 // walked in all, at 1 ns each
	}{
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 20001 AND 20500", 1, 500 * 100},
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 1 AND 90000", 1, 90000 * 100},
		{"SELECT upper(pad) FROM t WHERE id = 777", 1000, 1000 * 3 * 100},
		{"SELECT sum(length(pad)) FROM t", 1, 100000 * 100},
		{"SELECT count(*) FROM t WHERE id BETWEEN 1 AND 90000", 1, 0},
		{"SELECT sum(octet_length(pad)) FROM t WHERE id BETWEEN 20001 AND 20500", 1, 0},
	} {
		doc := fmt.Sprintf(`name: text-char
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: vacuumed}
workload:
  phases:
    - {name: run, transactions: %d, script: {text: %q}}
`, c.txns, c.sql+";")
		free := bhPhase(t, bhRunYAML(t, doc, "costs.text_char=0s"), "run").CPU.BusySeconds
		priced := bhPhase(t, bhRunYAML(t, doc, "costs.text_char=1ns"), "run").CPU.BusySeconds
		if d, want := priced-free, c.bytes*1e-9; math.Abs(d-want) > 1e-7 {
			t.Errorf("%s: busy %.7f s more at 1 ns a byte, want %.0f bytes = %.7f s", c.sql, d, c.bytes, want)
		}
	}
}

// A bitmap heap scan pays costs.text_char on each row it returns, as an
// index scan does: 5000 keys of a table loaded in random order.
func TestTextCharOnABitmapHeapScan(t *testing.T) {
	doc := `name: text-char-bitmap
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: vacuumed, load_order: random}
workload:
  phases:
    - {name: run, transactions: 1, script: {text: "SELECT sum(length(pad)) FROM t WHERE id BETWEEN 50001 AND 55000;"}}
`
	free := bhPhase(t, bhRunYAML(t, doc, "costs.text_char=0s"), "run")
	priced := bhPhase(t, bhRunYAML(t, doc, "costs.text_char=1ns"), "run")
	if d, want := priced.CPU.BusySeconds-free.CPU.BusySeconds, 5000*100e-9; math.Abs(d-want) > 1e-7 {
		t.Errorf("busy %.7f s more at 1 ns a byte, want 5000 rows x 100 bytes = %.7f s", d, want)
	}
}
