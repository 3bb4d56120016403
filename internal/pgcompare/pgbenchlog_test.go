package pgcompare

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// logLine is a pgbench log line parsed field by field: each field's kind
// ("int", or the word itself: skipped, failed) and its integer value.
type logLine struct {
	kinds []string
	vals  []int64
}

func parseLogLine(s string) (logLine, error) {
	var l logLine
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseInt(f, 10, 64)
		switch {
		case err == nil:
			l.kinds = append(l.kinds, "int")
			l.vals = append(l.vals, v)
		case f == "skipped" || f == "failed":
			l.kinds = append(l.kinds, f)
			l.vals = append(l.vals, 0)
		default:
			return l, fmt.Errorf("field %q is neither an integer nor skipped/failed", f)
		}
	}
	return l, nil
}

// logFiles parses a set of pgbench log files: file name -> lines.
func logFiles(t *testing.T, files map[string]string) map[string][]logLine {
	t.Helper()
	out := map[string][]logLine{}
	for name, data := range files {
		for i, s := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
			if s == "" {
				continue
			}
			l, err := parseLogLine(s)
			if err != nil {
				t.Fatalf("%s:%d: %v: %q", name, i+1, err, s)
			}
			out[name] = append(out[name], l)
		}
	}
	return out
}

// logNameRE splits PREFIX.PID[.TID].
var logNameRE = regexp.MustCompile(`^(.+?)\.(\d+)(?:\.(\d+))?$`)

// fileShape describes a set of log files independently of the pid: the
// prefix, the thread suffixes, and every distinct line shape.
func fileShape(t *testing.T, files map[string][]logLine) (prefix string, threads []string, shapes []string) {
	t.Helper()
	seen := map[string]bool{}
	for name, lines := range files {
		m := logNameRE.FindStringSubmatch(name)
		if m == nil {
			t.Fatalf("log file name %q is not PREFIX.PID[.THREAD]", name)
		}
		prefix = m[1]
		threads = append(threads, m[3])
		for _, l := range lines {
			k := strings.Join(l.kinds, " ")
			if !seen[k] {
				seen[k] = true
				shapes = append(shapes, k)
			}
		}
	}
	slices.Sort(threads)
	slices.Sort(shapes)
	return prefix, threads, shapes
}

// TestPgbenchLogsAsPgbenchWritesThem runs the installed pgbench with -l
// and --aggregate-interval against a private server, and the simulator
// with the same options, and parses both sets of files with one parser:
// the same file names (PREFIX.PID for thread 0, PREFIX.PID.THREAD for the
// others), the same columns for the version, the transaction numbers
// counted from 1 per client as pgbench counts them (st->cnt), intervals
// one interval apart. Skipped where PostgreSQL is not installed.
func TestPgbenchLogsAsPgbenchWritesThem(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	ctx := t.Context()
	if _, err := c.Pgbench(ctx, "-i", "-s", "1", "-q"); err != nil {
		t.Fatal(err)
	}
	major := c.Major()
	cases := []struct {
		name   string
		args   []string
		phase  string // the simulator's phase
		output string // the simulator's output block
	}{
		{"per-transaction", []string{"-l", "-t", "20", "-c", "3", "-j", "2"},
			"transactions: 20, clients: 3, threads: 2", "pgbench_log: true"},
		{"rate", []string{"-l", "-T", "2", "-R", "50", "-c", "2", "-j", "1", "--log-prefix", "mylog"},
			"duration: 2s, rate: 50, clients: 2, threads: 1", "pgbench_log: true, log_prefix: mylog"},
		{"skipped", []string{"-l", "-T", "2", "-R", "2000", "-L", "0.05", "-c", "1"},
			"duration: 2s, rate: 2000, latency_limit: 50us, clients: 1", "pgbench_log: true"},
		{"aggregate", []string{"-l", "--aggregate-interval", "1", "-T", "3", "-c", "2", "-j", "2"},
			"duration: 3s, clients: 2, threads: 2", "pgbench_log: true, aggregate_interval: 1s"},
		{"aggregate-rate", []string{"-l", "--aggregate-interval", "1", "-T", "3", "-R", "200", "-L", "1", "-c", "2"},
			"duration: 3s, rate: 200, latency_limit: 1ms, clients: 2", "pgbench_log: true, aggregate_interval: 1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o777); err != nil { // pgbench may run as the postgres user
				t.Fatal(err)
			}
			wd, _ := os.Getwd()
			if err := os.Chdir(dir); err != nil {
				t.Fatal(err)
			}
			_, err := c.Pgbench(ctx, append([]string{"-n", "-b", "select-only"}, tc.args...)...)
			os.Chdir(wd)
			if err != nil {
				t.Fatal(err)
			}
			real := map[string]string{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				data, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				real[e.Name()] = string(data)
			}
			yaml := fmt.Sprintf(`name: logs
server: {version: "%d", shared_buffers: 16MB, cpus: 2, autovacuum: false}
tables: {pgbench: {scale: 1}}
output: {%s}
workload:
  phases:
    - {name: run, %s, script: select-only}
`, major, tc.output, tc.phase)
			sim := simulatedLogs(t, "logs.yaml", yaml)
			for name, data := range real {
				first, _, _ := strings.Cut(data, "\n")
				t.Logf("pgbench's %s begins %q", name, first)
			}
			for name, data := range sim {
				first, _, _ := strings.Cut(data, "\n")
				t.Logf("the simulator's %s begins %q", name, first)
			}
			pl, sl := logFiles(t, real), logFiles(t, sim)
			rp, rt, rs := fileShape(t, pl)
			sp, st, ss := fileShape(t, sl)
			if rp != sp || !slices.Equal(rt, st) {
				t.Errorf("files: pgbench wrote %v, the simulator %v", slices.Sorted(maps.Keys(real)), slices.Sorted(maps.Keys(sim)))
			}
			if !slices.Equal(rs, ss) {
				t.Errorf("line shapes: pgbench %q, the simulator %q", rs, ss)
			}
			for _, files := range []map[string][]logLine{pl, sl} {
				checkNumbering(t, files, strings.HasPrefix(tc.name, "aggregate"))
			}
		})
	}
}

// simulatedLogs runs a scenario and returns its pgbench log files by name.
func simulatedLogs(t *testing.T, name, yaml string) map[string]string {
	t.Helper()
	sc, err := configs.Parse(name, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string]string{}
	for _, l := range res.PGBenchLogs {
		logs[l.Name] = string(l.Data)
	}
	return logs
}

// checkNumbering checks the counters of a set of log files: per client,
// transaction numbers 1, 2, 3 ... (skipped ones included); per file,
// aggregation intervals one second apart.
func checkNumbering(t *testing.T, files map[string][]logLine, aggregate bool) {
	t.Helper()
	for name, lines := range files {
		next := map[int64]int64{}
		for i, l := range lines {
			if aggregate {
				if i > 0 && l.vals[0] != lines[i-1].vals[0]+1 {
					t.Errorf("%s:%d: interval starts at %d after %d", name, i+1, l.vals[0], lines[i-1].vals[0])
				}
				continue
			}
			client, no := l.vals[0], l.vals[1]
			if want := next[client] + 1; no != want {
				t.Errorf("%s:%d: client %d's transaction %d, want %d", name, i+1, client, no, want)
			}
			next[client] = no
		}
	}
}
