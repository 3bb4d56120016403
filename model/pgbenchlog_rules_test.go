package model_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

const logYAML = `name: logs
seed: 2
server: {version: "15", shared_buffers: 16MB, cpus: 2, system_catalogs: false}
tables: {pgbench: {scale: 1}}
output: {pgbench_log: true}
workload:
  phases:
    - {name: warm, warmup: true, duration: 1s, clients: 2, script: select-only}
    - {name: run, duration: 4s, clients: 5, threads: 3, rate: 500, script: select-only}
`

func logsByName(r *model.Result) map[string]string {
	out := map[string]string{}
	for _, l := range r.PGBenchLogs {
		out[l.Name] = string(l.Data)
	}
	return out
}

// pgbench writes a file per thread (pgbench.c main: PREFIX.PID for thread
// 0, PREFIX.PID.TID for the others) with the lines of its clients (a
// contiguous block each); a warm-up phase is a pgbench run of its own,
// logged only when asked; each phase has its pseudo pid, 10000 + its index.
func TestPgbenchLogFilesPerThread(t *testing.T) {
	r := bhRunYAML(t, logYAML)
	logs := logsByName(r)
	if len(logs) != 3 || logs["pgbench_log.10001"] == "" || logs["pgbench_log.10001.1"] == "" || logs["pgbench_log.10001.2"] == "" {
		t.Fatalf("files %v, want pgbench_log.10001, .10001.1, .10001.2", keys(logs))
	}
	// 5 clients over 3 threads: {0, 1}, {2, 3}, {4}.
	want := map[string][]string{"pgbench_log.10001": {"0", "1"}, "pgbench_log.10001.1": {"2", "3"}, "pgbench_log.10001.2": {"4"}}
	lines := 0
	for name, data := range logs {
		seen := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSpace(data), "\n") {
			f := strings.Fields(l)
			if len(f) != 7 {
				t.Fatalf("%s: %q has %d columns, want 7 (with the schedule lag)", name, l, len(f))
			}
			seen[f[0]] = true
			lines++
		}
		for _, c := range want[name] {
			if !seen[c] {
				t.Errorf("%s has no line of client %s", name, c)
			}
		}
		if len(seen) != len(want[name]) {
			t.Errorf("%s has clients %v, want %v", name, seen, want[name])
		}
	}
	if int64(lines) != bhPhase(t, r, "run").Transactions {
		t.Errorf("%d log lines for %d transactions", lines, bhPhase(t, r, "run").Transactions)
	}
	r = bhRunYAML(t, logYAML, "output.log_warmup=true", "output.log_prefix=x")
	if logs := logsByName(r); logs["x.10000"] == "" || logs["x.10001"] == "" {
		t.Errorf("with log_warmup and log_prefix x: files %v", keys(logs))
	}
}

// --sampling-rate logs each transaction with that probability, from a
// stream of its own: the run is otherwise the same.
func TestPgbenchLogSampling(t *testing.T) {
	all := bhRunYAML(t, logYAML)
	some := bhRunYAML(t, logYAML, "output.sampling_rate=0.25")
	n := float64(bhPhase(t, all, "run").Transactions)
	got := float64(strings.Count(string(some.PGBenchLogLines()), "\n"))
	if sd := math.Sqrt(n * 0.25 * 0.75); math.Abs(got-0.25*n) > 4*sd {
		t.Errorf("%v lines logged of %v transactions, want 0.25 of them (+- %.0f)", got, n, 4*sd)
	}
	if resultJSON(t, all) == nil || string(resultJSON(t, all)) != string(resultJSON(t, some)) {
		t.Error("sampling the log changed the run")
	}
}

