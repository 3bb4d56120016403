package model_test

import "testing"

// A transaction that would drop relation files and is aborted by a
// deadlock drops none (its pending deletes of the new files, smgrDoPendingDeletes
// at abort) and leaves nothing behind for the backend's next transaction:
// with synchronous_commit off, that one's commit is asynchronous again
// (xact.c RecordTransactionCommit decides from the committing
// transaction's own pending deletes). Here one script truncates u and
// updates two rows of t in random order (8 clients: some deadlock), the
// other inserts one row into v. Every INSERT commits without waiting for
// the WAL flush, whose device takes milliseconds (hdd): its slowest stays
// far below one flush. A backend that kept the flag from its deadlocked
// TRUNCATE would make its next INSERT wait for a flush (resetting it only
// on COMMIT and ROLLBACK, not on a deadlock's abort, fails here). The
// page cache starts loaded: on a cold one the first statements' catalog
// reads from the disk take 0.2 s. The scripts' names (name: on a text
// script) are how the report tells them apart.
func TestDeadlockedTruncateLeavesNoFlushBehind(t *testing.T) {
	const scenario = `
name: truncate-deadlock
seed: 3
server: {version: "15", shared_buffers: 32MB, autovacuum: false, synchronous_commit: false}
os: {start: loaded}
storage: {data: hdd-7200}
tables:
  relations:
    - {name: t, rows: 20, index: true}
    - {name: u, rows: 0, row_width: 8}
    - {name: v, rows: 0, row_width: 8}
workload:
  phases:
    - name: run
      duration: 10s
      clients: 8
      scripts:
        - name: truncate
          text: |
            \set a random(1, 20)
            \set b random(1, 20)
            BEGIN;
            TRUNCATE u;
            UPDATE t SET v = v + 1 WHERE id = :a;
            UPDATE t SET v = v + 1 WHERE id = :b;
            END;
        - name: insert
          text: "INSERT INTO v SELECT g, g FROM generate_series(1, 1) g;\n"
`
	res := bhRunYAML(t, scenario)
	tot := res.Totals
	if tot.Deadlocks < 5 {
		t.Fatalf("%d deadlocks: the scenario must make some", tot.Deadlocks)
	}
	var ins, trunc *struct{ max, mean float64 }
	for _, s := range tot.Scripts {
		v := &struct{ max, mean float64 }{s.LatencyMS.Max, s.LatencyMS.Mean}
		switch s.Name {
		case "insert":
			ins = v
		case "truncate":
			trunc = v
		}
	}
	if ins == nil || trunc == nil {
		t.Fatalf("no per-script latencies: %+v", tot.Scripts)
	}
	t.Logf("%d deadlocks; INSERT mean %.3f ms, max %.3f; the TRUNCATE transaction mean %.3f ms", tot.Deadlocks, ins.mean, ins.max, trunc.mean)
	if ins.max > trunc.mean/2 {
		t.Errorf("an INSERT took %.3f ms, where a commit that flushes takes about %.3f: it waited for a flush it did not need", ins.max, trunc.mean)
	}
}
