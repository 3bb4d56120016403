package pgcompare

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// startOrSkip starts a cluster, skipping the test where PostgreSQL is absent.
func startOrSkip(t *testing.T, s Settings) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	if _, _, err := Find(); err != nil {
		t.Skip(err)
	}
	c, err := Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func TestClusterMeasures(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	ctx := t.Context()
	conn := connect(t, c)
	execAll(t, conn,
		"CREATE TABLE t (id int PRIMARY KEY, pad text)",
		"INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 580) g",
	)
	before, err := TakeSnapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := Explain(ctx, conn, "SELECT count(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	after, err := TakeSnapshot(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	// 580 rows of ~140 bytes are 10 pages, all still in shared buffers.
	d := after.Minus(before).Tables["t"]
	if eb.SharedHit != 10 || eb.SharedRead != 0 || d["heap_blks_hit"] != 10 || d["seq_scan"] != 1 {
		t.Errorf("explain %+v, table delta %v; want 10 hits, one seq scan", eb, d)
	}
	u, err := UsageCounts(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if u.Resident("t") < 10 || u.Resident("t_pkey") < 1 {
		t.Errorf("resident t=%d t_pkey=%d", u.Resident("t"), u.Resident("t_pkey"))
	}
	var total int64
	for _, n := range u.Hist {
		total += n
	}
	if total+u.Unused != 2048 {
		t.Errorf("used %d + unused %d != 2048 buffers of 16MB", total, u.Unused)
	}
}

func TestRestartEmptiesBuffers(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB"})
	ctx := t.Context()
	conn, err := c.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE r AS SELECT g FROM generate_series(1, 1000) g"); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close(ctx)
	if err := c.Restart(ctx, Settings{"work_mem": "8MB"}); err != nil {
		t.Fatal(err)
	}
	conn, err = c.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var workMem string
	if err := conn.QueryRow(ctx, "SHOW work_mem").Scan(&workMem); err != nil || workMem != "8MB" {
		t.Errorf("work_mem = %q, %v", workMem, err)
	}
	u, err := UsageCounts(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if n := u.Resident("r"); n != 0 {
		t.Errorf("%d buffers of r resident after restart", n)
	}
}

func TestCloseAfterPanicAndTwice(t *testing.T) {
	c := startOrSkip(t, nil)
	dir := c.Dir()
	func() {
		defer func() { _ = recover() }()
		defer c.Close()
		panic("caller failed")
	}()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp dir %s still there after Close: %v", dir, err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Conn(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("Conn after Close: %v", err)
	}
}

func TestStartFailureCleansUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	if _, _, err := Find(); err != nil {
		t.Skip(err)
	}
	before := tempDirs(t)
	_, err := Start(t.Context(), Settings{"shared_buffers": "not-a-size"})
	if err == nil || !strings.Contains(err.Error(), "shared_buffers") {
		t.Fatalf("Start with a bad setting: %v; want an error quoting the server log", err)
	}
	// Give a stray postmaster no chance to hide: the dir must be gone now.
	time.Sleep(100 * time.Millisecond)
	if after := tempDirs(t); len(after) > len(before) {
		t.Errorf("temp dirs left behind: %v", after)
	}
}

func tempDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "pgcompare-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestTimeAgain: a measured EXPLAIN step with TimeAgain runs its statement
// that many times more, after its measurement: the step's counters are
// its one run's, and every further run's Execution Time is kept.
func TestTimeAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	if _, _, err := Find(); err != nil {
		t.Skip(err)
	}
	scan := Step{Name: "scan", NewSession: true, SQL: []string{"SET max_parallel_workers_per_gather = 0", "SELECT count(*) FROM t"}, Explain: true, Measure: true, TimeAgain: 3}
	res, err := Run(t.Context(), Experiment{Name: "time-again", Settings: Settings{"autovacuum": "off"}, Steps: []Step{
		{Name: "load", SQL: []string{"CREATE TABLE t (id int, pad text)", "INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 5800) g", "VACUUM t"}},
		scan,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 {
		t.Fatalf("%d results, want the scan's", len(res))
	}
	r := res[0]
	if n := r.Delta.Tables["t"]["seq_scan"]; n != 1 || r.Explain == nil || r.Explain.SharedHit+r.Explain.SharedRead != 100 {
		t.Errorf("the step counted %d scans (explain %+v), want its own one of 100 pages", n, r.Explain)
	}
	if len(r.ExecAgainMS) != 3 || slices.Min(r.ExecAgainMS) <= 0 {
		t.Errorf("further runs' times %v, want three", r.ExecAgainMS)
	}
	scan.Measure = false
	if _, err := Run(t.Context(), Experiment{Name: "time-again-unmeasured", Steps: []Step{scan}}); err == nil || !strings.Contains(err.Error(), "TimeAgain") {
		t.Errorf("TimeAgain on an unmeasured step: %v", err)
	}
}
