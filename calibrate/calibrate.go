package calibrate

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgbufsim/pgbufsim/internal/pgcompare"
	"github.com/pgbufsim/pgbufsim/model"
)

// Options are simulate calibrate's settings.
type Options struct {
	DSN string
	// Database and IKnow: use this existing database instead of creating
	// a scratch one (its cal_* and pgbench_* tables are replaced).
	Database string
	IKnow    bool
	// Pgbench is the pgbench binary ("" finds it).
	Pgbench string
	// Passes is how many times each experiment is measured, after a
	// warm-up pass that is not kept; the median is fitted. On the
	// development machine one pass differs from the next by 10-30 %, with
	// rare passes twice as fast (the scheduler ran pgbench and its backend
	// on one core), so neither one pass nor the fastest is representative.
	Passes int
	// Scale is pgbench's scale for the held-out pgbench experiments.
	Scale int
	// Budget bounds the measuring (0: no bound); experiments left when it
	// runs out are skipped, and said so.
	Budget time.Duration
	// Progress gets a line per step (nil: none).
	Progress io.Writer
	// CPUs is the server's core count for the several-client experiments
	// (0: this machine's when the server is local, else they are skipped).
	CPUs int
	// FairScheduler models the cores by the server's kernel scheduler
	// (-cpu-scheduler fair: costs.cpu_slice, cpu_client_group), read
	// from the kernel of a server on this machine; false: arrival order.
	FairScheduler bool
	// Restart, when not nil, restarts the server (simulate calibrate's
	// -restart command): only then is buffer_first_use measured, a
	// buffer's first use since the server started. RestartCommand names
	// it in the costs file.
	Restart        func(context.Context) error
	RestartCommand string
}

// Result is a calibration: what was measured and what was fitted.
type Result struct {
	Server        string
	Major         string
	Settings      map[string]string
	At            time.Time
	Measured      map[string]float64
	Costs         model.Costs
	Fitted        []Fitted
	Residuals     []Residual
	Skipped       []string
	Storage       Storage
	Passes        int
	SharedBuffers int64
	// OSRead, Client and FirstRuns say how os_read, client and a new
	// process's first runs (executor_first_run, plan_first_run,
	// buffer_map_fault) were found;
	// RoundTrip, when not empty, why client_round_trip was not fitted.
	OSRead, Client, RoundTrip, FirstRuns string
	// FirstUse says how buffer_first_use was found ("" when the server
	// was not to be restarted).
	FirstUse string
	// Halting says whether cpu_halt_after was set, and why
	// (haltingFrom).
	Halting string
	// Scheduler and ClientGroup say whether cpu_slice and
	// cpu_client_group were set, and why (scheduler).
	Scheduler, ClientGroup string
	// ExplainProbe is EXPLAIN ANALYZE's own cost per node call, measured
	// directly; ExplainProbeWhy why not, when it could not be.
	ExplainProbe    ExplainProbe
	ExplainProbeWhy string
	// Spread is each experiment's spread over the kept passes (half the
	// interquartile range over the median): how far one measurement of it
	// is from the next on this machine, the precision any fit can have.
	Spread map[string]float64
	// PairedRatio is, for each pair of all-visible and hinted scans
	// (allVisiblePairs, keyed by the all-visible one's name), the median
	// over the kept passes of the all-visible scan's time over the hinted
	// one's in the same pass (AllVisibleGains).
	PairedRatio map[string]float64
	// Remeasured holds, for each pass measured again, its speed against
	// the others' (1.3: its times were 30 % longer).
	Remeasured []float64
	// P99 is each held-out pgbench run's 99th percentile latency (ms),
	// the median over the passes (pgbench's per-transaction log).
	P99 map[string]float64
	// P99Quartiles is the first and third quartile of each such p99 over
	// the kept passes: the span of its middle half. A tail quantile of one
	// pass's transactions moves far more between passes than their mean
	// does (on a virtual machine whose host is busy at times, a pass's p99
	// is a stall's length or not: docs/calibration.md).
	P99Quartiles map[string][2]float64
	// Lag is each experiment under -R's mean schedule lag (ms), the
	// median over the passes (pgbench's per-transaction log).
	Lag map[string]float64
	// Commands are each per-command experiment's commands (perCommand)
	// with their average latency (pgbench -r), the median over the passes.
	Commands map[string][]CommandTime
	// Stalls is what the SELECT 1 experiment's latency tail said of the
	// CPU's stalls (costs.stall_interval, costs.stall).
	Stalls Stalls
}

// Stalls is the stall estimate: the SELECT 1 latency tail (each quantile
// the median over the passes), the stalls per transaction and their mean
// length that match it (stalls), the CPU time a simulated SELECT 1
// transaction takes, and from them the prices; Why says why there are
// none when PerTxn is 0.
type Stalls struct {
	Tail             latencyTail
	PerTxn, MeanMS   float64
	CPUPerTxnNs      float64
	Interval, Length float64 // ns
	Why              string
}

// Storage is what calibration measured of the server's storage, or why it
// could not.
type Storage struct {
	// WALFlushMS is the extra latency of a one-row INSERT committed with
	// synchronous_commit = on over off: the WAL flush (fdatasync) a commit
	// waits for, as pg_test_fsync's single-write test sees it.
	WALFlushMS float64
	// ColdSeqReadUS and ColdRandomReadMS are a page read from the device
	// through a sequential scan (the kernel's readahead included) and a
	// random index lookup's extra latency, both with the OS cache dropped;
	// 0 when they could not be measured, and ColdRead says why.
	ColdSeqReadUS, ColdRandomReadMS float64
	ColdRead                        string
}

