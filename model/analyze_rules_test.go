package model

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/sim"
)

// ANALYZE (analyze.c acquire_sample_rows, do_analyze_rel; docs/model.md
// "ANALYZE"), against PostgreSQL 15 measured on tables of 100, 6000 and
// 40000 pages (the differential test's analyze case has the same).

// BlockSampler (Knuth's Algorithm S): min(n, N) distinct blocks in
// ascending order, each block with probability n/N.
func TestAnalyzeSampleBlocks(t *testing.T) {
	rng := sim.NewStream(1, 0, "test")
	if got := analyzeSampleBlocks(rng, nil, 50, 300); len(got) != 50 || got[0] != 0 || got[49] != 49 {
		t.Fatalf("a table smaller than the sample: got %d blocks (%v...), want all 50", len(got), got[:min(len(got), 3)])
	}
	const N, n, trials = 100, 30, 4000
	var hits [N]int
	for range trials {
		got := analyzeSampleBlocks(rng, nil, N, n)
		if len(got) != n {
			t.Fatalf("sampled %d blocks, want %d", len(got), n)
		}
		for i, b := range got {
			if b < 0 || b >= N || i > 0 && b <= got[i-1] {
				t.Fatalf("blocks not ascending within the table: %v", got)
			}
			hits[b]++
		}
	}
	// Each block's inclusion is Bernoulli(0.3) per trial: 1200 of 4000
	// expected, standard deviation 29; 5 sigma either way.
	for b, h := range hits {
		if h < 1055 || h > 1345 {
			t.Errorf("block %d sampled %d times of %d, want about %d", b, h, trials, trials*n/N)
		}
	}
}

// rtAnalyze ANALYZEs table t (pages pages, state as given) after a
// restart, in the given version, and returns the ANALYZE phase.
func rtAnalyze(t *testing.T, version string, pages int64, state string, mod func(*Scenario)) PhaseResult {
	t.Helper()
	sc := rtIdleScenario(16384, pages)
	sc.Server.Version = version
	sc.Tables.Relations[0].State = state
	an := TableStep{Table: "t", Pick: "client"}
	sc.Workload.Phases = []Phase{{Name: "analyze", Clients: 1, Threads: 1, Transactions: 1, Restart: true, Script: Script{Steps: []Step{{Analyze: &an}}}}}
	if mod != nil {
		mod(&sc)
	}
	_, r := rtRun(t, sc)
	return r.Phases[0]
}

func rtRelUsage(p PhaseResult, rel string) RelationUsage {
	for _, r := range p.PGBuffercache.Relations {
		if r.Relname == rel {
			return r
		}
	}
	return RelationUsage{}
}

// A cold ANALYZE of a vacuumed table reads min(blocks, 300 x
// default_statistics_target) of its pages through the VACUUM ring (256 kB
// in 15: 32 buffers), and every page of its visibility map
// (visibilitymap_count) with no strategy: PostgreSQL 15 read 101, 6001,
// 30002 and 3001 pages (100, 6000 and 40000 pages at target 100, 6000 at
// target 10), leaving 32 of the table's buffers and the VM's, all at usage
// count 1, none dirty.
func TestAnalyzeReadsSampleThroughRing(t *testing.T) {
	cases := []struct {
		pages  int64
		target int
		want   int64
	}{
		{100, 100, 101},
		{6000, 100, 6001},
		{40000, 100, 30002},
		{6000, 10, 3001},
	}
	for _, c := range cases {
		p := rtAnalyze(t, "15", c.pages, "vacuumed", func(sc *Scenario) { sc.Server.DefaultStatisticsTarget = c.target })
		got := p.StatioTables[0]
		if got.HeapBlksRead != c.want || got.HeapBlksHit != 0 {
			t.Errorf("%d pages, target %d: heap_blks_read %d, hit %d; want %d, 0", c.pages, c.target, got.HeapBlksRead, got.HeapBlksHit, c.want)
		}
		vm := c.want - min(c.pages, int64(300*c.target))
		u := rtRelUsage(p, "t")
		if u.Buffers != 32+vm || u.UsageCounts[1] != 32+vm {
			t.Errorf("%d pages: t keeps %d buffers %v, want %d at usage count 1", c.pages, u.Buffers, u.UsageCounts, 32+vm)
		}
		if p.PGBuffercache.BuffersDirty != 0 {
			t.Errorf("%d pages: %d dirty buffers after ANALYZE of a vacuumed table, want 0", c.pages, p.PGBuffercache.BuffersDirty)
		}
		if s := p.StatUserTables[0]; s.AnalyzeCount != 1 || s.NModSinceAnalyze != 0 {
			t.Errorf("%d pages: analyze_count %d, n_mod_since_analyze %d; want 1, 0", c.pages, s.AnalyzeCount, s.NModSinceAnalyze)
		}
	}
}

