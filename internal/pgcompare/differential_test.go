package pgcompare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDifferential runs every case on a private PostgreSQL server and in
// the simulator and fails on any figure outside tolerance that is not a
// known deviation (docs/fidelity.md) in two runs of its case (a case
// runs again when a figure is outside). It takes about six minutes, so it
// runs only with PGBUFSIM_DIFFERENTIAL=1 (.ci/run sets it); without
// PostgreSQL's binaries it skips with a message. The report is written to
// $PGBUFSIM_FIDELITY_OUT if set. PGBUFSIM_DIFFERENTIAL_CASES=a,b runs only
// the cases named.
func TestDifferential(t *testing.T) {
	if os.Getenv("PGBUFSIM_DIFFERENTIAL") == "" {
		t.Skip("set PGBUFSIM_DIFFERENTIAL=1 to run the differential test against a real PostgreSQL (about six minutes)")
	}
	_, version, err := Find()
	if err != nil {
		t.Skipf("no PostgreSQL here: %v", err)
	}
	major, err := majorVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var results []*CaseResult
	only := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("PGBUFSIM_DIFFERENTIAL_CASES"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			only[n] = true
		}
	}
	for _, c := range Cases(major) {
		if len(only) > 0 && !only[c.Name] {
			continue
		}
		cr, err := RunCase(ctx, c, t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		failures := cr.Failures()
		if len(failures) > 0 {
			// The simulator is deterministic, PostgreSQL's figures are
			// not where they depend on timing: on a day the host slowed
			// the machine while pgbench's clients held row locks,
			// pgbench_tellers' hits a transaction came out 4.06 and 7.07
			// in two CI runs (more lock waits, more EvalPlanQual
			// re-reads) where every other run gave 3.01-3.02 and the
			// model 3.03. A case with figures outside tolerance runs once
			// more, and a figure fails when it is outside in both runs:
			// an error of the model's is outside in every run.
			for _, f := range failures {
				t.Logf("%s %s %s: PostgreSQL %.4f, pgbufsim %.4f (tolerance %s): running the case again", f.Case, f.Step, f.Metric, f.PG, f.Sim, f.Tolerance)
			}
			again, err := RunCase(ctx, c, t.TempDir())
			if err != nil {
				t.Fatalf("%s (again): %v", c.Name, err)
			}
			failures = failedInBoth(failures, again.Failures())
			cr = again
		}
		for _, f := range failures {
			t.Errorf("%s %s %s: PostgreSQL %.4f, pgbufsim %.4f (tolerance %s)", f.Case, f.Step, f.Metric, f.PG, f.Sim, f.Tolerance)
		}
		results = append(results, cr)
	}
	if out := os.Getenv("PGBUFSIM_FIDELITY_OUT"); out != "" {
		if err := os.WriteFile(filepath.Clean(out), []byte(Markdown(version, results, DefaultRegenerate)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// failedInBoth is the failures of the second run whose step and figure
// failed in the first as well.
func failedInBoth(first, second []Row) []Row {
	var out []Row
	for _, f := range second {
		for _, g := range first {
			if f.Step == g.Step && f.Metric == g.Metric {
				out = append(out, f)
				break
			}
		}
	}
	return out
}
