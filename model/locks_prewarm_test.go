package model_test

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// heap_update waits for the transaction that changed the row
// (XactLockTableWait): pgbench with fewer branches than clients queues on
// the branch rows, and throughput falls as the rows get fewer.
func TestRowLocksSerialiseUpdatesOfARow(t *testing.T) {
	doc := `name: locks
server: {shared_buffers: 64MB}
tables:
  relations:
    - {name: t, rows: 1000, index: true}
workload:
  phases:
    - name: run
      duration: 5s
      clients: 8
      script:
        - begin: true
        - update: {table: t, key: "random(1, :rows)"}
        - sleep: 1ms
        - commit: true
`
	spread := bhRunYAML(t, doc)
	hot := bhRunYAML(t, doc, `workload.phases.run.script=[{begin: true}, {update: {table: t, key: "random(1, 2)"}}, {sleep: 1ms}, {commit: true}]`)
	if spread.Totals.RowLockWaits >= hot.Totals.RowLockWaits || hot.Totals.RowLockWaits == 0 {
		t.Errorf("row lock waits: %d over 1000 rows, %d over 2 rows", spread.Totals.RowLockWaits, hot.Totals.RowLockWaits)
	}
	// Two rows, each held for >= 1 ms: at most ~2 transactions per ms.
	if hot.Totals.TPS > 2100 || hot.Totals.TPS >= spread.Totals.TPS {
		t.Errorf("tps with 2 hot rows %.0f (1000 rows: %.0f): the lock should serialise", hot.Totals.TPS, spread.Totals.TPS)
	}
	if hot.Totals.Deadlocks != 0 || hot.Totals.Failed != 0 {
		t.Errorf("one row per transaction cannot deadlock: %d deadlocks", hot.Totals.Deadlocks)
	}
}

// Two rows updated in random order by concurrent transactions deadlock;
// the victim's execution fails (pgbench's "failed"), the others go on.
func TestDeadlocksAbortTheWaiter(t *testing.T) {
	res := bhRunYAML(t, `name: deadlock
server: {shared_buffers: 32MB}
tables:
  relations:
    - {name: t, rows: 20, index: true}
workload:
  phases:
    - name: run
      duration: 5s
      clients: 8
      script:
        - begin: true
        - update: {table: t, key: "random(1, 20)"}
        - update: {table: t, key: "random(1, 20)"}
        - commit: true
`)
	tot := res.Totals
	if tot.Deadlocks == 0 || tot.Failed != tot.Deadlocks {
		t.Errorf("deadlocks %d, failed %d: every deadlock victim fails", tot.Deadlocks, tot.Failed)
	}
	if tot.Transactions < 10*tot.Failed {
		t.Errorf("%d transactions, %d failed: most should commit", tot.Transactions, tot.Failed)
	}
}

// Prewarming loads shared buffers and the page cache as the workload would,
// outside the measured run: the run's counters start at zero and its first
// seconds hit the cache.
func TestPrewarmStartsWarm(t *testing.T) {
	base := []string{"workload.phases.warmup.duration=1s", "workload.phases.run.duration=5s", "server.shared_buffers=64MB", "os.page_cache=64MB"}
	sc, err := configs.Load("../configs/quickstart.yaml", base...)
	if err != nil {
		t.Fatal(err)
	}
	cold, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	sc.Workload.Prewarm = 50000
	warm, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	c, w := cold.Phases[0].Buffers, warm.Phases[0].Buffers
	if w.Reads > c.Reads*7/10 || w.HitRatio <= c.HitRatio {
		t.Errorf("warm-up phase: cold %d reads (hit ratio %.3f), prewarmed %d reads (%.3f)", c.Reads, c.HitRatio, w.Reads, w.HitRatio)
	}
	if w.FreeListPops != 0 {
		t.Errorf("after a prewarm that filled the pool, %d free-list pops", w.FreeListPops)
	}
	if warm.Phases[0].StartS != 0 || warm.Series.TimeS[0] != 1 {
		t.Errorf("reported times should count from the run's start: phase at %v, first row at %v", warm.Phases[0].StartS, warm.Series.TimeS[0])
	}
}