// HeapTupleSatisfiesVacuum sets the hint bits of a freshly loaded table's
// tuples, dirtying every page ANALYZE reads; the ring writes them out as
// it reuses its buffers. PostgreSQL 15, 6000 pages never read before: 32
// dirty buffers after it, 5968 written by the backend.
func TestAnalyzeHintsAndRingWrites(t *testing.T) {
	p := rtAnalyze(t, "15", 6000, "fresh", func(sc *Scenario) { sc.Server.Autovacuum = false })
	if p.StatioTables[0].HeapBlksRead != 6000 {
		t.Errorf("heap_blks_read %d, want 6000 (a table never vacuumed has no visibility map)", p.StatioTables[0].HeapBlksRead)
	}
	if p.PGBuffercache.BuffersDirty != 32 {
		t.Errorf("dirty buffers %d, want the ring's 32", p.PGBuffercache.BuffersDirty)
	}
	if got := *p.PGStatBgwriter.BuffersBackend; got != 5968 {
		t.Errorf("buffers_backend %d, want 5968", got)
	}
}

// PrefetchBuffer (14+, maintenance_io_concurrency > 0): one
// posix_fadvise per sampled block not in shared buffers (strace on
// PostgreSQL 15: 6000 for a cold 6000-page table, none with
// maintenance_io_concurrency 0); none before 14.
func TestAnalyzePrefetch(t *testing.T) {
	for _, c := range []struct {
		version string
		mic     int
		want    int64
	}{{"15", -1, 6000}, {"15", 0, 0}, {"13", -1, 0}} {
		p := rtAnalyze(t, c.version, 6000, "vacuumed", func(sc *Scenario) { sc.Server.MaintenanceIOConcurrency = c.mic })
		if p.OSCache.AdviceCalls != c.want {
			t.Errorf("%s, maintenance_io_concurrency %d: %d advice calls, want %d", c.version, c.mic, p.OSCache.AdviceCalls, c.want)
		}
	}
}

// update_attstats: a HOT update of each column's pg_statistic row, then
// the commit record with one invalidation message per row; pg_class is
// updated in place only when reltuples or relpages changed. PostgreSQL 15,
// a second ANALYZE of a two-column table with no checkpoint between: 3
// records, 234 bytes (76 + 76 + 82).
func TestAnalyzeWAL(t *testing.T) {
	sc := rtIdleScenario(16384, 100)
	sc.Server.FullPageWrites = false
	an := TableStep{Table: "t", Pick: "client"}
	sc.Workload.Phases = []Phase{
		{Name: "first", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Analyze: &an}}}},
		{Name: "second", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Analyze: &an}}}},
	}
	_, r := rtRun(t, sc)
	w := r.Phases[1].WAL
	if w.Records != 3 || w.Bytes != 234 {
		t.Errorf("second ANALYZE: %d records, %d bytes; want 3, 234", w.Records, w.Bytes)
	}
}