// Run calibrates against the server opts.DSN names.
func Run(ctx context.Context, opts Options) (_ *Result, err error) {
	if opts.Passes <= 0 {
		opts.Passes = 9
	}
	if opts.Scale <= 0 {
		opts.Scale = 1
	}
	say := func(format string, a ...any) {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, format+"\n", a...)
		}
	}
	start := time.Now()
	pg, err := FindPgbench(opts.Pgbench)
	if err != nil {
		return nil, err
	}
	s, err := Connect(ctx, opts.DSN, opts.Database, opts.IKnow)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	say("calibrate: PostgreSQL %s, shared_buffers %d MB, scratch database %s", s.Version, s.SharedBuffers>>20, s.Database)
	plan := NewPlan(s.SharedBuffers, opts.Scale)
	cpus := opts.CPUs
	if cpus == 0 && s.Local() {
		// pgbench and the server share this machine's cores, as the
		// simulated client_host: server has them.
		cpus = runtime.NumCPU()
	}
	if cpus > 0 {
		// With more clients than cores the CPU is the bottleneck: what
		// separates a statement's server CPU from the time it only waits
		// (the client round trip). Fitted; tpcb-like at as many clients is
		// held out.
		plan.Experiments = append(plan.Experiments,
			Experiment{Name: fmt.Sprintf("select-only-%dc", 2*cpus), Builtin: "select-only", Scale: opts.Scale,
				Clients: 2 * cpus, Threads: cpus, Warmup: 1000, Transactions: 1500},
			Experiment{Name: fmt.Sprintf("tpcb-like-%dc", 2*cpus), Builtin: "tpcb-like", Scale: opts.Scale,
				HeldOut: true, Clients: 2 * cpus, Threads: cpus, Warmup: 300, Transactions: 600},
			// Every client updates one row and holds its lock over a
			// round trip: every transaction waits for the one before
			// (row_lock_wait), as tpcb-like's on its branch rows.
			Experiment{Name: fmt.Sprintf("update-hot-%dc", 2*cpus), Script: "BEGIN;\nUPDATE cal_update SET v = v + 1 WHERE id = 1;\nSELECT 1;\nEND;\n",
				Tables: []string{"cal_update"}, Clients: 2 * cpus, Threads: cpus, Warmup: 300, Transactions: 600},
			// The same transactions on rows drawn at random, which
			// almost never wait: the writes' CPU at several clients,
			// against which update-hot's waits stand out. Without it
			// the fit could only take a write's price at several
			// clients from one client's experiments, whose wake-ups
			// make every statement dearer, and row_lock_wait absorbed
			// the difference (20 to 92 us between calibrations).
			Experiment{Name: fmt.Sprintf("update-spread-%dc", 2*cpus), Script: fmt.Sprintf("\\set k random(1, %d)\nBEGIN;\nUPDATE cal_update SET v = v + 1 WHERE id = :k;\nSELECT 1;\nEND;\n", plan.Table("cal_update").Rows),
				Tables: []string{"cal_update"}, Clients: 2 * cpus, Threads: cpus, Warmup: 300, Transactions: 600})
	} else {
		plan.Skipped = append(plan.Skipped, "several clients: the server is not on this machine and -cpus was not given, so its CPU count is not known; client_round_trip, context_switch and row_lock_wait keep their defaults")
	}
	say("calibrate: creating %d tables and pgbench's at scale %d", len(plan.Tables), opts.Scale)
	if err := plan.Setup(ctx, s, pg); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgbufsim-calibrate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	res := &Result{Server: s.Version, Major: s.Major, Settings: s.Settings, At: time.Now().UTC(),
		Measured: map[string]float64{}, Skipped: plan.Skipped, Passes: opts.Passes, SharedBuffers: s.SharedBuffers}
	exps := plan.Experiments
	// The commit with synchronous_commit on: the storage's flush time.
	syncInsert := Experiment{Name: "insert-sync", Script: "INSERT INTO cal_insert (v) VALUES (1);\n", Tables: []string{"cal_insert"}, Warmup: 50, Transactions: 500, SyncCommit: true}
	all := append(slices.Clone(exps), syncInsert)
	// runPass measures every experiment once; pass 0 warms up and is not
	// kept: right after the setup the server (and the machine) is still
	// writing the tables out, and first measurements came out 20-70 % slow
	// on the development machine.
	// pgbench's own CPU per statement, from its getrusage over the
	// several-client select-only: with more clients than cores pgbench
	// seldom sleeps, so this is its work per statement (costs.client);
	// one client's pgbench spends three times as much, mostly sleeping
	// and waking in poll (cpu_wakeup's share).
	var clientCPU []float64
	// commandLines are each per-command experiment's commands, in order.
	commandLines := map[string][]string{}
	runPass := func(pass int) (map[string]float64, error) {
		row := map[string]float64{}
		for _, e := range all {
			if opts.Budget > 0 && time.Since(start) > opts.Budget {
				if pass > 0 {
					res.Skipped = append(res.Skipped, fmt.Sprintf("%s pass %d: the -budget of %s ran out", e.Name, pass, opts.Budget))
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if len(e.Reset) > 0 {
				if err := s.Exec(ctx, e.Reset...); err != nil {
					return nil, err
				}
			}
			m, err := pg.measure(ctx, s, e, dir)
			if err != nil {
				return nil, err
			}
			ms := m.MS
			if pass > 0 && e.Clients > 1 && e.Builtin == "select-only" && m.Statements > 0 {
				clientCPU = append(clientCPU, float64(m.ClientCPU.Nanoseconds())/float64(m.Statements))
			}
			if pass == 0 {
				say("calibrate: warm-up pass %-12s %.4f ms (not kept)", e.Name, ms)
				continue
			}
			row[e.Name] = ms
			for i, c := range m.Commands {
				if i == len(commandLines[e.Name]) {
					commandLines[e.Name] = append(commandLines[e.Name], c.Line)
				}
				if commandLines[e.Name][i] == c.Line {
					row[commandKey(e.Name, i)] = c.MS
				}
			}
			p99 := ""
			if e.HeldOut && e.Builtin != "" {
				row[p99Key+e.Name] = m.P99MS
				p99 = fmt.Sprintf(", p99 %.4f ms", m.P99MS)
			}
			if e.Rate > 0 {
				row[lagKey+e.Name] = m.LagMS
				p99 += fmt.Sprintf(", schedule lag %.4f ms", m.LagMS)
			}
			if e.Name == stallExperiment && m.TailOK {
				row[stallKey+"p50"], row[stallKey+"p90"], row[stallKey+"p99"], row[stallKey+"p99.9"] = m.Tail.Med, m.Tail.P90, m.Tail.P99, m.Tail.P999
			}
			say("calibrate: pass %d/%d %-12s %.4f ms%s", pass, opts.Passes, e.Name, ms, p99)
		}
		// The writing experiments leave dirty pages and WAL that the
		// background writer, checkpointer and WAL writer would write out
		// during the next pass's read-only experiments, on the same CPUs:
		// each pass starts clean.
		return row, s.Exec(ctx, "CHECKPOINT")
	}
	var kept []map[string]float64
	for pass := 0; pass <= opts.Passes; pass++ {
		row, err := runPass(pass)
		if err != nil {
			return nil, err
		}
		if pass > 0 {
			kept = append(kept, row)
		}
	}
	// A pass in which the whole machine ran slow (or fast) shifts every
	// experiment of it at once; the median absorbs one such pass, but on a
	// machine that has several (another guest busy on the host for a few
	// seconds), the medians of different experiments come from passes of
	// different speeds, and the fit then has to reconcile experiments that
	// were never measured on the same machine. Such a pass is measured
	// again, at most -passes times.
	for extra := 1; extra <= opts.Passes && len(kept) >= 3; extra++ {
		worst, speed := slowestOrFastest(kept)
		if math.Abs(speed-1) <= passTolerance {
			break
		}
		if opts.Budget > 0 && time.Since(start) > opts.Budget {
			res.Skipped = append(res.Skipped, fmt.Sprintf("re-measuring a pass at %+.0f%% of the others' speed: the -budget of %s ran out", 100*(speed-1), opts.Budget))
			break
		}
		say("calibrate: a pass ran at %+.0f%% of the others' times; measuring it again", 100*(speed-1))
		res.Remeasured = append(res.Remeasured, speed)
		row, err := runPass(opts.Passes + extra)
		if err != nil {
			return nil, err
		}
		kept = append(slices.Delete(kept, worst, worst+1), row)
	}
	// The all-visible gains from the ratio of each pass's two scans, not
	// from the ratio of their medians: the two run a few seconds apart in
	// one pass, while on a machine whose speed changes from pass to pass
	// the medians of the two can come from passes of different speeds. On
	// the CI machine the gain of the medians came out 2 to 15 % in every
	// one of three calibrations where it is usually 20 to 30 %.
	res.PairedRatio = pairedRatios(kept)
	res.Spread = map[string]float64{}
	for _, e := range all {
		var v []float64
		for _, row := range kept {
			if ms, ok := row[e.Name]; ok {
				v = append(v, ms)
			}
		}
		if len(v) > 0 {
			res.Measured[e.Name] = median(v)
			res.Spread[e.Name] = relSpread(v)
		}
		for i, line := range commandLines[e.Name] {
			var c []float64
			for _, row := range kept {
				if ms, ok := row[commandKey(e.Name, i)]; ok {
					c = append(c, ms)
				}
			}
			if len(c) > 0 {
				if res.Commands == nil {
					res.Commands = map[string][]CommandTime{}
				}
				res.Commands[e.Name] = append(res.Commands[e.Name], CommandTime{Line: line, MS: median(c)})
			}
		}
		if lags := passValues(kept, lagKey+e.Name); len(lags) > 0 {
			if res.Lag == nil {
				res.Lag = map[string]float64{}
			}
			res.Lag[e.Name] = median(lags)
		}
		if p := passValues(kept, p99Key+e.Name); len(p) > 0 {
			if res.P99 == nil {
				res.P99, res.P99Quartiles = map[string]float64{}, map[string][2]float64{}
			}
			q1, q3 := quartiles(p)
			res.P99[e.Name], res.P99Quartiles[e.Name] = median(p), [2]float64{q1, q3}
		}
	}
	// The stalls from the SELECT 1 tail: each of its quantiles the median
	// over the passes (a pass's 99.9th percentile is one of its few
	// slowest transactions), then matched (stalls).
	var tails [4][]float64
	for _, row := range kept {
		if _, ok := row[stallKey+"p99"]; ok {
			for i, q := range []string{"p50", "p90", "p99", "p99.9"} {
				tails[i] = append(tails[i], row[stallKey+q])
			}
		}
	}
	if len(tails[0]) > len(kept)/2 {
		st := &res.Stalls
		st.Tail = latencyTail{Med: median(tails[0]), P90: median(tails[1]), P99: median(tails[2]), P999: median(tails[3])}
		var ok bool
		if st.PerTxn, st.MeanMS, ok = stalls(st.Tail); !ok {
			st.Why = fmt.Sprintf("the %s experiment's 99th percentile, %.4f ms, is within its latencies' body (median %.4f, 90th percentile %.4f)", stallExperiment, st.Tail.P99, st.Tail.Med, st.Tail.P90)
		}
	} else {
		res.Stalls.Why = fmt.Sprintf("the %s experiment was measured in %d of %d passes", stallExperiment, len(tails[0]), len(kept))
	}
	if on, off := res.Measured["insert-sync"], res.Measured["insert"]; on > 0 && off > 0 {
		res.Storage.WALFlushMS = math.Max(0, on-off)
	}
	delete(res.Measured, "insert-sync")
	res.Storage = measureCold(ctx, s, pg, plan, dir, res.Storage, res.Measured["lookup"])
	base := model.DefaultCosts()
	if ns, why := plan.MeasureOSRead(ctx, s, opts.Passes); why == "" {
		SetPrice(&base, "os_read", ns)
		res.OSRead = fmt.Sprintf("measured directly: %s a page (EXPLAIN's read time over a ring scan's reads from the OS cache)", nsText(ns))
		say("calibrate: os_read %s a page, measured directly", nsText(ns))
	} else {
		res.OSRead = "not measured (" + why + "): kept at its default " + nsText(Price(base, "os_read"))
	}
	// A new process's first runs go into the costs file but not into the
	// fit: PostgreSQL's experiments measure transactions after a warm-up
	// in the same sessions, which paid them, where the simulated measured
	// phase has backends of its own.
	firstRuns, firstRunsOK := FirstRuns{}, false
	if fr, why := plan.MeasureFirstRuns(ctx, s, opts.Passes); why == "" {
		firstRuns, firstRunsOK = fr, true
		res.FirstRuns = fmt.Sprintf("measured directly: executor_first_run %s, plan_first_run %s, buffer_map_fault %s (a new connection's first SELECT 1, lookup and warm count(*) against their next runs, EXPLAIN's Execution Time)", nsText(fr.Executor), nsText(fr.Plan), nsText(fr.MapFault))
		say("calibrate: first runs measured directly: executor_first_run %s, plan_first_run %s, buffer_map_fault %s", nsText(fr.Executor), nsText(fr.Plan), nsText(fr.MapFault))
	} else {
		res.FirstRuns = "not measured (" + why + "): kept at their defaults"
	}
	// EXPLAIN ANALYZE's own cost, recorded for comparisons of the
	// simulator's execution_ms with a server's EXPLAIN (not a price: the
	// simulator runs no EXPLAIN).
	major, _ := strconv.Atoi(strings.SplitN(s.Major, ".", 2)[0])
	if pr, why := plan.MeasureExplainProbe(ctx, s, major, opts.Passes); why == "" {
		res.ExplainProbe = pr
		say("calibrate: EXPLAIN ANALYZE's own cost per node call: %.1f ns (TIMING OFF), %.1f ns with BUFFERS and WAL, %.1f ns with BUFFERS and TIMING", pr.Analyze, pr.Buffers, pr.Timing)
	} else {
		res.ExplainProbeWhy = why
	}
	// A buffer's first use since the start, only where the user lets
	// calibrate restart the server; last, since it empties the buffers.
	firstUse, firstUseOK := 0.0, false
	if opts.Restart != nil {
		say("calibrate: restarting the server (%s) to measure buffer_first_use", opts.RestartCommand)
		if ns, why := plan.MeasureFirstUse(ctx, s, opts.Restart, min(opts.Passes, 3)); why == "" {
			firstUse, firstUseOK = ns, true
			res.FirstUse = fmt.Sprintf("measured directly: %s a buffer (after a restart by %q, a scan into buffers never used against a scan into a dropped table's buffers, EXPLAIN's read time)", nsText(ns), opts.RestartCommand)
			say("calibrate: buffer_first_use %s a buffer, measured directly", nsText(ns))
		} else {
			res.FirstUse = "not measured (" + why + ")"
			say("calibrate: buffer_first_use not measured: %s", why)
		}
	}
	if len(clientCPU) > 0 {
		ns := median(clientCPU)
		SetPrice(&base, "client", ns)
		res.Client = fmt.Sprintf("measured directly: %s a statement (pgbench's CPU time, getrusage, over select-only at %d clients)", nsText(ns), 2*cpus)
		say("calibrate: client %s a statement, measured directly", nsText(ns))
	} else {
		res.Client = "not measured (no several-client experiment: the server's core count is not known): kept at its default " + nsText(Price(base, "client"))
	}
	// Whether idle cores halt out of the scheduler's sight (a virtual
	// machine's vCPUs): a paced SELECT 1 then runs beside its client,
	// far faster than one run flat out (costs.cpu_halt_after).
	if h, why := haltingFrom(res.Measured, res.Lag); h > 0 {
		SetPrice(&base, "cpu_halt_after", h)
		res.Halting = why
		say("calibrate: cpu_halt_after %s: %s", nsText(h), why)
	} else {
		res.Halting = why
	}
	// The cores' scheduler, read from the kernel of a server on this
	// machine (docs/model.md "The cores' scheduler"), when asked for.
	switch {
	case !opts.FairScheduler:
	case s.Local() && cpus > 0:
		slice, sliceWhy, group, groupWhy := scheduler(ctx, s, cpus)
		if slice > 0 {
			base.CPUSlice = slice
			base.CPUClientGroup = group
		}
		res.Scheduler, res.ClientGroup = sliceWhy, groupWhy
		say("calibrate: cpu_slice %s: %s", nsText(float64(slice)), sliceWhy)
		if groupWhy != "" {
			say("calibrate: cpu_client_group %v: %s", group, groupWhy)
		}
	default:
		res.Scheduler = "not set: the server is not on this machine (or its cores are not known), so its kernel's scheduler is not known (the cores serve bursts in arrival order; set cpu_slice and cpu_client_group as docs/model.md says)"
	}
	prices := Prices
	if s.Local() {
		// pgbench and the server on one machine talk over a unix socket
		// or the loopback: no network between them, and what one client
		// waits per statement besides the CPU is its two processes
		// sleeping and waking idle cores (cpu_wakeup, paid only when a
		// core sat idle). A round trip fitted beside it is a wait that
		// several clients pay too (a pure delay in the model), which left
		// their cores idle where PostgreSQL's were busy: select-only at 4
		// clients on 2 cores came out 43 % slow with it fitted at 21 us,
		// 4 % with it 0.
		base.ClientRoundTrip = 0
		prices = slices.DeleteFunc(slices.Clone(Prices), func(k string) bool { return k == "client_round_trip" })
		res.RoundTrip = "0: a server on this machine (no network between pgbench and the server; the waits are cpu_wakeup's)"
	}
	prices = withoutUnmeasured(prices, res.Measured)
	if Price(base, "cpu_halt_after") == 0 {
		// Without halting cores nothing pays cpu_halt_cold.
		prices = slices.DeleteFunc(prices, func(k string) bool { return k == "cpu_halt_cold" })
	}
	sm := &Simulator{Prices: prices, Major: s.Major, SharedBuffers: s.SharedBuffers, Plan: plan, Base: base, CPUs: cpus, RemoteClient: !s.Local(), Spread: res.Spread}
	say("calibrate: fitting %d prices to %d experiments", len(prices), len(res.Measured))
	res.Costs, res.Fitted, err = sm.Fit(res.Measured)
	if err != nil {
		return nil, err
	}
	if res.Stalls.PerTxn > 0 {
		// The stalls' prices: their mean length as measured, and the CPU
		// time between them that gives the measured stalls per SELECT 1
		// at the CPU time the fitted prices give it. The measured means
		// include the stalls, so the prices are fitted again with them
		// on (from the first fit: a few per cent move).
		var sel Experiment
		for _, e := range plan.Experiments {
			if e.Name == stallExperiment {
				sel = e
			}
		}
		cpu, err := sm.cpuPerTxn(sel, res.Costs)
		if err != nil {
			return nil, err
		}
		st := &res.Stalls
		// Stalls come as a Poisson process in CPU time: a transaction
		// of cpu ns meets at least one with probability
		// 1 - e^(-cpu/interval), the measured share.
		st.CPUPerTxnNs, st.Interval, st.Length = cpu, cpu/-math.Log1p(-st.PerTxn), st.MeanMS*1e6
		SetPrice(&sm.Base, "stall_interval", st.Interval)
		SetPrice(&sm.Base, "stall", st.Length)
		from := res.Costs
		SetPrice(&from, "stall_interval", st.Interval)
		SetPrice(&from, "stall", st.Length)
		sm.from = &from
		say("calibrate: stalls: %.4f a SELECT 1 transaction of %.3f ms: one every %s of CPU time; fitting again with them", st.PerTxn, st.MeanMS, nsText(st.Interval))
		res.Costs, res.Fitted, err = sm.Fit(res.Measured)
		if err != nil {
			return nil, err
		}
	}
	res.Residuals, err = sm.Validate(res.Costs, res.Measured)
	if err != nil {
		return nil, err
	}
	if firstUseOK {
		SetPrice(&res.Costs, "buffer_first_use", firstUse)
	}
	if firstRunsOK {
		SetPrice(&res.Costs, "executor_first_run", firstRuns.Executor)
		SetPrice(&res.Costs, "plan_first_run", firstRuns.Plan)
		SetPrice(&res.Costs, "buffer_map_fault", firstRuns.MapFault)
	}
	for i := range res.Residuals {
		x := &res.Residuals[i]
		x.Spread = res.Spread[x.Experiment]
		if p, ok := res.P99[x.Experiment]; ok {
			x.MeasuredP99, x.P99Quartiles = p, res.P99Quartiles[x.Experiment]
		}
		if l, ok := res.Lag[x.Experiment]; ok {
			x.MeasuredLag = l
		}
		x.Commands = matchCommands(res.Commands[x.Experiment], x.Commands)
	}
	return res, nil
}

// Report writes the fit for a reader: each price with its default, the
// experiments that determine it, and every experiment's measured and
// simulated latency (the held-out ones marked).
func (r *Result) Report(w io.Writer) {
	fmt.Fprintf(w, "PostgreSQL %s (version %s), shared_buffers %d MB; median of %d passes\n\n", r.Server, r.Major, r.SharedBuffers>>20, r.Passes)
	fmt.Fprintf(w, "%-16s %12s %12s  %s\n", "price", "default", "fitted", "determined by (share of its simulated time)")
	for _, f := range r.Fitted {
		var by []string
		for i, e := range f.DeterminedBy {
			by = append(by, fmt.Sprintf("%s %.0f%%", e, 100*f.ShareOfTimeInExp[i]))
		}
		if len(by) == 0 {
			by = []string{"none: stays near its default"}
		}
		fmt.Fprintf(w, "%-16s %12s %12s  %s\n", f.Key, nsText(Price(model.DefaultCosts(), f.Key)), nsText(f.Value), strings.Join(by, ", "))
	}
	fmt.Fprintf(w, "\n%-14s %9s %12s %8s %12s %8s %14s\n", "experiment", "", "measured ms", "spread", "simulated ms", "error", "at defaults")
	for _, x := range r.Residuals {
		kind := "fitted"
		if x.HeldOut {
			kind = "held out"
		}
		fmt.Fprintf(w, "%-14s %9s %12.4f %7.1f%% %12.4f %+7.1f%% %+13.1f%%\n", x.Experiment, kind, x.MeasuredMS, 100*x.Spread, x.SimMS, 100*x.Error(), 100*(x.DefaultMS/x.MeasuredMS-1))
	}
	for _, x := range r.Residuals {
		if x.MeasuredP99 > 0 {
			fmt.Fprintf(w, "p99 %-16s measured %.4f ms (%.1fx its mean; middle half of the passes %.4f-%.4f), simulated %.4f ms (%.1fx): not fitted (the stalls come from %s's tail)\n",
				x.Experiment+":", x.MeasuredP99, x.MeasuredP99/x.MeasuredMS, x.P99Quartiles[0], x.P99Quartiles[1], x.SimP99, x.SimP99/math.Max(x.SimMS, 1e-9), stallExperiment)
		}
	}
	for _, x := range r.Residuals {
		if x.MeasuredLag > 0 {
			fmt.Fprintf(w, "schedule lag %-16s measured %.4f ms of its %.4f, simulated %.4f of its %.4f (pgbench -R %g: the latency counts from each scheduled start): not fitted apart from the latency\n",
				x.Experiment+":", x.MeasuredLag, x.MeasuredMS, x.SimLag, x.SimMS, rateExperimentTPS)
		}
	}
	for _, x := range r.Residuals {
		if len(x.Commands) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s per command (pgbench -r; its averages include the warm-up transactions): reported, not fitted\n", x.Experiment)
		for _, c := range x.Commands {
			fmt.Fprintf(w, "  %-78s measured %.4f ms, simulated %.4f ms %+6.1f%%\n", c.Line, c.MeasuredMS, c.SimMS, 100*(c.SimMS/c.MeasuredMS-1))
		}
	}
	for _, g := range r.AllVisibleGains() {
		fmt.Fprintf(w, "all-visible gain %-16s measured %5.1f%%, simulated %5.1f%% (at the defaults %5.1f%%)\n", g.Where+":", 100*g.Measured, 100*g.Simulated, 100*g.AtDefaults)
	}
	if len(r.Remeasured) > 0 {
		var sp []string
		for _, v := range r.Remeasured {
			sp = append(sp, fmt.Sprintf("%+.0f%%", 100*(v-1)))
		}
		what := fmt.Sprintf("%d passes whose times were", len(sp))
		if len(sp) == 1 {
			what = "a pass whose times were"
		}
		fmt.Fprintf(w, "\nmeasured again: %s %s against the others' (more than %.0f%% away)\n", what, strings.Join(sp, ", "), 100*passTolerance)
	}
	if r.RoundTrip != "" {
		fmt.Fprintf(w, "\nclient_round_trip: %s", r.RoundTrip)
	}
	if r.Scheduler != "" {
		fmt.Fprintf(w, "\ncpu_slice: %s", r.Scheduler)
	}
	if r.ClientGroup != "" {
		fmt.Fprintf(w, "\ncpu_client_group: %s", r.ClientGroup)
	}
	if r.Halting != "" {
		fmt.Fprintf(w, "\ncpu_halt_after: %s", r.Halting)
	}
	switch pr := r.ExplainProbe; {
	case r.ExplainProbeWhy != "":
		fmt.Fprintf(w, "\nEXPLAIN ANALYZE's own cost: not measured (%s)", r.ExplainProbeWhy)
	case pr != (ExplainProbe{}):
		fmt.Fprintf(w, "\nEXPLAIN ANALYZE's own cost per plan-node call: %.1f ns (TIMING OFF), %.1f ns with BUFFERS and WAL, %.1f ns with BUFFERS and TIMING (a server's Execution Time less its calls times this is the simulator's execution_ms)", pr.Analyze, pr.Buffers, pr.Timing)
	}
	fmt.Fprintf(w, "\nstalls: %s", r.Stalls.Text())
	firstUse := r.FirstUse
	if firstUse == "" {
		firstUse = "not measured (no -restart)"
	}
	fmt.Fprintf(w, "\nos_read: %s\nclient: %s\nfirst runs: %s\nbuffer_first_use: %s\nWAL flush (synchronous_commit on - off): %.3f ms\ncold reads: %s\n", r.OSRead, r.Client, r.FirstRuns, firstUse, r.Storage.WALFlushMS, r.Storage.ColdRead)
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", s)
	}
}

