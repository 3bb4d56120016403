package model_test

import (
	"testing"
)

// Commit and WAL flushing end to end (xlog.c XLogFlush, xact.c
// RecordTransactionCommit; docs/model.md).

// commitYAML: one-row inserts, each its own transaction, with the WAL on a
// jitter-free device whose fdatasync takes 5 ms, so a synchronous commit
// costs at least 5 ms and an asynchronous one much less.
const commitYAML = `
name: commit
server:
  cpus: 8
  autovacuum: false
  system_catalogs: false # the first connection's catalog reads are not a commit's
  wal_writer_delay: 200ms
storage:
  data: nvme
  wal: {preset: custom, channels: 1, read_time: 1ms, write_time: 1ms, seq_time: 50us, flush_time: 5ms, jitter: 0}
tables:
  relations:
    - {name: h, rows: 0}
workload:
  phases:
    - name: run
      duration: 5s
      clients: 1
      script: [{insert: {table: h, rows: 1}}]
`

// Group commit: XLogFlush writes everything inserted so far, so commits
// that queue behind a running flush share the next one. One client pays
// one flush per commit; with 32 clients a commit arriving during flush k
// is covered by flush k+1, so each client commits once per two flushes:
// throughput x32/2 = x16 although the device does one flush at a time.
func TestGroupCommitFewerFlushesThanCommits(t *testing.T) {
	one := bhRunYAML(t, commitYAML).Totals
	many := bhRunYAML(t, commitYAML, "workload.phases.run.clients=32").Totals
	if one.WAL.Flushes < one.Transactions {
		t.Errorf("1 client: %d flushes for %d commits, want one per commit at least", one.WAL.Flushes, one.Transactions)
	}
	if f := float64(many.WAL.Flushes) / float64(many.Transactions); f > 0.1 {
		t.Errorf("32 clients: %d flushes for %d commits (%.2f per commit), want group commit to share them (< 0.1)", many.WAL.Flushes, many.Transactions, f)
	}
	if r := many.TPS / one.TPS; r < 14 || r > 18 {
		t.Errorf("32 clients commit %.1fx faster than 1 (%.0f vs %.0f tps), want ~16x (32 clients / 2 flushes per commit)", r, many.TPS, one.TPS)
	}
	// A flush takes >= 5 ms on this device: the flush count is bounded by
	// the elapsed time.
	if max := int64(5.0 / 0.005); many.WAL.Flushes > max || one.WAL.Flushes > max {
		t.Errorf("%d and %d flushes in 5 s of a 5 ms device, at most %d possible", one.WAL.Flushes, many.WAL.Flushes, max)
	}
}

// synchronous_commit = off: COMMIT does not wait for its WAL flush
// (RecordTransactionCommit with async commit); the WAL writer flushes every
// wal_writer_delay. A commit then costs CPU only: far below the 5 ms flush,
// and the flushes are the WAL writer's, about one per 200 ms.
func TestAsyncCommitDoesNotWaitForFlush(t *testing.T) {
	on := bhRunYAML(t, commitYAML).Totals
	off := bhRunYAML(t, commitYAML, "server.synchronous_commit=false").Totals
	if on.LatencyMS.P50 < 5 {
		t.Errorf("synchronous commit: median latency %.3f ms, want >= the 5 ms flush", on.LatencyMS.P50)
	}
	if off.LatencyMS.Max >= 5 {
		t.Errorf("asynchronous commit: max latency %.3f ms, want < the 5 ms flush (commits must not wait)", off.LatencyMS.Max)
	}
	if want := int64(5 / 0.2); off.WAL.Flushes < want-2 || off.WAL.Flushes > want+2 {
		t.Errorf("asynchronous commit: %d WAL flushes in 5 s, want ~%d (the WAL writer every 200 ms)", off.WAL.Flushes, want)
	}
	if off.Transactions < 10*on.Transactions {
		t.Errorf("asynchronous commit ran %d transactions vs %d synchronous: want >= 10x", off.Transactions, on.Transactions)
	}
}
