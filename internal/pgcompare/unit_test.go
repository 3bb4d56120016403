package pgcompare

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)\n": "15.18",
		"postgres (PostgreSQL) 17beta1\n":                        "17",
		"postgres (PostgreSQL) 9.6.24\n":                         "9.6",
	} {
		got, err := parseVersion(in)
		if err != nil || got != want {
			t.Errorf("parseVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := parseVersion("garbage"); err == nil {
		t.Error("parseVersion(garbage) succeeded")
	}
	if m, err := majorVersion("15.18"); err != nil || m != 15 {
		t.Errorf("majorVersion(15.18) = %d, %v", m, err)
	}
}

func TestSettingsValidate(t *testing.T) {
	ok := Settings{"shared_buffers": "16MB", "pg_stat_statements.max": "1000"}
	if err := ok.validate(); err != nil {
		t.Errorf("valid settings rejected: %v", err)
	}
	for _, bad := range []Settings{
		{"port": "5432"},
		{"listen_addresses": "*"},
		{"shared_buffers\nport": "1"},
		{"work_mem": "4MB\nport = 5432"},
	} {
		if err := bad.validate(); err == nil {
			t.Errorf("settings %v accepted", bad)
		}
	}
}

func TestRenderConf(t *testing.T) {
	conf := renderConf("# base\n", Settings{"shared_buffers": "16MB", "search_path": "'$user', public",
		"shared_preload_libraries": "auto_explain"}, 5555, "/tmp/x")
	for _, want := range []string{
		"shared_buffers = '16MB'\n",
		"search_path = '''$user'', public'\n",
		"shared_preload_libraries = 'auto_explain,pg_stat_statements'\n",
		"listen_addresses = '127.0.0.1'\n",
		"port = 5555\n",
		"unix_socket_directories = '/tmp/x'\n",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("conf lacks %q:\n%s", want, conf)
		}
	}
	if !strings.HasPrefix(conf, "# base\n") {
		t.Error("base configuration not kept first")
	}
	if strings.Index(conf, "track_io_timing") > strings.Index(conf, "shared_buffers") {
		t.Error("harness default must come before caller settings so callers can override it")
	}
}

