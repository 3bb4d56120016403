// Command simulate runs pgbufsim scenarios: a deterministic discrete-event
// simulation of a PostgreSQL server's shared buffers, OS page cache, disks
// and WAL under a pgbench-like workload.
//
//	simulate -config configs/quickstart.yaml -out out/quickstart
//	simulate -config x.yaml -set server.shared_buffers=64MB -seed 7
//	simulate -list-policies
//
// Exit codes: 0 ok, 1 bad flags or configuration (nothing is written),
// 2 failure during the run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/pgbufsim/pgbufsim/calibrate"
	"github.com/pgbufsim/pgbufsim/compare"
	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/internal/gcpace"
	"github.com/pgbufsim/pgbufsim/internal/interrupt"
	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/internal/sysmem"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/replay"
	"github.com/pgbufsim/pgbufsim/report"
	"github.com/pgbufsim/pgbufsim/sim"
	"github.com/pgbufsim/pgbufsim/sweep"
	"github.com/pgbufsim/pgbufsim/trace"
)

func main() {
	out := &checkedWriter{w: os.Stdout}
	os.Exit(out.exitCode(run(os.Args[1:], out, os.Stderr), os.Stderr))
}

// exitCode is the run's exit code, made a failure if what it printed on
// standard output could not be written (a full disk, a closed descriptor):
// the outputs are written, the summary is not, and exit 0 would hide it.
func (c *checkedWriter) exitCode(code int, stderr io.Writer) int {
	if c.err != nil && code == exitOK {
		fmt.Fprintf(stderr, "simulate: writing to standard output: %v\n", c.err)
		return exitFailure
	}
	return code
}

