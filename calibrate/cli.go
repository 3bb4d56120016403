package calibrate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pgbufsim/pgbufsim/internal/outdir"
)

const usage = `usage: simulate calibrate -dsn CONNSTRING [-out costs.yaml] [-budget 10min] [-passes 9] [-scale 1]
                          [-cpus N] [-database NAME -i-know] [-pgbench PATH] [-restart COMMAND]
                          [-cpu-scheduler fair|fifo]

Measures a live PostgreSQL server with micro-benchmarks run by pgbench (one
client: SELECT 1, scans of all-visible and hinted tables narrow and wide,
warm and through the BULKREAD ring, keyed lookups, updates, inserts, bulk
inserts and deletes, SELECT 1 and a lookup paced by -R; with the server's
cores known, select-only at twice as many clients) in a scratch database
it creates and drops, simulates the
same, fits the model's CPU prices by least squares (os_read pulled towards
its direct measurement, EXPLAIN's read time of a ring scan; pgbench's own
CPU per statement measured with getrusage), and writes a costs file that
scenarios use with -costs FILE or costs_file: (docs/calibration.md).
pgbench's select-only (flat out and paced) and tpcb-like and a ring scan
of a medium table are measured too but never fitted: they check the
fitted prices. It also records the WAL flush time and, where it may drop
the OS cache, cold reads. A new connection's first runs (the executor's,
a plan's, the page faults that map shared buffers) and EXPLAIN ANALYZE's
own cost per plan-node row are measured directly; whether idle cores halt
(cpu_halt_after) is read from the paced SELECT 1 against the flat-out one. With -restart, the command
restarts the server three times to measure a buffer's first use since the
start; without it the server is never restarted. By default
(-cpu-scheduler fair), for a server on this machine whose kernel is Linux
6.6 or later, the cores are modelled by the kernel's EEVDF scheduler:
cpu_slice from the kernel, cpu_client_group from pgbench's and the
server's scheduling groups (docs/model.md "The cores' scheduler"); for a
remote server or an older kernel, and with -cpu-scheduler fifo, they
serve bursts in arrival order.

exit codes: 0 ok, 1 cannot run (no connection, a replica, missing rights or
pgbench, bad flags; nothing left behind), 2 failure while measuring

flags:
`

// Main is simulate calibrate.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var (
		dsn      = fs.String("dsn", "", "the server to measure: a libpq connection string or URL (postgres://user@host:5432/postgres)")
		out      = fs.String("out", "costs.yaml", "the costs file to write (an existing file is replaced only if simulate calibrate wrote it)")
		budget   = new(time.Duration)
		passes   = fs.Int("passes", 9, "measure each experiment this many times (after a warm-up pass) and fit the median (1-30)")
		scale    = fs.Int("scale", 1, "pgbench scale of the held-out select-only and tpcb-like runs (1-100)")
		database = fs.String("database", "", "use this existing database instead of a scratch one (needs -i-know: its cal_* and pgbench_* tables are replaced)")
		iKnow    = fs.Bool("i-know", false, "allow -database")
		pgbench  = fs.String("pgbench", "", "the pgbench binary (default: pg_config --bindir, then PATH)")
		quiet    = fs.Bool("q", false, "no progress lines on stderr")
		cpus     = fs.Int("cpus", 0, "the server's CPU cores, for the several-client experiments (default: this machine's when the server is on it; otherwise they are skipped)")
		sched    = fs.String("cpu-scheduler", "fair", "how the model's cores serve CPU bursts: fair (the server's Linux EEVDF scheduler, read from its kernel, for a server on this machine on Linux 6.6 or later; otherwise in arrival order) or fifo (in arrival order)")
		restart  = fs.String("restart", "", "a shell command that restarts the server (e.g. \"pg_ctl -D /path/to/data restart -m fast\"): calibrate then restarts it three times to measure buffer_first_use, a buffer's first use since the start (default: no restart, not measured)")
	)
	*budget = 10 * time.Minute
	fs.Func("budget", "stop measuring after this long, e.g. 5min, 300s, 2m30s (default 10min; the experiments left are skipped, and said so)", func(v string) error {
		d, err := parseBudget(v)
		if err == nil {
			*budget = d
		}
		return err
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "simulate calibrate: "+format+"\n", a...)
		return code
	}
	switch {
	case fs.NArg() > 0:
		return fail(1, "unexpected argument %q (see -h)", fs.Arg(0))
	case *dsn == "":
		return fail(1, "-dsn is required: the server to measure, e.g. -dsn postgres://postgres@localhost:5432/postgres")
	case *passes < 1 || *passes > 30:
		return fail(1, "-passes %d: between 1 and 30", *passes)
	case *scale < 1 || *scale > 100:
		return fail(1, "-scale %d: between 1 and 100", *scale)
	case *cpus < 0 || *cpus > 1024:
		return fail(1, "-cpus %d: between 1 and 1024 (or leave it out)", *cpus)
	case *sched != "fifo" && *sched != "fair":
		return fail(1, "-cpu-scheduler %q: fifo or fair", *sched)
	}
	if err := checkOut(*out); err != nil {
		return fail(1, "%v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := Options{DSN: *dsn, Database: *database, IKnow: *iKnow, Pgbench: *pgbench, Passes: *passes, Scale: *scale, Budget: *budget, CPUs: *cpus, FairScheduler: *sched == "fair"}
	if *restart != "" {
		opts.Restart, opts.RestartCommand = ShellRestart(*restart), *restart
	}
	if !*quiet {
		opts.Progress = stderr
	}
	res, err := Run(ctx, opts)
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			return fail(1, "%v", err)
		}
		if ctx.Err() != nil {
			return fail(2, "interrupted; the scratch database was dropped")
		}
		return fail(2, "%v", err)
	}
	data, err := res.CostsYAML()
	if err != nil {
		return fail(2, "%v", err)
	}
	if err := outdir.WriteFileAtomic(*out, data); err != nil {
		return fail(2, "%v", err)
	}
	res.Report(stdout)
	fmt.Fprintf(stdout, "\nwrote %s: simulate -config x.yaml -costs %s (with server.version: %q)\n", *out, *out, res.Major)
	return 0
}

// marker begins every costs file calibrate writes; only such a file is
// replaced.
const marker = "# Written by simulate calibrate"

// checkOut refuses to replace a file calibrate did not write, or a
// directory.
func checkOut(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return fmt.Errorf("-out %s: its directory does not exist", path)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("-out %s: %v", path, err)
	}
	if st.IsDir() {
		return fmt.Errorf("-out %s: is a directory (name the costs file, e.g. -out costs.yaml)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-out %s: %v", path, err)
	}
	if !strings.HasPrefix(string(data), marker) {
		return fmt.Errorf("-out %s: exists and simulate calibrate did not write it; it would be replaced (choose another -out, or move it away)", path)
	}
	return nil
}

// parseBudget reads a duration as Go writes it (2m30s) or as PostgreSQL
// does (5min, 300s).
func parseBudget(v string) (time.Duration, error) {
	t := strings.TrimSpace(v)
	if n, ok := strings.CutSuffix(t, "min"); ok {
		t = n + "m"
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (e.g. 5min, 300s)", v)
	}
	return d, nil
}
