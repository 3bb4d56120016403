package replay

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/trace"
)

// Exit codes, as simulate's.
const (
	exitOK      = 0
	exitInput   = 1 // bad flags, configuration or trace; nothing written
	exitFailure = 2 // failure while running or writing
)

const usage = `usage: simulate -trace FILE -cache SIZE[,SIZE...] [-policy NAME[,NAME...]] [-param key=value]... [-out DIR]
       simulate -config FILE.yaml     (a file with a top-level trace: mapping)

Replays a page-reference trace through replacement policies and prints hits,
misses, miss ratio and requests/s for every policy and cache size; with -out,
writes DIR/mrc.csv and DIR/mrc.html (miss ratio against cache size). LRU's
curve is computed in one pass from exact stack distances (or SHARDS samples
with -shards); the other policies are replayed at each size, in parallel.

Formats: text, csv (relation,block[,op]), lcs-csv, lcs-txt, oracleGeneral,
optionally gzip or zstd compressed (detected). Sizes: pages (1000), bytes of
8 kB pages (64MB) or a percentage of the distinct pages (5%). A policy may
carry parameters as reports print them: clock-sweep(max_usage_count=3).
See docs/traces.md.

examples:
  simulate -trace trace/testdata/small.oracleGeneral -policy clock-sweep -cache 64
  simulate -trace run.csv.zst -policy clock-sweep,lru,2q,arc,sieve,opt -cache 1%,2%,5%,10%,20% -out out/mrc
  simulate -trace t.csv -format lcs-csv -csv-id-column 2 -policy 'clock-sweep(max_usage_count=3)' -cache 64MB

exit codes: 0 ok, 1 bad flags, configuration or trace (nothing written), 2 failure while running

flags:
`