// checkedWriter remembers the first error writing to w.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// Exit codes.
const (
	exitOK      = 0
	exitConfig  = 1
	exitFailure = 2
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

const usage = `usage: simulate -config FILE [-out DIR] [-seed N] [-set path=value]... [-duration D] [-write-trace FILE]
                [-cpuprofile FILE] [-memprofile FILE]
       simulate -config FILE -sweep path=v1,v2... [-replicates N] [-parallel N] [-shard i/n] [-force] [-out DIR]
       simulate merge DIR...                                                           (docs/sweeps.md)
       simulate index DIR                      (DIR/index.html: every run under DIR, sortable, linked)
       simulate compare A B [C...] [-out DIR]  (A/B page: differences, paired CIs, overlays; docs/compare.md)
       simulate compare -config FILE -sweep path=a,b [-replicates N] [-out DIR]
       simulate calibrate -dsn CONNSTRING [-out costs.yaml]   (measure a live server: a costs file; docs/calibration.md)
       simulate -trace FILE -policy NAME[,NAME...] -cache SIZE[,SIZE...] [-out DIR]   (docs/traces.md)
       simulate -list-policies

Runs a pgbufsim scenario and writes DIR/summary.json, DIR/timeseries.csv and
DIR/report.html (DIR defaults to out/<scenario name>). Every configuration key
is documented in configs/reference.yaml.

examples:
  simulate -config configs/quickstart.yaml -out out/quickstart
  simulate -config configs/quickstart.yaml -set server.shared_buffers=64MB -set policies.replacement.name=lru
  simulate -config configs/quickstart.yaml -set workload.phases.run.clients=32 -duration 2min
  simulate -config configs/quickstart.yaml -f my-script.sql@3 -b select-only@1 -D scale=10
  simulate -config configs/quickstart.yaml -random-seed 42      (the keys of pgbench --random-seed 42)
  simulate -config configs/quickstart.yaml -costs costs.yaml    (prices from simulate calibrate)

exit codes: 0 ok, 1 bad flags or configuration (nothing written), 2 failure during the run

flags:
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return sweep.MergeMain(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "index" {
		return indexMain(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "compare" {
		return compare.Main(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "calibrate" {
		return calibrate.Main(args[1:], stdout, stderr)
	}
	if wantsHelp(args) {
		printHelp(stderr)
		return exitOK
	}
	if replay.WantsReplay(args) {
		return replay.Main(args, stdout, stderr)
	}
	if wantsSweep(args) {
		return sweep.Main(args, stdout, stderr)
	}
	fs, f := newRunFlags(stderr)
	configPath, outDir, seed, duration, listPolicies, quiet := f.configPath, f.outDir, f.seed, f.duration, f.listPolicies, f.quiet
	writeTrace, cpuProfile, memProfile, dryRun, maxMemory, version := f.writeTrace, f.cpuProfile, f.memProfile, f.dryRun, f.maxMemory, f.version
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitConfig
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "simulate: "+format+"\n", a...)
		return code
	}
	if fs.NArg() > 0 {
		return fail(exitConfig, "unexpected argument %q: the modes are simulate -config FILE [flags], simulate merge|index|compare|calibrate ..., simulate -trace FILE ...; flags go before any other argument (see -h)", fs.Arg(0))
	}
	if *version {
		fmt.Fprintln(stdout, versionString())
		return exitOK
	}
	if *listPolicies {
		printPolicies(stdout)
		return exitOK
	}
	if *configPath == "" {
		fmt.Fprint(stderr, "simulate: -config FILE is required (try configs/quickstart.yaml)\n\n")
		fs.Usage()
		return exitConfig
	}
	overrides := append(append([]string(nil), f.logSets...), f.sets...)
	if *f.costs != "" {
		o, err := configs.CostsOverride(*f.costs)
		if err != nil {
			return fail(exitConfig, "%v", err)
		}
		// First, so that a -set costs_file=... given too wins.
		overrides = append([]string{o}, overrides...)
	}
	if given["seed"] {
		if *seed < 0 {
			return fail(exitConfig, "-seed %d: a seed is >= 0 (as the seed key)", *seed)
		}
		overrides = append(overrides, fmt.Sprintf("seed=%d", *seed))
	}
	sc, err := configs.LoadWith(*configPath, configs.RunOptions{Scripts: f.scripts, Defines: f.defines, RandomSeed: f.randomSeed}, overrides...)
	if err == nil && *duration != "" {
		sc, err = withDuration(sc, *duration)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitConfig
	}
	limit, limitFrom, err := memoryLimit(*maxMemory)
	if err != nil {
		return fail(exitConfig, "-max-memory %s: %v", *maxMemory, err)
	}
	est, err := model.EstimateRun(sc)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitConfig
	}
	if *f.prewarmCache != "" {
		// The prewarm written to or read from the cache is a copy beside
		// the run's own, while it is written or copied.
		est.Bytes += est.SharedPrewarm
	}
	if *dryRun {
		printDryRun(stdout, sc, est, limit, limitFrom)
		return exitOK
	}
	if limit > 0 && est.Bytes > limit {
		d := est.Driver()
		return fail(exitConfig, "the run needs about %s of memory, more than %s (%s); the largest part, %s, comes from %s: lower it (simulate -dry-run shows the estimate)",
			model.SizeText(est.Bytes), model.SizeText(limit), limitFrom, d.What, d.Key)
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Join("out", outdir.SafeName(sc.Name))
	}
	if err := outdir.Check(dir, outdir.Run); err != nil {
		return fail(exitConfig, "-out %v", err)
	}
	absDir, _ := filepath.Abs(dir)
	taken := map[string]string{} // absolute path -> the flag that writes it
	for _, f := range []struct {
		flag, path, what string
		ours             func(string) bool
	}{
		{"write-trace", *writeTrace, "a page-reference trace", trace.WrittenHere},
		{"cpuprofile", *cpuProfile, "a profile", isProfile},
		{"memprofile", *memProfile, "a profile", isProfile},
	} {
		if f.path == "" {
			continue
		}
		abs, _ := filepath.Abs(f.path)
		if other, ok := taken[abs]; ok {
			return fail(exitConfig, "-%s %s: -%s writes that file too; give each output its own name", f.flag, f.path, other)
		}
		taken[abs] = f.flag
		// -out holds pgbufsim's run outputs only (outdir): a file of ours
		// written into it would make the next run refuse the directory.
		if rel, err := filepath.Rel(absDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fail(exitConfig, "-%s %s: is inside -out %s, which holds the run's outputs only; write it elsewhere (e.g. next to the directory)", f.flag, f.path, dir)
		}
		if err := outdir.CheckFile(f.path, f.what, f.ours); err != nil {
			return fail(exitConfig, "-%s %v", f.flag, err)
		}
		// Profiles go into an existing directory (the trace makes its own).
		if st, err := os.Stat(filepath.Dir(f.path)); f.flag != "write-trace" && (err != nil || !st.IsDir()) {
			return fail(exitConfig, "-%s %s: the directory %s does not exist", f.flag, f.path, filepath.Dir(f.path))
		}
	}

	opt := model.Options{}
	if *f.prewarmCache != "" && sc.Workload.Prewarm > 0 {
		opt.Prewarms = model.NewPrewarmCache(*f.prewarmCache)
		// One run: its copy of the prewarm is dropped once written or
		// read, not kept for runs to come.
		opt.Prewarms.Expect(sc)
		defer func() {
			_, _, notes := opt.Prewarms.Files()
			for _, n := range notes {
				fmt.Fprintf(stderr, "simulate: %s\n", n)
			}
		}()
	}
	var tw *trace.Writer
	if *writeTrace != "" {
		if tw, err = trace.Create(*writeTrace, ""); err != nil {
			return fail(exitConfig, "-write-trace: %v", err)
		}
		defer tw.Abort() // a no-op once Close has succeeded
		var werr error
		opt.PageRef = func(at int64, rel string, block int32, write bool) {
			if werr == nil {
				werr = tw.Write(trace.Access{Time: at, Relation: rel, Block: uint32(block), Write: write})
			}
		}
		defer func() {
			if werr != nil {
				fmt.Fprintf(stderr, "simulate: -write-trace: %v\n", werr)
			}
		}()
	}
	if sc.Output.Progress > 0 {
		// pgbench's progress lines, on any stderr; they replace the
		// terminal's own progress display.
		opt.ProgressLine = func(l string) { fmt.Fprintln(stderr, l) }
	} else if isTerminal(stderr) {
		opt.Progress = progressPrinter(stderr)
		opt.ProgressEvery = 5 * sim.Second
	}
	stop := startWatch()
	defer stop.Stop()
	opt.Interrupted = stop.Interrupted
	if limit > 0 {
		// The state grows during the run in ways the estimate cannot
		// bound (row versions awaiting VACUUM): the collector keeps the
		// process under the limit while it can, and the run stops with a
		// clear error before the heap it needs reaches it.
		debug.SetMemoryLimit(limit)
		opt.MemoryLimit = limit / 10 * 9
	}
	if os.Getenv("GOGC") == "" {
		// A run whose live state grows to gigabytes would otherwise hold
		// as much again in garbage between collections (GOGC 100).
		opt.HeapWatch = gcpace.Default().Observe
	}
	var profErr error
	if *memProfile != "" {
		opt.AtEnd = func() { profErr = writeHeapProfile(*memProfile) }
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			// A path that cannot be created is a bad flag value.
			return fail(exitConfig, "-cpuprofile: %v", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	start := time.Now()
	stages := map[string]time.Time{}
	opt.Stage = func(stage string) { stages[stage] = time.Now() }
	res, err := runModel(sc, opt)
	wall := time.Since(start).Seconds()
	if opt.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if errors.Is(err, model.ErrInterrupted) {
		return fail(exitFailure, "interrupted by %s after %.1f s: nothing written", stop.Signal(), wall)
	}
	var memErr *model.MemoryError
	if errors.As(err, &memErr) {
		return fail(exitConfig, "%v (the limit is 90 %% of %s, %s): nothing written", err, model.SizeText(limit), limitFrom)
	}
	if err != nil {
		return fail(exitFailure, "run failed: %v", err)
	}
	if profErr != nil {
		return fail(exitFailure, "-memprofile: %v", profErr)
	}
	if tw != nil {
		if err := tw.Close(); err != nil {
			return fail(exitFailure, "-write-trace: %v", err)
		}
		fmt.Fprintf(stderr, "wrote %d page references to %s\n", tw.Count(), *writeTrace)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.Runtime.WallSeconds = wall
	if built, prewarmed, done := stages["built"], stages["prewarmed"], stages["done"]; !done.IsZero() {
		res.Runtime.BuildSeconds = built.Sub(start).Seconds()
		res.Runtime.PrewarmSeconds = prewarmed.Sub(built).Seconds()
		res.Runtime.RunSeconds = done.Sub(prewarmed).Seconds()
		if n := res.Runtime.Transactions; n > 0 {
			res.Runtime.WallUsPerTransaction = res.Runtime.RunSeconds * 1e6 / float64(n)
		}
	}
	if wall > 0 {
		res.Runtime.EventsPerSecond = float64(res.Runtime.Events) / wall
		res.Runtime.SimSpeed = res.Runtime.SimulatedSeconds / wall
	}
	res.Runtime.PeakHeapMB = float64(ms.HeapSys) / (1 << 20)
	if res.Runtime.Pages > 0 {
		res.Runtime.BytesPerPage = float64(ms.HeapSys) / float64(res.Runtime.Pages)
	}
	files, err := report.Render(sc, res)
	if err == nil {
		err = report.WriteDir(dir, files)
	}
	if err != nil {
		return fail(exitFailure, "writing outputs: %v", err)
	}
	if !*quiet {
		report.PrintSummary(stdout, sc, res, dir)
	}
	if *outDir == "" {
		// Runs into the default out/ directory: with several of them,
		// out/index.html lists them all (simulate index).
		if n := report.RunsUnder("out"); n >= 2 {
			if _, err := report.WriteIndex("out"); err != nil {
				fmt.Fprintf(stderr, "simulate: out/%s not written: %v\n", report.IndexFile, err)
			} else {
				fmt.Fprintf(stderr, "wrote out/%s (%d runs)\n", report.IndexFile, n)
			}
		}
	}
	fmt.Fprintf(stderr, "simulated %.1f s in %.2f s wall (%.0fx), %d events (%.1f M events/s), heap %.0f MB\n",
		res.Runtime.SimulatedSeconds, wall, res.Runtime.SimSpeed, res.Runtime.Events, res.Runtime.EventsPerSecond/1e6, res.Runtime.PeakHeapMB)
	if rt := res.Runtime; rt.Transactions > 0 {
		fmt.Fprintf(stderr, "wall: build %.2f s, prewarm %.2f s, phases %.2f s: %.2f us and %.1f events per transaction\n",
			rt.BuildSeconds, rt.PrewarmSeconds, rt.RunSeconds, rt.WallUsPerTransaction, rt.EventsPerTransaction)
	}
	return exitOK
}

// runFlags are a single run's flags.
type runFlags struct {
	configPath, outDir, duration, writeTrace, cpuProfile, memProfile, maxMemory, costs *string
	prewarmCache                                                                       *string
	seed                                                                               *int64
	listPolicies, quiet, dryRun, version                                               *bool
	sets                                                                               multiFlag
	// scripts are -f and -b in the order given; defines are -D.
	scripts []configs.ScriptArg
	defines multiFlag
	// randomSeed is -random-seed (pgbench --random-seed), or nil.
	randomSeed *uint64
	// logOpts are pgbench's log options; logSets the overrides they gave.
	logOpts []logOpt
	logSets []string
}

// logOpt is a pgbench log option that sets an output key.
type logOpt struct {
	flag, key, usage string
	isBool           bool
}

// newRunFlags defines a single run's flags; its usage goes to w.
func newRunFlags(w io.Writer) (*flag.FlagSet, *runFlags) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprint(w, usage)
		fs.PrintDefaults()
	}
	f := &runFlags{
		configPath:   fs.String("config", "", "scenario file (YAML)"),
		outDir:       fs.String("out", "", "output directory (default out/<scenario name>); it must be new, empty or an earlier run's output"),
		seed:         fs.Int64("seed", 0, "override the scenario's seed (>= 0)"),
		duration:     fs.String("duration", "", "override the duration of every non-warmup phase (e.g. 90s, 5min)"),
		listPolicies: fs.Bool("list-policies", false, "list the replacement policies and their parameters"),
		quiet:        fs.Bool("q", false, "do not print the summary on stdout"),
		writeTrace:   fs.String("write-trace", "", "also write the run's page-reference trace to FILE (csv: relation,block,op; .oracleGeneral: libCacheSim's binary layout; .gz/.zst compress) for simulate -trace"),
		cpuProfile:   fs.String("cpuprofile", "", "write a CPU profile of the run to FILE (go tool pprof)"),
		memProfile:   fs.String("memprofile", "", "write a heap profile taken at the end of the run, with the model's state live, to FILE (go tool pprof)"),
		dryRun:       fs.Bool("dry-run", false, "load and check the scenario, print what it would simulate and its memory estimate, run nothing"),
		maxMemory:    fs.String("max-memory", "", "refuse a run whose estimated memory exceeds this size (e.g. 8GB; default: the memory available to this process)"),
		version:      fs.Bool("version", false, "print pgbufsim's version and exit"),
		costs:        fs.String("costs", "", "a costs file (simulate calibrate writes one; docs/calibration.md): its prices replace the defaults, the scenario's own costs keys and -set win over it"),
		prewarmCache: fs.String("prewarm-cache", "", "keep the workload.prewarm's result in DIR and reuse it in later runs with the same prewarm (docs/sweeps.md \"Prewarms kept on disk\")"),
	}
	fs.Var(&f.sets, "set", "override a configuration key, path=value (repeatable), e.g. -set server.shared_buffers=64MB")
	script := func(flag string) func(string) error {
		return func(v string) error {
			a, err := configs.ParseScriptArg(flag, v)
			if err != nil {
				return err
			}
			f.scripts = append(f.scripts, a)
			return nil
		}
	}
	fs.Func("f", "run the pgbench script FILE[@WEIGHT] instead of the scenario's scripts (repeatable, as pgbench -f; docs/pgbench.md)", script("f"))
	fs.Func("b", "run the built-in script NAME[@WEIGHT]: tpcb-like, simple-update or select-only (repeatable, as pgbench -b)", script("b"))
	fs.Func("random-seed", "replay pgbench --random-seed N's random sequence in every phase (server.version 15+; the phases' random_seed)", func(v string) error {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("%q: expecting an unsigned integer (pgbench's \"time\" and \"rand\" are not deterministic; -seed N varies the simulator's own streams)", v)
		}
		f.randomSeed = &n
		return nil
	})
	fs.Var(&f.defines, "D", "define a script variable NAME=VALUE (repeatable, as pgbench -D; -D scale=N is pgbench -s for script files)")
	// pgbench's log options, as shorthands for output keys.
	f.logOpts = []logOpt{
		{"l", "output.pgbench_log", "write pgbench's transaction logs into the output directory (pgbench -l; output.pgbench_log)", true},
		{"log-prefix", "output.log_prefix", "prefix of the pgbench log files (pgbench --log-prefix; output.log_prefix)", false},
		{"sampling-rate", "output.sampling_rate", "fraction of transactions to log (pgbench --sampling-rate; output.sampling_rate)", false},
		{"aggregate-interval", "output.aggregate_interval", "log aggregates over this many seconds (pgbench --aggregate-interval; output.aggregate_interval)", false},
		{"P", "output.progress", "print pgbench's progress line every N seconds of simulated time on stderr (pgbench -P; output.progress)", false},
		{"progress-timestamp", "output.progress_timestamp", "progress lines with Unix times (pgbench --progress-timestamp)", true},
		{"r", "output.report_per_command", "report each script command's average latency and failures (pgbench -r; output.report_per_command)", true},
	}
	for _, o := range f.logOpts {
		if o.isBool {
			fs.BoolFunc(o.flag, o.usage, func(v string) error {
				f.logSets = append(f.logSets, o.key+"="+v)
				return nil
			})
			continue
		}
		fs.Func(o.flag, o.usage, func(v string) error {
			if o.flag == "aggregate-interval" || o.flag == "P" {
				if _, err := strconv.Atoi(v); err == nil {
					v += "s" // pgbench's unit
				}
			}
			f.logSets = append(f.logSets, o.key+"="+v)
			return nil
		})
	}
	return fs, f
}

// runModel runs the model, turning a panic (a bug) into an error so the
// CLI can clean up (a half-written trace) and exit 2 with a message.
func runModel(sc model.Scenario, opt model.Options) (res *model.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the simulation panicked (a pgbufsim bug; please report it with the scenario): %v", r)
		}
	}()
	return modelRun(sc, opt)
}

// modelRun and startWatch are replaced by tests (a panicking model, a
// signal that arrives mid-run).
var (
	modelRun   = model.RunWith
	startWatch = func() watcher { return interrupt.Start() }
)

// watcher is what the CLI needs of an interrupt.Watch.
type watcher interface {
	Interrupted() bool
	Signal() string
	Stop()
}

// isTerminal reports whether w is a terminal (progress is shown only
// there). Tests replace it to check that progress changes nothing.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// isProfile reports whether path holds a pprof profile (gzip-compressed
// protocol buffers, as runtime/pprof writes them).
func isProfile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [2]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && magic == [2]byte{0x1f, 0x8b}
}

// memoryLimit returns the memory a run may use: the -max-memory flag, or
// what the machine says is available; 0 when neither is known.
func memoryLimit(flagValue string) (limit int64, from string, err error) {
	if flagValue != "" {
		v, err := strictyaml.ParseBytes(flagValue)
		if err != nil {
			return 0, "", err
		}
		return v, "-max-memory", nil
	}
	if v, ok := sysmem.Available(); ok {
		return v, "the memory available on this machine", nil
	}
	return 0, "", nil
}

// printDryRun describes what the scenario would simulate and its estimate.
func printDryRun(w io.Writer, sc model.Scenario, est model.Estimate, limit int64, from string) {
	fmt.Fprintf(w, "scenario %s: PostgreSQL %s, shared_buffers %s, %d CPUs, page cache %s, seed %d\n",
		sc.Name, sc.Server.Version, model.SizeText(sc.Server.SharedBuffers), sc.Server.CPUs, model.SizeText(sc.OS.PageCache), sc.Seed)
	for _, ph := range sc.Workload.Phases {
		var parts []string
		for _, w := range ph.ScriptList() {
			part := w.Builtin
			if w.File != "" || w.Text != "" {
				part = w.File
				if part == "" {
					part = "inline script"
				}
			}
			if part == "" {
				part = fmt.Sprintf("%d custom steps", len(w.Steps))
				if w.Name != "" {
					part = fmt.Sprintf("%s (%d steps)", w.Name, len(w.Steps))
				}
			}
			if len(ph.Scripts) > 0 {
				part += fmt.Sprintf("@%d", w.Weight)
			}
			parts = append(parts, part)
		}
		what := strings.Join(parts, " + ")
		length := time.Duration(ph.Duration).String()
		if ph.Transactions > 0 {
			length = fmt.Sprintf("%d transactions per client", ph.Transactions)
		}
		rate := "as fast as possible"
		if ph.Rate > 0 {
			rate = fmt.Sprintf("%g tps", ph.Rate)
		}
		warm := ""
		if ph.Warmup {
			warm = " (warm-up)"
		}
		fmt.Fprintf(w, "phase %s%s: %s, %d clients, %s, %s\n", ph.Name, warm, what, ph.Clients, length, rate)
	}
	fmt.Fprintf(w, "page ids: %d used by the relations (%s), %d reserved\n", est.Pages, model.SizeText(est.Pages*8192), est.Reserved)
	fmt.Fprintf(w, "memory estimate: %s", model.SizeText(est.Bytes))
	if limit > 0 {
		verdict := "fits"
		if est.Bytes > limit {
			verdict = "REFUSED: exceeds"
		}
		fmt.Fprintf(w, " (%s %s, %s)", verdict, model.SizeText(limit), from)
	}
	fmt.Fprintln(w)
	for _, p := range est.Parts {
		key := p.Key
		if key == "" {
			key = "-"
		}
		fmt.Fprintf(w, "  %10s  %-40s %s\n", model.SizeText(p.Bytes), key, p.What)
	}
}

// wantsSweep reports whether the arguments ask for a sweep: a -sweep axis,
// or a configuration file with a sweep block.
func wantsSweep(args []string) bool {
	for i, a := range args {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		switch name {
		case "sweep", "replicates", "parallel", "shard", "force":
			return true
		case "config":
			if !hasVal && i+1 < len(args) {
				val = args[i+1]
			}
			if configs.IsSweep(val) {
				return true
			}
		}
	}
	return false
}

// withDuration sets the duration of every non-warmup phase.
func withDuration(sc model.Scenario, d string) (model.Scenario, error) {
	var ov []string
	for i, ph := range sc.Workload.Phases {
		if !ph.Warmup {
			ov = append(ov, fmt.Sprintf("workload.phases.%d.duration=%s", i, d), fmt.Sprintf("workload.phases.%d.transactions=0", i))
		}
	}
	out, err := configs.With(sc, ov...)
	if err != nil {
		return sc, fmt.Errorf("-duration %s: %v", d, err)
	}
	return out, nil
}

func progressPrinter(w io.Writer) func(int64, uint64) {
	start := time.Now()
	return func(now int64, events uint64) {
		el := time.Since(start).Seconds()
		if el <= 0 {
			return
		}
		fmt.Fprintf(w, "\rprogress: %.0f s simulated, %.1f M events/s, %.0fx real time\033[K", float64(now)/1e9, float64(events)/el/1e6, float64(now)/1e9/el)
	}
}

func printPolicies(w io.Writer) {
	for _, s := range policies.All() {
		off := ""
		if s.Offline {
			off = " (trace replay only)"
		}
		fmt.Fprintf(w, "%s%s\n    %s\n", s.Name, off, s.Summary)
		if s.Reference != "" {
			fmt.Fprintf(w, "    reference: %s\n", s.Reference)
		}
		if s.Params != nil {
			for _, line := range describeParams(s.Params()) {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}

// writeHeapProfile writes the live heap after a collection, the state the
// run ended with.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// indexMain is `simulate index DIR`: DIR/index.html lists every run output
// under DIR.
func indexMain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: simulate index DIR  (writes DIR/index.html listing every run output under DIR)")
		return exitConfig
	}
	n, err := report.WriteIndex(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "simulate index: %v\n", err)
		return exitConfig
	}
	fmt.Fprintf(stdout, "wrote %s (%d runs)\n", filepath.Join(args[0], report.IndexFile), n)
	return exitOK
}
