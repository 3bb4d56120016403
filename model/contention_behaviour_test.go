package model_test

import (
	"math"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// Queueing for shared resources: the strategy lock of 9.4 and earlier, and
// the CPU cores as a k-server queue.

// lockYAML: select-only over 10 scales (~19000 pages) with 2048 buffers,
// every page an OS-cache hit: 40 % of lookups need a victim, nothing waits
// for a disk.
const lockYAML = `
name: strategy-lock
server:
  shared_buffers: 16MB
  cpus: 8
  autovacuum: false
  system_catalogs: false # the same pages in both versions
os: {page_cache: 1GB}
storage: {data: nvme, wal: nvme}
costs: {client: 0s}
tables:
  pgbench: {scale: 10}
workload:
  phases:
    - {name: warm, warmup: true, duration: 1s, clients: 64, script: select-only}
    - {name: run, duration: 1s, clients: 64, script: select-only}
`

// docs/model.md: from 8.1 to 9.4 BufFreelistLock was held
// for the whole victim search (StrategyGetBuffer); 9.5 replaced it by a
// spinlock per step and then an atomic clock hand. With 64 clients and a
// working set larger than shared_buffers, 9.4's allocations serialise on
// the lock: throughput is far lower than 9.5's with the same cache
// behaviour. With one client there is no one to wait for, so the versions
// run at nearly the same speed.
func TestStrategyLockSerialisesVictimSearchUpTo94(t *testing.T) {
	v94 := bhRunYAML(t, lockYAML, "server.version=9.4").Totals
	v95 := bhRunYAML(t, lockYAML, "server.version=9.5").Totals
	t.Logf("64 clients: 9.4 %.0f tps (CPU %.2f), 9.5 %.0f tps (CPU %.2f), hit ratio %.3f / %.3f",
		v94.TPS, v94.CPU.Utilisation, v95.TPS, v95.CPU.Utilisation, v94.Buffers.HitRatio, v95.Buffers.HitRatio)
	if math.Abs(v94.Buffers.HitRatio-v95.Buffers.HitRatio) > 0.01 {
		t.Fatalf("hit ratios differ (%.3f vs %.3f): the comparison is not about the lock", v94.Buffers.HitRatio, v95.Buffers.HitRatio)
	}
	if v94.TPS > 0.5*v95.TPS {
		t.Errorf("9.4 reaches %.0f tps, 9.5 %.0f: the global strategy lock should cap 9.4 well below (< 0.5x)", v94.TPS, v95.TPS)
	}
	if v95.CPU.Utilisation < 0.95 || v94.CPU.Utilisation > 0.6 {
		t.Errorf("CPU utilisation 9.4 %.2f, 9.5 %.2f: 9.5 should be CPU-bound, 9.4 lock-bound", v94.CPU.Utilisation, v95.CPU.Utilisation)
	}
	one94 := bhRunYAML(t, lockYAML, "server.version=9.4", "workload.phases.warm.clients=1", "workload.phases.run.clients=1").Totals
	one95 := bhRunYAML(t, lockYAML, "server.version=9.5", "workload.phases.warm.clients=1", "workload.phases.run.clients=1").Totals
	if r := one94.TPS / one95.TPS; r < 0.95 {
		t.Errorf("1 client: 9.4 runs at %.3fx of 9.5, want > 0.95 (an uncontended lock costs little)", r)
	}
}

// cpuYAML: select-only at scale 1, everything in shared buffers, no client
// round trip, a pgbench thread per client on the server's cores: a closed
// loop with zero think time, so the clients keep every core busy as long
// as there are at least as many clients as cores.
const cpuYAML = `
name: cpu
server:
  shared_buffers: 128MB
  autovacuum: false
  system_catalogs: false # the analytic per-transaction CPU
costs: {client_round_trip: 0s}
storage: {data: nvme, wal: nvme}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: warm, warmup: true, duration: 100ms, clients: 8, threads: 8, script: select-only}
    - {name: run, duration: 500ms, clients: 8, threads: 8, script: select-only}
`

// selectOnlyCPU is the CPU of one cached select-only transaction from the
// cost table: the client program's (its thread on the server's cores), the
// statement, a snapshot (a proc-array entry per backend:
// the clients plus 4 background processes), the accounts pkey descent
// (root and leaf at scale 1, docs/model.md: depth 2) and the heap fetch with
// one hinted visibility check (pgbench tables are loaded frozen).
func selectOnlyCPU(c model.Costs, clients int) float64 {
	ns := c.Client + c.Statement + c.ProcArrayPerProc*int64(clients+4) +
		2*(c.BufferHit+c.IndexLevel) + c.BufferHit + c.TupleFetch + c.HintedCheck
	return float64(ns) / 1e9
}

// CPU cores are a k-server FIFO queue (docs/model.md). A closed loop of N
// clients with no think time and per-transaction CPU S keeps min(N, k)
// cores busy: throughput = min(N, k) / S. It scales linearly with the
// cores until they outnumber the clients.
func TestCPUBoundThroughputIsCoresOverCPUPerTransaction(t *testing.T) {
	s := selectOnlyCPU(model.DefaultCosts(), 8)
	for _, cpus := range []int{1, 2, 4, 8, 16} {
		sc := bhScenario(t, cpuYAML)
		sc.Server.CPUs = cpus
		r := bhRun(t, sc).Totals
		want := float64(min(cpus, 8)) / s
		if math.Abs(r.TPS/want-1) > 0.005 {
			t.Errorf("%d cores, 8 clients: %.0f tps, want min(8, %d) / %.3f us = %.0f", cpus, r.TPS, cpus, s*1e6, want)
		}
		// Within 0.3 %: the background processes' CPU and the bursts in
		// flight at the phase's ends are spread over the transactions.
		if perTxn := r.CPU.BusySeconds / float64(r.Transactions); math.Abs(perTxn/s-1) > 0.003 {
			t.Errorf("%d cores: %.3f us of CPU per transaction, want %.3f", cpus, perTxn*1e6, s*1e6)
		}
		if wantU := math.Min(1, 8/float64(cpus)); math.Abs(r.CPU.Utilisation-wantU) > 0.01 {
			t.Errorf("%d cores: utilisation %.3f, want %.3f", cpus, r.CPU.Utilisation, wantU)
		}
	}
}

// A pgbench thread runs one client's client-side work at a time (pgbench.c
// threadRun): with the client's CPU c per statement, T threads cap a closed
// loop at T / c statements per second however many clients and cores
// there are, pgbench's familiar -j bottleneck. With client_host: remote that
// CPU only delays the clients; on the server it is busy time of the cores.
func TestClientThreadsCapThroughput(t *testing.T) {
	const c = 50e-6
	for _, threads := range []int{1, 2} {
		sc := bhScenario(t, cpuYAML)
		sc.Server.CPUs = 16
		sc.Costs.Client = int64(c * 1e9)
		sc.Workload.ClientHost = "remote"
		for i := range sc.Workload.Phases {
			sc.Workload.Phases[i].Threads = threads
		}
		r := bhRun(t, sc).Totals
		if want := float64(threads) / c; math.Abs(r.TPS/want-1) > 0.01 {
			t.Errorf("%d threads, 8 clients, %.0f us of client CPU per statement: %.0f tps, want T / c = %.0f", threads, c*1e6, r.TPS, want)
		}
		s := selectOnlyCPU(sc.Costs, 8) - c // remote: not the server's
		if perTxn := r.CPU.BusySeconds / float64(r.Transactions); math.Abs(perTxn/s-1) > 0.005 {
			t.Errorf("remote client, %d threads: %.3f us of server CPU per transaction, want %.3f", threads, perTxn*1e6, s*1e6)
		}
	}
}

// A rate-limited client that sleeps until its scheduled start wakes
// costs.client_wakeup late (poll()'s timer slack): at a light load, where
// nearly every transaction waits for its slot, the schedule lag grows by
// that much (the rest of the lag: slots that came before the previous
// transaction ended).
func TestClientWakeupIsTheLagOfALightLoad(t *testing.T) {
	var base float64
	for _, wake := range []int64{0, 50_000, 200_000} {
		sc := bhScenario(t, cpuYAML)
		sc.Costs.ClientWakeup = wake
		for i := range sc.Workload.Phases {
			sc.Workload.Phases[i].Clients, sc.Workload.Phases[i].Threads, sc.Workload.Phases[i].Rate = 1, 1, 100
		}
		r := bhRun(t, sc).Totals
		if wake == 0 {
			base = r.LagMS.Mean
			if base > 0.01 {
				t.Fatalf("without a wake-up delay the lag of a light load is %.4f ms", base)
			}
			continue
		}
		want := float64(wake) / 1e6
		if got := r.LagMS.Mean - base; math.Abs(got/want-1) > 0.05 {
			t.Errorf("client_wakeup %d us: lag mean %.6f ms, %.6f more than without; want %.3f more", wake/1000, r.LagMS.Mean, got, want)
		}
	}
}