// n_mod_since_analyze counts the rows inserted, updated (HOT or not) and
// deleted by committed transactions (pgstat_relation.c
// AtEOXact_PgStat_Relations: changed_tuples on commit only); measured on
// PostgreSQL 15: INSERT 1000 -> 1000; after ANALYZE, UPDATE 10 and 10 ->
// 20, DELETE 10 -> 30, an aborted INSERT of 100 -> still 30.
func TestNModSinceAnalyze(t *testing.T) {
	sc := rtIdleScenario(16384, 100)
	sc.Workload.Phases = []Phase{
		{Name: "insert", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: "INSERT INTO t SELECT g, 'x' FROM generate_series(1, 1000) g;"}},
		{Name: "analyze", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: "ANALYZE t;"}},
		{Name: "change", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: "BEGIN;\n" + rtKeyed("UPDATE t SET pad = 'y' WHERE id = ", 20) + rtKeyed("DELETE FROM t WHERE id = ", 10) + "COMMIT;\n"}},
		{Name: "aborted", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: "BEGIN;\nINSERT INTO t SELECT g, 'x' FROM generate_series(1, 100) g;\nROLLBACK;\n"}},
	}
	_, r := rtRun(t, sc)
	for i, want := range []int64{1000, 0, 30, 30} {
		if got := r.Phases[i].StatUserTables[0].NModSinceAnalyze; got != want {
			t.Errorf("after %s: n_mod_since_analyze %d, want %d", r.Phases[i].Name, got, want)
		}
	}
}

// rtKeyed is n statements prefix + key, keys 1000 + 1..n.
func rtKeyed(prefix string, n int) string {
	s := ""
	for i := 1; i <= n; i++ {
		s += prefix + itoa(int64(1000+i)) + ";\n"
	}
	return s
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

// relation_needs_vacanalyze: ANALYZE when n_mod_since_analyze >
// autovacuum_analyze_threshold (50) + autovacuum_analyze_scale_factor
// (0.1) x reltuples.
func TestAutoanalyzeThreshold(t *testing.T) {
	sc := rtIdleScenario(128, 100)
	sc.Server.Autovacuum = true
	e := rtBuild(t, sc)
	tbl := e.db.lookup("t")[0]
	limit := int64(50 + 0.1*float64(tbl.reltuples))
	for _, c := range []struct {
		mod  int64
		want bool
	}{{limit, false}, {limit + 1, true}} {
		tbl.modSinceAnalyze = c.mod
		if _, anl := e.needsVacAnalyze(tbl); anl != c.want {
			t.Errorf("n_mod_since_analyze %d (reltuples %d): analyze %v, want %v", c.mod, tbl.reltuples, anl, c.want)
		}
	}
}

// VACUUM ANALYZE is VACUUM, then ANALYZE in a transaction of its own
// (vacuum()), sharing the command's BAS_VACUUM strategy: both counted in
// pg_stat_user_tables. The updated row's old version (a full page: not
// HOT) is pruned to an LP_DEAD item that VACUUM leaves for later (one page
// of 100 is under BYPASS_THRESHOLD_PAGES), and ANALYZE counts LP_DEAD
// items as dead (heapam_scan_analyze_next_tuple): n_dead_tup 1.
func TestVacuumAnalyze(t *testing.T) {
	sc := rtIdleScenario(16384, 100)
	sc.Server.FullPageWrites = false
	sc.Workload.Phases = []Phase{
		{Name: "change", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: "UPDATE t SET pad = 'y' WHERE id = 7;\n"}},
		{Name: "vacuum-analyze", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: "VACUUM ANALYZE t;\n"}},
	}
	e, r := rtRun(t, sc)
	s := r.Phases[1].StatUserTables[0]
	if s.VacuumCount != 1 || s.AnalyzeCount != 1 || s.NModSinceAnalyze != 0 || s.NDeadTup != 1 {
		t.Errorf("vacuum_count %d, analyze_count %d, n_mod_since_analyze %d, n_dead_tup %d; want 1, 1, 0, 1", s.VacuumCount, s.AnalyzeCount, s.NModSinceAnalyze, s.NDeadTup)
	}
	if len(e.x.running) != 0 {
		t.Errorf("transactions still running after VACUUM ANALYZE: %v (its ANALYZE must commit)", e.x.running)
	}
}

