package pgcompare

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestChangesRelations(t *testing.T) {
	for _, c := range []struct {
		st   Step
		want bool
	}{
		{Step{Pgbench: []string{"-i", "-s", "5"}}, true},
		{Step{Pgbench: []string{"-t", "10", "-c", "4"}}, false},
		{Step{SQL: []string{"SELECT count(*) FROM t", "SET max_parallel_workers_per_gather = 0"}}, false},
		{Step{SQL: []string{"INSERT INTO t SELECT g FROM generate_series(1, 9) g", "DELETE FROM t", "UPDATE t SET id = id + 1"}}, false},
		{Step{SQL: []string{"VACUUM ANALYZE t", "VACUUM (VERBOSE) t", "ANALYZE", "CHECKPOINT", "BEGIN", "COMMIT"}}, false},
		{Step{SQL: []string{"EXPLAIN (ANALYZE) SELECT 1"}}, false},
		{Step{SQL: []string{"SELECT 1", "CREATE TABLE t (id int)"}}, true},
		{Step{SQL: []string{"TRUNCATE t"}}, true},
		{Step{SQL: []string{"VACUUM FULL t"}}, true},
		{Step{SQL: []string{"VACUUM (FULL, VERBOSE) t"}}, true},
		{Step{SQL: []string{"DO $$ BEGIN END $$"}}, true},
		{Step{SQL: []string{"EXPLAIN ANALYZE CREATE TABLE x AS SELECT 1"}}, true},
		{Step{SQL: []string{"SELEC oops"}}, true},
	} {
		if got := changesRelations(c.st); got != c.want {
			t.Errorf("changesRelations(%v %v) = %v, want %v", c.st.SQL, c.st.Pgbench, got, c.want)
		}
	}
}

// TestFold checks the folding of per-relation counters against
// system_views.sql's definitions on a hand-made catalog: a table with two
// indexes and a toast table (with its index), a table without either, a
// catalog (not a user table) and a materialized view.
func TestFold(t *testing.T) {
	cat := catalogMap{rels: []relInfo{
		{oid: 10, name: "pg_class", kind: "r"},
		{oid: 11, name: "pg_class_oid_index", kind: "i", table: 10},
		{oid: 100, name: "a", kind: "r", user: true, toast: 103},
		{oid: 101, name: "a_pkey", kind: "i", user: true, table: 100},
		{oid: 102, name: "a_b_idx", kind: "i", user: true, table: 100},
		{oid: 103, name: "pg_toast_100", kind: "t"},
		{oid: 104, name: "pg_toast_100_index", kind: "i", table: 103},
		{oid: 200, name: "b", kind: "r", user: true},
		{oid: 300, name: "mv", kind: "m", user: true},
	}}
	cat.derive()
	// In relationCounters' order: blocks_fetched, blocks_hit, numscans,
	// tuples_returned, tuples_fetched, inserted, updated, deleted,
	// hot_updated, live, dead, mod_since_analyze, vacuum, autovacuum,
	// analyze, autoanalyze counts.
	raw := map[uint32][]int64{}
	set := func(oid uint32, vals ...int64) {
		v := make([]int64, len(relationCounters))
		copy(v, vals)
		raw[oid] = v
	}
	set(10, 50, 40)
	set(100, 30, 20, 2, 500, 7, 9, 8, 1, 6, 100, 5, 3, 1, 0, 2, 0)
	set(101, 12, 10, 4, 0, 40)
	set(102, 5, 5, 1, 0, 3)
	set(103, 4, 1)
	set(104, 3, 3)
	set(200, 10, 10, 1, 290)
	if !slices.Equal(cat.counted, []uint32{100, 101, 102, 103, 104, 200, 300}) {
		t.Errorf("counted = %v", cat.counted)
	}
	if !slices.Equal(cat.sized, []uint32{100, 101, 102, 200}) {
		t.Errorf("sized = %v", cat.sized)
	}
	tables, indexes := cat.fold(raw)
	wantA := map[string]int64{
		"heap_blks_read": 10, "heap_blks_hit": 20, "idx_blks_read": 2, "idx_blks_hit": 15,
		"toast_blks_read": 3, "toast_blks_hit": 1, "tidx_blks_read": 0, "tidx_blks_hit": 3,
		"seq_scan": 2, "seq_tup_read": 500, "idx_scan": 5, "idx_tup_fetch": 43 + 7,
		"n_tup_ins": 9, "n_tup_upd": 8, "n_tup_del": 1, "n_tup_hot_upd": 6,
		"n_live_tup": 100, "n_dead_tup": 5, "n_mod_since_analyze": 3,
		"vacuum_count": 1, "autovacuum_count": 0, "analyze_count": 2, "autoanalyze_count": 0,
	}
	if !maps.Equal(tables["a"], wantA) {
		t.Errorf("a = %v\nwant %v", tables["a"], wantA)
	}
	// Sums over no index and a missing toast table are NULL in the views.
	for _, k := range []string{"idx_blks_read", "idx_scan", "idx_tup_fetch", "toast_blks_hit", "tidx_blks_hit"} {
		if _, ok := tables["b"][k]; ok {
			t.Errorf("b has %s, which the view leaves NULL", k)
		}
	}
	if tables["b"]["heap_blks_hit"] != 10 || tables["b"]["seq_tup_read"] != 290 {
		t.Errorf("b = %v", tables["b"])
	}
	if _, ok := tables["mv"]; !ok {
		t.Error("a materialized view is a user table of pg_statio_user_tables")
	}
	if _, ok := tables["pg_class"]; ok {
		t.Error("pg_class is not a user table")
	}
	if len(indexes) != 2 || !maps.Equal(indexes["a_pkey"], map[string]int64{
		"idx_blks_read": 2, "idx_blks_hit": 10, "idx_scan": 4, "idx_tup_read": 0, "idx_tup_fetch": 40}) {
		t.Errorf("indexes = %v", indexes)
	}
}

