package model_test

import (
	"math"
	"testing"
)

// execution_ms is EXPLAIN ANALYZE's Execution Time (ExecutorStart to
// ExecutorEnd, explain.c ExplainOnePlan): a statement's parse and plan
// (the statement price), the round trip and the commit's WAL flush add to
// the phase's elapsed time but not to it. One client, one INSERT of 20000
// rows (about 17 MB of WAL with synchronous_commit on: a flush of it at
// commit).
func TestExecutionTimeIsTheExecutors(t *testing.T) {
	const scenario = `
name: execution-time
seed: 1
server: {version: "15", shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB}
tables:
  relations:
    - {name: t, rows: 0, row_width: 105}
costs: {client: 0ns, transaction: 0ns, commit: 0ns}
workload:
  phases:
    - {name: insert, transactions: 1, script: {text: "INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;\n"}}
`
	run := func(overrides ...string) (elapsed, exec float64) {
		p := bhPhase(t, bhRunYAML(t, scenario, overrides...), "insert")
		return p.ElapsedS * 1000, p.ExecutionMS
	}
	base, exec := run("costs.statement=0ns", "costs.statement_table=0ns", "costs.client_round_trip=0ns", "server.synchronous_commit=false")
	// What remains outside the executor is the new session's catalog
	// lookups, which PostgreSQL makes while planning.
	if exec <= 0 || exec >= base {
		t.Errorf("no statement, round trip or flush: elapsed %.4f ms, execution %.4f ms; want 0 < execution < elapsed", base, exec)
	}
	for _, c := range []struct {
		what      string
		overrides []string
		more      float64 // ms the elapsed time grows by, at least
	}{
		{"statement 1ms", []string{"costs.statement=1ms", "costs.statement_table=0ns", "costs.client_round_trip=0ns", "server.synchronous_commit=false"}, 1},
		{"round trip 1ms", []string{"costs.statement=0ns", "costs.statement_table=0ns", "costs.client_round_trip=1ms", "server.synchronous_commit=false"}, 1},
		{"synchronous commit", []string{"costs.statement=0ns", "costs.statement_table=0ns", "costs.client_round_trip=0ns", "server.synchronous_commit=true"}, 0.1},
	} {
		el, ex := run(c.overrides...)
		if math.Abs(ex-exec) > 0.001 || el < base+c.more {
			t.Errorf("%s: elapsed %.4f ms, execution %.4f ms; want execution %.4f and elapsed at least %.4f", c.what, el, ex, exec, base+c.more)
		}
		t.Logf("%s: elapsed %.4f ms, execution %.4f ms", c.what, el, ex)
	}
}