// --aggregate-interval: a line per interval per thread from the phase's
// start (rounded down to the second), empty intervals included, the last
// partial one left out (pgbench's final doLog); the columns by version
// (pgbench.c doLog): up to 14 the lag columns only under -R and skipped
// only with -L; from 15 every column, zeros where the option is off; 19
// adds other SQL failures.
func TestPgbenchLogAggregates(t *testing.T) {
	for _, tc := range []struct {
		version, extra string
		columns        int
	}{
		{"14", "", 10}, // rate without -L: lag columns, no skipped
		{"14", "workload.phases.run.latency_limit=5ms", 11}, // and skipped
		{"14", "workload.phases.run.rate=0", 6},
		{"15", "", 15},
		{"15", "workload.phases.run.rate=0", 15},
		{"19", "", 16},
	} {
		over := []string{"server.version=" + tc.version, "output.aggregate_interval=1s"}
		if tc.extra != "" {
			over = append(over, tc.extra)
		}
		r := bhRunYAML(t, logYAML, over...)
		// Under -R a client whose next start falls after the end
		// finishes at once (CSTATE_PREPARE_THROTTLE), so the phase may
		// end before its fourth second does, and that interval is not
		// printed; unthrottled, the last transactions end after it.
		throttled := !strings.Contains(tc.extra, "rate=0")
		var txns int64
		whole := true
		for name, data := range logsByName(r) {
			ls := strings.Split(strings.TrimSpace(data), "\n")
			if len(ls) != 4 && !(throttled && len(ls) == 3) {
				t.Errorf("%s %s: %d intervals in a 4 s phase, want 4", tc.version, name, len(ls))
			}
			whole = whole && len(ls) == 4
			for _, l := range ls {
				f := strings.Fields(l)
				if len(f) != tc.columns {
					t.Errorf("%s (%s) %s: %q has %d columns, want %d", tc.version, tc.extra, name, l, len(f), tc.columns)
					break
				}
				var c int64
				for _, ch := range f[1] {
					c = c*10 + int64(ch-'0')
				}
				txns += c
			}
		}
		if run := bhPhase(t, r, "run").Transactions; whole && (txns > run || txns < run-50) {
			t.Errorf("%s: the intervals count %d transactions, the phase %d (only those ending after the last whole interval, at most a few ms of the phase, may be missing)", tc.version, txns, run)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// pgbench -P: a line every N seconds of each phase while it runs
// (printProgressReport), over the transactions since the last line; the
// run is the same with or without them.
func TestPgbenchProgressLines(t *testing.T) {
	sc := bhScenario(t, logYAML, "output.progress=1s", "output.pgbench_log=false")
	var lines []string
	r, err := model.RunWith(sc, model.Options{ProgressLine: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	plain := bhRun(t, bhScenario(t, logYAML, "output.pgbench_log=false"))
	if string(resultJSON(t, r)) != string(resultJSON(t, plain)) {
		t.Error("progress lines changed the run")
	}
	// The warm-up's 1 s phase may end before its first report; the 4 s
	// run reports at 1, 2, 3 and, if a transaction is still running at
	// its end, 4 s.
	var run []string
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "tables: ") || !strings.Contains(lines[0], " relations built, ") {
		t.Errorf("the first line does not report the table build: %q", lines)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "progress: ") {
			t.Errorf("%q is not a progress line", l)
		}
		if strings.Contains(l, "lag") {
			run = append(run, l)
		}
	}
	if len(run) < 3 || len(run) > 4 {
		t.Fatalf("%d progress lines of the run phase, want 3 or 4: %q", len(run), lines)
	}
	var tps float64
	for i, l := range run {
		var s, x, lat, sd, lag float64
		var failed int
		if _, err := fmt.Sscanf(l, "progress: %f s, %f tps, lat %f ms stddev %f, %d failed, lag %f ms", &s, &x, &lat, &sd, &failed, &lag); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if s != float64(i+1) {
			t.Errorf("%q: report %d at %.1f s", l, i+1, s)
		}
		tps += x
	}
	// 500 tps scheduled: each second's report counts its transactions.
	if want := float64(bhPhase(t, r, "run").Transactions); len(run) == 4 && math.Abs(tps-want) > 5 || len(run) == 3 && tps > want {
		t.Errorf("the reports count %.0f transactions, the phase %.0f", tps, want)
	}
}

// pgbench -r: each command's latency runs from its start to the next
// command's (the last to the transaction's end), so a transaction's
// commands add up to its latency, and each ran once per transaction.
func TestPgbenchPerCommandLatencies(t *testing.T) {
	r := bhRunYAML(t, logYAML, "output.report_per_command=true", "output.pgbench_log=false", "workload.phases.run.script=tpcb-like", "workload.phases.run.rate=0")
	run := bhPhase(t, r, "run")
	if len(run.Statements) != 1 || len(run.Statements[0]) != 11 {
		t.Fatalf("statements %+v, want tpcb-like's 11 commands", run.Statements)
	}
	var sum float64
	for i, st := range run.Statements[0] {
		if i < 4 && (st.LatencyMS != 0 || !strings.HasPrefix(st.Command, `\set `)) {
			t.Errorf("command %d %q: %.3f ms, want a \\set of no simulated time", i+1, st.Command, st.LatencyMS)
		}
		if i >= 4 && st.Count != run.Transactions {
			t.Errorf("command %d %q ran %d times in %d transactions", i+1, st.Command, st.Count, run.Transactions)
		}
		sum += st.LatencyMS
	}
	if got := run.Statements[0][4].Command; got != "BEGIN;" {
		t.Errorf("command 5 is %q, want pgbench's \"BEGIN;\"", got)
	}
	if math.Abs(sum-run.LatencyMS.Mean) > 0.01*run.LatencyMS.Mean {
		t.Errorf("the commands add up to %.4f ms, the transactions average %.4f ms", sum, run.LatencyMS.Mean)
	}
	if len(r.Totals.Statements) != 1 {
		t.Error("the totals lack the statements of the measured phase")
	}
}

// A command's time ends when its result reaches pgbench
// (pgbench.c advanceConnectionState: CSTATE_END_COMMAND after the
// result is read), so it holds its own statement's CPU, however the
// backend's work is split into bursts. PostgreSQL 15, one client of
// pgbench -r over BEGIN, four SELECT 1 and END on this kind of machine:
// 0.067, 0.073, 0.071, 0.071, 0.071, 0.067 ms; every command within 10 %
// of the others. With a local server's round trip of 0 the model had
// counted each statement's CPU in the next command (BEGIN 0.012 ms, each
// SELECT 1 0.037, END 0.062); reporting per command changes no timing.
func TestPerCommandLatencyHoldsItsOwnCPU(t *testing.T) {
	const script = `name: per-command
seed: 3
server: {version: "15", shared_buffers: 16MB, cpus: 2, system_catalogs: false}
costs: {client_round_trip: 0ns}
tables: {pgbench: {scale: 0}}
workload:
  phases:
    - {name: run, transactions: 500, clients: 1, script: {text: "BEGIN;\nSELECT 1;\nSELECT 1;\nSELECT 1;\nSELECT 1;\nEND;\n"}}
`
	with := bhPhase(t, bhRunYAML(t, script, "output.report_per_command=true"), "run")
	without := bhPhase(t, bhRunYAML(t, script), "run")
	if with.LatencyMS != without.LatencyMS || with.Transactions != without.Transactions {
		t.Errorf("report_per_command changed the run: latency %+v against %+v", with.LatencyMS, without.LatencyMS)
	}
	cmds := with.Statements[0]
	if len(cmds) != 6 {
		t.Fatalf("%d commands, want 6: %+v", len(cmds), cmds)
	}
	select1 := cmds[1].LatencyMS
	for _, c := range cmds {
		if math.Abs(c.LatencyMS/select1-1) > 0.02 {
			t.Errorf("%s %.4f ms against SELECT 1's %.4f: each command holds one statement's client and backend work", c.Command, c.LatencyMS, select1)
		}
	}
}
