package sweep

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/internal/interrupt"
	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/internal/sysmem"
	"github.com/pgbufsim/pgbufsim/model"
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

// invocation is a parsed, checked sweep command line.
type invocation struct {
	plan             *configs.SweepPlan
	dir              string
	parallel         int
	shardI, shardN   int
	force, dryRun, q bool
	maxMemory        string
	separatePrewarms bool
	prewarmCache     string
}

// parse parses and checks a sweep's command line and loads its plan; on a
// problem it prints it and returns nil with the exit code (exitOK for -h).
// It writes nothing.
func parse(args []string, stderr io.Writer) (*invocation, int) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var (
		configPath = fs.String("config", "", "scenario file (YAML)")
		outDir     = fs.String("out", "", "output directory (default out/<scenario name>-sweep)")
		seed       = fs.Int64("seed", 0, "override the scenario's seed (the base seed of every run, >= 0)")
		duration   = fs.String("duration", "", "override the duration of every non-warmup phase (e.g. 90s, 5min)")
		replicates = fs.Int("replicates", 0, "runs per point (default: sweep.replicates, or 1)")
		parallel   = fs.Int("parallel", 0, "runs at once (default GOMAXPROCS); outputs do not depend on it")
		shard      = fs.String("shard", "", "run only shard i of n (i in 0..n-1): every n-th point; merge the shards' DIRs with simulate merge")
		force      = fs.Bool("force", false, "remove DIR's previous sweep outputs and start over (only ever an earlier sweep's directory)")
		maxMemory  = fs.String("max-memory", "", "refuse a sweep whose runs at once (-parallel) need more memory than this (e.g. 8GB; default: the memory available)")
		dryRun     = fs.Bool("dry-run", false, "load and check the sweep, list its points with their memory estimates, run nothing")
		quiet      = fs.Bool("q", false, "do not print the comparison table on stdout")
		separate   = fs.Bool("separate-prewarms", false, "make every run do its own workload.prewarm, instead of once per distinct prewarm (same results, more time)")
		pwCache    = fs.String("prewarm-cache", "", "keep each distinct workload.prewarm in DIR and reuse it in later sweeps and runs (docs/sweeps.md \"Prewarms kept on disk\")")
		costs      = fs.String("costs", "", "a costs file for every run (docs/calibration.md): its prices replace the defaults, the scenario's costs keys and -set win over it")
		sets, axes multiFlag
	)
	fs.Var(&sets, "set", "override a configuration key for every run, path=value (repeatable)")
	fs.Var(&axes, "sweep", "add an axis, path=v1,v2,... (repeatable; replaces a sweep.axes entry with the same path)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, exitOK
		}
		return nil, exitConfig
	}
	fail := func(code int, format string, a ...any) (*invocation, int) {
		fmt.Fprintf(stderr, "simulate: "+format+"\n", a...)
		return nil, code
	}
	if fs.NArg() > 0 {
		return fail(exitConfig, "unexpected argument %q (see -h)", fs.Arg(0))
	}
	if *configPath == "" {
		return fail(exitConfig, "-config FILE is required")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *parallel < 0 {
		return fail(exitConfig, "-parallel %d: must be at least 1 (0 or leaving it out: one run per core)", *parallel)
	}
	shardI, shardN, err := ParseShard(*shard)
	if err != nil {
		return fail(exitConfig, "%v", err)
	}
	overrides := append([]string(nil), sets...)
	if *costs != "" {
		o, err := configs.CostsOverride(*costs)
		if err != nil {
			return fail(exitConfig, "%v", err)
		}
		overrides = append([]string{o}, overrides...)
	}
	// Given flags are checked like the YAML keys (seed >= 0, replicates >= 1).
	if given["seed"] && *seed < 0 {
		return fail(exitConfig, "-seed %d: a seed is >= 0 (as the seed key)", *seed)
	}
	if given["replicates"] && *replicates < 1 {
		return fail(exitConfig, "-replicates %d: a sweep point runs at least once (as sweep.replicates)", *replicates)
	}
	if given["seed"] {
		overrides = append(overrides, fmt.Sprintf("seed=%d", *seed))
	}
	if given["replicates"] {
		overrides = append(overrides, fmt.Sprintf("sweep.replicates=%d", *replicates))
	}
	plan, err := configs.LoadSweep(*configPath, overrides, axes)
	if err == nil && *duration != "" {
		err = WithDuration(plan, *duration)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitConfig
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Join("out", outdir.SafeName(plan.Name)+"-sweep")
	}
	return &invocation{plan: plan, dir: dir, parallel: *parallel, shardI: shardI, shardN: shardN, force: *force, dryRun: *dryRun, q: *quiet, maxMemory: *maxMemory, separatePrewarms: *separate, prewarmCache: *pwCache}, exitOK
}

// Plan parses and checks a sweep's command line as Main does before it
// runs anything, writing nothing: the plan and the number of shards, or
// nil and the exit code Main would give (the problem printed on stderr).
func Plan(args []string, stderr io.Writer) (*configs.SweepPlan, int, int) {
	inv, code := parse(args, stderr)
	if inv == nil {
		return nil, 0, code
	}
	return inv.plan, inv.shardN, exitOK
}

