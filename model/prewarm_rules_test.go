package model

import "testing"

// A prewarm touches the page cache only where the workload would: on a
// shared-buffer miss (a read). pgbench_branches' one page is read once,
// at the start, and hit in shared buffers by every later transaction; with
// a page cache far smaller than the pages the prewarm reads, that first
// read has long fallen out of the cache's LRU by the end. Were shared-buffer
// hits to refresh the page cache, the hottest page would be its most
// recent one.
func TestPrewarmHitsDoNotReachThePageCache(t *testing.T) {
	sc := DefaultScenario()
	sc.Name = "prewarm"
	sc.Server.SharedBuffers = 16 << 20 // 2048 buffers
	sc.Server.Autovacuum = false
	sc.OS.PageCache = 4 << 20 // 512 pages
	sc.Tables.PGBench.Scale = 10
	sc.Workload.Phases = []Phase{{Name: "run", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Builtin: "tpcb-like"}}}
	e := rtBuild(t, sc)
	e.prewarm(20000)
	branches := e.db.lookup("pgbench_branches")[0]
	gid := e.cat.GID(branches.rel, 0)
	if e.pool.Lookup(gid) < 0 {
		t.Fatal("pgbench_branches' page should be in shared buffers after the prewarm")
	}
	if e.os.Contains(gid) {
		t.Error("pgbench_branches' page is in the page cache: shared-buffer hits refreshed it")
	}
	if e.os.Stats.Hits != 0 || e.os.Stats.Misses != 0 {
		t.Errorf("the prewarm's page-cache counters should be reset: %+v", e.os.Stats)
	}
}
