package model_test

import (
	"math"
	"testing"
)

// costs.context_switch prices a CPU burst that begins on a core another
// process ran on last. One client on two cores never pays it (its backend
// and its pgbench thread each keep a core); four clients and their two
// threads on two cores pay it on most bursts, and the cores' busy time
// grows by exactly the switches times the price.
func TestContextSwitchPrice(t *testing.T) {
	doc := `name: context-switch
server: {autovacuum: false, cpus: 2}
tables: {pgbench: {scale: 1}}
workload:
  phases:
    - {name: run, transactions: 2000, script: select-only}
`
	one := bhRunYAML(t, doc)
	onePriced := bhRunYAML(t, doc, "costs.context_switch=20us")
	if n := onePriced.Totals.CPU.ContextSwitches; n != 0 {
		t.Errorf("one client: %d context switches, want 0", n)
	}
	if a, b := one.Totals.LatencyMS.Mean, onePriced.Totals.LatencyMS.Mean; a != b {
		t.Errorf("one client: latency %.6f ms, %.6f with the price; want the same", a, b)
	}
	four, fourPriced := bhRunYAML(t, doc, "workload.phases.run.clients=4", "workload.phases.run.threads=2"),
		bhRunYAML(t, doc, "workload.phases.run.clients=4", "workload.phases.run.threads=2", "costs.context_switch=20us")
	n := fourPriced.Totals.CPU.ContextSwitches
	bursts := float64(fourPriced.Totals.Transactions) * 2 // the client's and the backend's per statement
	if float64(n) < 0.5*bursts {
		t.Errorf("four clients on two cores: %d context switches for %.0f bursts, want most of them", n, bursts)
	}
	if four.Totals.CPU.ContextSwitches != 0 {
		t.Errorf("without the price no switch is counted, got %d", four.Totals.CPU.ContextSwitches)
	}
	extra := fourPriced.Totals.CPU.BusySeconds - four.Totals.CPU.BusySeconds*(float64(fourPriced.Totals.Transactions)/float64(four.Totals.Transactions))
	if want := float64(n) * 20e-6; math.Abs(extra-want) > 0.02*want {
		t.Errorf("four clients: the cores were busy %.4f s more, want %d switches x 20 us = %.4f s", extra, n, want)
	}
	if fourPriced.Totals.LatencyMS.Mean <= four.Totals.LatencyMS.Mean {
		t.Errorf("four clients: latency %.4f ms with the price, %.4f without; want it higher", fourPriced.Totals.LatencyMS.Mean, four.Totals.LatencyMS.Mean)
	}
}
