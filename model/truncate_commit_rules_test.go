package model_test

import "testing"

// A transaction that drops relation files (TRUNCATE: the old relfilenode
// is unlinked at commit) flushes its commit record whatever
// synchronous_commit says (xact.c RecordTransactionCommit: "We must not
// allow asynchronous commit if there are any non-temp tables to be
// deleted"): TRUNCATE takes as long with synchronous_commit off as on,
// while a one-row INSERT is faster off. Measured on PostgreSQL 15 on the
// development machine: TRUNCATE of an empty table 1.29 ms off, 1.48 ms on;
// a one-row INSERT 0.083 ms off, 0.665 ms on.
func TestTruncateCommitFlushesWAL(t *testing.T) {
	const scenario = `
name: truncate-commit
seed: 1
server: {version: "15", shared_buffers: 128MB, autovacuum: false}
os: {page_cache: 2GB}
tables:
  relations:
    - {name: t, rows: 0, row_width: 8}
workload:
  phases:
    - {name: insert, transactions: 50, script: {text: "INSERT INTO t SELECT g, g FROM generate_series(1, 1) g;\n"}}
    - {name: truncate, transactions: 50, script: {text: "TRUNCATE t;\n"}}
`
	mean := func(sync, phase string) float64 {
		return bhPhase(t, bhRunYAML(t, scenario, "server.synchronous_commit="+sync), phase).LatencyMS.Mean
	}
	insOn, insOff := mean("true", "insert"), mean("false", "insert")
	trOn, trOff := mean("true", "truncate"), mean("false", "truncate")
	t.Logf("INSERT: %.4f ms on, %.4f off; TRUNCATE: %.4f on, %.4f off", insOn, insOff, trOn, trOff)
	if insOff >= insOn*0.8 {
		t.Errorf("a one-row INSERT is not faster with synchronous_commit off: %.4f ms against %.4f", insOff, insOn)
	}
	// Off, the WAL writer has flushed part of what the commit waits for
	// now and then (it is woken by the asynchronous commits), so the two
	// differ by some percent; without the flush, off took 0.13 of on.
	if trOff < 0.8*trOn {
		t.Errorf("TRUNCATE with synchronous_commit off %.4f ms, on %.4f: its commit must flush either way", trOff, trOn)
	}
}
