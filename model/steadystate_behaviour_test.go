package model_test

import (
	"runtime"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// Long runs reach a steady state (model memory does not grow with
// simulated time once autovacuum keeps up): pages VACUUM finds all-visible
// return to a compact form, the commit log keeps only aborted xids of old
// pages. The live heap at the end of 4 simulated hours is within 10 % of
// that after 1 hour, besides the per-page cost of the pages the database
// itself grew by (pgbench_history only grows: 32 bytes per page id of
// model state). About 20 s; skipped with -short.
func TestMemoryReachesSteadyState(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates five hours")
	}
	const yaml = `
name: steady
server: {shared_buffers: 16MB, cpus: 4, autovacuum_naptime: 5s, autovacuum_vacuum_scale_factor: 0.01, autovacuum_vacuum_insert_scale_factor: 0}
os: {page_cache: 64MB}
tables: {pgbench: {scale: 2}}
output: {interval: 1min}   # the time series grows with duration/interval by design
workload:
  phases:
    - {name: run, duration: 1h, clients: 8, rate: 200, script: tpcb-like}
`
	liveAfter := func(d string) (uint64, *model.Result) {
		sc := bhScenario(t, yaml, "workload.phases.run.duration="+d)
		var live uint64
		r, err := model.RunWith(sc, model.Options{AtEnd: func() {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			live = m.HeapAlloc
		}})
		if err != nil {
			t.Fatal(err)
		}
		return live, r
	}
	h1, r1 := liveAfter("1h")
	h4, r4 := liveAfter("4h")
	t.Logf("live heap after 1 h: %.1f MB (%d txns), after 4 h: %.1f MB (%d txns)", float64(h1)/(1<<20), r1.Totals.Transactions, float64(h4)/(1<<20), r4.Totals.Transactions)
	grown := float64(r4.Runtime.Pages-r1.Runtime.Pages) * 32
	t.Logf("the relations grew by %d page ids (%.1f MB allowed for them)", r4.Runtime.Pages-r1.Runtime.Pages, grown/(1<<20))
	if float64(h4) > 1.10*float64(h1)+grown {
		t.Errorf("the model grew from %.1f MB to %.1f MB between 1 and 4 simulated hours", float64(h1)/(1<<20), float64(h4)/(1<<20))
	}
}