// nsText writes a price as the costs file does: 1.234us, 250ns.
func nsText(ns float64) string {
	n := int64(math.Round(ns))
	if n >= 1000 {
		return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", float64(n)/1000), "0"), ".") + "us"
	}
	if ps := int64(math.Round(ns * 1000)); ps%1000 != 0 {
		// A price per byte, held in picoseconds (1.8ns).
		return strings.TrimRight(fmt.Sprintf("%.3f", float64(ps)/1000), "0") + "ns"
	}
	return fmt.Sprintf("%dns", n)
}

// measureCold measures reads from the device where it can: the server on
// this machine (a unix socket or a loopback address) and vm.drop_caches
// writable (pgcompare.CanDropCaches tries it). One ring scan of cal_ring
// gives a sequential page read; 200 lookups of random keys in it, each
// reading its heap page (and index pages) cold, give a random read.
func measureCold(ctx context.Context, s *Server, pg *Pgbench, plan *Plan, dir string, st Storage, warmLookup float64) Storage {
	ring := plan.Table("cal_ring")
	switch {
	case !s.Local():
		st.ColdRead = "not measured: the server is not on this machine, so its OS cache cannot be dropped from here"
		return st
	case ring == nil:
		st.ColdRead = "not measured: there is no table larger than the BULKREAD ring threshold (shared_buffers over 8 GB)"
		return st
	case !pgcompare.CanDropCaches():
		st.ColdRead = "not measured: this process may not write vm.drop_caches (run as root, outside a read-only container), so no read can be made cold"
		return st
	}
	scan := Experiment{Name: "cold-scan", Script: "SELECT count(*) FROM cal_ring;\n", Transactions: 1}
	lookups := Experiment{Name: "cold-lookup", Script: fmt.Sprintf("\\set k random(1, %d)\nSELECT v FROM cal_ring WHERE id = :k;\n", ring.Rows), Transactions: 200}
	if err := pgcompare.DropCaches(); err != nil {
		st.ColdRead = "not measured: " + err.Error()
		return st
	}
	ms, err := pg.Measure(ctx, s, scan, dir)
	if err != nil {
		st.ColdRead = "not measured: " + err.Error()
		return st
	}
	st.ColdSeqReadUS = 1000 * ms / float64(ring.Pages)
	if err := pgcompare.DropCaches(); err != nil {
		st.ColdRead = "not measured: " + err.Error()
		return st
	}
	ms, err = pg.Measure(ctx, s, lookups, dir)
	if err != nil {
		st.ColdRead = "not measured: " + err.Error()
		return st
	}
	st.ColdRandomReadMS = math.Max(0, ms-warmLookup)
	st.ColdRead = "measured with the OS cache dropped (vm.drop_caches)"
	return st
}