// settings is what one invocation asks for, from flags and/or a config.
type settings struct {
	name      string
	file      string
	opt       trace.Options
	policies  []string
	params    [][2]string
	cache     []string
	out       string
	shards    float64
	lruReplay bool
	xaxis     string
	workers   int
	mrcCSV    string // -mrc-csv: the wide miss-ratio-curve CSV
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// Main runs the trace-replay command with args (without the program name)
// and returns the exit code. The simulate command calls it when it is given
// -trace or a configuration with a top-level trace: mapping (see
// WantsReplay).
func Main(args []string, stdout, stderr io.Writer) int {
	s, code := parseArgs(args, stderr)
	if code >= 0 {
		return code
	}
	if s.out != "" {
		if err := outdir.Check(s.out, outdir.Replay); err != nil {
			fmt.Fprintf(stderr, "simulate: -out %v\n", err)
			return exitInput
		}
	}
	if s.mrcCSV != "" {
		if err := checkWideCSV(s.mrcCSV); err != nil {
			fmt.Fprintf(stderr, "simulate: -mrc-csv %v\n", err)
			return exitInput
		}
	}
	plan, err := prepare(s)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitInput
	}
	defer plan.file.Close()
	rep, err := plan.run()
	if err != nil {
		fmt.Fprintln(stderr, err)
		var te *trace.Error
		if errors.As(err, &te) {
			return exitInput
		}
		return exitFailure
	}
	rep.print(stdout)
	if s.out != "" {
		paths, err := rep.write(s.out)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return exitFailure
		}
		for _, p := range paths {
			fmt.Fprintf(stderr, "wrote %s\n", p)
		}
	}
	if s.mrcCSV != "" {
		if err := outdir.WriteFileAtomic(s.mrcCSV, rep.wideCSV()); err != nil {
			fmt.Fprintf(stderr, "simulate: -mrc-csv: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stderr, "wrote %s\n", s.mrcCSV)
	}
	return exitOK
}

// parseArgs reads flags and the optional configuration. code is -1 to go
// on, else the exit code to return.
func parseArgs(args []string, stderr io.Writer) (settings, int) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var (
		config    = fs.String("config", "", "trace-replay configuration (YAML with a top-level trace: mapping)")
		file      = fs.String("trace", "", "trace file (\"-\" for standard input)")
		format    = fs.String("format", "auto", "trace format: auto, "+strings.Join(trace.Formats, ", "))
		policy    = fs.String("policy", "clock-sweep", "comma-separated replacement policies, e.g. clock-sweep,lru,opt or clock-sweep(max_usage_count=3)")
		cache     = fs.String("cache", "", "comma-separated cache sizes: pages (1000), bytes (64MB), % of the distinct pages (5%), a fraction of them (0.05, as libCacheSim) or auto (0.01% to 30%)")
		mrcCSV    = fs.String("mrc-csv", "", "also write the miss-ratio curves to FILE as a wide CSV: a row per cache size, a column per policy")
		out       = fs.String("out", "", "write DIR/mrc.csv and DIR/mrc.html")
		shards    = fs.Float64("shards", 0, "estimate LRU's curve by SHARDS sampling at this rate (e.g. 0.01) instead of exact stack distances")
		lruReplay = fs.Bool("lru-replay", false, "replay LRU at each size instead of computing its curve in one pass")
		xaxis     = fs.String("xaxis", "auto", "x axis of the chart: auto, log or value")
		idCol     = fs.Int("csv-id-column", 0, "lcs-csv: 1-based column of the object id (default 2)")
		opCol     = fs.Int("csv-op-column", 0, "lcs-csv: 1-based column of the operation (w/W or set = write; default none)")
		header    = fs.String("csv-header", "auto", "lcs-csv: whether the first line is a header: auto, true or false")
		delim     = fs.String("csv-delimiter", "", "lcs-csv: field delimiter (default: detected from the first line)")
		strIDs    = fs.Bool("string-ids", false, "lcs-csv, lcs-txt: object ids are strings, not integers")
		workers   = fs.Int("parallel", 0, "replays run at once (default: GOMAXPROCS)")
		params    multiFlag
	)
	fs.Var(&params, "param", "set a policy parameter, key=value (repeatable; applies to every listed policy that has the key)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return settings{}, exitOK
		}
		return settings{}, exitInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simulate: unexpected argument %q (see -h)\n", fs.Arg(0))
		return settings{}, exitInput
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if *workers < 0 {
		fmt.Fprintf(stderr, "simulate: -parallel %d: must be at least 1 (0 or leaving it out: one replay per core)\n", *workers)
		return settings{}, exitInput
	}
	if *config != "" && set["trace"] && !configHasTrace(*config) {
		fmt.Fprintf(stderr, "simulate: -config %s is a scenario, and -trace replays a trace: they do not combine (a trace-replay configuration has a top-level trace: mapping; docs/traces.md)\n", *config)
		return settings{}, exitInput
	}
	var s settings
	if *config != "" {
		cfg, err := LoadConfig(*config)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return settings{}, exitInput
		}
		t := cfg.Trace
		s = settings{name: cfg.Name, file: t.File, opt: t.CSV.options(t.Format), cache: t.Cache,
			out: t.Out, shards: t.Shards, xaxis: t.XAxis}
		for _, p := range t.Policies {
			s.policies = append(s.policies, p.Policy.Name)
		}
	}
	if set["trace"] || *config == "" {
		s.file = *file
	}
	if set["format"] || *config == "" {
		s.opt.Format = *format
	}
	if set["policy"] || len(s.policies) == 0 {
		s.policies = SplitPolicies(*policy)
	}
	if set["cache"] || *config == "" {
		s.cache = nil
		if *cache != "" {
			s.cache = strings.Split(*cache, ",")
		}
	}
	if set["out"] || *config == "" {
		s.out = *out
	}
	if set["shards"] || *config == "" {
		s.shards = *shards
	}
	if set["xaxis"] || s.xaxis == "" {
		s.xaxis = *xaxis
	}
	if set["csv-id-column"] {
		s.opt.IDColumn = *idCol
	}
	if set["csv-op-column"] {
		s.opt.OpColumn = *opCol
	}
	if set["csv-header"] {
		s.opt.Header = *header
	}
	if set["csv-delimiter"] {
		s.opt.Delimiter = *delim
	}
	if set["string-ids"] {
		s.opt.StringIDs = *strIDs
	}
	s.lruReplay, s.workers, s.mrcCSV = *lruReplay, *workers, *mrcCSV
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			fmt.Fprintf(stderr, "simulate: -param %q: expected key=value\n", p)
			return settings{}, exitInput
		}
		s.params = append(s.params, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	if s.file == "" {
		fmt.Fprint(stderr, "simulate: -trace FILE is required for trace replay\n\n")
		fs.Usage()
		return settings{}, exitInput
	}
	if len(s.cache) == 0 {
		fmt.Fprint(stderr, "simulate: -cache SIZE[,SIZE...] is required (pages, bytes such as 64MB, or a percentage such as 5%)\n")
		return settings{}, exitInput
	}
	switch s.xaxis {
	case "auto", "log", "value":
	default:
		fmt.Fprintf(stderr, "simulate: -xaxis %q: use auto, log or value\n", s.xaxis)
		return settings{}, exitInput
	}
	return s, -1
}