// Autovacuum ANALYZEs a table whose n_mod_since_analyze passed its
// threshold, in a worker (autoanalyze_count), resetting the counter.
func TestAutoanalyzeRuns(t *testing.T) {
	sc := rtIdleScenario(16384, 10) // 610 rows: threshold 50 + 61 = 111
	sc.Server.Autovacuum = true
	sc.Server.AutovacuumNaptime = sec
	sc.Server.AutovacuumVacuumThreshold = 1 << 40 // no VACUUM
	sc.Server.AutovacuumVacuumInsertThreshold = -1
	var script string
	for k := int64(1); k <= 120; k++ {
		script += "UPDATE t SET pad = 'y' WHERE id = " + itoa(k) + ";\n"
	}
	sc.Workload.Phases = []Phase{
		{Name: "change", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: script}},
		{Name: "wait", Clients: 1, Threads: 1, Duration: 3 * sec, Script: Script{Steps: []Step{{Sleep: sec}}}},
	}
	_, r := rtRun(t, sc)
	s := r.Phases[1].StatUserTables[0]
	if s.AutoanalyzeCount != 1 || s.AutovacuumCount != 0 || s.NModSinceAnalyze != 0 {
		t.Errorf("autoanalyze_count %d, autovacuum_count %d, n_mod_since_analyze %d; want 1, 0, 0", s.AutoanalyzeCount, s.AutovacuumCount, s.NModSinceAnalyze)
	}
}

// From 17 ANALYZE reads through a read stream
// (block_sampling_read_stream_next): the same blocks and buffer counts,
// adjacent sampled blocks in one vectored read (pg_stat_io counts the
// blocks in 17, WaitReadBuffers' pgstat_count_io_op_n, and the reads from
// 18); from 18 with io_method worker or io_uring the reads are
// asynchronous. Every block of a 6000-page table is sampled, so reads
// combine up to io_combine_limit (16 blocks).
func TestAnalyzeReadStream(t *testing.T) {
	for _, c := range []struct {
		version, method string
		lo, hi          int64
	}{{"17", "", 6000, 6000}, {"18", "sync", 6000 / 16, 6000 / 8}, {"18", "worker", 6000 / 16, 6000 / 8}, {"18", "io_uring", 6000 / 16, 6000 / 8}} {
		p := rtAnalyze(t, c.version, 6000, "vacuumed", func(sc *Scenario) { sc.Server.IOMethod = c.method })
		if got := p.StatioTables[0].HeapBlksRead; got != 6001 {
			t.Errorf("%s %s: heap_blks_read %d, want 6001", c.version, c.method, got)
		}
		var reads int64
		for _, r := range p.PGStatIO {
			if r.BackendType == "client backend" && r.Context == "vacuum" {
				reads = r.Reads
			}
		}
		if reads < c.lo || reads > c.hi {
			t.Errorf("%s %s: pg_stat_io vacuum-context reads %d, want %d to %d", c.version, c.method, reads, c.lo, c.hi)
		}
	}
}

// ANALYZE sets no PROC_IN_VACUUM (analyze_rel; vacuum_rel sets it for a
// lazy VACUUM only): an autovacuum worker's snapshot holds the horizon back
// while it analyzes, not while it vacuums.
func TestAnalyzeSnapshotHoldsHorizon(t *testing.T) {
	sc := rtIdleScenario(16384, 10)
	e := rtBuild(t, sc)
	b := &backend{e: e, worker: true}
	if !b.inLazyVacuum() {
		t.Error("an autovacuum worker's VACUUM: its snapshot counts, want it skipped (PROC_IN_VACUUM)")
	}
	b.inAnalyze = true
	if b.inLazyVacuum() {
		t.Error("an autovacuum worker's ANALYZE: its snapshot is skipped, want it to hold the horizon")
	}
}