// passTolerance is how far a pass's speed may be from the others' before
// it is measured again: on the development machine most passes are within
// 5 % of each other, while the slow ones (right after the setup, or the
// host busy for a few seconds) ran every experiment 20-60 % longer.
const passTolerance = 0.15

// slowestOrFastest returns the pass whose speed is furthest from 1, and
// that speed: the median over the pass's experiments of each one's time
// over that experiment's median over all passes.
// p99Key prefixes a pass's 99th percentile of a held-out pgbench run in
// its row of means.
const p99Key = "p99 "

// passValues is the kept passes' values of one key of their rows (the
// passes that measured it).
func passValues(kept []map[string]float64, key string) []float64 {
	var v []float64
	for _, row := range kept {
		if x, ok := row[key]; ok {
			v = append(v, x)
		}
	}
	return v
}

// haltAfterVM is cpu_halt_after where calibration finds idle cores
// halting out of the scheduler's sight: KVM's default halt polling window
// (halt_poll_ns, 200 us), after which the host deschedules a halted vCPU
// and the guest sees it preempted.
const haltAfterVM = 200_000

// haltingFrom decides costs.cpu_halt_after from SELECT 1 run flat out
// (select-one) and paced (select-one-rate, whose latency less its
// schedule lag is the transaction's own time): a paced transaction under
// 0.6 of one run flat out means the client's backend ran beside it,
// without the wake-ups a flat-out one pays (docs/calibration.md "A paced
// client"). It returns the price (0: off) and why.
func haltingFrom(measured, lag map[string]float64) (float64, string) {
	flat, ok1 := measured[stallExperiment]
	paced, ok2 := measured["select-one-rate"]
	l, ok3 := lag["select-one-rate"]
	if !ok1 || !ok2 || !ok3 || flat <= 0 {
		return 0, "not set: select-one or select-one-rate was not measured"
	}
	own := paced - l
	if own < 0.6*flat {
		return haltAfterVM, fmt.Sprintf("a paced SELECT 1 took %.4f ms of its own (latency %.4f less its schedule lag %.4f), one flat out %.4f: the client and its backend ran on one core when it paced, as they do where idle vCPUs halt (KVM's halt polling window, 200 us)", own, paced, l, flat)
	}
	return 0, fmt.Sprintf("not set: a paced SELECT 1 took %.4f ms of its own (latency %.4f less its schedule lag %.4f), one flat out %.4f: no cheaper, its wake-ups as flat out", own, paced, l, flat)
}

