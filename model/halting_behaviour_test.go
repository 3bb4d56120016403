package model_test

import (
	"math"
	"testing"
)

// selectOnePaced is one client's SELECT 1 on two cores, paced by pgbench's
// -R at 500 transactions a second (a tenth or less of what it runs flat
// out), priced as a calibration of the development machine found them.
const selectOnePaced = `name: select-one-paced
server: {autovacuum: false, cpus: 2, synchronous_commit: false}
tables: {pgbench: {scale: 0}}
costs: {client_round_trip: 0s, cpu_wakeup: 15us, client_wakeup: 90us, context_switch: 2us}
workload:
  phases:
    - {name: run, transactions: 600, rate: 500, script: {text: "SELECT 1;\n"}}
`

// costs.cpu_halt_after: a paced client's backend runs on the core the
// client frees (its own core halted while it slept 2 ms), and the client
// on the backend's when the result comes: no wake-up, two context
// switches a transaction, so the transaction takes its CPU work alone,
// as PostgreSQL 15's paced SELECT 1 took 0.014-0.027 ms on the
// development machine where one run flat out took 0.066-0.070 (pinned
// to one vCPU 0.008, apart 0.080: docs/calibration.md "A paced client").
// The same run flat out keeps its processes apart: two wake-ups a
// transaction, with or without the rule. A paced client's own wake-up
// from its sleep is in costs.client_wakeup (its schedule lag), not a
// second cpu_wakeup, with or without the rule.
func TestHaltedCoresKeepAPacedClientBesideItsBackend(t *testing.T) {
	paced := bhRunYAML(t, selectOnePaced)
	halting := bhRunYAML(t, selectOnePaced, "costs.cpu_halt_after=200us")
	flat := bhRunYAML(t, selectOnePaced, "costs.cpu_halt_after=200us", "workload.phases.run.rate=0")
	flatPlain := bhRunYAML(t, selectOnePaced, "workload.phases.run.rate=0")
	txns := float64(halting.Totals.Transactions)
	if w := halting.Totals.CPU.Wakeups; float64(w) > 0.01*txns {
		t.Errorf("paced, halting cores: %d wake-ups in %.0f transactions, want almost none", w, txns)
	}
	if cs := float64(halting.Totals.CPU.ContextSwitches); math.Abs(cs/txns-2) > 0.01 {
		t.Errorf("paced, halting cores: %.2f context switches a transaction, want 2", cs/txns)
	}
	// Without the rule the backend wakes its own idle core: a wake-up a
	// transaction (the client's own is in its lag).
	if w := float64(paced.Totals.CPU.Wakeups); w/txns < 1 || w/txns > 1.2 {
		t.Errorf("paced: %.2f wake-ups a transaction, want about 1", w/txns)
	}
	lag := halting.Totals.LagMS.Mean
	if math.Abs(lag-0.090) > 0.005 || math.Abs(paced.Totals.LagMS.Mean-0.090) > 0.005 {
		t.Errorf("schedule lag %.4f ms (halting) and %.4f, want about client_wakeup's 0.090", lag, paced.Totals.LagMS.Mean)
	}
	// A paced transaction saves the backend's wake-up (15 us) less the
	// two switches (2 us each).
	own := halting.Totals.LatencyMS.Mean - lag
	plain := paced.Totals.LatencyMS.Mean - paced.Totals.LagMS.Mean
	if d := plain - own; d < 0.008 || d > 0.015 {
		t.Errorf("a paced transaction takes %.4f ms with halting cores, %.4f without: want 0.008-0.015 ms less", own, plain)
	}
	// Flat out, apart once the shared core has run a balancer tick (4 ms
	// of the run's 40): nearly two wake-ups a transaction, as without.
	ft := float64(flat.Totals.Transactions)
	if w := float64(flat.Totals.CPU.Wakeups) / ft; w < 1.6 || w > 2 {
		t.Errorf("flat out with the rule: %.2f wake-ups a transaction, want nearly 2", w)
	}
	if w := float64(flatPlain.Totals.CPU.Wakeups) / float64(flatPlain.Totals.Transactions); w != 2 {
		t.Errorf("flat out without the rule: %.2f wake-ups a transaction, want 2", w)
	}
	if a, b := flat.Totals.LatencyMS.Mean, flatPlain.Totals.LatencyMS.Mean; math.Abs(a-b) > 0.1*b {
		t.Errorf("flat out: %.4f ms with the rule, %.4f without: want within 10 %%", a, b)
	}
}
