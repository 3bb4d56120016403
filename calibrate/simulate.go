package calibrate

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// Prices are the costs keys calibration fits, by their YAML names.
// os_read is measured directly (MeasureOSRead) and that measurement is
// its pull's centre, the ring scans fit it as a scan pays it; the client's
// CPU is measured directly (getrusage); the other prices (the clog and
// hint-bit cache prices, locks, buffer_alloc, which the ring scans cannot
// tell from os_read) keep their values: the experiments do not separate
// them (docs/calibration.md).
var Prices = []string{"statement", "client_round_trip", "statement_table", "statement_scan", "statement_update", "buffer_hit", "scan_page", "tuple_deform", "hinted_check",
	"index_level", "tuple_fetch", "index_only_tuple", "tuple_update", "tuple_update_old", "tuple_delete", "index_insert", "wal_record", "commit", "transaction", "context_switch", "row_lock_wait", "cpu_wakeup", "cpu_wakeup_cold", "tuple_cold", "os_read", "tuple_byte", "text_char", "filter_tuple", "filter_reject", "filter_operator", "client_wakeup", "cpu_halt_cold"}

// severalClientPrices are the prices only a several-client experiment
// determines, each with its experiment's name before the client count
// (select-only-4c, update-hot-4c).
var severalClientPrices = []struct{ key, experiment string }{
	{"context_switch", "select-only-"},
	{"row_lock_wait", "update-hot-"},
}

// rateOnlyPrices are the prices only the experiments under -R determine.
var rateOnlyPrices = []struct{ key, experiment string }{
	{"client_wakeup", "select-one-rate"},
	{"cpu_halt_cold", "lookup-rate"},
}

// withoutUnmeasured drops from prices those whose several-client
// experiment was not measured (the server's cores unknown, or the budget
// spent before it): nothing else determines them, so they keep their
// defaults instead of the fit's starting guess (zeroDefaultStart).
func withoutUnmeasured(prices []string, measured map[string]float64) []string {
	return slices.DeleteFunc(slices.Clone(prices), func(key string) bool {
		for _, p := range rateOnlyPrices {
			if p.key == key {
				_, ok := measured[p.experiment]
				return !ok
			}
		}
		for _, p := range severalClientPrices {
			if p.key != key {
				continue
			}
			for name := range measured {
				if rest, ok := strings.CutPrefix(name, p.experiment); ok && strings.HasSuffix(rest, "c") {
					return false
				}
			}
			return true
		}
		return false
	})
}

// costField returns the model.Costs field of a YAML key and how many of
// its units make a nanosecond (1000 for a price held in picoseconds, unit
// duration_ps; 1 for the others).
func costField(c *model.Costs, key string) (reflect.Value, float64) {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name == key {
			if t.Field(i).Tag.Get("unit") == "duration_ps" {
				return v.Field(i), 1000
			}
			return v.Field(i), 1
		}
	}
	panic("calibrate: no costs key " + key)
}

// Price returns a price in ns.
func Price(c model.Costs, key string) float64 {
	f, per := costField(&c, key)
	return float64(f.Int()) / per
}

// SetPrice sets a price in ns, rounded to the field's unit (a whole ns, or
// a whole ps for a price per byte), at least one of it.
func SetPrice(c *model.Costs, key string, ns float64) {
	f, per := costField(c, key)
	f.SetInt(max(1, int64(ns*per+0.5)))
}

// Simulator runs the experiments in the model, on a server like the one
// measured: its version and shared_buffers, its tables at their measured
// sizes.
type Simulator struct {
	Major         string
	SharedBuffers int64
	Plan          *Plan
	// Base is the scenario every experiment starts from (its costs are
	// replaced per run).
	Base model.Costs
	// CPUs is the server's core count when known (a server on this
	// machine, or -cpus), 0 otherwise (the scenario's default).
	CPUs int
	// RemoteClient: pgbench runs on another machine than the server.
	RemoteClient bool
	// Prices are the prices to fit (nil: all of Prices).
	Prices []string
	// Spread is each experiment's spread over the passes (Result.Spread;
	// nil: none known): Fit weighs an experiment whose passes spread by
	// more than a quiet machine's down (fitWeight).
	Spread map[string]float64
	// from, when set, is where Fit starts (Base stays the prices' pull
	// centre).
	from *model.Costs
}

