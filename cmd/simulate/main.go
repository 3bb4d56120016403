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
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/replay"
	"github.com/pgbufsim/pgbufsim/report"
	"github.com/pgbufsim/pgbufsim/sim"
	"github.com/pgbufsim/pgbufsim/sweep"
	"github.com/pgbufsim/pgbufsim/trace"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
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
       simulate -trace FILE -policy NAME[,NAME...] -cache SIZE[,SIZE...] [-out DIR]   (docs/traces.md)
       simulate -list-policies

Runs a pgbufsim scenario and writes DIR/summary.json, DIR/timeseries.csv and
DIR/report.html (DIR defaults to out/<scenario name>). Every configuration key
is documented in configs/reference.yaml.

examples:
  simulate -config configs/quickstart.yaml -out out/quickstart
  simulate -config configs/quickstart.yaml -set server.shared_buffers=64MB -set policies.replacement.name=lru
  simulate -config configs/quickstart.yaml -set workload.phases.run.clients=32 -duration 2min

exit codes: 0 ok, 1 bad flags or configuration (nothing written), 2 failure during the run

flags:
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return sweep.MergeMain(args[1:], stdout, stderr)
	}
	if replay.WantsReplay(args) {
		return replay.Main(args, stdout, stderr)
	}
	if wantsSweep(args) {
		return sweep.Main(args, stdout, stderr)
	}
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var (
		configPath   = fs.String("config", "", "scenario file (YAML)")
		outDir       = fs.String("out", "", "output directory (default out/<scenario name>)")
		seed         = fs.Int64("seed", -1, "override the scenario's seed")
		duration     = fs.String("duration", "", "override the duration of every non-warmup phase (e.g. 90s, 5min)")
		listPolicies = fs.Bool("list-policies", false, "list the replacement policies and their parameters")
		quiet        = fs.Bool("q", false, "do not print the summary on stdout")
		writeTrace   = fs.String("write-trace", "", "also write the run's page-reference trace to FILE (csv: relation,block,op; .oracleGeneral: libCacheSim's binary layout; .gz/.zst compress) for simulate -trace")
		cpuProfile   = fs.String("cpuprofile", "", "write a CPU profile of the run to FILE (go tool pprof)")
		memProfile   = fs.String("memprofile", "", "write a heap profile taken at the end of the run to FILE (go tool pprof)")
		sets         multiFlag
	)
	fs.Var(&sets, "set", "override a configuration key, path=value (repeatable), e.g. -set server.shared_buffers=64MB")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitConfig
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simulate: unexpected argument %q (flags come before nothing else; see -h)\n", fs.Arg(0))
		return exitConfig
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
	overrides := append([]string(nil), sets...)
	if *seed >= 0 {
		overrides = append(overrides, fmt.Sprintf("seed=%d", *seed))
	}
	sc, err := configs.Load(*configPath, overrides...)
	if err == nil && *duration != "" {
		sc, err = withDuration(sc, *duration)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitConfig
	}
	dir := *outDir
	if dir == "" {
		dir = "out/" + sc.Name
	}

	opt := model.Options{}
	var tw *trace.Writer
	if *writeTrace != "" {
		if tw, err = trace.Create(*writeTrace, ""); err != nil {
			fmt.Fprintf(stderr, "simulate: -write-trace: %v\n", err)
			return exitConfig
		}
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
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opt.Progress = progressPrinter(stderr)
		opt.ProgressEvery = 5 * sim.Second
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "simulate: -cpuprofile: %v\n", err)
			return exitConfig
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	start := time.Now()
	res, err := model.RunWith(sc, opt)
	wall := time.Since(start).Seconds()
	if *memProfile != "" && err == nil {
		if perr := writeHeapProfile(*memProfile); perr != nil {
			fmt.Fprintf(stderr, "simulate: -memprofile: %v\n", perr)
			return exitConfig
		}
	}
	if opt.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		if tw != nil {
			tw.Abort()
		}
		fmt.Fprintf(stderr, "simulate: run failed: %v\n", err)
		return exitFailure
	}
	if tw != nil {
		if err := tw.Close(); err != nil {
			fmt.Fprintf(stderr, "simulate: -write-trace: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stderr, "wrote %d page references to %s\n", tw.Count(), *writeTrace)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.Runtime.WallSeconds = wall
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
		fmt.Fprintf(stderr, "simulate: writing outputs: %v\n", err)
		return exitFailure
	}
	if !*quiet {
		report.PrintSummary(stdout, sc, res, dir)
	}
	fmt.Fprintf(stderr, "simulated %.1f s in %.2f s wall (%.0fx), %d events (%.1f M events/s), heap %.0f MB\n",
		res.Runtime.SimulatedSeconds, wall, res.Runtime.SimSpeed, res.Runtime.Events, res.Runtime.EventsPerSecond/1e6, res.Runtime.PeakHeapMB)
	return exitOK
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
