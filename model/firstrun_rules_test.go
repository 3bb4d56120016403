package model_test

import (
	"math"
	"testing"
)

// A lookup pays buffer_map_fault for each stretch of the pool its pages
// lie in that its process had not touched: at most one a page (the
// index's root, its leaf, the heap page), and nothing for a second lookup
// of the same key in the same session.
func TestBufferMapFaultOfALookup(t *testing.T) {
	doc := `name: map-fault-lookup
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, state: vacuumed, index: true, key: id}
workload:
  phases:
    - {name: load, transactions: 1, warmup: true, script: [{seqscan: {table: t}}, {select: {table: t, key: "77777"}}]}
    - {name: first, transactions: 1, script: [{select: {table: t, key: "77777"}}]}
    - {name: second, transactions: 2, script: [{select: {table: t, key: "77777"}}]}
`
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.buffer_map_fault=1us")
	first := bhPhase(t, priced, "first").CPU.BusySeconds - bhPhase(t, free, "first").CPU.BusySeconds
	if first < 1e-6-1e-9 || first > 3e-6+1e-9 {
		t.Errorf("first lookup in a session: %.6f s of faults, want 1 to 3 us (root, leaf and heap page)", first)
	}
	second := bhPhase(t, priced, "second").CPU.BusySeconds - bhPhase(t, free, "second").CPU.BusySeconds
	if math.Abs(second-first) > 1e-9 {
		t.Errorf("two lookups of the key in a new session: %.6f s of faults, want the first's %.6f (the second maps nothing)", second, first)
	}
}

// costs.executor_first_run is paid by a backend's first planned statement,
// and costs.plan_first_run by its first execution of each kind of plan,
// once per node of the plan: a session that runs SELECT 1 twice pays the
// executor's once; one that runs a count(*) (Aggregate, Seq Scan), a
// lookup by key (Index Scan) and an INSERT (ModifyTable, its source)
// twice each pays the executor's once and five nodes; BEGIN and VACUUM,
// utility commands, pay neither; and each phase's new session pays again.
func TestExecutorAndPlanFirstRun(t *testing.T) {
	doc := `name: first-run
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 10000, row_width: 105, state: vacuumed, index: true, key: id}
    - {name: u, rows: 0, row_width: 105}
workload:
  phases:
    - {name: one, transactions: 2, script: {text: "SELECT 1;"}}
    - {name: mix, transactions: 2, script: [{seqscan: {table: t}}, {select: {table: t, key: "77"}}, {insert: {table: u, rows: 1}}]}
    - {name: utility, transactions: 1, script: [{vacuum: t}]}
`
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.executor_first_run=100us", "costs.plan_first_run=10us")
	for _, c := range []struct {
		phase string
		want  float64
	}{{"one", 100e-6}, {"mix", 100e-6 + 5*10e-6}, {"utility", 0}} {
		d := bhPhase(t, priced, c.phase).CPU.BusySeconds - bhPhase(t, free, c.phase).CPU.BusySeconds
		if math.Abs(d-c.want) > 1e-9 {
			t.Errorf("%s: busy %.6f s more with the prices, want %.6f", c.phase, d, c.want)
		}
		e := bhPhase(t, priced, c.phase).ExecutionMS - bhPhase(t, free, c.phase).ExecutionMS
		if math.Abs(e-c.want*1e3) > 1e-3 {
			t.Errorf("%s: execution %.4f ms more with the prices, want %.4f (the first runs are the executor's time)", c.phase, e, c.want*1e3)
		}
	}
}

// TestStatementScanPlansScansOnly: costs.statement_scan is charged once
// for each statement whose plan scans its table (a SELECT by key or over a
// range, count(*), a keyed UPDATE or DELETE), and not for SELECT 1 or an
// INSERT ... VALUES, whose plans scan no table (planner.c builds no base
// relation paths for them: PostgreSQL 15's pg_stat_statements gives 10 us
// of planning to a lookup by primary key, 5 to a one-row INSERT). It is
// planning, before the executor starts: execution_ms does not include it.
func TestStatementScanPlansScansOnly(t *testing.T) {
	doc := `name: statement-scan
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 10000, row_width: 8, state: vacuumed, index: true, key: id}
    - {name: u, rows: 0, row_width: 8}
workload:
  phases:
    - {name: one, transactions: 3, script: {text: "SELECT 1;"}}
    - {name: insert, transactions: 3, script: {text: "INSERT INTO u VALUES (1, 1);"}}
    - {name: lookup, transactions: 3, script: {text: "SELECT v FROM t WHERE id = 77;"}}
    - {name: range, transactions: 3, script: {text: "SELECT sum(v) FROM t WHERE id BETWEEN 100 AND 150;"}}
    - {name: count, transactions: 3, script: {text: "SELECT count(*) FROM t;"}}
    - {name: update, transactions: 3, script: {text: "UPDATE t SET v = v + 1 WHERE id = 5;"}}
    - {name: txn, transactions: 3, script: {text: "BEGIN; SELECT v FROM t WHERE id = 9; DELETE FROM t WHERE id = 9; END;"}}
`
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.statement_scan=1ms")
	for _, c := range []struct {
		phase string
		scans int
	}{{"one", 0}, {"insert", 0}, {"lookup", 3}, {"range", 3}, {"count", 3}, {"update", 3}, {"txn", 6}} {
		d := bhPhase(t, priced, c.phase).CPU.BusySeconds - bhPhase(t, free, c.phase).CPU.BusySeconds
		if want := float64(c.scans) * 1e-3; math.Abs(d-want) > 1e-9 {
			t.Errorf("%s: busy %.6f s more with statement_scan 1ms, want %.6f (%d planned scans)", c.phase, d, want, c.scans)
		}
		if e := bhPhase(t, priced, c.phase).ExecutionMS - bhPhase(t, free, c.phase).ExecutionMS; math.Abs(e) > 1e-6 {
			t.Errorf("%s: execution %.4f ms more with statement_scan, want 0 (planning precedes the executor)", c.phase, e)
		}
	}
}