// The statistics views as the harness read them before it had a Monitor;
// they define what a Monitor's snapshot must equal.
var (
	viewTablesQuery = `SELECT ` + fmtRelName("io.schemaname", "io.relname") + ` AS name,
	io.heap_blks_read, io.heap_blks_hit, io.idx_blks_read, io.idx_blks_hit,
	io.toast_blks_read, io.toast_blks_hit, io.tidx_blks_read, io.tidx_blks_hit,
	st.seq_scan, st.seq_tup_read, st.idx_scan, st.idx_tup_fetch,
	st.n_tup_ins, st.n_tup_upd, st.n_tup_del, st.n_tup_hot_upd,
	st.n_live_tup, st.n_dead_tup, st.n_mod_since_analyze,
	st.vacuum_count, st.autovacuum_count, st.analyze_count, st.autoanalyze_count
FROM pg_statio_user_tables io JOIN pg_stat_user_tables st ON st.relid = io.relid`
	viewIndexesQuery = `SELECT ` + fmtRelName("io.schemaname", "io.indexrelname") + ` AS name,
	io.idx_blks_read, io.idx_blks_hit, st.idx_scan, st.idx_tup_read, st.idx_tup_fetch
FROM pg_statio_user_indexes io JOIN pg_stat_user_indexes st ON st.indexrelid = io.indexrelid`
	viewDatabaseQuery = `SELECT * FROM pg_stat_database WHERE datname = current_database()`
)

// readViews reads the views in one transaction with frozen statistics.
func readViews(ctx context.Context, conn *pgx.Conn) (db map[string]int64, tables, indexes map[string]map[string]int64, err error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err = tx.Exec(ctx, "SET LOCAL stats_fetch_consistency = snapshot"); err != nil {
		return
	}
	if db, err = queryFlat(ctx, tx, viewDatabaseQuery, ""); err != nil {
		return
	}
	if tables, err = queryKeyed(ctx, tx, viewTablesQuery); err != nil {
		return
	}
	indexes, err = queryKeyed(ctx, tx, viewIndexesQuery)
	return
}

