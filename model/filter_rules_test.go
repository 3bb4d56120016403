package model_test

import (
	"fmt"
	"math"
	"testing"
)

// A scan's filter (ExecScan's ExecQual on every tuple the scan reads)
// costs costs.filter_tuple on each tuple it passes, costs.filter_reject
// on each it rejects (ExecScan does not return it), and
// costs.filter_operator for each further operator on every tuple it tests
// (BETWEEN is two comparisons, an IN list one per value, one probe from
// nine constants on PostgreSQL 14 and later). Priced one at a time at 1 us
// against 0, on a table of 100000 rows: which rows pass is known for a
// range of the key and a lookup; a condition on another column passes
// every row. An index scan pays the conditions besides its index quals
// (its Filter) on each row it returns, and none without them.
func TestScanFilterPricesEachTupleItTests(t *testing.T) {
	list := "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"
	for _, c := range []struct {
		sql                string
		index              bool
		version            string
		pass, reject, more float64 // tuples at filter_tuple, at filter_reject, operators beyond the first
	}{
		{"SELECT count(*) FROM t", false, "15", 0, 0, 0},
		{"SELECT count(*) FROM t WHERE id > 0", false, "15", 100000, 0, 0},
		{"SELECT count(*) FROM t WHERE id < 0", false, "15", 0, 100000, 0},
		{"SELECT count(*) FROM t WHERE id <= 0", false, "15", 0, 100000, 0},
		{"SELECT count(*) FROM t WHERE id < 1 LIMIT 5", false, "15", 0, 100000, 0},
		{"SELECT count(*) FROM t WHERE id BETWEEN 1 AND 90000", false, "15", 90000, 10000, 100000},
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 1 AND 90000", true, "15", 90000, 10000, 100000},
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 20001 AND 20500", true, "15", 0, 0, 0},
		{"SELECT count(*) FROM t WHERE pad <> 'y' AND pad <> 'z'", true, "15", 100000, 0, 100000},
		// An index scan's Filter: the conditions besides its index quals,
		// on each row it returns.
		{"SELECT pad FROM t WHERE id BETWEEN 20001 AND 20500 AND pad <> 'y'", true, "15", 500, 0, 0},
		{"SELECT pad FROM t WHERE id = 777 AND pad <> 'y' AND pad <> 'z'", true, "15", 1, 0, 1},
		{"SELECT pad FROM t WHERE id = 777", false, "15", 1, 99999, 0},
		{"SELECT count(*) FROM t WHERE id IN (" + list + ")", false, "15", 10, 99990, 0},
		{"SELECT count(*) FROM t WHERE id IN (" + list + ")", false, "13", 10, 99990, 9 * 100000},
	} {
		doc := fmt.Sprintf(`name: filter
server: {version: %q, autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: %v, key: id, state: vacuumed}
workload:
  phases:
    - {name: run, transactions: 1, script: {text: %q}}
`, c.version, c.index, c.sql+";")
		checkFilterPrices(t, doc, fmt.Sprintf("%s (index %v, PostgreSQL %s): ", c.sql, c.index, c.version), c.pass, c.reject, c.more)
	}
}

// An UPDATE of a range of the key read by a sequential scan pays its
// filter on every visible tuple it tests: the range's rows pass.
func TestChangeByScanPaysItsFilter(t *testing.T) {
	// The background writer and the WAL writer asleep: their rounds would
	// fall elsewhere in a longer statement, and change who writes what.
	doc := `name: filter-update
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, bgwriter_lru_maxpages: 0, wal_writer_delay: 10s}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: vacuumed}
workload:
  phases:
    - {name: run, transactions: 1, script: {text: "UPDATE t SET pad = 'y' WHERE id BETWEEN 1 AND 90000;"}}
`
	checkFilterPrices(t, doc, "", 90000, 10000, 100000)
}

// checkFilterPrices runs doc's phase run with the three filter prices at
// 0, then each at 1 us alone, and checks how much busier the CPU was:
// pass tuples at filter_tuple, reject at filter_reject, more operators at
// filter_operator.
func checkFilterPrices(t *testing.T, doc, what string, pass, reject, more float64) {
	t.Helper()
	zero := []string{"costs.filter_tuple=0s", "costs.filter_reject=0s", "costs.filter_operator=0s"}
	free := bhPhase(t, bhRunYAML(t, doc, zero...), "run").CPU.BusySeconds
	for i, want := range []float64{pass, reject, more} {
		set := append([]string(nil), zero...)
		set[i] = set[i][:len(set[i])-2] + "1us"
		d := bhPhase(t, bhRunYAML(t, doc, set...), "run").CPU.BusySeconds - free
		if math.Abs(d-want*1e-6) > 2e-6 {
			t.Errorf("%s%s costs %.6f s more, want %.0f x 1 us", what, set[i], d, want)
		}
	}
}

// A sequential scan's per-tuple work (costs.tuple_deform, and the filter)
// is paid on the tuples its visibility checks pass, which heapgetpage keeps
// and ExecScan sees: a DELETE of 900 of 1000 rows by a scan pays it on the
// 1000 it reads (the planner's sequential scan for nine tenths of the
// keys), and the SELECT after it in the same transaction on the 100 left,
// not on the 900 deleted ones it passes over.
func TestScanPaysTupleWorkOnVisibleTuples(t *testing.T) {
	doc := `name: dead-tuples
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, bgwriter_lru_maxpages: 0, wal_writer_delay: 10s}
tables:
  relations:
    - {name: t, rows: 1000, row_width: 8, state: vacuumed, index: true, key: id}
workload:
  phases:
    - {name: run, transactions: 1, script: {text: "BEGIN; DELETE FROM t WHERE id BETWEEN 1 AND 900; SELECT * FROM t; END;"}}
`
	free := bhPhase(t, bhRunYAML(t, doc, "costs.tuple_deform=0s"), "run").CPU.BusySeconds
	d := bhPhase(t, bhRunYAML(t, doc, "costs.tuple_deform=1us"), "run").CPU.BusySeconds - free
	if want := 1100e-6; math.Abs(d-want) > 2e-6 {
		t.Errorf("tuple_deform at 1 us costs %.6f s more, want (1000 + 100) x 1 us", d)
	}
}

// A statement by one key that the planner reads by a sequential scan (a
// table of one page, as pgbench_tellers at scale 1: Seq Scan, Filter
// tid = ...) tests key = v on each visible tuple: the row passes, the
// others are rejected. Each of five UPDATEs of one row of ten sees the
// page's ten visible tuples (the versions the ones before it left are dead
// to it), one passing: 5 tuples at filter_tuple, 45 at filter_reject.
func TestKeyedSeqScanPaysItsFilter(t *testing.T) {
	doc := `name: filter-keyed-seq
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, bgwriter_lru_maxpages: 0, wal_writer_delay: 10s}
tables:
  relations:
    - {name: t, rows: 10, row_width: 8, state: vacuumed, index: true, key: id}
workload:
  phases:
    - {name: run, transactions: 5, script: {text: "UPDATE t SET v = v + 1 WHERE id = 5;"}}
`
	checkFilterPrices(t, doc, "", 5, 45, 0)
}
