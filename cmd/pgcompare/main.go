// Command pgcompare runs pgbufsim's differential experiments against a
// private PostgreSQL server and writes docs/fidelity.md: each experiment
// runs on a real server (started in a temporary directory, loopback and a
// unix socket only, removed afterwards) and in the simulator, and the
// page puts their buffer counters side by side (internal/pgcompare).
//
//	go run ./cmd/pgcompare -out docs/fidelity.md [-only seqscan-ring,bulk-dml]
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

	"github.com/pgbufsim/pgbufsim/internal/pgcompare"
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
	flag.Parse()
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
		cr, err := pgcompare.RunCase(ctx, c, scratch)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare:", err)
			return 2
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
