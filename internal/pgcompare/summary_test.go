package pgcompare

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/report"
)

// numberRE matches the numbers of a summary line.
var numberRE = regexp.MustCompile(`-?\d+(\.\d+)?`)

// pgbenchPart is the lines of a summary that pgbench prints (pgbufsim's
// own lines start at "latency percentiles:"), with every number replaced
// by N, and the version line's text after the version dropped.
func pgbenchPart(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "latency percentiles:") {
			break
		}
		if strings.HasPrefix(l, "pgbench (") {
			l = "pgbench (VERSION)"
		}
		lines = append(lines, numberRE.ReplaceAllString(l, "N"))
	}
	return lines
}

// TestSummaryAsPgbenchPrintsIt runs the installed pgbench and the
// simulator with the same options and compares pgbench's report line by
// line, numbers aside (pgbench.c printVersion, printResults): the same
// lines in the same order, by -t or -T, with -R and -L, and for a weighted
// mix with its per-script sections. Skipped where PostgreSQL is not
// installed.
func TestSummaryAsPgbenchPrintsIt(t *testing.T) {
	c := startOrSkip(t, Settings{"shared_buffers": "16MB", "autovacuum": "off"})
	ctx := t.Context()
	if _, err := c.Pgbench(ctx, "-i", "-s", "1", "-q"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		phase string
	}{
		{"transactions", []string{"-b", "select-only", "-t", "50", "-c", "2", "-j", "2"}, "transactions: 50, clients: 2, threads: 2, script: select-only"},
		{"duration-rate-limit", []string{"-b", "simple-update", "-T", "2", "-R", "100", "-L", "5", "-c", "2"}, "duration: 2s, rate: 100, latency_limit: 5ms, clients: 2, script: simple-update"},
		{"mix", []string{"-b", "select-only@3", "-b", "tpcb-like@1", "-T", "2", "-c", "2"}, "duration: 2s, clients: 2, scripts: [{builtin: select-only, weight: 3}, {builtin: tpcb-like, weight: 1}]"},
		{"progress", []string{"-b", "select-only", "-T", "3", "-R", "200", "-L", "5", "-P", "1", "-c", "2"}, "duration: 3s, rate: 200, latency_limit: 5ms, clients: 2, script: select-only"},
		{"per-command", []string{"-b", "tpcb-like", "-t", "20", "-c", "2", "-r"}, "transactions: 20, clients: 2, script: tpcb-like"},
		{"per-command-mix", []string{"-b", "simple-update@1", "-b", "select-only@1", "-T", "2", "-c", "2", "-r"}, "duration: 2s, clients: 2, scripts: [{builtin: simple-update}, {builtin: select-only}]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := c.PgbenchStderr(ctx, append([]string{"-n"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			yaml := fmt.Sprintf(`name: summary
server: {version: "%d", shared_buffers: 16MB, cpus: 2, autovacuum: false}
tables: {pgbench: {scale: 1}}
workload:
  phases:
    - {name: run, %s}
`, c.Major(), tc.phase)
			switch {
			case slices.Contains(tc.args, "-P"):
				yaml += "output: {progress: 1s}\n"
			case slices.Contains(tc.args, "-r"):
				yaml += "output: {report_per_command: true}\n"
			}
			sc, err := configs.Parse("summary.yaml", []byte(yaml))
			if err != nil {
				t.Fatal(err)
			}
			var progress []string
			res, err := model.RunWith(sc, model.Options{ProgressLine: func(l string) { progress = append(progress, l) }})
			if err != nil {
				t.Fatal(err)
			}
			// -P: the same progress lines (a report a second; pgbench may
			// print its last one just after the end, or not).
			var realProgress []string
			for _, l := range strings.Split(errOut, "\n") {
				if strings.HasPrefix(l, "progress: ") {
					realProgress = append(realProgress, numberRE.ReplaceAllString(l, "N"))
				}
			}
			var ours []string
			for _, l := range progress {
				if strings.HasPrefix(l, "progress: ") { // not the table build's line
					ours = append(ours, numberRE.ReplaceAllString(l, "N"))
				}
			}
			progress = ours
			if n := len(realProgress); len(progress) < n-1 || len(progress) > n+1 || n > 0 && len(progress) > 0 && realProgress[0] != progress[0] {
				t.Errorf("progress lines: pgbench %q, the simulator %q", realProgress, progress)
			}
			var buf bytes.Buffer
			report.PrintSummary(&buf, sc, res, "")
			real, ours := pgbenchPart(out), pgbenchPart(buf.String())
			if strings.Join(real, "\n") != strings.Join(ours, "\n") {
				t.Errorf("pgbench printed\n%s\n\nthe simulator\n%s", strings.Join(real, "\n"), strings.Join(ours, "\n"))
			}
		})
	}
}