// prices returns the prices the fit moves.
func (sm *Simulator) prices() []string {
	if sm.Prices != nil {
		return sm.Prices
	}
	return Prices
}

// scenario builds the simulated experiment.
func (sm *Simulator) scenario(e Experiment, costs model.Costs) (model.Scenario, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "name: calibrate-%s\nseed: 1\n", e.Name)
	fmt.Fprintf(&b, "server:\n  version: %q\n  shared_buffers: %dkB\n  synchronous_commit: %v\n  autovacuum: false\n", sm.Major, sm.SharedBuffers/1024, e.SyncCommit)
	if sm.CPUs > 0 {
		fmt.Fprintf(&b, "  cpus: %d\n", sm.CPUs)
	}
	b.WriteString("os:\n  page_cache: 16GB\n")
	if e.Scale == 0 && len(e.Tables) == 0 {
		b.WriteString("tables: {pgbench: {scale: 0}}\n")
	} else {
		b.WriteString("tables:\n")
	}
	if e.Scale > 0 {
		fmt.Fprintf(&b, "  pgbench: {scale: %d}\n", e.Scale)
	}
	if len(e.Tables) > 0 {
		b.WriteString("  relations:\n")
		for _, name := range e.Tables {
			t := sm.Plan.Table(name)
			if t == nil {
				return model.Scenario{}, fmt.Errorf("experiment %s: no table %s", e.Name, name)
			}
			switch {
			case t.TextPad > 0 && t.State != "bulk":
				// id, and the text's 1-byte varlena header and characters
				fmt.Fprintf(&b, "    - {name: %s, rows: %d, row_width: %d, state: %s, index: %v}\n", t.Name, t.Rows, 4+1+t.TextPad, t.State, !t.NoIndex)
			case t.State == "bulk" && t.TextPad > 0:
				// id, and the text's 1-byte varlena header and characters
				fmt.Fprintf(&b, "    - {name: %s, rows: 0, row_width: %d}\n", t.Name, 4+1+t.TextPad)
			case t.State == "bulk":
				fmt.Fprintf(&b, "    - {name: %s, rows: 0, row_width: 8}\n", t.Name)
			case t.Rows == 0:
				fmt.Fprintf(&b, "    - {name: %s, rows: 0, row_width: 12, index: true}\n", t.Name)
			default:
				perPage := (t.Rows + max(t.Pages, 1) - 1) / max(t.Pages, 1)
				fmt.Fprintf(&b, "    - {name: %s, rows: %d, rows_per_page: %d, state: %s, index: %v}\n", t.Name, t.Rows, perPage, t.State, !t.NoIndex)
			}
		}
	}
	script := func() string {
		if e.Builtin != "" {
			return "{builtin: " + e.Builtin + "}"
		}
		return "{text: " + strconv.Quote(e.Script) + "}"
	}()
	// PostgreSQL's tables were just built, so their pages are in shared
	// buffers and the OS cache; the simulated run starts so too: a prewarm
	// replays the script's page references (without I/O or changes) until
	// about every page was touched (a keyed script draws each of n pages
	// once in about n ln n tries; 10 n is ample for these sizes).
	pages := int64(0)
	for _, name := range e.Tables {
		pages += sm.Plan.Table(name).Pages
	}
	if e.Scale > 0 {
		pages += int64(e.Scale) * 1640 // pgbench_accounts per scale (61 rows a page)
	}
	prewarm := min(10*pages, 200000)
	if strings.Contains(e.Script, "count(*)") {
		prewarm = 2 // a scan touches every page
	}
	fmt.Fprintf(&b, "workload:\n  prewarm: %d\n", prewarm)
	if sm.RemoteClient {
		b.WriteString("  client_host: remote\n") // pgbench's CPU is not the server's
	}
	b.WriteString("  phases:\n")
	// A table only the OS cache holds (Table.OutOfBuffers): the prewarm
	// put it in shared buffers too, and the restart empties them.
	restart := false
	for _, name := range e.Tables {
		restart = restart || sm.Plan.Table(name).OutOfBuffers
	}
	// Under -R both phases are paced, as pgbench paces its warm-up
	// transactions (one run).
	rate := ""
	if e.Rate > 0 {
		rate = fmt.Sprintf("rate: %g, ", e.Rate)
	}
	if e.Warmup > 0 {
		fmt.Fprintf(&b, "    - {name: warmup, warmup: true, restart: %v, clients: %d, threads: %d, %stransactions: %d, script: %s}\n", restart, max(e.Clients, 1), max(e.Threads, 1), rate, e.Warmup, script)
	} else if restart {
		return model.Scenario{}, fmt.Errorf("experiment %s: a table out of shared buffers needs a warm-up transaction", e.Name)
	}
	fmt.Fprintf(&b, "    - {name: run, clients: %d, threads: %d, %stransactions: %d, script: %s}\n", max(e.Clients, 1), max(e.Threads, 1), rate, e.Transactions, script)
	sc, err := configs.Parse("calibrate-"+e.Name+".yaml", []byte(b.String()))
	if err != nil {
		return model.Scenario{}, fmt.Errorf("experiment %s: the simulated scenario: %w", e.Name, err)
	}
	sc.Costs = costs
	return sc, nil
}