// lagKey prefixes a pass's mean schedule lag of an experiment under -R
// in its row.
const lagKey = "lag "

// stallKey prefixes the SELECT 1 latency tail of a pass (tailOf) in its
// row.
const stallKey = "stalls "

// notAMean reports whether a pass row's entry is not an experiment's mean
// latency (a p99, a stall estimate).
func notAMean(name string) bool {
	return strings.HasPrefix(name, p99Key) || strings.HasPrefix(name, stallKey) || strings.HasPrefix(name, commandPrefix) || strings.HasPrefix(name, lagKey)
}

// commandPrefix prefixes a pass's per-command latency of an experiment
// (commandKey), which is no experiment's mean.
const commandPrefix = "command "

// commandKey is the key of experiment name's i-th command's latency in a
// pass's row.
func commandKey(name string, i int) string { return commandPrefix + name + " " + strconv.Itoa(i) }

// matchCommands pairs the measured commands with the simulated ones of
// the same line, in the measured order; a command the simulation does not
// report is left out.
func matchCommands(measured []CommandTime, sim []CommandFit) []CommandFit {
	var out []CommandFit
	for _, m := range measured {
		for _, s := range sim {
			if s.Line == m.Line {
				out = append(out, CommandFit{Line: m.Line, MeasuredMS: m.MS, SimMS: s.SimMS})
				break
			}
		}
	}
	return out
}