func TestWithPreload(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "pg_stat_statements",
		"pg_stat_statements":               "pg_stat_statements",
		"auto_explain, pg_stat_statements": "auto_explain,pg_stat_statements",
	} {
		if got := withPreload(in); got != want {
			t.Errorf("withPreload(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMinus(t *testing.T) {
	a := Snapshot{
		Database: map[string]int64{"blks_hit": 10},
		Tables:   map[string]map[string]int64{"t": {"heap_blks_hit": 5}, "new": {"heap_blks_hit": 2}},
	}
	b := Snapshot{
		Database: map[string]int64{"blks_hit": 4, "gone": 1},
		Tables:   map[string]map[string]int64{"t": {"heap_blks_hit": 1}, "dropped": {"heap_blks_hit": 9}},
	}
	d := a.Minus(b)
	if d.Database["blks_hit"] != 6 || d.Tables["t"]["heap_blks_hit"] != 4 || d.Tables["new"]["heap_blks_hit"] != 2 {
		t.Errorf("Minus = %+v", d)
	}
	if _, ok := d.Tables["dropped"]; ok {
		t.Error("relation absent from the later snapshot must be left out")
	}
	if got := d.TableTotals()["heap_blks_hit"]; got != 6 {
		t.Errorf("TableTotals heap_blks_hit = %d, want 6", got)
	}
}

func TestChanged(t *testing.T) {
	base := func() Snapshot {
		return Snapshot{
			Database: map[string]int64{"blks_hit": 1, "tup_inserted": 3, "active_time_us": 7},
			Tables:   map[string]map[string]int64{"t": {"n_tup_ins": 3}},
			Bgwriter: map[string]int64{"buffers_alloc": 1, "buffers_clean": 1},
		}
	}
	a, b := base(), base()
	// Self-touched, time and time-driven counters may move.
	b.Database["blks_hit"], b.Database["active_time_us"], b.Bgwriter["buffers_clean"] = 99, 99, 99
	if c := changed(a, b); len(c) != 0 {
		t.Errorf("changed = %v, want none", c)
	}
	b.Tables["t"]["n_tup_ins"] = 4
	b.Bgwriter["buffers_alloc"] = 2
	got := strings.Join(changed(a, b), ",")
	if got != "bgwriter.buffers_alloc,tables.t.n_tup_ins" {
		t.Errorf("changed = %s", got)
	}
}

func TestCounterValue(t *testing.T) {
	if k, v, ok := counterValue("blk_read_time", 1.5); !ok || k != "blk_read_time_us" || v != 1500 {
		t.Errorf("float: %q %d %v", k, v, ok)
	}
	if _, _, ok := counterValue("datid", uint32(5)); ok {
		t.Error("oid kept")
	}
	if _, _, ok := counterValue("x", nil); ok {
		t.Error("NULL kept")
	}
}

func TestParseExplain(t *testing.T) {
	js := `[{"Plan": {"Node Type": "ModifyTable", "Shared Hit Blocks": 10, "Shared Read Blocks": 2,
		"Shared Dirtied Blocks": 3, "Shared Written Blocks": 1, "Temp Written Blocks": 4,
		"Plans": [{"Node Type": "Index Scan"}]},
		"Planning": {"Shared Hit Blocks": 5, "Shared Read Blocks": 6}, "Execution Time": 1.25}]`
	eb, err := parseExplain(js)
	if err != nil {
		t.Fatal(err)
	}
	want := ExplainBuffers{SharedHit: 10, SharedRead: 2, SharedDirtied: 3, SharedWritten: 1, TempWritten: 4,
		PlanningHit: 5, PlanningRead: 6, Plan: "ModifyTable/Index Scan", ExecutionMS: 1.25}
	if eb != want {
		t.Errorf("parseExplain = %+v, want %+v", eb, want)
	}
	if _, err := parseExplain("[]"); err == nil {
		t.Error("empty plan list accepted")
	}
	// With the WAL option (13+), as PostgreSQL 15 prints it for an UPDATE
	// of 100000 rows to other pages (XLOG_HEAP_LOCK and log_heap_update
	// per row).
	js = `[{"Plan": {"Node Type": "ModifyTable", "Shared Hit Blocks": 305173, "WAL Records": 200000, "WAL FPI": 0, "WAL Bytes": 23300000,
		"Plans": [{"Node Type": "Seq Scan", "WAL Records": 0, "WAL FPI": 0, "WAL Bytes": 0}]}, "Execution Time": 125.8}]`
	eb, err = parseExplain(js)
	if err != nil {
		t.Fatal(err)
	}
	if !eb.HasWAL || eb.WALRecords != 200000 || eb.WALBytes != 23300000 || eb.WALFPI != 0 {
		t.Errorf("parseExplain with WAL = %+v", eb)
	}
	// I/O timings with track_io_timing on, as PostgreSQL 15 printed them
	// for a count(*) of 20589 pages read from the OS page cache after a
	// restart; 17 names them "Shared I/O Read Time".
	js = `[{"Plan": {"Node Type": "Aggregate", "Shared Read Blocks": 20589, "I/O Read Time": 37.683, "I/O Write Time": 0.0,
		"Temp I/O Read Time": 0.0, "Plans": [{"Node Type": "Seq Scan"}]}, "Execution Time": 72.9}]`
	if eb, err = parseExplain(js); err != nil || eb.IOReadMS != 37.683 || eb.IOWriteMS != 0 {
		t.Errorf("parseExplain with I/O timings (15) = %+v, %v", eb, err)
	}
	js = `[{"Plan": {"Node Type": "Aggregate", "Shared I/O Read Time": 12.5, "Shared I/O Write Time": 1.25, "Local I/O Read Time": 0.0}, "Execution Time": 20}]`
	if eb, err = parseExplain(js); err != nil || eb.IOReadMS != 12.5 || eb.IOWriteMS != 1.25 {
		t.Errorf("parseExplain with I/O timings (17) = %+v, %v", eb, err)
	}
}

func TestParseTransactions(t *testing.T) {
	if n := ParseTransactions("number of transactions actually processed: 3987\n"); n != 3987 {
		t.Errorf("got %d", n)
	}
	if n := ParseTransactions("number of transactions actually processed: 10/10\n"); n != 10 {
		t.Errorf("got %d", n)
	}
	if n := ParseTransactions("done.\n"); n != 0 {
		t.Errorf("got %d", n)
	}
}

func TestUsageAdd(t *testing.T) {
	u := Usage{ByRel: map[string][MaxUsageCount + 1]int64{}}
	rel := "t"
	steps := []struct {
		name   *string
		unused bool
		uc     int32
		n      int64
	}{{&rel, false, 1, 3}, {&rel, false, 5, 2}, {nil, false, 0, 4}, {nil, true, 0, 10}}
	for _, s := range steps {
		if err := u.add(s.name, s.unused, s.uc, s.n); err != nil {
			t.Fatal(err)
		}
	}
	if u.Unused != 10 || u.Hist != [6]int64{4, 3, 0, 0, 0, 2} || u.Resident("t") != 5 || u.Unmatched[0] != 4 {
		t.Errorf("usage = %+v", u)
	}
	if err := u.add(&rel, false, 6, 1); err == nil {
		t.Error("usage count 6 accepted")
	}
}

func TestPgbenchRejectsConnFlags(t *testing.T) {
	c := &Cluster{}
	for _, a := range []string{"-h", "-hlocalhost", "--port=1", "-U"} {
		if _, err := c.Pgbench(t.Context(), a); err == nil || !strings.Contains(err.Error(), "set by pgcompare") {
			t.Errorf("Pgbench(%q) error = %v", a, err)
		}
	}
}

// TestCasesMirrorTheMonitor checks withMonitor on every case: the harness
// opens its monitor right after each restart, so each scenario's restart
// belongs to a one-connection warm-up phase before the phase that had it,
// and every case starts with one (the pool at the first measured step is
// then the restart's and the monitor's on both sides).
func TestCasesMirrorTheMonitor(t *testing.T) {
	for _, c := range Cases(15) {
		sc, err := configs.Parse(c.Name+".yaml", []byte(c.Sim))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		ph := sc.Workload.Phases
		if len(ph) == 0 || !strings.HasPrefix(ph[0].Name, "monitor-") || !ph[0].Restart || !ph[0].Warmup {
			t.Errorf("%s: the first phase is %+v, want the monitor's warm-up phase with the restart", c.Name, ph[0])
		}
		for _, p := range ph {
			if p.Restart && !strings.HasPrefix(p.Name, "monitor-") {
				t.Errorf("%s: phase %s restarts the server itself", c.Name, p.Name)
			}
		}
	}
}

// In a pgbench case, pgbench_branches' hits (row-lock waits' re-reads
// included) are held within 25 %, and every other relation's within 10 %
// or 5: the CI machine's 3.84 a transaction against the model's 3.31
// passes, pgbench_accounts off by the same 16 % does not.
func TestRowLockContendedTolerance(t *testing.T) {
	m := func(branches, accounts int64) Measure {
		return Measure{Transactions: 8000, Rel: map[string][2]int64{"pgbench_branches": {branches, 0}, "pgbench_accounts": {accounts, 0}}}
	}
	cr := &CaseResult{Case: Case{Name: "pgbench-x", Pgbench: true}, Steps: []string{"run"},
		PG: map[string]Measure{"run": m(30720, 30720)}, Sim: map[string]Measure{"run": m(26500, 26500)}}
	cr.compare()
	got := map[string]bool{}
	for _, r := range cr.Rows {
		got[r.Metric] = r.OK
	}
	if !got["pgbench_branches hit"] || got["pgbench_accounts hit"] {
		t.Errorf("branches ok %v (want true), accounts ok %v (want false)", got["pgbench_branches hit"], got["pgbench_accounts hit"])
	}
	cr.Sim = map[string]Measure{"run": m(22000, 30720)}
	cr.Rows = nil
	cr.compare()
	for _, r := range cr.Rows {
		if r.Metric == "pgbench_branches hit" && r.OK {
			t.Error("branches 28 % off passed")
		}
	}
}

// pg_stat_wal's wal_fpi counts the full-page images for hint bits too:
// the simulator's fpi and fpi_hint are summed, and three columns are
// asserted within 10 % or 5; wal_buffers_full is shown, not asserted.
func TestStatWALFromSim(t *testing.T) {
	var ph model.PhaseResult
	ph.WAL = model.WALM{Records: 100, Bytes: 8000, FPI: 3, FPIHint: 4, BuffersFull: 1448}
	m := fromSim(Case{}, ph, false)
	if !m.HasStatWAL || m.StatWAL != [4]int64{100, 7, 8000, 1448} {
		t.Fatalf("StatWAL = %v (has %v), want [100 7 8000 1448]", m.StatWAL, m.HasStatWAL)
	}
	pg := m
	pg.StatWAL = [4]int64{100, 7, 9000, 1400}
	cr := &CaseResult{Case: Case{Name: "x"}, Steps: []string{"s"}, PG: map[string]Measure{"s": pg}, Sim: map[string]Measure{"s": m}}
	cr.compare()
	found := 0
	for _, r := range cr.Rows {
		switch r.Metric {
		case "pg_stat_wal wal_records", "pg_stat_wal wal_fpi":
			found++
			if !r.OK || !r.Asserted {
				t.Errorf("%s: ok %v asserted %v", r.Metric, r.OK, r.Asserted)
			}
		case "pg_stat_wal wal_buffers_full":
			found++
			if r.Asserted {
				t.Errorf("%s: asserted; it depends on the WAL writer's timing", r.Metric)
			}
		case "pg_stat_wal wal_bytes":
			found++
			if r.OK {
				t.Error("wal_bytes 11 % off passed")
			}
		}
	}
	if found != 4 {
		t.Errorf("%d pg_stat_wal rows, want 4", found)
	}
}

// pg_stat_io (16+) is compared per backend type and context: the harness's
// relation rows and the simulator's pg_stat_io name the same
// counters, a client backend's are asserted, the background writer's are
// shown but not asserted for a single statement (published late), and
// counters zero on both sides are left out.
func TestStatIOCompared(t *testing.T) {
	pg := fromPG(Case{}, Result{Delta: Snapshot{Bgwriter: map[string]int64{
		"io_client backend/normal_reads":     100,
		"io_client backend/normal_hits":      1000,
		"io_client backend/bulkread_reuses":  40,
		"io_client backend/normal_fsyncs":    0,
		"io_background writer/normal_writes": 7,
		"buffers_alloc":                      5,
	}}})
	if !pg.HasIO || pg.IO[ioKey("client backend", "normal", "reads")] != 100 || pg.IO[ioKey("client backend", "bulkread", "reuses")] != 40 {
		t.Fatalf("fromPG IO = %v", pg.IO)
	}
	var ph model.PhaseResult
	ph.PGStatIO = []model.IORow{
		{BackendType: "client backend", Context: "normal", Reads: 104, Hits: 1300},
		{BackendType: "client backend", Context: "bulkread", Reuses: 40},
		{BackendType: "background writer", Context: "normal", Writes: 70},
	}
	sim := fromSim(Case{}, ph, true)
	cr := &CaseResult{Case: Case{Name: "x"}, Steps: []string{"s"}, PG: map[string]Measure{"s": pg}, Sim: map[string]Measure{"s": sim}}
	cr.compare()
	got := map[string]Row{}
	for _, r := range cr.Rows {
		if strings.HasPrefix(r.Metric, "pg_stat_io ") {
			got[strings.TrimPrefix(r.Metric, "pg_stat_io ")] = r
		}
	}
	want := map[string][2]bool{ // ok, asserted
		ioKey("client backend", "normal", "reads"):     {true, true},
		ioKey("client backend", "normal", "hits"):      {false, true},
		ioKey("client backend", "bulkread", "reuses"):  {true, true},
		ioKey("background writer", "normal", "writes"): {true, false},
	}
	if len(got) != len(want) {
		t.Errorf("pg_stat_io rows %v, want %d", slices.Sorted(maps.Keys(got)), len(want))
	}
	for k, w := range want {
		r, ok := got[k]
		if !ok {
			t.Errorf("no row %q", k)
			continue
		}
		if r.OK != w[0] || r.Asserted != w[1] {
			t.Errorf("%s: ok %v asserted %v, want %v %v", k, r.OK, r.Asserted, w[0], w[1])
		}
	}
}

// The background processes' counters of a single statement are asserted
// (the harness waits until the background writer and the checkpointer
// published them: Monitor.PublishBackground) except buffers_clean, which
// also holds the background writer's rounds after the statement; a pgbench
// run's are all asserted.
func TestBackgroundCountersAsserted(t *testing.T) {
	bg := func(alloc, clean, backend, ckpt int64) Measure {
		return fromPG(Case{}, Result{Delta: Snapshot{Bgwriter: map[string]int64{
			"buffers_alloc": alloc, "buffers_clean": clean, "buffers_backend": backend, "buffers_checkpoint": ckpt,
		}}})
	}
	pg, sim := bg(1000, 50, 400, 30), bg(1200, 500, 300, 30)
	for _, bench := range []bool{false, true} {
		cr := &CaseResult{Case: Case{Name: "x", Pgbench: bench}, Steps: []string{"s"}, PG: map[string]Measure{"s": pg}, Sim: map[string]Measure{"s": sim}}
		cr.compare()
		want := map[string][2]bool{ // ok, asserted
			"buffers_alloc":      {false, true},
			"buffers_clean":      {!bench, bench},
			"buffers_backend":    {false, true},
			"buffers_checkpoint": {true, true},
		}
		for _, r := range cr.Rows {
			w, ok := want[r.Metric]
			if !ok {
				continue
			}
			delete(want, r.Metric)
			if r.OK != w[0] || r.Asserted != w[1] {
				t.Errorf("pgbench %v, %s: ok %v asserted %v, want %v %v", bench, r.Metric, r.OK, r.Asserted, w[0], w[1])
			}
		}
		if len(want) != 0 {
			t.Errorf("pgbench %v: no rows for %v", bench, want)
		}
	}
}

// Known deviations name figures by case/step/metric patterns (path.Match):
// the 128 MB pgbench cases' buffers_backend and gaussian-32mb's, not the
// other smaller pools'.
func TestKnownDeviationPatterns(t *testing.T) {
	for _, c := range []struct {
		caseName, step, metric string
		known                  bool
	}{
		{"pgbench-gaussian-128mb", "run", "buffers_backend", true},
		{"pgbench-mix-128mb", "run", "buffers_backend", true},
		{"pgbench-gaussian-32mb", "run", "buffers_backend", true},
		{"pgbench-uniform-32mb", "run", "buffers_backend", false},
		{"pgbench-uniform-16mb", "run", "pgbench_history read", true},
		{"small-tables-4mb", "pass2", "usage_count 0 share", false}, // within tolerance since the tables' catalog rows are read where PostgreSQL reads them
		{"small-tables-16mb", "pass2", "usage_count 0 share", false},
		{"seqscan-ring", "scan1", "device read requests", true},
		{"seqscan-ring", "scan2", "device read requests", false},
	} {
		if _, got := knownDeviation(c.caseName, c.step, c.metric); got != c.known {
			t.Errorf("%s/%s/%s: known %v, want %v", c.caseName, c.step, c.metric, got, c.known)
		}
	}
}

// A pgbench run's buffers_backend holds its backends' extensions of
// pgbench_history, which its reads count too: their difference between
// PostgreSQL and the model widens the tolerance by as much, no more.
func TestBackendWritesAllowTheExtensionsDifference(t *testing.T) {
	m := func(backend, historyReads int64) Measure {
		ms := fromPG(Case{}, Result{Delta: Snapshot{Bgwriter: map[string]int64{"buffers_backend": backend}}})
		ms.Rel = map[string][2]int64{extendedRelation: {8000, historyReads}}
		return ms
	}
	for _, c := range []struct {
		pgBackend, pgExt, simBackend, simExt int64
		ok                                   bool
	}{
		{108, 64, 96, 48, true},  // 12 apart, 16 extensions apart: the rest agrees
		{108, 48, 96, 48, false}, // the same extensions: 12 > 10.8
		{130, 64, 96, 48, false}, // 34 > 13 + 16
		{100, 50, 96, 48, true},  // within 10 % anyway
		{108, 64, 124, 80, true}, // the model extended more
	} {
		cr := &CaseResult{Case: Case{Name: "pgbench-x", Pgbench: true}, Steps: []string{"run"},
			PG: map[string]Measure{"run": m(c.pgBackend, c.pgExt)}, Sim: map[string]Measure{"run": m(c.simBackend, c.simExt)}}
		cr.compare()
		found := false
		for _, r := range cr.Rows {
			if r.Metric == "buffers_backend" {
				found = true
				if r.OK != c.ok {
					t.Errorf("%+v: ok %v (tolerance %s), want %v", c, r.OK, r.Tolerance, c.ok)
				}
			}
		}
		if !found {
			t.Errorf("%+v: no buffers_backend row", c)
		}
	}
}

// TestNodeCalls counts EXPLAIN ANALYZE's instrumented node calls in
// PostgreSQL 15's own JSON: a count(*) by an index-only scan of 90000
// rows (the Aggregate's row and end, each row of the scan and its end),
// a count(*) of 4999 rows by a bitmap heap scan (its Bitmap Index Scan
// is entered once: MultiExecProcNode) and an INSERT of 1000 rows from
// generate_series (the ModifyTable returns no row: one call).
func TestNodeCalls(t *testing.T) {
	for _, c := range []struct {
		file string
		want int64
	}{
		{"explain-indexonly-pg15.json", 2 + 90001},
		{"explain-bitmap-pg15.json", 2 + 5000 + 1},
		{"explain-insert-pg15.json", 1 + 1001},
	} {
		js, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		n, err := NodeCalls(string(js))
		if err != nil || n != c.want {
			t.Errorf("%s: NodeCalls = %d, %v; want %d", c.file, n, err, c.want)
		}
		eb, err := parseExplain(string(js))
		if err != nil || eb.NodeCalls != c.want {
			t.Errorf("%s: parseExplain's NodeCalls = %d, %v; want %d", c.file, eb.NodeCalls, err, c.want)
		}
	}
	if _, err := NodeCalls(`[{"Plan": {"Node Type": "Seq Scan"}}]`); err == nil {
		t.Error("an EXPLAIN without ANALYZE: no error")
	}
}

// TestFastestOwnExecMS: the least of a statement's own times over its
// runs, each less its node calls at the probe's price.
func TestFastestOwnExecMS(t *testing.T) {
	m := Measure{ExecMS: 9, NodeCalls: 100000} // 10 ns a call: 1 ms
	if got := m.FastestOwnExecMS(10); got != 8 {
		t.Errorf("one run: %v, want 8", got)
	}
	m.ExecAgainMS = []float64{7, 12, 6.5, 7.5}
	if got := m.FastestOwnExecMS(10); got != 5.5 {
		t.Errorf("five runs: %v, want 5.5 (6.5 less 1)", got)
	}
}

// TestFailedInBoth: a differential figure fails when it is outside its
// tolerance in both runs of its case.
func TestFailedInBoth(t *testing.T) {
	first := []Row{{Step: "run", Metric: "pgbench_tellers hit"}, {Step: "run", Metric: "pgbench_branches hit"}}
	second := []Row{{Step: "run", Metric: "pgbench_tellers hit", PG: 4.06}, {Step: "load", Metric: "pgbench_branches hit"}}
	got := failedInBoth(first, second)
	if len(got) != 1 || got[0].Metric != "pgbench_tellers hit" || got[0].PG != 4.06 {
		t.Errorf("%+v, want the second run's pgbench_tellers hit alone", got)
	}
	if got := failedInBoth(first, nil); len(got) != 0 {
		t.Errorf("%+v, want none when the second run passes", got)
	}
}
