package model_test

import "testing"

// Each heap change writes the record heapam.c writes, of the size
// XLogInsert assembles (docs/model.md, "WAL"): PostgreSQL 15 measured with
// EXPLAIN (ANALYZE, WAL) on rows of (int, text of 100 characters), 105
// bytes of data: INSERT ... SELECT one XLOG_HEAP_INSERT of 160 bytes a row;
// DELETE one XLOG_HEAP_DELETE of 54 bytes a row; UPDATE of every row, the
// new versions going to other pages, an XLOG_HEAP_LOCK (54 bytes) and a
// log_heap_update record (179 bytes) a row. A statement's wal_usage leaves
// out its commit record, as EXPLAIN does; the phase's wal has it.
func TestWALRecordsAsPostgreSQL(t *testing.T) {
	doc := `name: wal-records
server: {version: "15", autovacuum: false}
tables:
  relations:
    - {name: t_ins, rows: 0, row_width: 105}
    - {name: t_upd, rows: 0, row_width: 105}
    - {name: t_pk, rows: 0, row_width: 105, index: true}
workload:
  phases:
    - {name: insert, transactions: 1, script: [{insert: {table: t_ins, rows: 10000}}]}
    - {name: delete, transactions: 1, script: [{delete: t_ins}]}
    - {name: fill, transactions: 1, script: [{insert: {table: t_upd, rows: 10000}}]}
    - {name: update, transactions: 1, script: [{update: {table: t_upd}}]}
    - {name: insert-pk, transactions: 1, script: [{insert: {table: t_pk, rows: 10000}}]}
`
	r := bhRunYAML(t, doc)
	for _, c := range []struct {
		phase          string
		records, bytes int64
	}{
		{"insert", 10000, 10000 * 160},
		{"delete", 10000, 10000 * 54},
		{"update", 20000, 10000 * (54 + 179)},
	} {
		p := bhPhase(t, r, c.phase)
		if w := p.WALUsage; w.Records != c.records || w.Bytes != c.bytes || w.FPI != 0 {
			t.Errorf("%s: wal_usage %d records, %d bytes, %d images; PostgreSQL %d, %d, 0", c.phase, w.Records, w.Bytes, w.FPI, c.records, c.bytes)
		}
		if p.WAL.Records != c.records+1 {
			t.Errorf("%s: the phase's WAL %d records, want the statement's %d and its commit record", c.phase, p.WAL.Records, c.records)
		}
	}
	// With a primary key: an XLOG_BTREE_INSERT_LEAF a row and the
	// rightmost leaf's splits (PostgreSQL: 200274 records for 100000
	// rows, none a full-page image: _bt_split's new right page is
	// registered REGBUF_WILL_INIT, as a heap page a record initialises).
	p := bhPhase(t, r, "insert-pk")
	if w := p.WALUsage; w.Records < 20000 || w.Records > 20040 || w.FPI > 1 {
		t.Errorf("insert-pk: wal_usage %d records, %d images; want 20000 and the splits' (about 28), at most the first leaf's image", w.Records, w.FPI)
	}
}

// A full-page image leaves out the page's hole (XLogRecordAssemble; the
// image is of the page as changed): a heap page that holds 51 of its 226
// tuples of 8 bytes after a HOT update carries 8240 bytes less the 175
// free slots' 36 bytes each, and the update is 72 bytes (PostgreSQL 15's
// pgbench average). From a full page the new version goes to a new one:
// the old page's XLOG_HEAP_LOCK with the whole page's image, the update's
// record (50 bytes plus t_len 32) on the new page (its record initialises
// it: no image), and the new index entry, 64 bytes with the image of a
// leaf less a tenth.
func TestFullPageImageLeavesOutTheHole(t *testing.T) {
	doc := `name: fpi-hole
server: {version: "15", autovacuum: false}
tables:
  relations:
    - {name: t, rows: 50, row_width: 8, state: vacuumed, index: true}
workload:
  phases:
    - {name: update, transactions: 1, script: [{update: {table: t, key: "1"}}]}
`
	w := bhPhase(t, bhRunYAML(t, doc), "update").WALUsage
	if want := int64(72 + 8240 - 175*36); w.Records != 1 || w.FPI != 1 || w.Bytes != want {
		t.Errorf("a page with room: %d records, %d images, %d bytes; want 1, 1, %d", w.Records, w.FPI, w.Bytes, want)
	}
	w = bhPhase(t, bhRunYAML(t, doc, "tables.relations[0].rows=226"), "update").WALUsage
	if want := int64(54 + 8240 + 50 + 32 + 64 + 8240 - 819); w.Records != 3 || w.FPI != 2 || w.Bytes != want {
		t.Errorf("a full page: %d records, %d images, %d bytes; want 3, 2, %d", w.Records, w.FPI, w.Bytes, want)
	}
}
