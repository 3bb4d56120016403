package model

import "testing"

// os.start: loaded starts the run with every relation's pages in the OS
// page cache, clean, as a load and a CHECKPOINT leave them: a first scan
// (shared buffers empty) finds them all there, where with the default
// cold start it reads every one from the device. When they do not all
// fit, the cache holds the last ones loaded.
func TestPageCacheStartLoaded(t *testing.T) {
	const pages = 2000
	scan := func(start string, cachePages int64) PhaseResult {
		sc := rtIdleScenario(16384, pages)
		sc.Server.Version = "15"
		sc.OS.Start = start
		sc.OS.PageCache = cachePages * 8192
		sc.OS.ReadAhead = 0
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		_, r := rtRun(t, sc)
		return r.Phases[0]
	}
	cold, loaded := scan("cold", 4*pages), scan("loaded", 4*pages)
	if cold.OSCache.Hits != 0 || cold.OSCache.Misses != pages {
		t.Errorf("cold: %d page-cache hits, %d misses; want 0 and %d", cold.OSCache.Hits, cold.OSCache.Misses, pages)
	}
	if loaded.OSCache.Hits != pages || loaded.OSCache.Misses != 0 || loaded.Disk.Reads != 0 {
		t.Errorf("loaded: %d page-cache hits, %d misses, %d device reads; want %d, 0, 0", loaded.OSCache.Hits, loaded.OSCache.Misses, loaded.Disk.Reads, pages)
	}
	if loaded.BufferUsage.SharedBlksRead != cold.BufferUsage.SharedBlksRead || loaded.LatencyMS.Mean >= cold.LatencyMS.Mean {
		t.Errorf("loaded: %d blocks read in %.3f ms; cold %d in %.3f: want the same blocks, sooner", loaded.BufferUsage.SharedBlksRead, loaded.LatencyMS.Mean, cold.BufferUsage.SharedBlksRead, cold.LatencyMS.Mean)
	}
	// A cache of half the table: after the build (before any phase) it
	// holds what was loaded last: the primary key (built after the
	// table) and the table's last pages, not its first ones.
	sc := rtIdleScenario(16384, pages)
	sc.OS.Start = "loaded"
	sc.OS.PageCache = pages / 2 * 8192
	e := rtBuild(t, sc)
	e.loadPageCache()
	tbl := e.db.tables[0]
	if n := e.os.CachedPages(); n != pages/2 {
		t.Errorf("a cache of %d pages holds %d", pages/2, n)
	}
	idx := e.cat.Rel(tbl.pkey.rel).NBlocks
	for blk := range idx {
		if !e.os.Contains(e.cat.GID(tbl.pkey.rel, blk)) {
			t.Fatalf("the primary key's page %d of %d, built after the table, is not cached", blk, idx)
		}
	}
	if !e.os.Contains(e.cat.GID(tbl.rel, pages-1)) || e.os.Contains(e.cat.GID(tbl.rel, 0)) {
		t.Errorf("a cache of half the table holds its page 0: %v, its last page: %v; want the last only", e.os.Contains(e.cat.GID(tbl.rel, 0)), e.os.Contains(e.cat.GID(tbl.rel, pages-1)))
	}
}
