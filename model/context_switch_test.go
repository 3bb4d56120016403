package model_test

import (
	"math"
	"testing"
)

// selectOnlyTwoCores is pgbench's select-only, one client (the tests set
// more), on a server of two cores: the CPU prices' playground.
const selectOnlyTwoCores = `name: select-only-two-cores
server: {autovacuum: false, cpus: 2}
tables: {pgbench: {scale: 1}}
workload:
  phases:
    - {name: run, transactions: 2000, script: select-only}
`

// costs.context_switch prices a CPU burst that begins on a core another
// process ran on last. One client on two cores never pays it (its backend
// and its pgbench thread each keep a core); four clients and their two
// threads on two cores pay it on most bursts, and the cores' busy time
// grows by exactly the switches times the price.
func TestContextSwitchPrice(t *testing.T) {
	doc := selectOnlyTwoCores
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

// costs.cpu_wakeup delays a CPU burst that finds its core idle. One client
// on two cores finds it idle on every burst (its backend and its pgbench
// thread take turns, each on a core of its own): two wake-ups a statement,
// each adding the price to the latency and nothing to the busy time. Eight
// clients on two cores keep the cores busy: bursts are handed from one to
// the next and almost none wakes a core, so throughput is what the CPU
// work allows, as PostgreSQL's several-client runs are on a machine whose
// single-client latency is mostly wake-ups.
func TestCPUWakeupPrice(t *testing.T) {
	doc := selectOnlyTwoCores
	one := bhRunYAML(t, doc)
	onePriced := bhRunYAML(t, doc, "costs.cpu_wakeup=25us")
	tx := float64(onePriced.Totals.Transactions)
	if n := onePriced.Totals.CPU.Wakeups; float64(n) < 1.98*tx || float64(n) > 2.02*tx {
		t.Errorf("one client: %d wake-ups for %.0f statements, want two each", n, tx)
	}
	if d, want := onePriced.Totals.LatencyMS.Mean-one.Totals.LatencyMS.Mean, 2*0.025; math.Abs(d-want) > 0.02*want {
		t.Errorf("one client: latency grew %.4f ms, want two wake-ups = %.4f", d, want)
	}
	if a, b := one.Totals.CPU.BusySeconds, onePriced.Totals.CPU.BusySeconds; math.Abs(a-b) > 1e-6 {
		t.Errorf("one client: busy %.6f s, %.6f s with the price; a wake-up is not busy time", a, b)
	}
	if one.Totals.CPU.Wakeups != 0 {
		t.Errorf("without the price no wake-up is counted, got %d", one.Totals.CPU.Wakeups)
	}
	eight := bhRunYAML(t, doc, "workload.phases.run.clients=8", "workload.phases.run.threads=2")
	eightPriced := bhRunYAML(t, doc, "workload.phases.run.clients=8", "workload.phases.run.threads=2", "costs.cpu_wakeup=25us")
	tx8 := float64(eightPriced.Totals.Transactions)
	if n := eightPriced.Totals.CPU.Wakeups; float64(n) > 0.05*tx8 {
		t.Errorf("eight clients on two cores: %d wake-ups for %.0f statements, want almost none", n, tx8)
	}
	if a, b := eight.Totals.TPS, eightPriced.Totals.TPS; b < 0.97*a {
		t.Errorf("eight clients: %.0f tps with the price, %.0f without; want nearly the same", b, a)
	}
}

// costs.cpu_wakeup_cold: after a burst wakes an idle core, the first
// cpu_wakeup_cold of its process's work runs at half speed. One client on
// two cores wakes a core twice a statement (its pgbench thread's burst,
// 12 us of client CPU, and its backend's, a statement's 25 us and more):
// a span of 5 us shorter than either adds 10 us a statement to the
// latency and to the cores' busy time, all of it reported as
// cpu.wake_cold_seconds. Eight clients on two cores almost never wake a
// core, so their throughput hardly changes.
func TestCPUWakeupColdWork(t *testing.T) {
	doc := selectOnlyTwoCores
	woke := bhRunYAML(t, doc, "costs.cpu_wakeup=25us")
	cold := bhRunYAML(t, doc, "costs.cpu_wakeup=25us", "costs.cpu_wakeup_cold=5us")
	tx := float64(cold.Totals.Transactions)
	if d, want := cold.Totals.LatencyMS.Mean-woke.Totals.LatencyMS.Mean, 2*0.005; math.Abs(d-want) > 0.02*want {
		t.Errorf("one client: latency grew %.4f ms, want two wake-ups' cold 5 us = %.4f", d, want)
	}
	if d, want := cold.Totals.CPU.BusySeconds-woke.Totals.CPU.BusySeconds, 2*5e-6*tx; math.Abs(d-want) > 0.02*want {
		t.Errorf("one client: busy %.6f s more, want %.6f", d, want)
	}
	if got, want := cold.Totals.CPU.WakeColdSeconds, 2*5e-6*float64(cold.Totals.CPU.Wakeups)/2; math.Abs(got-want) > 1e-6 {
		t.Errorf("wake_cold_seconds %.6f, want 5 us per wake-up = %.6f", got, want)
	}
	if woke.Totals.CPU.WakeColdSeconds != 0 {
		t.Errorf("without the price wake_cold_seconds is %.6f, want 0", woke.Totals.CPU.WakeColdSeconds)
	}
	eight := bhRunYAML(t, doc, "workload.phases.run.clients=8", "workload.phases.run.threads=2", "costs.cpu_wakeup=25us")
	eightCold := bhRunYAML(t, doc, "workload.phases.run.clients=8", "workload.phases.run.threads=2", "costs.cpu_wakeup=25us", "costs.cpu_wakeup_cold=5us")
	if a, b := eight.Totals.TPS, eightCold.Totals.TPS; b < 0.99*a {
		t.Errorf("eight clients: %.0f tps with the price, %.0f without; want nearly the same", b, a)
	}
}

// costs.stall_interval and costs.stall: stalls arrive as a Poisson process
// in CPU time, each of exponentially distributed length, on whatever burst
// runs then. With one client on two cores running SELECT 1: the stall count is the busy
// time over the interval (a Poisson count, within four standard
// deviations), the mean latency grows by the stall time per transaction,
// busy time by the stalls' total, and the latency tail stretches (p99
// well above the mean, where fixed prices keep it near the mean). The
// same seed gives the same stalls; another seed other ones.
func TestCPUStalls(t *testing.T) {
	const doc = `name: select-one
seed: 1
server: {autovacuum: false, cpus: 2}
tables: {pgbench: {scale: 0}}
workload:
  phases:
    - {name: run, transactions: 20000, script: {text: "SELECT 1;\n"}}
`
	plain := bhRunYAML(t, doc, "workload.phases.run.transactions=20000")
	stalled := bhRunYAML(t, doc, "workload.phases.run.transactions=20000", "costs.stall_interval=1ms", "costs.stall=200us")
	p, s := plain.Totals, stalled.Totals
	if p.CPU.Stalls != 0 {
		t.Errorf("no stall price, %d stalls", p.CPU.Stalls)
	}
	// Busy time without the stalls, over the interval.
	want := p.CPU.BusySeconds / 1e-3
	if n := float64(s.CPU.Stalls); math.Abs(n-want) > 4*math.Sqrt(want) {
		t.Errorf("%d stalls in %.3f s of CPU with one every 1 ms on average, want %.0f +- %.0f", s.CPU.Stalls, p.CPU.BusySeconds, want, 4*math.Sqrt(want))
	}
	stallS := s.CPU.BusySeconds - p.CPU.BusySeconds
	if perStall := stallS / float64(s.CPU.Stalls); math.Abs(perStall-200e-6) > 4*200e-6/math.Sqrt(float64(s.CPU.Stalls)) {
		t.Errorf("the stalls held the cores %.1f us each on average, want 200 us (exponential)", perStall*1e6)
	}
	if d, w := s.LatencyMS.Mean-p.LatencyMS.Mean, stallS*1e3/float64(s.Transactions); math.Abs(d-w) > 0.05*w {
		t.Errorf("mean latency grew %.4f ms, want the stalls' %.4f ms per transaction", d, w)
	}
	t.Logf("p99/mean: %.2f without stalls, %.2f with", p.LatencyMS.P99/p.LatencyMS.Mean, s.LatencyMS.P99/s.LatencyMS.Mean)
	if p.LatencyMS.P99 > 1.2*p.LatencyMS.Mean || s.LatencyMS.P99 < 2*s.LatencyMS.Mean {
		t.Errorf("p99 %.4f ms of mean %.4f without stalls, %.4f of %.4f with: want the stalls to make the tail", p.LatencyMS.P99, p.LatencyMS.Mean, s.LatencyMS.P99, s.LatencyMS.Mean)
	}
	again := bhRunYAML(t, doc, "workload.phases.run.transactions=20000", "costs.stall_interval=1ms", "costs.stall=200us")
	other := bhRunYAML(t, doc, "workload.phases.run.transactions=20000", "costs.stall_interval=1ms", "costs.stall=200us", "seed=2")
	if again.Totals.LatencyMS != s.LatencyMS || other.Totals.LatencyMS == s.LatencyMS {
		t.Errorf("same seed: %+v then %+v; seed 2: %+v", s.LatencyMS, again.Totals.LatencyMS, other.Totals.LatencyMS)
	}
}
