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