// Main runs a sweep from command-line arguments (the simulate CLI calls
// it for a config with a sweep: block or any -sweep flag) and returns the
// exit code: 0 ok, 1 bad flags or configuration (nothing written), 2 a
// run failed or outputs could not be written.
func Main(args []string, stdout, stderr io.Writer) int {
	inv, code := parse(args, stderr)
	if inv == nil {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "simulate: "+format+"\n", a...)
		return code
	}
	plan, dir, parallel, maxMemory := inv.plan, inv.dir, &inv.parallel, &inv.maxMemory
	shardI, shardN, force, quiet := inv.shardI, inv.shardN, &inv.force, &inv.q
	if inv.dryRun {
		return printDryRun(plan, dir, stdout, stderr)
	}
	if err := outdir.Check(dir, outdir.Sweep); err != nil {
		return fail(exitConfig, "-out %v", err)
	}
	code, limit := checkMemory(plan, *parallel, *maxMemory, !inv.separatePrewarms, stderr)
	if code >= 0 {
		return code
	}
	if limit > 0 {
		// As for a single run: the runs' state grows in ways the
		// estimate cannot bound, so the collector keeps the process
		// under the limit while it can and a run stops with a clear
		// error (model.MemoryError) before the heap reaches it.
		debug.SetMemoryLimit(limit)
	}
	stop := interrupt.Start()
	defer stop.Stop()
	pr := newProgress(stderr, plan.Metrics)
	res, err := Run(plan, Options{Dir: dir, Parallel: *parallel, Shard: shardI, Shards: shardN, Force: *force, Progress: pr.event, Interrupted: stop.Interrupted, SeparatePrewarms: inv.separatePrewarms,
		MemoryLimit: limit / 10 * 9, PrewarmCache: inv.prewarmCache, PrewarmNotes: func(n string) { fmt.Fprintf(stderr, "sweep: %s\n", n) }})
	if err != nil {
		if errors.Is(err, model.ErrInterrupted) && res != nil {
			return fail(exitFailure, "interrupted by %s: %d of %d runs finished and are kept in %s; re-run the same command to resume", stop.Signal(), len(res.Rows), plan.Runs(), dir)
		}
		if isBadInput(err) || res == nil {
			code := exitFailure
			if isBadInput(err) {
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

// printDryRun lists the sweep's points and their memory estimates.
func printDryRun(plan *configs.SweepPlan, dir string, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "sweep %s: %d points x %d replicates = %d runs, into %s\n", plan.Name, len(plan.Points), plan.Replicates, plan.Runs(), dir)
	for _, p := range plan.Points {
		est, err := model.EstimateRun(p.Scenario)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: point %s: %v\n", p.ID, err)
			return exitConfig
		}
		fmt.Fprintf(stdout, "  %-50s memory estimate %s\n", p.ID, model.SizeText(est.Bytes))
	}
	return exitOK
}

// isBadInput reports whether err is the user's to fix before anything runs
// (exit 1): a directory that is not ours, a sweep directory of another
// sweep, a damaged journal.
func isBadInput(err error) bool {
	var conflict *ConflictError
	var damaged *DamagedError
	var plan *PlanError
	return errors.As(err, &conflict) || errors.As(err, &damaged) || errors.As(err, &plan) || outdir.IsRefusal(err)
}

// checkMemory refuses a sweep whose largest point, times the runs at once,
// would not fit; it returns -1 to go on, else the exit code.
func checkMemory(plan *configs.SweepPlan, parallel int, maxMemory string, sharePrewarms bool, stderr io.Writer) (int, int64) {
	limit, from := int64(0), ""
	if maxMemory != "" {
		v, err := strictyaml.ParseBytes(maxMemory)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: -max-memory %s: %v\n", maxMemory, err)
			return exitConfig, 0
		}
		limit, from = v, "-max-memory"
	} else if v, ok := sysmem.Available(); ok {
		limit, from = v, "the memory available on this machine"
	}
	if limit == 0 {
		return -1, 0
	}
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	at := min(parallel, max(plan.Runs(), 1))
	var worst model.Estimate
	var worstID string
	for _, p := range plan.Points {
		est, err := model.EstimateRun(p.Scenario)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: point %s: %v\n", p.ID, err)
			return exitConfig, 0
		}
		if sharePrewarms {
			// A kept prewarm per run at once, at most (sharePrewarms
			// orders the runs so that those sharing one follow each other).
			est.Bytes += est.SharedPrewarm
		}
		if est.Bytes > worst.Bytes {
			worst, worstID = est, p.ID
		}
	}
	if need := worst.Bytes * int64(at); need > limit {
		d := worst.Driver()
		fmt.Fprintf(stderr, "simulate: %d runs at once need up to %s of memory (point %s: %s each), more than %s (%s); lower -parallel or %s\n",
			at, model.SizeText(need), worstID, model.SizeText(worst.Bytes), model.SizeText(limit), from, d.Key)
		return exitConfig, 0
	}
	return -1, limit
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
	if res.PrewarmsCopied > 0 {
		fmt.Fprintf(stderr, "prewarm: made %d, copied into %d more runs (runs with the same tables, pool, page cache, first phase and seed share one)\n", res.PrewarmsMade, res.PrewarmsCopied)
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
