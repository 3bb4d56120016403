package model

import "testing"

// The oldest-xmin horizon is cached and recomputed only when the running
// xid or snapshot xmin equal to it goes away (xact.go): with verifyHorizon
// every cached answer is compared with a proc-array scan, over a closed
// loop with row-lock waits and a run long enough for autovacuum workers to
// join and leave the proc array.
func TestCachedHorizonEqualsAScan(t *testing.T) {
	verifyHorizon = true
	defer func() { verifyHorizon = false }()
	for _, c := range []struct {
		clients  int
		rate     float64
		duration int64
	}{{64, 0, 2 * sec}, {8, 300, 90 * sec}} {
		sc := DefaultScenario()
		sc.Name = "horizon"
		sc.Server.SharedBuffers = 32 << 20
		sc.Server.AutovacuumNaptime = 5 * sec
		sc.Tables.PGBench = PGBenchTables{Scale: 2, Fillfactor: 100}
		sc.Workload.Phases = []Phase{{Name: "run", Clients: c.clients, Threads: 1, Rate: c.rate, Duration: c.duration, Script: Script{Builtin: "tpcb-like"}}}
		e, r := rtRun(t, sc)
		if r.Totals.RowLockWaits == 0 && c.rate == 0 {
			t.Errorf("%d clients: no row-lock waits, the case does not exercise the lock queue", c.clients)
		}
		if c.rate > 0 && len(e.idleWorkers) == 0 {
			t.Errorf("no autovacuum worker finished in %d s", c.duration/sec)
		}
	}
}

// A VACUUM's snapshot holds back no horizon (PROC_IN_VACUUM, skipped by
// procarray.c ComputeXidHorizons): an autovacuum worker's, and a client's
// while it runs a VACUUM statement; any other client's does.
func TestVacuumSnapshotHoldsNoHorizon(t *testing.T) {
	e := rtBuild(t, rtIdleScenario(64, 8))
	e.x.next = 100
	old := func(b *backend) *backend {
		b.e, b.snapValid = e, true
		b.snap.xmin, b.snap.xmax = 10, 100
		return b
	}
	worker := old(&backend{worker: true})
	vacuuming := old(&backend{ops: []op{{kind: opVacuum}}, sub: 1})
	reading := old(&backend{ops: []op{{kind: opFetch}}, sub: 1})
	for _, c := range []struct {
		procs []*backend
		want  uint32
	}{
		{[]*backend{worker}, 100},
		{[]*backend{vacuuming}, 100},
		{[]*backend{reading}, 10},
		{[]*backend{worker, vacuuming, reading}, 10},
	} {
		e.procs = c.procs
		e.x.horizonOK = false
		if got := e.oldestXmin(); got != c.want {
			t.Errorf("%d procs: horizon %d, want %d", len(c.procs), got, c.want)
		}
	}
}
