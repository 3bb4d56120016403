package pgcompare

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// randomSeedScript is the script file of model/testdata/pgbench-random-seed-7.txt.
const randomSeedScript = `\set a random(1, 100000000)
\set g random_gaussian(1, 100000, 2.5)
\set e random_exponential(1, 100000, 3)
\set z random_zipfian(1, 100000, 1.5)
SELECT :a, :g, :e, :z, :default_seed, :random_seed;
`

// TestRandomSeedReplaysPgbench runs the installed pgbench with
// --random-seed 7 (a script file at weight 2 and select-only at 1, three
// clients with a thread each, -R 50, --debug, -l) and the simulator with
// random_seed: 7 and the same options. Per client, both must send the same
// statements (pgbench's --debug lines, which model/testdata pins and the
// model's TestPgbenchRandomSeedDraws replays), run the same scripts in the
// same order (the logs' script column) and follow the same -R schedule:
// a transaction's scheduled start is its log time minus its latency, in
// whole microseconds on both sides, so the gaps between a client's starts
// are getPoissonRand's draws (up to pgbench's own clock readings:
// sameGaps). Skipped where PostgreSQL (15+) is
// not installed.
func TestRandomSeedReplaysPgbench(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	if c.Major() < 15 {
		t.Skipf("pgbench %d draws from erand48; random_seed replays 15+", c.Major())
	}
	ctx := t.Context()
	if _, err := c.Pgbench(ctx, "-i", "-s", "1", "-q"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil { // pgbench may run as the postgres user
		t.Fatal(err)
	}
	script := filepath.Join(dir, "s.sql")
	if err := os.WriteFile(script, []byte(randomSeedScript), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := c.PgbenchStderr(ctx, "-n", "-f", script+"@2", "-b", "select-only@1", "-c", "3", "-j", "3", "-t", "4", "-R", "50",
		"--random-seed", "7", "--debug", "-l", "--log-prefix", filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}

	// The statements, client by client.
	var sent []string
	for _, l := range strings.Split(stderr, "\n") {
		if _, s, ok := strings.Cut(l, "pgbench: "); ok && strings.Contains(s, " sending ") {
			sent = append(sent, s)
		}
	}
	slices.SortStableFunc(sent, func(a, b string) int { return strings.Compare(a[:len("client 0")], b[:len("client 0")]) })
	want, err := os.ReadFile("../../model/testdata/pgbench-random-seed-7.txt")
	if err != nil {
		t.Fatal(err)
	}
	var pinned []string
	for _, l := range strings.Split(string(want), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			pinned = append(pinned, l)
		}
	}
	if !slices.Equal(sent, pinned) {
		t.Errorf("pgbench %s sent, client by client:\n%s\nmodel/testdata/pgbench-random-seed-7.txt has:\n%s", c.Version(), strings.Join(sent, "\n"), strings.Join(pinned, "\n"))
	}

	real := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "log.") {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			real[e.Name()] = string(data)
		}
	}
	yaml := fmt.Sprintf(`name: random-seed
server: {version: "%d", shared_buffers: 16MB, cpus: 2, autovacuum: false}
tables: {pgbench: {scale: 1}}
output: {pgbench_log: true}
workload:
  phases:
    - name: run
      transactions: 4
      clients: 3
      threads: 3
      rate: 50
      random_seed: 7
      scripts: [{text: %q, weight: 2}, {builtin: select-only, weight: 1}]
`, c.Major(), randomSeedScript)
	sim := simulatedLogs(t, "random-seed.yaml", yaml)
	rs, rg := scriptsAndGaps(t, logFiles(t, real))
	ss, sg := scriptsAndGaps(t, logFiles(t, sim))
	for cl := int64(0); cl < 3; cl++ {
		if !slices.Equal(rs[cl], ss[cl]) {
			t.Errorf("client %d's scripts: pgbench %v, the simulator %v", cl, rs[cl], ss[cl])
		}
		if !sameGaps(rg[cl], sg[cl]) {
			t.Errorf("client %d's gaps between scheduled starts (µs): pgbench %v, the simulator %v", cl, rg[cl], sg[cl])
		}
	}
}

// sameGaps compares two clients' gaps between scheduled starts, each a
// draw of tens of milliseconds. pgbench logs a transaction's latency from
// one clock reading (processXactStats) and its time from a second one
// (doLog), a microsecond or two later on an idle machine, so its gaps come
// out that far off the draws; the simulator's are exact. On a busy machine
// (go test ./... runs packages side by side on two cores) pgbench's thread
// can be descheduled between the two readings: 53 to 84 us were seen. A
// draw from another stream, or another draw of the same one, misses by
// milliseconds, so 200 us still tells them apart.
func sameGaps(real, sim []int64) bool {
	if len(real) != 3 || len(sim) != len(real) {
		return false
	}
	for i := range real {
		if d := real[i] - sim[i]; d < -200 || d > 200 {
			return false
		}
	}
	return true
}

// scriptsAndGaps reads per-transaction logs written under -R: per client,
// the script of each transaction and the gaps between scheduled starts
// (log time minus latency, in µs).
func scriptsAndGaps(t *testing.T, files map[string][]logLine) (scripts, gaps map[int64][]int64) {
	t.Helper()
	scripts, gaps = map[int64][]int64{}, map[int64][]int64{}
	last := map[int64]int64{}
	for name, lines := range files {
		for _, l := range lines {
			// client_id transaction_no time script_no time_epoch time_us schedule_lag
			if len(l.vals) != 7 {
				t.Fatalf("%s: %d fields, want 7 (per-transaction log with -R)", name, len(l.vals))
			}
			cl := l.vals[0]
			sched := l.vals[4]*1_000_000 + l.vals[5] - l.vals[2]
			if prev, ok := last[cl]; ok {
				gaps[cl] = append(gaps[cl], sched-prev)
			}
			last[cl] = sched
			scripts[cl] = append(scripts[cl], l.vals[3])
		}
	}
	return scripts, gaps
}
