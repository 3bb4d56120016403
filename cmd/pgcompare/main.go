// Command pgcompare runs pgbufsim's differential experiments against a
// private PostgreSQL server and writes docs/fidelity.md: each experiment
// runs on a real server (started in a temporary directory, loopback and a
// unix socket only, removed afterwards) and in the simulator, and the
// page puts their buffer counters side by side (internal/pgcompare).
//
//	go run ./cmd/pgcompare -out docs/fidelity.md [-only seqscan-ring,bulk-dml]
//
// With -costs FILE (a costs file of simulate calibrate) every case is also
// simulated at those prices, and each measured statement's execution time
// is printed on stderr three ways (PostgreSQL, the defaults, the file's
// prices): the calibrated mode of docs/calibration.md, by hand.
//
// Exit codes: 0 every figure within tolerance, 1 bad flags, no
// PostgreSQL or an -out file pgcompare did not write, 2 figures outside
// tolerance or a failure.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pgbufsim/pgbufsim/calibrate"
	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/internal/pgcompare"
	"github.com/pgbufsim/pgbufsim/model"
)

func main() { os.Exit(run()) }

// pageHeading starts every page pgcompare writes (pgcompare.Markdown).
const pageHeading = "# Fidelity: pgbufsim against a real PostgreSQL"

// run is main, returning the exit code, so that the scratch directory's
// removal (deferred) runs on every exit, an interrupt's and a failed
// figure's too.
func run() int {
	out := flag.String("out", "", "write the comparison as markdown to FILE (e.g. docs/fidelity.md)")
	only := flag.String("only", "", "run only these cases (comma-separated names)")
	costsFile := flag.String("costs", "", "also simulate every case at the prices of this costs file (simulate calibrate) and print each statement's execution time at both prices")
	flag.Parse()
	var costs *model.Costs
	var probe calibrate.ExplainProbe
	if *costsFile != "" {
		data, err := os.ReadFile(*costsFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare: -costs:", err)
			return 1
		}
		c, err := configs.ParseCostsFile(*costsFile, data)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare: -costs:", err)
			return 1
		}
		costs = &c
		if probe, _, err = calibrate.ReadExplainProbe(*costsFile, data); err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare: -costs:", err)
			return 1
		}
	}
	if *out != "" {
		// -out replaces only a page pgcompare wrote.
		if old, err := os.ReadFile(*out); err == nil && !strings.HasPrefix(string(old), pageHeading) {
			fmt.Fprintf(os.Stderr, "pgcompare: -out %s: the file exists and pgcompare did not write it (it does not start with %q); give another path or remove it\n", *out, pageHeading)
			return 1
		}
	}
	_, version, err := pgcompare.Find()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcompare:", err)
		return 1
	}
	major := 0
	fmt.Sscanf(version, "%d", &major)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	scratch, err := os.MkdirTemp("", "pgcompare-scripts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcompare:", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	var results []*pgcompare.CaseResult
	failures := 0
	for _, c := range pgcompare.Cases(major) {
		if *only != "" && !strings.Contains(","+*only+",", ","+c.Name+",") {
			continue
		}
		fmt.Fprintf(os.Stderr, "pgcompare: %s ...\n", c.Name)
		c.Costs = costs
		cr, err := pgcompare.RunCase(ctx, c, scratch)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare:", err)
			return 2
		}
		if costs != nil {
			printTimes(cr, probe.Buffers)
		}
		for _, f := range cr.Failures() {
			fmt.Fprintf(os.Stderr, "  outside tolerance: %s %s: PostgreSQL %.3f, pgbufsim %.3f\n", f.Step, f.Metric, f.PG, f.Sim)
			failures++
		}
		results = append(results, cr)
	}
	md := pgcompare.Markdown(version, results, regenerateCommand(*out, os.Getenv("PGBIN") != "", version))
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare:", err)
			return 2
		}
		fmt.Fprintf(os.Stderr, "pgcompare: wrote %s\n", *out)
	} else {
		fmt.Print(md)
	}
	if failures > 0 {
		fmt.Fprintf(os.Stderr, "pgcompare: %d figures outside tolerance\n", failures)
		return 2
	}
	return 0
}

// printTimes prints each measured step's execution time (EXPLAIN ANALYZE's
// Execution Time; a pgbench step's mean latency) on PostgreSQL, at the
// default prices and at the costs file's. PostgreSQL's statement times
// are its own: EXPLAIN ANALYZE's Execution Time less its node calls times
// probeNS (the costs file's explain_probe), when the file has it.
func printTimes(cr *pgcompare.CaseResult, probeNS float64) {
	for _, step := range cr.Steps {
		pg, def, cal := cr.PG[step], cr.Sim[step], cr.Calibrated[step]
		what, p, d, k := "execution", pg.OwnExecMS(probeNS), def.ExecMS, cal.ExecMS
		own := ""
		if pg.ExecMS > 0 && probeNS > 0 {
			own = fmt.Sprintf(" (EXPLAIN's %.3f less %d node calls at %.1f ns)", pg.ExecMS, pg.NodeCalls, probeNS)
		}
		if pg.ExecMS <= 0 && pg.LatencyMS > 0 {
			what, p, d, k, own = "latency", pg.LatencyMS, def.LatencyMS, cal.LatencyMS, ""
		}
		if p <= 0 {
			continue
		}
		fmt.Fprintf(os.Stderr, "  %s %s ms: PostgreSQL %.3f%s, at the defaults %.3f (%+.0f%%), at -costs %.3f (%+.1f%%)\n", step, what, p, own, d, 100*(d/p-1), k, 100*(k/p-1))
	}
}

// regenerateCommand is the command a page names for writing it again: its
// own -out, and the binaries' directory when $PGBIN chose them (another
// release than the machine's own, say).
func regenerateCommand(out string, pgbin bool, version string) string {
	cmd := pgcompare.DefaultRegenerate
	if out != "" {
		cmd = "go run ./cmd/pgcompare -out " + out
	}
	if pgbin {
		cmd = "PGBIN=<the bin directory of PostgreSQL " + version + "> " + cmd
	}
	return cmd
}
