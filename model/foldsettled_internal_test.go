package model

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/model/heap"
)

// Folding settled inserts (foldSettled) is bookkeeping: a run gives the
// same result, byte for byte, with it and without it. The case makes it
// matter: tpcb-like's pgbench_history gets a row per transaction, which
// autovacuum's ANALYZEs and one transaction in 51 (a sequential scan of
// the table, whose snapshot finds recent inserts running) hint and fold
// while other clients hold snapshots and an autovacuum worker's VACUUM of
// the other tables runs beside them; then
// the table is read by a sequential scan, VACUUMed (its all-visible
// decisions), read again and emptied by a DELETE (whose versions keep
// the folded xmin), in PostgreSQL 9.4 (no autovacuum for inserts, so the
// rows stay unvacuumed) and 15 (which vacuums them for inserts too), and
// with synchronous_commit off (commits not yet flushed: tuples committed
// but not hinted).
func TestFoldingSettledInsertsChangesNoResult(t *testing.T) {
	if testing.Short() {
		t.Skip("four runs of two simulated minutes")
	}
	for _, c := range []struct {
		version    string
		syncCommit bool
	}{{"9.4", true}, {"15", true}, {"15", false}} {
		version := c.version
		run := func(off bool) ([]byte, int) {
			foldSettledOff = off
			defer func() { foldSettledOff = false }()
			sc := DefaultScenario()
			sc.Name = "fold"
			sc.Server.Version = version
			sc.Server.SynchronousCommit = c.syncCommit
			sc.Server.SharedBuffers = 16 << 20
			sc.Server.AutovacuumNaptime = 2 * sec
			sc.Server.AutovacuumAnalyzeThreshold = 50
			sc.Server.AutovacuumAnalyzeScaleFactor = 0.01
			sc.Tables.PGBench = PGBenchTables{Scale: 1, Fillfactor: 100}
			hist := TableStep{Table: "pgbench_history", Pick: "client"}
			sc.Workload.Phases = []Phase{
				{Name: "run", Clients: 16, Threads: 4, Duration: 8 * sec, Scripts: []WeightedScript{
					{Builtin: "tpcb-like", Weight: 10},
					{Name: "read-history", Steps: []Step{{Seqscan: &hist}}, Weight: 1},
					{Name: "vacuum-history", Steps: []Step{{Vacuum: &hist}}, Weight: 1},
				}},
				{Name: "scan", Clients: 1, Threads: 1, Transactions: 2, Script: Script{Steps: []Step{{Seqscan: &hist}}}},
				{Name: "vacuum", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Vacuum: &hist}}}},
				{Name: "scan-again", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Seqscan: &hist}}}},
				{Name: "delete", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Delete: &KeyStep{Table: "pgbench_history", Pick: "client"}}, {Seqscan: &hist}}}},
			}
			e, r := rtRun(t, sc)
			r.Runtime = Runtime{}
			out, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			return out, int(e.foldedGroups)
		}
		with, folded := run(false)
		without, _ := run(true)
		t.Logf("%s, synchronous_commit %v: %d tuple groups folded", version, c.syncCommit, folded)
		if string(with) != string(without) {
			t.Errorf("%s, synchronous_commit %v: folding settled inserts changed the run's result", version, c.syncCommit)
		}
		if folded < 1000 {
			t.Errorf("%s, synchronous_commit %v: %d tuple groups folded, the case does not exercise folding", version, c.syncCommit, folded)
		}
	}
}

// foldSettled's horizon is no later than a running VACUUM's: a VACUUM
// judges a page all-visible by the OldestXmin it took when it started
// (lazy_scan_prune), which a lazy VACUUM's own PROC_IN_VACUUM leaves out
// of oldestXmin, so inserts after it must stay what they were until it
// ends. Without one, everything committed, hinted and before oldestXmin
// folds.
func TestFoldHorizonWaitsForARunningVacuum(t *testing.T) {
	e := rtBuild(t, rtIdleScenario(64, 8))
	tb := e.db.lookup("t")[0]
	h := tb.heap
	h.Extended(8)
	for xid := uint32(50); xid < 60; xid++ {
		h.Insert(8, xid, 1)
		h.SetHints(8, xid, heap.XminCommitted, 0)
	}
	e.x.next = 100
	groups := func() int {
		var buf [1]heap.Group
		return len(h.Groups(8, &buf))
	}
	vacuum := &backend{e: e, worker: true, horizon: 55}
	e.procs = []*backend{vacuum}
	e.x.horizonOK = false
	e.foldSettled(tb, 8)
	if got := groups(); got != 6 {
		t.Errorf("with a VACUUM whose horizon is 55 running: %d groups, want 6 (xmins 50-54 folded, 55-59 kept)", got)
	}
	e.procs = nil
	e.x.horizonOK = false
	e.foldSettled(tb, 8)
	if got := groups(); got != 1 {
		t.Errorf("after it: %d groups, want 1", got)
	}
	if h.Tuples(8) != 10 {
		t.Errorf("folding changed the page's tuples: %d, want 10", h.Tuples(8))
	}
}

// builtinInserts, which validation asks, names exactly the tables the
// built-in scripts' ops insert into.
func TestBuiltinInsertsMatchTheirOps(t *testing.T) {
	sc := DefaultScenario()
	sc.Tables.PGBench = PGBenchTables{Scale: 1, Fillfactor: 100}
	sc.Workload.Phases = []Phase{{Name: "run", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Builtin: "select-only"}}}
	e := rtBuild(t, sc)
	b := &backend{e: e}
	for _, name := range []string{"tpcb-like", "simple-update", "select-only"} {
		s, err := builtinScript(name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range s.build(b, make([]int64, len(s.vars)), nil) {
			if o.kind == opInsert {
				got = append(got, o.t.name)
			}
		}
		if want := builtinInserts(name); !slices.Equal(got, want) {
			t.Errorf("%s inserts into %v, builtinInserts says %v", name, got, want)
		}
	}
}