// connect opens a session to c that the test's cleanup closes.
func connect(t *testing.T, c *Cluster) *pgx.Conn {
	t.Helper()
	conn, err := c.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func execAll(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestMonitorMatchesViews: a Monitor's folding of the per-relation
// functions gives what PostgreSQL's own views give, for tables with and
// without indexes and toast, in a schema outside public, after scans,
// lookups, DML and VACUUM.
func TestMonitorMatchesViews(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	ctx := t.Context()
	work := connect(t, c)
	execAll(t, work,
		"CREATE TABLE a (id int PRIMARY KEY, b int, pad text)",
		"ALTER TABLE a ALTER pad SET STORAGE EXTERNAL", // out of line, uncompressed
		"CREATE INDEX a_b ON a (b)",
		"CREATE TABLE plain (x int)",
		"CREATE SCHEMA s",
		"CREATE TABLE s.t (id int PRIMARY KEY)",
		"INSERT INTO a SELECT g, g % 7, repeat(md5(g::text), 200) FROM generate_series(1, 300) g",
		"INSERT INTO plain SELECT generate_series(1, 1000)",
		"INSERT INTO s.t SELECT generate_series(1, 50)",
		"UPDATE a SET b = b + 1 WHERE id <= 20",
		"DELETE FROM plain WHERE x > 900",
		"SELECT count(*) FROM a WHERE b = 3",
		"SELECT length(pad) FROM a WHERE id = 5",
		"VACUUM ANALYZE plain",
		"SELECT count(*) FROM s.t",
		"SELECT pg_stat_force_next_flush()",
	)
	monConn := connect(t, c)
	mon, err := NewMonitor(ctx, monConn)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := mon.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db, tables, indexes, err := readViews(ctx, monConn)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "plain", "s.t"} {
		if !maps.Equal(snap.Tables[name], tables[name]) {
			t.Errorf("table %s:\nmonitor %v\nviews   %v", name, snap.Tables[name], tables[name])
		}
	}
	if len(snap.Tables) != len(tables) || len(snap.Indexes) != len(indexes) {
		t.Errorf("monitor has %d tables and %d indexes, the views %d and %d", len(snap.Tables), len(snap.Indexes), len(tables), len(indexes))
	}
	for name, want := range indexes {
		if !maps.Equal(snap.Indexes[name], want) {
			t.Errorf("index %s:\nmonitor %v\nviews   %v", name, snap.Indexes[name], want)
		}
	}
	if snap.Tables["a"]["toast_blks_hit"]+snap.Tables["a"]["toast_blks_read"] == 0 || snap.Indexes["a_b"]["idx_scan"] == 0 {
		t.Errorf("the experiment did not touch a's toast or a_b: %v %v", snap.Tables["a"], snap.Indexes["a_b"])
	}
	// Database counters other than the ones the reads themselves advance.
	for k, v := range db {
		if selfTouched[k] || isTime(k) || gauges[k] {
			continue
		}
		if snap.Database[k] != v {
			t.Errorf("pg_stat_database.%s: monitor %d, view %d", k, snap.Database[k], v)
		}
	}
	for _, k := range []string{"blks_hit", "blks_read", "xact_commit", "tup_inserted", "sessions"} {
		if _, ok := snap.Database[k]; !ok {
			t.Errorf("monitor's pg_stat_database lacks %s", k)
		}
	}
	if sz := snap.Sizes["plain"]; sz["main"] < 4 || sz["vm"] != 1 || sz["fsm"] != 3 {
		t.Errorf("sizes of plain (1000 ints, vacuumed) = %v, want >= 4 main pages, a vm page, 3 fsm pages", sz)
	}
	// Read from the files, the sizes are pg_relation_size's.
	files := *mon
	files.dataDir = c.dataDir
	fromFiles, err := files.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(fromFiles.Sizes, snap.Sizes, maps.Equal) || len(snap.Sizes) != 6 {
		t.Errorf("sizes from the files %v, pg_relation_size %v (want 6: a, its key, a_b, plain, s.t, its key)", fromFiles.Sizes, snap.Sizes)
	}
}

// TestMonitorTouchesNoBuffers: once primed, a Monitor's snapshots, usage
// reads and waits for an exited backend add nothing to blks_hit or
// blks_read beyond what the exited sessions' own start-ups read, and the
// usage counts of the catalogs they would scan do not move.
func TestMonitorTouchesNoBuffers(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	ctx := t.Context()
	conn := connect(t, c)
	execAll(t, conn, "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t SELECT generate_series(1, 100)")
	mon, err := NewMonitor(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := mon.Prime(ctx); err != nil {
		t.Fatal(err)
	}
	// Loads the cache entry of waitGone's function.
	if _, err := connectCost(ctx, c, mon); err != nil {
		t.Fatal(err)
	}
	s0, err := mon.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u0, err := mon.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := mon.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := mon.Usage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s1, err := mon.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	u1, err := mon.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Not even the monitor's transactions show: a backend with no pending
	// relation counters does not flush its database counters
	// (pgstat_report_stat returns before pgstat_update_dbstats).
	for k, v := range s1.Minus(s0).Database {
		if v != 0 && !isTime(k) && !gauges[k] {
			t.Errorf("6 snapshots and 6 usage reads changed pg_stat_database.%s by %d, want 0", k, v)
		}
	}
	if _, ok := s1.Database["blks_hit"]; !ok {
		t.Fatal("no blks_hit in the snapshot")
	}
	for _, rel := range []string{"pg_class", "pg_index", "pg_namespace", "pg_proc", "pg_class_oid_index"} {
		if u1.ByRel[rel] != u0.ByRel[rel] {
			t.Errorf("usage counts of %s moved: %v -> %v", rel, u0.ByRel[rel], u1.ByRel[rel])
		}
	}
	if u0.Resident("pg_class") == 0 {
		t.Error("pg_class not resident: the check above proves nothing")
	}
	// Waiting for a closed session: the monitor sees the session's counters
	// (a connection's start-up reads catalogs), and a second wait costs
	// the same.
	a, err := connectCost(ctx, c, mon)
	if err != nil {
		t.Fatal(err)
	}
	b, err := connectCost(ctx, c, mon)
	if err != nil {
		t.Fatal(err)
	}
	if a == 0 || a != b {
		t.Errorf("a connection's buffer accesses as seen after waitGone: %d then %d; want the same, nonzero", a, b)
	}
}

// connectCost is what one connection and disconnection adds to the
// database's buffer accesses, as seen by mon after waitGone.
func connectCost(ctx context.Context, c *Cluster, mon *Monitor) (int64, error) {
	s0, err := mon.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	other, err := c.Conn(ctx)
	if err != nil {
		return 0, err
	}
	pid := other.PgConn().PID()
	_ = other.Close(ctx)
	if err := mon.waitGone(ctx, pid); err != nil {
		return 0, err
	}
	s1, err := mon.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	d := s1.Minus(s0).Database
	return d["blks_hit"] + d["blks_read"], nil
}

// TestMonitorOpensNoRelationAfterRestart: a Monitor that reads sizes from
// the files, primed right after a restart, leaves the catalog rows of the
// user relations out of shared buffers; one that calls pg_relation_size
// opens every relation and reads their pg_attribute and pg_class pages.
func TestMonitorOpensNoRelationAfterRestart(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	ctx := t.Context()
	setup := connect(t, c)
	execAll(t, setup, `DO $$ BEGIN FOR i IN 1..100 LOOP
		EXECUTE format('CREATE TABLE s_%s (id int, pad text)', i);
	END LOOP; END $$`, "CHECKPOINT")
	cat, err := resolveCatalog(ctx, setup)
	if err != nil {
		t.Fatal(err)
	}
	catalogBuffers := func(dataDir string) int64 {
		t.Helper()
		if err := c.Restart(ctx, Settings{}); err != nil {
			t.Fatal(err)
		}
		conn, err := c.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close(ctx) }()
		m := &Monitor{conn: conn, major: c.Major(), cat: cat, dataDir: dataDir}
		if err := m.Prime(ctx); err != nil {
			t.Fatal(err)
		}
		u, err := m.Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return u.Resident("pg_attribute") + u.Resident("pg_class")
	}
	opened, files := catalogBuffers(""), catalogBuffers(c.dataDir)
	t.Logf("pg_attribute and pg_class buffers after priming: %d with pg_relation_size, %d reading the files", opened, files)
	// 100 tables with a toast table each: their rows take about 35
	// pg_attribute pages and 10 of pg_class.
	if opened-files < 30 {
		t.Errorf("pg_attribute and pg_class buffers after priming: %d with pg_relation_size, %d reading the files; want at least 30 fewer", opened, files)
	}
}

// queryKeyed reads a query (the statistics views, for comparison with
// the monitor) whose first column is a name into one map per row.
func queryKeyed(ctx context.Context, tx pgx.Tx, sql string) (map[string]map[string]int64, error) {
	rows, err := tx.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]int64{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		name, ok := vals[0].(string)
		if !ok {
			return nil, fmt.Errorf("first column is %T, want a name", vals[0])
		}
		m := map[string]int64{}
		for i, fd := range rows.FieldDescriptions()[1:] {
			if k, v, ok := counterValue(fd.Name, vals[i+1]); ok {
				m[k] = v
			}
		}
		out[name] = m
	}
	return out, rows.Err()
}
