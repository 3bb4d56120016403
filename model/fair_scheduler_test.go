package model_test

import (
	"reflect"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// costs.cpu_slice turns on the cores' fair scheduler (docs/model.md "The
// cores' scheduler"). One client on two cores never queues: its backend
// and its pgbench thread each keep a core, so the latency is the
// arrival-order model's to the nanosecond. Four clients on two threads
// queue on their cores: the scheduler preempts and reports it, and the
// same seed gives the same run. With the cores busy (sixteen clients) a
// process stays on its core: a migration is rare. Putting pgbench's threads in a group of their own
// (cpu_client_group) gives them half a core against two busy backends,
// not a third: the runs differ.
func TestFairScheduler(t *testing.T) {
	doc := selectOnlyTwoCores
	fair := []string{"costs.cpu_slice=1.4ms", "costs.context_switch=2us", "costs.cpu_wakeup=10us"}
	one := bhRunYAML(t, doc, "costs.context_switch=2us", "costs.cpu_wakeup=10us")
	oneFair := bhRunYAML(t, doc, fair...)
	if a, b := one.Totals.LatencyMS, oneFair.Totals.LatencyMS; a != b {
		t.Errorf("one client: latency %+v with the fair scheduler, %+v without; want the same", b, a)
	}
	if c := oneFair.Totals.CPU; c.Preemptions != 0 || c.Migrations != 0 {
		t.Errorf("one client: %d preemptions, %d migrations; want none", c.Preemptions, c.Migrations)
	}
	four := append([]string{"workload.phases.run.clients=4", "workload.phases.run.threads=2"}, fair...)
	flat := bhRunYAML(t, doc, four...)
	c := flat.Totals.CPU
	if c.Preemptions+c.WakerPreemptions == 0 {
		t.Errorf("four clients on two cores: no preemption at all")
	}
	busy := bhRunYAML(t, doc, append([]string{"workload.phases.run.clients=16", "workload.phases.run.threads=2"}, fair...)...)
	if m, tx := busy.Totals.CPU.Migrations, busy.Totals.Transactions; float64(m) > 0.02*float64(tx) {
		t.Errorf("sixteen clients: %d migrations in %d transactions, want processes to stay on their cores", m, tx)
	}
	if again := bhRunYAML(t, doc, four...); !reflect.DeepEqual(again.Totals, flat.Totals) {
		t.Errorf("two runs of one seed differ")
	}
	grouped := bhRunYAML(t, doc, append(four, "costs.cpu_client_group=true")...)
	if grouped.Totals.LatencyMS == flat.Totals.LatencyMS {
		t.Errorf("cpu_client_group changed nothing")
	}
	fifo := bhRunYAML(t, doc, "workload.phases.run.clients=4", "workload.phases.run.threads=2", "costs.context_switch=2us", "costs.cpu_wakeup=10us")
	if c := fifo.Totals.CPU; c.Preemptions != 0 || c.WakerPreemptions != 0 || c.Migrations != 0 {
		t.Errorf("without cpu_slice: %d/%d/%d preemptions/waker/migrations, want none counted", c.Preemptions, c.WakerPreemptions, c.Migrations)
	}
}

// With the fair scheduler a row lock's waiters race for the row when its
// holder ends (docs/model.md "Row locks"): four clients updating one row
// wait more than once a transaction (PostgreSQL 15 measured 2.6 lock
// waits a transaction), their latencies spread out, and without the
// scheduler the waiters are served in arrival order, one wait a
// transaction.
func TestRowLockRace(t *testing.T) {
	doc := `name: one-row
server: {autovacuum: false, cpus: 2, synchronous_commit: false}
tables: {pgbench: {scale: 1}}
workload:
  phases:
    - {name: run, transactions: 1500, clients: 4, threads: 2, script: {text: "BEGIN;\nUPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;\nSELECT 1;\nEND;\n"}}
`
	prices := []string{"costs.row_lock_wait=20us", "costs.context_switch=2us", "costs.cpu_wakeup=10us"}
	fifo := bhRunYAML(t, doc, prices...)
	fair := bhRunYAML(t, doc, append(prices, "costs.cpu_slice=1.4ms", "costs.cpu_client_group=true")...)
	perTxn := func(r *model.Result) float64 { return float64(r.Totals.RowLockWaits) / float64(r.Totals.Transactions) }
	if w := perTxn(fifo); w < 0.95 || w > 1.05 {
		t.Errorf("arrival order: %.2f lock waits a transaction, want one", w)
	}
	if w := perTxn(fair); w < 1.5 {
		t.Errorf("racing waiters: %.2f lock waits a transaction, want well over one", w)
	}
	cv := func(r *model.Result) float64 { return r.Totals.LatencyMS.Stddev / r.Totals.LatencyMS.Mean }
	if a, b := cv(fifo), cv(fair); b < 1.5*a {
		t.Errorf("latency's coefficient of variation %.2f racing, %.2f in arrival order: want the race to spread it", b, a)
	}
}
