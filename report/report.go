// Package report writes a run's outputs (docs/metrics.md): DIR/summary.json,
// DIR/timeseries.csv, DIR/report.html and, when asked, DIR/pgbench_log, all
// at once into a fresh directory that replaces DIR only when everything is
// written (a failed run leaves no partial DIR), plus the pgbench-style
// summary on stdout. The CLI and the sweep runner both use it; so can a
// user's Go program.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/model"
)

// Files are a run's output files, in memory.
type Files map[string][]byte

// Render produces every output file of a run. sc is the scenario that ran;
// its fully defaulted configuration goes into summary.json.
func Render(sc model.Scenario, res *model.Result) (Files, error) {
	cfg, err := ConfigValue(sc)
	if err != nil {
		return nil, err
	}
	res.Config = cfg
	summary, err := SummaryJSON(res)
	if err != nil {
		return nil, err
	}
	html, err := HTML(sc, res)
	if err != nil {
		return nil, err
	}
	f := Files{
		"summary.json":   summary,
		"timeseries.csv": TimeseriesCSV(res.Series),
		"report.html":    html,
	}
	for _, l := range res.PGBenchLogs {
		f[l.Name] = l.Data
	}
	return f, nil
}

// ConfigValue returns the scenario's fully defaulted configuration as a
// generic value for JSON. JSON is YAML, so `jq .config summary.json >
// x.yaml` gives a scenario file that repeats the run.
func ConfigValue(sc model.Scenario) (any, error) {
	text, err := configs.Encode(sc)
	if err != nil {
		return nil, err
	}
	var v any
	if err := yaml.Unmarshal(text, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// SummaryJSON encodes the result (indented, trailing newline).
func SummaryJSON(res *model.Result) ([]byte, error) {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// TimeseriesCSV renders the time series with a header row.
func TimeseriesCSV(s *model.Series) []byte {
	var b bytes.Buffer
	b.WriteString("time_s,phase")
	for _, c := range s.Columns {
		b.WriteByte(',')
		b.WriteString(c)
	}
	b.WriteByte('\n')
	for i, row := range s.Rows {
		b.WriteString(strconv.FormatFloat(s.TimeS[i], 'f', -1, 64))
		b.WriteByte(',')
		b.WriteString(csvField(s.Phase[i]))
		for _, v := range row {
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// WriteDir writes files into dir atomically: everything goes into a fresh
// sibling directory first, which then replaces dir. On error nothing of the
// new run is left behind, and an existing dir is untouched. dir may only
// be new, empty, or an earlier run output holding nothing else
// (outdir.Check); anything else is refused with an *outdir.Error before
// anything is written. The directory gets outdir's marker file.
func WriteDir(dir string, files Files) error {
	dir = filepath.Clean(dir)
	if err := outdir.Check(dir, outdir.Run); err != nil {
		return err
	}
	for n := range files {
		if !outdir.IsRunFile(n) && n != outdir.MarkerFile {
			// outdir.Check would refuse to replace a directory holding
			// it: every file a run writes must be registered there.
			return fmt.Errorf("report.WriteDir: %q is not a run output file (outdir.Files)", n)
		}
	}
	files = maps.Clone(files)
	files[outdir.MarkerFile] = outdir.Marker(outdir.Run)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(tmp, n), files[n], 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	var old string
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing %s: %v", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	ok = true
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// PrintSummary writes the run's summary: pgbench's report as pgbench of
// server.version prints it (pgbench.c printVersion and printResults, 14 and
// 15-17 checked line by line; before 14 as 14, without the version line),
// then pgbufsim's own lines: latency percentiles, buffers, the page cache,
// the phases, the policy and the seed.
func PrintSummary(w io.Writer, sc model.Scenario, res *model.Result, outDir string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	v, _ := model.Version(sc.Server.Version)
	printPgbenchResults(p, v, sc, res)
	t := res.Totals
	p("latency percentiles: p50 %.3f, p90 %.3f, p95 %.3f, p99 %.3f, p99.9 %.3f, max %.3f ms",
		t.LatencyMS.P50, t.LatencyMS.P90, t.LatencyMS.P95, t.LatencyMS.P99, t.LatencyMS.P999, t.LatencyMS.Max)
	b := t.Buffers
	p("shared buffers: hit ratio %.4f (%d hits, %d reads), buffers_alloc %d, written by backends %d, bgwriter %d, checkpointer %d",
		b.HitRatio, b.Hits, b.Reads, b.Alloc, b.Backend, b.Clean, b.Checkpoint)
	p("os page cache: hit ratio %.4f; data disk utilisation %.3f, reads p99 %.3f ms", t.OSCache.HitRatio, t.Disk.Utilisation, t.Disk.ReadMS.P99)
	if len(res.Phases) > 1 {
		p("phases:")
		for _, ph := range res.Phases {
			tag := ""
			if ph.Warmup {
				tag = " (warmup, not in totals)"
			}
			p("  %-16s %8.1f s  %9d txns  tps %10.1f  latency avg %8.3f ms  p99 %8.3f ms  hit ratio %.4f%s",
				ph.Name, ph.ElapsedS, ph.Transactions, ph.TPS, ph.LatencyMS.Mean, ph.LatencyMS.P99, ph.Buffers.HitRatio, tag)
		}
	}
	p("policy: %s", res.Policy)
	p("seed: %d", res.Seed)
	if outDir != "" {
		p("outputs: %s, %s, %s", filepath.Join(outDir, "summary.json"), filepath.Join(outDir, "timeseries.csv"), filepath.Join(outDir, "report.html"))
	}
}

// printPgbenchResults prints pgbench's report of the measured phases
// (pgbench.c printResults). A run of one measured phase is one pgbench run
// and reads exactly as pgbench's; over several, the counts are their
// totals.
func printPgbenchResults(p func(string, ...any), v int, sc model.Scenario, res *model.Result) {
	if v >= 1400 {
		p("pgbench (%s (simulated by pgbufsim))", sc.Server.Version)
	}
	for _, h := range res.Header {
		p("%s", h)
	}
	t := res.Totals
	var measured []model.PhaseResult
	for _, ph := range res.Phases {
		if !ph.Warmup {
			measured = append(measured, ph)
		}
	}
	var cfg model.Phase
	if len(measured) == 1 {
		cfg = sc.Workload.Phases[phaseIndex(sc, measured[0].Name)]
	}
	throttled, limit := anyRate(sc), maxLatencyLimit(sc)
	// pgbench counts failed and skipped transactions apart from cnt; up
	// to 14 its cnt included the skipped ones.
	total := t.Transactions + t.Skipped + t.Failed
	pcSpace := "%%" // "(12.345%)"; 14 printed "(12.345 %)" in two lines
	if v < 1500 {
		pcSpace = " %%"
	}
	switch {
	case len(measured) == 1 && cfg.Transactions > 0:
		p("number of transactions per client: %d", cfg.Transactions)
		p("number of transactions actually processed: %d/%d", t.Transactions, cfg.Transactions*int64(cfg.Clients))
	case len(measured) == 1:
		p("duration: %d s", cfg.Duration/1e9)
		p("number of transactions actually processed: %d", t.Transactions)
	default:
		p("number of transactions actually processed: %d", t.Transactions)
	}
	if v >= 1500 {
		p("number of failed transactions: %d (%.3f%%)", t.Failed, pct(t.Failed, total))
	}
	if t.Transactions+t.Skipped <= 0 {
		return // pgbench: the remaining statistics are meaningless
	}
	if throttled && limit > 0 {
		base := total
		if v < 1500 {
			base = t.Transactions + t.Skipped
		}
		p("number of transactions skipped: %d (%.3f"+pcSpace+")", t.Skipped, pct(t.Skipped, base))
	}
	if limit > 0 {
		p("number of transactions above the %.1f ms latency limit: %d/%d (%.3f"+pcSpace+")", float64(limit)/1e6, t.Late, t.Transactions, pct(t.Late, t.Transactions))
	}
	if throttled || limit > 0 || len(measured) != 1 {
		p("latency average = %.3f ms", t.LatencyMS.Mean)
		p("latency stddev = %.3f ms", t.LatencyMS.Stddev)
	} else {
		// Without -R, -L or -P pgbench measures no latencies: it divides
		// the run time by the transactions per client.
		avg := 0.0
		if total > 0 {
			avg = measured[0].ElapsedS * 1e3 * float64(cfg.Clients) / float64(total)
		}
		incl := ""
		if v >= 1500 && t.Failed > 0 {
			incl = " (including failures)"
		}
		p("latency average = %.3f ms%s", avg, incl)
	}
	if throttled {
		p("rate limit schedule lag: avg %.3f (max %.3f) ms", t.LagMS.Mean, t.LagMS.Max)
	}
	p("initial connection time = 0.000 ms")
	p("tps = %f (without initial connection time)", t.TPS)
	statements := func(i int) {
		if i >= len(t.Statements) {
			return
		}
		prefix := ""
		if len(t.Scripts) > 0 {
			prefix = " - "
		}
		if v >= 1500 {
			p("%sstatement latencies in milliseconds and failures:", prefix)
		} else {
			p("%sstatement latencies in milliseconds:", prefix)
		}
		for _, st := range t.Statements[i] {
			if v >= 1500 {
				p("   %11.3f  %10d  %s", st.LatencyMS, st.Failures, st.Command)
			} else {
				p("   %11.3f  %s", st.LatencyMS, st.Command)
			}
		}
	}
	if len(t.Scripts) == 0 {
		statements(0)
	}
	for i, sr := range t.Scripts {
		stotal := sr.Transactions + sr.Skipped + sr.Failed
		p("SQL script %d: %s", i+1, sr.Name)
		p(" - weight: %d (targets %.1f%% of total)", sr.Weight, 100*sr.TargetShare)
		if v >= 1500 {
			p(" - %d transactions (%.1f%% of total, tps = %f)", sr.Transactions, 100*sr.Share, sr.TPS)
		} else {
			// Up to 14 a script's count included its skipped transactions.
			n, all := sr.Transactions+sr.Skipped, t.Transactions+t.Skipped
			p(" - %d transactions (%.1f%% of total, tps = %f)", n, pct(n, all), sr.TPS)
		}
		if v >= 1500 {
			p(" - number of failed transactions: %d (%.3f%%)", sr.Failed, pct(sr.Failed, stotal))
		}
		if throttled && limit > 0 && stotal > 0 {
			p(" - number of transactions skipped: %d (%.3f%%)", sr.Skipped, pct(sr.Skipped, stotal))
		}
		if sr.Transactions > 0 {
			p(" - latency average = %.3f ms", sr.LatencyMS.Mean)
			p(" - latency stddev = %.3f ms", sr.LatencyMS.Stddev)
		}
		statements(i)
	}
}

func phaseIndex(sc model.Scenario, name string) int {
	for i, ph := range sc.Workload.Phases {
		if ph.Name == name {
			return i
		}
	}
	return 0
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func maxLatencyLimit(sc model.Scenario) int64 {
	var m int64
	for _, ph := range sc.Workload.Phases {
		if !ph.Warmup {
			m = max(m, ph.LatencyLimit)
		}
	}
	return m
}

func anyRate(sc model.Scenario) bool {
	for _, ph := range sc.Workload.Phases {
		if !ph.Warmup && ph.Rate > 0 {
			return true
		}
	}
	return false
}