func slowestOrFastest(passes []map[string]float64) (int, float64) {
	meds := map[string]float64{}
	for name := range passes[0] {
		if notAMean(name) {
			continue // a pass's speed is its means'
		}
		var v []float64
		for _, row := range passes {
			if ms, ok := row[name]; ok {
				v = append(v, ms)
			}
		}
		meds[name] = median(v)
	}
	worst, worstSpeed := 0, 1.0
	for i, row := range passes {
		var ratios []float64
		for name, ms := range row {
			if m := meds[name]; m > 0 && !notAMean(name) {
				ratios = append(ratios, ms/m)
			}
		}
		if len(ratios) == 0 {
			continue
		}
		// median sorts, so the map's order does not reach the result.
		if sp := median(ratios); math.Abs(sp-1) > math.Abs(worstSpeed-1) {
			worst, worstSpeed = i, sp
		}
	}
	return worst, worstSpeed
}

// relSpread is half the interquartile range over the median (0 for fewer
// than three values).
func relSpread(v []float64) float64 {
	if len(v) < 3 {
		return 0
	}
	m := median(v)
	if m <= 0 {
		return 0
	}
	q1, q3 := quartiles(v)
	return (q3 - q1) / 2 / m
}

// quartiles is the first and third quartile of v (linear interpolation
// between the sorted values; both the median for fewer than three).
func quartiles(v []float64) (q1, q3 float64) {
	if len(v) < 3 {
		m := median(v)
		return m, m
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(f float64) float64 {
		x := f * float64(len(s)-1)
		i := int(x)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (x-float64(i))*(s[i+1]-s[i])
	}
	return q(0.25), q(0.75)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Gain is the all-visible gain of a pair of scans of tables alike but for
// PD_ALL_VISIBLE: 1 - (the all-visible table's scan time) / (the hinted
// one's), as PostgreSQL measured it and as the simulator gives it.
type Gain struct {
	Where                           string
	Measured, Simulated, AtDefaults float64
}

// AllVisibleGains returns the all-visible gain of the warm scans
// (scan-narrow against scan-hinted, in shared buffers) and of the scans
// through the BULKREAD ring (scan-ring against scan-ring-hinted, from the
// OS cache), where both were measured.
func (r *Result) AllVisibleGains() []Gain {
	by := map[string]Residual{}
	for _, x := range r.Residuals {
		by[x.Experiment] = x
	}
	var out []Gain
	for _, p := range allVisiblePairs {
		v, ok1 := by[p[1]]
		h, ok2 := by[p[2]]
		if !ok1 || !ok2 || h.MeasuredMS <= 0 || h.SimMS <= 0 || h.DefaultMS <= 0 {
			continue
		}
		measured := 1 - v.MeasuredMS/h.MeasuredMS
		if r, ok := r.PairedRatio[p[1]]; ok {
			measured = 1 - r
		}
		out = append(out, Gain{Where: p[0], Measured: measured, Simulated: 1 - v.SimMS/h.SimMS, AtDefaults: 1 - v.DefaultMS/h.DefaultMS})
	}
	return out
}

// allVisiblePairs names the pairs of scans of tables alike but for
// PD_ALL_VISIBLE: where, the all-visible table's experiment, the hinted
// one's.
var allVisiblePairs = [][3]string{{"warm", "scan-narrow", "scan-hinted"}, {"through the ring", "scan-ring", "scan-ring-hinted"}}

// pairedRatios returns, for each pair of allVisiblePairs that some pass
// measured both of, the median over those passes of the all-visible scan's
// time over the hinted one's.
func pairedRatios(passes []map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, p := range allVisiblePairs {
		var rs []float64
		for _, row := range passes {
			v, ok1 := row[p[1]]
			h, ok2 := row[p[2]]
			if ok1 && ok2 && h > 0 {
				rs = append(rs, v/h)
			}
		}
		if len(rs) > 0 {
			out[p[1]] = median(rs)
		}
	}
	return out
}
