package sweep

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/configs"
)

// Exit codes, as for a single run.
const (
	exitOK      = 0
	exitConfig  = 1
	exitFailure = 2
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

const usage = `usage: simulate -config FILE [-sweep path=v1,v2,...]... [-replicates N] [-parallel N]
                [-shard i/n] [-force] [-out DIR] [-set path=value]... [-seed N] [-duration D]
       simulate merge [-out DIR] DIR...

Runs a sweep: every combination of the axes' values (the config's sweep:
block plus -sweep flags), each -replicates times with common random numbers.
Writes DIR/sweep.csv, DIR/sweep-summary.csv, DIR/sweep-paired.csv,
DIR/sweep.html and each run's outputs under DIR/runs/ (DIR defaults to
out/<scenario name>-sweep), and prints a comparison table. Re-running into
the same DIR resumes: finished runs are skipped. See docs/sweeps.md.

examples:
  simulate -config configs/quickstart.yaml -sweep server.shared_buffers=16MB,32MB,64MB -sweep policies.replacement.name=clock-sweep,lru -replicates 3
  simulate -config sweep.yaml -shard $JOB_COMPLETION_INDEX/4 -out /shared/sweep-$JOB_COMPLETION_INDEX
  simulate merge -out out/sweep /shared/sweep-0 /shared/sweep-1 /shared/sweep-2 /shared/sweep-3

exit codes: 0 ok, 1 bad flags or configuration (nothing written), 2 failure during a run

flags:
`

// Main runs a sweep from command-line arguments (the simulate CLI calls
// it for a config with a sweep: block or any -sweep flag) and returns the
// exit code: 0 ok, 1 bad flags or configuration (nothing written), 2 a
// run failed or outputs could not be written.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var (
		configPath = fs.String("config", "", "scenario file (YAML)")
		outDir     = fs.String("out", "", "output directory (default out/<scenario name>-sweep)")
		seed       = fs.Int64("seed", -1, "override the scenario's seed (the base seed of every run)")
		duration   = fs.String("duration", "", "override the duration of every non-warmup phase (e.g. 90s, 5min)")
		replicates = fs.Int("replicates", 0, "runs per point (default: sweep.replicates, or 1)")
		parallel   = fs.Int("parallel", 0, "runs at once (default GOMAXPROCS); outputs do not depend on it")
		shard      = fs.String("shard", "", "run only shard i of n (i in 0..n-1): every n-th point; merge the shards' DIRs with simulate merge")
		force      = fs.Bool("force", false, "remove DIR's previous sweep outputs and start over")
		quiet      = fs.Bool("q", false, "do not print the comparison table on stdout")
		sets, axes multiFlag
	)
	fs.Var(&sets, "set", "override a configuration key for every run, path=value (repeatable)")
	fs.Var(&axes, "sweep", "add an axis, path=v1,v2,... (repeatable; replaces a sweep.axes entry with the same path)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitConfig
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "simulate: "+format+"\n", a...)
		return code
	}
	if fs.NArg() > 0 {
		return fail(exitConfig, "unexpected argument %q (see -h)", fs.Arg(0))
	}
	if *configPath == "" {
		return fail(exitConfig, "-config FILE is required")
	}
	if *replicates < 0 || *parallel < 0 {
		return fail(exitConfig, "-replicates and -parallel must not be negative")
	}
	shardI, shardN, err := ParseShard(*shard)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	overrides := append([]string(nil), sets...)
	if *seed >= 0 {
		overrides = append(overrides, fmt.Sprintf("seed=%d", *seed))
	}
	if *replicates > 0 {
		overrides = append(overrides, fmt.Sprintf("sweep.replicates=%d", *replicates))
	}
	plan, err := configs.LoadSweep(*configPath, overrides, axes)
	if err == nil && *duration != "" {
		err = WithDuration(plan, *duration)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitConfig
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Join("out", plan.Name+"-sweep")
	}
	pr := newProgress(stderr, plan.Metrics)
	res, err := Run(plan, Options{Dir: dir, Parallel: *parallel, Shard: shardI, Shards: shardN, Force: *force, Progress: pr.event})
	if err != nil {
		var conflict *ConflictError
		if errors.As(err, &conflict) || res == nil {
			code := exitFailure
			if errors.As(err, &conflict) {
				code = exitConfig
			}
			return fail(code, "%v", err)
		}
		fail(exitFailure, "%v", err)
		fmt.Fprintf(stderr, "simulate: %d of %d runs finished; re-run the same command to resume\n", len(res.Rows), plan.Runs())
		return exitFailure
	}
	return finish(res, dir, *quiet, stdout, stderr, shardN > 1)
}

// finish prints the comparison table and where the outputs are.
func finish(res *Results, dir string, quiet bool, stdout, stderr io.Writer, sharded bool) int {
	if !quiet {
		if err := res.WriteTable(stdout); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return exitFailure
		}
	}
	if !res.Complete() {
		msg := fmt.Sprintf("simulate: %s holds %d of the sweep's %d runs", dir, len(res.Rows), res.Plan.Runs())
		if sharded {
			msg += "; combine the shards' directories with: simulate merge -out DIR SHARD_DIR..."
		}
		fmt.Fprintln(stderr, msg)
	}
	fmt.Fprintf(stderr, "wrote %s, %s, %s, %s and %s\n",
		filepath.Join(dir, SweepCSVFile), filepath.Join(dir, SummaryCSVFile), filepath.Join(dir, PairedCSVFile),
		filepath.Join(dir, SweepHTMLFile), filepath.Join(dir, "runs")+string(filepath.Separator))
	return exitOK
}

// ParseShard reads -shard "i/n" (0 <= i < n); empty means 0/1, the whole
// sweep.
func ParseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("-shard %s: expected i/n with 0 <= i < n, e.g. -shard 0/4 (a Kubernetes Indexed Job passes $JOB_COMPLETION_INDEX, a Slurm array $SLURM_ARRAY_TASK_ID)", s)
	}
	return i, n, nil
}

// WithDuration sets the duration of every non-warmup phase of every point
// (the -duration flag), as the single-run CLI does.
func WithDuration(plan *configs.SweepPlan, d string) error {
	for i := range plan.Points {
		sc := plan.Points[i].Scenario
		var ov []string
		for k, ph := range sc.Workload.Phases {
			if !ph.Warmup {
				ov = append(ov, fmt.Sprintf("workload.phases.%d.duration=%s", k, d), fmt.Sprintf("workload.phases.%d.transactions=0", k))
			}
		}
		out, err := configs.With(sc, ov...)
		if err != nil {
			return fmt.Errorf("-duration %s: %v", d, err)
		}
		plan.Points[i].Scenario = out
	}
	return nil
}