// Through 17's read stream ANALYZE advises a read only where it does not
// continue the previous one, and the whole read in one call
// (read_stream_start_pending_read, StartReadBuffers -> smgrprefetch): on
// a cold 40000-page table, one advice per run of consecutive sampled
// blocks (the same draw as the run's: seed 1's "analyze/blocks" stream).
func TestAnalyzeStreamAdvisesEachRun(t *testing.T) {
	p := rtAnalyze(t, "17", 40000, "vacuumed", nil)
	sc := rtIdleScenario(16384, 40000)
	blocks := analyzeSampleBlocks(sim.NewStream(uint64(sc.Seed), sc.Replicate, "analyze/blocks"), nil, 40000, 30000)
	runs := int64(0)
	for i, b := range blocks {
		if i == 0 || blocks[i-1] != b-1 {
			runs++
		}
	}
	if runs < 1000 || p.OSCache.AdviceCalls != runs {
		t.Errorf("%d advice calls, want one per run of consecutive sampled blocks: %d", p.OSCache.AdviceCalls, runs)
	}
}

// From 10 a session's first UPDATE or DELETE looks the table up in the
// publication catalogs (CheckCmdReplicaIdentity ->
// RelationBuildPublicationDesc), pages nothing else reads: after a
// restart, whose first connection rebuilt the init files and planned a
// SELECT, a DELETE's session reads 2 catalog pages (PostgreSQL 15, with
// pg_buffercache: the metapages of pg_publication_rel's and
// pg_publication_namespace's indexes, both catalogs empty); 9.6 has no
// publications.
func TestPublicationLookupsOfFirstDML(t *testing.T) {
	for _, c := range []struct {
		version string
		want    int64
	}{{"15", 2}, {"9.6", 0}} {
		sc := rtIdleScenario(16384, 100)
		sc.Server.Version = c.version
		sc.Server.SystemCatalogs = true
		sc.Workload.Phases = []Phase{
			{Name: "select", Clients: 1, Threads: 1, Transactions: 1, Restart: true, Script: Script{Steps: []Step{{Select: &KeyStep{Table: "t", Pick: "client", Key: "1"}}}}},
			{Name: "delete", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Delete: &KeyStep{Table: "t", Pick: "client", Key: "1"}}}}},
		}
		_, r := rtRun(t, sc)
		m := r.Phases[1]
		reads := m.PGStatDatabase.BlksRead
		for _, s := range m.StatioTables {
			reads -= s.HeapBlksRead + s.IdxBlksRead
		}
		if reads != c.want {
			t.Errorf("%s: the DELETE's session read %d catalog pages, want %d", c.version, reads, c.want)
		}
	}
}

// ANALYZE's first update of a pg_statistic page after a checkpoint logs
// the page's image less its hole (XLogRecordAssemble). Measured with the
// differential test's analyze case (a 100-page two-column table, just
// created, analyzed after a checkpoint): 6759 bytes in 3 records on
// PostgreSQL 15, 3399 in 4 on 18.3 (a fresh 18 cluster's page holds
// 3.4 kB less); the other records of the statement 637 bytes. The model
// must land within the differential test's tolerance (10 %) of each.
func TestAnalyzeStatisticPageImage(t *testing.T) {
	for _, c := range []struct {
		version string
		pg      int64
	}{{"15", 6759}, {"18", 3399}} {
		sc := rtIdleScenario(16384, 100)
		sc.Server.Version = c.version
		sc.Server.SystemCatalogs = true
		an := TableStep{Table: "t", Pick: "client"}
		sc.Workload.Phases = []Phase{
			{Name: "first", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Analyze: &an}, {Checkpoint: true}}}},
			{Name: "second", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Analyze: &an}}}},
		}
		_, r := rtRun(t, sc)
		w := r.Phases[1].WAL
		if w.FPI != 1 || w.Bytes < c.pg*9/10 || w.Bytes > c.pg*11/10 {
			t.Errorf("%s: ANALYZE after a checkpoint wrote %d bytes with %d images; want one image and PostgreSQL's %d bytes within 10 %%", c.version, w.Bytes, w.FPI, c.pg)
		}
	}
}