// Latency simulates an experiment with the given prices and returns its
// mean transaction latency (ms), as pgbench's latency average.
func (sm *Simulator) Latency(e Experiment, costs model.Costs) (float64, error) {
	l, _, err := sm.latencyP99(e, costs)
	return l, err
}

// latencyP99 is Latency with the 99th percentile latency (ms).
func (sm *Simulator) latencyP99(e Experiment, costs model.Costs) (float64, float64, error) {
	run, err := sm.simulate(e, costs)
	return run.mean, run.p99, err
}

// simRun is a simulated experiment's mean and 99th percentile latency
// (ms), and for one that reports them (perCommand) its commands' average
// latencies, \set commands left out, as pgbench -r prints them.
type simRun struct {
	mean, p99, lag float64
	commands       []CommandTime
}

// simulate runs experiment e with the given prices.
func (sm *Simulator) simulate(e Experiment, costs model.Costs) (simRun, error) {
	sc, err := sm.scenario(e, costs)
	if err != nil {
		return simRun{}, err
	}
	// Reporting each command changes no timing of the run.
	sc.Output.ReportPerCommand = e.perCommand()
	res, err := model.Run(sc)
	if err != nil {
		return simRun{}, fmt.Errorf("experiment %s: simulating: %w", e.Name, err)
	}
	run := simRun{mean: res.Totals.LatencyMS.Mean, p99: res.Totals.LatencyMS.P99, lag: res.Totals.LagMS.Mean}
	if len(res.Totals.Statements) > 0 {
		for _, st := range res.Totals.Statements[0] {
			if !strings.HasPrefix(st.Command, `\`) {
				run.commands = append(run.commands, CommandTime{Line: st.Command, MS: st.LatencyMS})
			}
		}
	}
	return run, nil
}

// cpuPerTxn simulates an experiment and returns the CPU time (ns) its
// transactions took each, on every core (the backend's and pgbench's).
func (sm *Simulator) cpuPerTxn(e Experiment, costs model.Costs) (float64, error) {
	sc, err := sm.scenario(e, costs)
	if err != nil {
		return 0, err
	}
	res, err := model.Run(sc)
	if err != nil {
		return 0, fmt.Errorf("experiment %s: simulating: %w", e.Name, err)
	}
	if res.Totals.Transactions == 0 {
		return 0, fmt.Errorf("experiment %s: no simulated transaction", e.Name)
	}
	return res.Totals.CPU.BusySeconds * 1e9 / float64(res.Totals.Transactions), nil
}
