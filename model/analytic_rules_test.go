package model

import (
	"math"
	"testing"
)

// Uniform random access (the independent reference model with equal
// probabilities): whatever the replacement policy, a reference finds its
// page cached with probability (pages cached) / (pages referenced), so a
// table of P heap pages read by uniformly random keys through C buffers,
// of which the index holds I (its root and leaves are referenced on every
// lookup and stay cached), has a heap hit ratio of (C - I) / P. One row
// per page makes a uniform key a uniform page. (Analytic check of
// docs/validation.md: "uniform-access hit ratio = cache/data".)
func TestUniformAccessHitRatioIsCacheOverData(t *testing.T) {
	const pages, nbuf = 4000, 1000
	for _, pol := range []string{"clock-sweep", "lru", "sieve"} {
		sc := rtIdleScenario(nbuf, 10)
		sc.Server.CPUs = 8
		sc.Costs.ClientRoundTrip, sc.Costs.Client = 0, 0
		sc.OS.PageCache = 1 << 30
		sc.Policies.Replacement = ReplacementConfig{Policy: pol}
		tc := rtTable("t", 0)
		tc.Pages, tc.Rows, tc.RowsPerPage = 0, pages, 1
		sc.Tables.Relations = []TableConfig{tc}
		steps := []Step{{Select: &KeyStep{Table: "t", Key: "random(1, :rows)", Pick: "client"}}}
		sc.Workload.Phases = []Phase{
			{Name: "warm", Clients: 8, Threads: 1, Duration: 300 * ms, Warmup: true, Script: Script{Steps: steps}},
			{Name: "run", Clients: 8, Threads: 1, Duration: 500 * ms, Script: Script{Steps: steps}},
		}
		e, r := rtRun(t, sc)
		tbl := e.db.lookup("t")[0]
		if tbl.heap.NBlocks() != pages {
			t.Fatalf("table has %d pages, want %d", tbl.heap.NBlocks(), pages)
		}
		index := int32(0)
		for _, l := range tbl.pkey.bt.Levels {
			index += l.Pages
		}
		m := r.Totals
		// Every read in the run phase is a heap miss (the index stays cached).
		heapHit := 1 - float64(m.Buffers.Reads)/float64(m.Transactions)
		want := float64(nbuf-index) / pages
		if m.Transactions < 50000 || math.Abs(heapHit/want-1) > 0.02 {
			t.Errorf("%s: heap hit ratio %.4f over %d lookups, want (C - I) / P = (%d - %d) / %d = %.4f within 2%%",
				pol, heapHit, m.Transactions, nbuf, index, pages, want)
		}
	}
}
