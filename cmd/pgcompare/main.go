// Command pgcompare runs pgbufsim's differential experiments against a
// private PostgreSQL server and writes docs/fidelity.md: each experiment
// runs on a real server (started in a temporary directory, loopback and a
// unix socket only, removed afterwards) and in the simulator, and the
// page puts their buffer counters side by side (internal/pgcompare).
//
//	go run ./cmd/pgcompare -out docs/fidelity.md [-only seqscan-ring,bulk-dml]
//
// Exit codes: 0 every figure within tolerance, 1 bad flags or no
// PostgreSQL, 2 figures outside tolerance or a failure.
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

func main() {
	out := flag.String("out", "", "write the comparison as markdown to FILE (e.g. docs/fidelity.md)")
	only := flag.String("only", "", "run only these cases (comma-separated names)")
	flag.Parse()
	_, version, err := pgcompare.Find()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcompare:", err)
		os.Exit(1)
	}
	major := 0
	fmt.Sscanf(version, "%d", &major)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	scratch, err := os.MkdirTemp("", "pgcompare-scripts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcompare:", err)
		os.Exit(2)
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
			os.Exit(2)
		}
		for _, f := range cr.Failures() {
			fmt.Fprintf(os.Stderr, "  outside tolerance: %s %s: PostgreSQL %.3f, pgbufsim %.3f\n", f.Step, f.Metric, f.PG, f.Sim)
			failures++
		}
		results = append(results, cr)
	}
	md := pgcompare.Markdown(version, results)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pgcompare:", err)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "pgcompare: wrote %s\n", *out)
	} else {
		fmt.Print(md)
	}
	if failures > 0 {
		fmt.Fprintf(os.Stderr, "pgcompare: %d figures outside tolerance\n", failures)
		os.Exit(2)
	}
}
