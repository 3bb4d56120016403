package calibrate

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// CostsYAML is the costs file: a calibration: record (the server, its
// settings, when, the experiments with their measured and simulated
// latencies, the storage) and the costs: block with every fitted price, each
// with its default and what determined it. configs.ParseCostsFile reads it
// back (a scenario's costs_file: or simulate -costs).
func (r *Result) CostsYAML() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by simulate calibrate (docs/calibration.md). Use it with\n")
	fmt.Fprintf(&b, "#   simulate -config x.yaml -costs THIS_FILE   or   costs_file: THIS_FILE   in a scenario.\n")
	fmt.Fprintf(&b, "# The scenario's own costs: keys win over these.\n")
	b.WriteString("calibration:\n")
	fmt.Fprintf(&b, "  server: %q\n", "PostgreSQL "+r.Server)
	fmt.Fprintf(&b, "  version: %q          # use server.version: %q in scenarios priced by this file\n", r.Major, r.Major)
	fmt.Fprintf(&b, "  at: %s\n", r.At.Format("2006-01-02T15:04:05Z"))
	fmt.Fprintf(&b, "  passes: %d                # each experiment measured this many times; the median is fitted; spread: half the interquartile range\n", r.Passes)
	b.WriteString("  settings:\n")
	keys := make([]string, 0, len(r.Settings))
	for k := range r.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    %s: %q\n", k, r.Settings[k])
	}
	b.WriteString("  experiments:              # latency average per transaction, one client\n")
	for _, x := range r.Residuals {
		kind := "fitted"
		if x.HeldOut {
			kind = "held out"
		}
		fmt.Fprintf(&b, "    - {name: %s, %s: true, measured_ms: %.4f, spread: %q, simulated_ms: %.4f, error: %q, at_defaults_ms: %.4f}\n",
			x.Experiment, strings.ReplaceAll(kind, " ", "_"), x.MeasuredMS, fmt.Sprintf("%.1f%%", 100*x.Spread), x.SimMS, fmt.Sprintf("%+.1f%%", 100*x.Error()), x.DefaultMS)
	}
	var p99 []string
	for _, x := range r.Residuals {
		if x.MeasuredP99 > 0 {
			p99 = append(p99, fmt.Sprintf("    - {experiment: %s, measured_ms: %.4f, simulated_ms: %.4f, middle_half_ms: [%.4f, %.4f]}\n", x.Experiment, x.MeasuredP99, x.SimP99, x.P99Quartiles[0], x.P99Quartiles[1]))
		}
	}
	if len(p99) > 0 {
		b.WriteString("  p99:    # the held-out pgbench runs' 99th percentile latency (the median over the passes, and the span of their middle half): reported, not fitted\n")
		for _, l := range p99 {
			b.WriteString(l)
		}
	}
	var lags []string
	for _, x := range r.Residuals {
		if x.MeasuredLag > 0 {
			lags = append(lags, fmt.Sprintf("    - {experiment: %s, measured_ms: %.4f, simulated_ms: %.4f}\n", x.Experiment, x.MeasuredLag, x.SimLag))
		}
	}
	if len(lags) > 0 {
		fmt.Fprintf(&b, "  schedule_lag:    # the experiments under pgbench -R %g: mean schedule lag (the median over the passes), which their latency above includes, and the simulated one: reported, not fitted apart\n", rateExperimentTPS)
		for _, l := range lags {
			b.WriteString(l)
		}
	}
	var cmds []string
	for _, x := range r.Residuals {
		for _, c := range x.Commands {
			cmds = append(cmds, fmt.Sprintf("    - {experiment: %s, command: %q, measured_ms: %.4f, simulated_ms: %.4f}\n", x.Experiment, c.Line, c.MeasuredMS, c.SimMS))
		}
	}
	if len(cmds) > 0 {
		b.WriteString("  commands:    # the held-out tpcb-like runs' per-command latencies (pgbench -r, the median over the passes; its averages include the warm-up transactions) and the simulated ones: reported, not fitted\n")
		for _, l := range cmds {
			b.WriteString(l)
		}
	}
	if gains := r.AllVisibleGains(); len(gains) > 0 {
		b.WriteString("  all_visible_gain:    # 1 - all-visible scan / hinted scan\n")
		for _, g := range gains {
			fmt.Fprintf(&b, "    - {where: %q, measured: %q, simulated: %q, at_defaults: %q}\n", g.Where, fmt.Sprintf("%.1f%%", 100*g.Measured), fmt.Sprintf("%.1f%%", 100*g.Simulated), fmt.Sprintf("%.1f%%", 100*g.AtDefaults))
		}
	}
	if len(r.Remeasured) > 0 {
		fmt.Fprintf(&b, "  passes_measured_again:    # passes whose times were this far from the others' (over %.0f %%), replaced by new ones\n", 100*passTolerance)
		for _, v := range r.Remeasured {
			fmt.Fprintf(&b, "    - %q\n", fmt.Sprintf("%+.0f%%", 100*(v-1)))
		}
	}
	if r.ExplainProbeWhy != "" {
		fmt.Fprintf(&b, "  explain_probe: {not_measured: %q}\n", r.ExplainProbeWhy)
	} else if pr := r.ExplainProbe; pr != (ExplainProbe{}) {
		// Not a price: the simulator's execution_ms is the statement's
		// own time, which EXPLAIN ANALYZE's Execution Time exceeds by
		// its node calls times one of these (docs/calibration.md).
		fmt.Fprintf(&b, "  explain_probe:    # EXPLAIN ANALYZE's own cost per plan-node call (a row a node returns), measured directly: a server's Execution Time is the statement's plus its calls times this\n")
		fmt.Fprintf(&b, "    analyze_ns: %.1f   # (ANALYZE, TIMING OFF)\n", pr.Analyze)
		fmt.Fprintf(&b, "    buffers_ns: %.1f   # (ANALYZE, BUFFERS, WAL, TIMING OFF): the differential test's\n", pr.Buffers)
		fmt.Fprintf(&b, "    timing_ns: %.1f    # (ANALYZE, BUFFERS): TIMING on, the default\n", pr.Timing)
	}
	b.WriteString("  storage:\n")
	fmt.Fprintf(&b, "    wal_flush_ms: %.3f       # a commit's WAL flush (synchronous_commit on minus off)\n", r.Storage.WALFlushMS)
	if r.Storage.ColdSeqReadUS > 0 {
		fmt.Fprintf(&b, "    cold_sequential_read_us: %.1f   # a page of a sequential scan from the device\n", r.Storage.ColdSeqReadUS)
		fmt.Fprintf(&b, "    cold_random_read_ms: %.3f       # a random lookup's extra latency from the device\n", r.Storage.ColdRandomReadMS)
	}
	fmt.Fprintf(&b, "    cold_reads: %q\n", r.Storage.ColdRead)
	if len(r.Skipped) > 0 {
		b.WriteString("  skipped:\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "    - %q\n", s)
		}
	}
	b.WriteString("costs:\n")
	osReadFitted := false
	for _, f := range r.Fitted {
		osReadFitted = osReadFitted || f.Key == "os_read"
	}
	if !osReadFitted {
		fmt.Fprintf(&b, "  os_read: %s   # default %s; %s\n", nsText(Price(r.Costs, "os_read")), nsText(Price(model.DefaultCosts(), "os_read")), r.OSRead)
	}
	fmt.Fprintf(&b, "  client: %s   # default %s; %s\n", nsText(Price(r.Costs, "client")), nsText(Price(model.DefaultCosts(), "client")), r.Client)
	if r.FirstRuns != "" {
		for _, f := range firstRunPrices {
			how := r.FirstRuns
			if strings.HasPrefix(how, "measured") {
				how = "measured directly: " + f.how + " (EXPLAIN's Execution Time)"
			}
			fmt.Fprintf(&b, "  %s: %s   # default %s; %s\n", f.key, nsText(Price(r.Costs, f.key)), nsText(Price(model.DefaultCosts(), f.key)), how)
		}
	}
	// A buffer's first use since the server started needs a restart to
	// measure, which calibration does only when told how (-restart).
	switch {
	case strings.HasPrefix(r.FirstUse, "measured"):
		fmt.Fprintf(&b, "  buffer_first_use: %s   # default %s; %s\n", nsText(Price(r.Costs, "buffer_first_use")), nsText(Price(model.DefaultCosts(), "buffer_first_use")), r.FirstUse)
	case r.FirstUse != "":
		fmt.Fprintf(&b, "  # buffer_first_use: %s; for scenarios that restart, measure it as docs/model.md (\"A backend\") says and set it here\n", r.FirstUse)
	default:
		b.WriteString("  # buffer_first_use: not measured (it needs a restart of the server: simulate calibrate -restart COMMAND); for scenarios that restart, measure it so or as docs/model.md (\"A backend\") says and set it here\n")
	}
	if h := Price(r.Costs, "cpu_halt_after"); h > 0 {
		fmt.Fprintf(&b, "  cpu_halt_after: %s   # default 0 (off); %s\n", nsText(h), r.Halting)
	} else if r.Halting != "" {
		fmt.Fprintf(&b, "  # cpu_halt_after: %s\n", r.Halting)
	}
	if sl := Price(r.Costs, "cpu_slice"); sl > 0 {
		fmt.Fprintf(&b, "  cpu_slice: %s   # default 0 (bursts in arrival order); %s\n", nsText(sl), r.Scheduler)
		if r.ClientGroup != "" {
			fmt.Fprintf(&b, "  cpu_client_group: %v   # default false; %s\n", r.Costs.CPUClientGroup, r.ClientGroup)
		}
	} else if r.Scheduler != "" {
		fmt.Fprintf(&b, "  # cpu_slice: %s\n", r.Scheduler)
	}
	if r.RoundTrip != "" {
		fmt.Fprintf(&b, "  client_round_trip: %s   # default %s; %s\n", nsText(Price(r.Costs, "client_round_trip")), nsText(Price(model.DefaultCosts(), "client_round_trip")), r.RoundTrip)
	}
	if r.Stalls.PerTxn > 0 {
		fmt.Fprintf(&b, "  stall_interval: %s   # default 0 (no stalls); %s\n", nsText(Price(r.Costs, "stall_interval")), r.Stalls.Text())
		fmt.Fprintf(&b, "  stall: %s   # default 0; a stall's mean length, from the same tail\n", nsText(Price(r.Costs, "stall")))
	}
	for _, f := range r.Fitted {
		by := "no experiment: kept near its default"
		if len(f.DeterminedBy) > 0 {
			by = "from " + strings.Join(f.DeterminedBy, ", ")
		}
		if f.Key == "os_read" {
			by += "; the pull's centre " + r.OSRead
		}
		fmt.Fprintf(&b, "  %s: %s   # default %s; %s\n", f.Key, nsText(f.Value), nsText(Price(model.DefaultCosts(), f.Key)), by)
	}
	out := []byte(b.String())
	// What is written must load back as it is meant.
	costs, err := configs.ParseCostsFile("costs.yaml", out)
	if err != nil {
		return nil, fmt.Errorf("calibrate: the costs file does not load back: %v", err)
	}
	if costs.CPUClientGroup != r.Costs.CPUClientGroup {
		return nil, fmt.Errorf("calibrate: cpu_client_group loads back as %v, not %v", costs.CPUClientGroup, r.Costs.CPUClientGroup)
	}
	priced := []string{"os_read", "client", "buffer_first_use", "client_round_trip", "stall_interval", "stall", "cpu_halt_after", "cpu_slice"}
	for _, f := range firstRunPrices {
		priced = append(priced, f.key)
	}
	for _, f := range r.Fitted {
		priced = append(priced, f.Key)
	}
	for _, k := range priced {
		if got, want := Price(costs, k), Price(r.Costs, k); got != want {
			return nil, fmt.Errorf("calibrate: %s loads back as %v ns, not %v", k, got, want)
		}
	}
	return out, nil
}

