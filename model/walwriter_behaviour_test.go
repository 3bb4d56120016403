package model_test

import (
	"fmt"
	"testing"
)

// The WAL writer (docs/model.md "WAL writer"; walwriter.c, xlog.c
// XLogBackgroundFlush and XLogSetAsyncXactLSN), end to end.

// walWriterScenario: a quiet server for idle, then one phase of script.
func walWriterScenario(idle, syncCommit, script string) string {
	return fmt.Sprintf(`name: walwriter
seed: 1
server: {version: "15", shared_buffers: 128MB, cpus: 2, autovacuum: false, synchronous_commit: %s}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t_ins, rows: 0, row_width: 105}
workload:
  phases:
    - {name: idle, transactions: 1, script: [{sleep: %s}]}
    - {name: work, transactions: 1, script: %s}
    - {name: after, transactions: 1, script: [{sleep: 100ms}]}
`, syncCommit, idle, script)
}

// Measured on PostgreSQL 15 (shared_buffers 128MB, so 512 WAL buffers):
// the INSERT of 100000 rows of 105 bytes, 1960 WAL pages, wrote 1447 or
// 1448 of them itself (wal_buffers_full) whenever no round of the WAL
// writer fell inside the statement, as always once the writer hibernates
// (50 idle rounds of 200 ms) unless something wakes it: here the
// statement ends before the background writer's first standby snapshot
// (15 s after its start), which would. With the writer awake, a round
// inside the statement (the model's takes about 225 ms at the default
// prices) writes a run of pages first, and the backend writes fewer.
func TestBulkInsertOnAQuietServerWritesItsWALBuffersItself(t *testing.T) {
	const insert = `[{insert: {table: t_ins, rows: 100000}}]`
	quiet := bhPhase(t, bhRunYAML(t, walWriterScenario("12s", "true", insert)), "work").WAL
	if quiet.BuffersFull < 1447 || quiet.BuffersFull > 1448 || quiet.Flushes != 1 {
		t.Errorf("after 12 s idle: wal_buffers_full %d with %d flushes, want PostgreSQL's 1447 or 1448 (by where in its page the statement's WAL starts) and the commit's one flush", quiet.BuffersFull, quiet.Flushes)
	}
	// Twice the rows: the backend's own writes finish the first WAL
	// segment, whose fsync it then makes (XLogWrite's finishing_seg), then
	// the commit's flush: 2, as PostgreSQL's wal_sync counted for an
	// INSERT whose writes crossed one segment boundary.
	two := bhPhase(t, bhRunYAML(t, walWriterScenario("12s", "true", `[{insert: {table: t_ins, rows: 200000}}]`)), "work").WAL
	if two.Flushes != 2 {
		t.Errorf("200000 rows after 12 s idle: %d flushes, want 2 (the finished segment's and the commit's)", two.Flushes)
	}
	awake := bhPhase(t, bhRunYAML(t, walWriterScenario("1s", "true", insert)), "work").WAL
	if awake.BuffersFull >= quiet.BuffersFull || awake.Flushes < 2 {
		t.Errorf("writer awake: wal_buffers_full %d with %d flushes, want fewer than %d: a round falls inside the statement", awake.BuffersFull, awake.Flushes, quiet.BuffersFull)
	}
}

// An asynchronous commit sets the hibernating writer's latch: its WAL is
// flushed at once, not at the end of the writer's 5 s sleep. A
// synchronous commit flushes its own WAL and leaves the writer asleep.
func TestAsyncCommitWakesTheHibernatingWALWriter(t *testing.T) {
	const insert = `[{insert: {table: t_ins, rows: 10}}]`
	for _, sync := range []string{"false", "true"} {
		r := bhRunYAML(t, walWriterScenario("17s", sync, insert))
		work, after := bhPhase(t, r, "work").WAL, bhPhase(t, r, "after").WAL
		if work.Flushes+after.Flushes != 1 {
			t.Errorf("synchronous_commit %s after 17 s idle: %d flushes by 100 ms after the commit, want 1 (the writer's, woken, or the commit's own)",
				sync, work.Flushes+after.Flushes)
		}
	}
}