// ReadExplainProbe reads a costs file's explain_probe record
// (Result.ExplainProbe); ok is false when it has none or says it was not
// measured.
func ReadExplainProbe(name string, data []byte) (pr ExplainProbe, ok bool, err error) {
	var doc struct {
		Calibration struct {
			ExplainProbe struct {
				Analyze *float64 `yaml:"analyze_ns"`
				Buffers *float64 `yaml:"buffers_ns"`
				Timing  *float64 `yaml:"timing_ns"`
			} `yaml:"explain_probe"`
		} `yaml:"calibration"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return ExplainProbe{}, false, fmt.Errorf("%s: %v", name, err)
	}
	e := doc.Calibration.ExplainProbe
	if e.Analyze == nil || e.Buffers == nil || e.Timing == nil {
		return ExplainProbe{}, false, nil
	}
	return ExplainProbe{Analyze: *e.Analyze, Buffers: *e.Buffers, Timing: *e.Timing}, true, nil
}

// firstRunPrices are the prices of a new process's first runs, which
// calibrate measures directly (Plan.MeasureFirstRuns), and how.
var firstRunPrices = []struct{ key, how string }{
	{"executor_first_run", "a new connection's first SELECT 1 against its second"},
	{"plan_first_run", "its first lookup by key (one plan node) against a lookup of a far key after it"},
	{"buffer_map_fault", "its first warm count(*) of cal_medium against the median of its next three, less two plan nodes' plan_first_run, per 64 kB of buffers read"},
}
