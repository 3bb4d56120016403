package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/report"
)

func quick(t *testing.T, overrides ...string) (model.Scenario, report.Files) {
	t.Helper()
	sc, res := quickRun(t, append([]string{"workload.phases.warmup.duration=2s", "workload.phases.run.duration=5s"}, overrides...)...)
	files, err := report.Render(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	return sc, files
}

// quickRun runs the quickstart scenario with overrides.
func quickRun(t *testing.T, overrides ...string) (model.Scenario, *model.Result) {
	t.Helper()
	sc, err := configs.Load("../configs/quickstart.yaml", overrides...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return sc, res
}

// Same configuration and seed: byte-identical outputs (docs/metrics.md).
func TestOutputsAreDeterministic(t *testing.T) {
	_, a := quick(t)
	_, b := quick(t)
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two identical runs", name)
		}
	}
	_, c := quick(t, "seed=2")
	if bytes.Equal(a["summary.json"], c["summary.json"]) {
		t.Error("a different seed gave the same summary")
	}
}

// summary.json carries the fully defaulted configuration, which loads back
// (JSON is YAML) and repeats the run exactly.
func TestSummaryConfigRepeatsTheRun(t *testing.T) {
	_, files := quick(t)
	var doc struct {
		Config any `json:"config"`
		Totals struct {
			Transactions int64 `json:"transactions"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(files["summary.json"], &doc); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(doc.Config)
	sc, err := configs.Parse("from-summary.yaml", cfg)
	if err != nil {
		t.Fatalf("the config block does not load: %v\n%s", err, cfg)
	}
	res, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.Transactions != doc.Totals.Transactions {
		t.Errorf("repeating from the summary's config: %d transactions, originally %d", res.Totals.Transactions, doc.Totals.Transactions)
	}
}

// report.html is one self-contained page: no network reference at all.
func TestReportIsSelfContained(t *testing.T) {
	_, files := quick(t)
	html := string(files["report.html"])
	for _, bad := range []string{`<script src=`, `<link `, `src="http`, `href="http`, `src="//`} {
		if strings.Contains(html, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	for _, id := range []string{"latency", "latency_cdf", "tps", "buffers", "writers", "dirty", "device", "usage", "clog", "hints"} {
		if !strings.Contains(html, `id="`+id+`"`) {
			t.Errorf("report.html has no chart %q", id)
		}
	}
	csv := string(files["timeseries.csv"])
	if !strings.HasPrefix(csv, "time_s,phase,tps,") || strings.Count(csv, "\n") < 6 {
		t.Errorf("timeseries.csv looks wrong:\n%.300s", csv)
	}
}

// WriteDir replaces the directory only when everything is written.
func TestWriteDirIsAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := report.WriteDir(dir, report.Files{"pgbench_log": []byte("1")}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteDir(dir, report.Files{"summary.json": []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pgbench_log")); !os.IsNotExist(err) {
		t.Error("the old directory's file survived a replacement")
	}
	// A file name that cannot be created fails without touching dir.
	if err := report.WriteDir(dir, report.Files{"no/such/sub": []byte("x")}); err == nil {
		t.Fatal("bad file name accepted")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "summary.json")); err != nil || string(data) != "2" {
		t.Errorf("a failed write damaged the previous outputs: %q %v", data, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("leftovers next to the output directory: %d entries", len(entries))
	}
}

// A weighted mix gets pgbench's per-script sections in the text summary
// and a per-script table in report.html; one script gets neither.
func TestMixIsBrokenDownPerScript(t *testing.T) {
	mix := "workload.phases.run.scripts=[{builtin: tpcb-like, weight: 3}, {builtin: select-only}]"
	sc, files := quick(t, "workload.phases.run.script.builtin=", mix)
	if !strings.Contains(string(files["report.html"]), "Scripts of the mix") {
		t.Error("report.html has no per-script table for a mix")
	}
	res, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	report.PrintSummary(&out, sc, res, "")
	for _, want := range []string{"transaction type: multiple scripts", "SQL script 1: <builtin: TPC-B (sort of)>", " - weight: 3 (targets 75.0% of total)", "SQL script 2: <builtin: select only>", " - weight: 1 (targets 25.0% of total)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	_, plain := quick(t)
	if strings.Contains(string(plain["report.html"]), "Scripts of the mix") {
		t.Error("report.html shows a mix table for one script")
	}
}

// The summary's pgbench part follows pgbench.c printResults of the
// version: 14 has no version-15 lines (tries, failures) and writes its
// percentages "(x %)"; 15 on prints them; before 14 there is no version
// line; without -R, -L or -P only a latency average from the run time.
func TestSummaryFollowsTheVersion(t *testing.T) {
	summary := func(overrides ...string) string {
		sc, res := quickRun(t, append([]string{"workload.phases.warmup.duration=1s", "workload.phases.run.duration=2s"}, overrides...)...)
		var b bytes.Buffer
		report.PrintSummary(&b, sc, res, "")
		return b.String()
	}
	limited := []string{"workload.phases.run.rate=500", "workload.phases.run.latency_limit=10ms"}
	for _, tc := range []struct {
		version    string
		has, lacks []string
	}{
		{"14", []string{"pgbench (14 (simulated by pgbufsim))", "number of transactions skipped: 0 (0.000 %)", "latency limit: "}, []string{"maximum number of tries", "number of failed transactions"}},
		{"15", []string{"pgbench (15 (simulated by pgbufsim))", "maximum number of tries: 1", "number of failed transactions: 0 (0.000%)", "number of transactions skipped: 0 (0.000%)", "latency stddev = "}, nil},
		{"13", []string{"transaction type: <builtin: TPC-B (sort of)>"}, []string{"pgbench (", "maximum number of tries"}},
	} {
		out := summary(append([]string{"server.version=" + tc.version}, limited...)...)
		for _, w := range tc.has {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the summary lacks %q:\n%s", tc.version, w, out)
			}
		}
		for _, w := range tc.lacks {
			if strings.Contains(out, w) {
				t.Errorf("%s: the summary has %q:\n%s", tc.version, w, out)
			}
		}
	}
	// Unthrottled: pgbench prints no stddev, only the average from the
	// run time (duration x clients / transactions).
	if out := summary(); strings.Contains(out, "latency stddev") || !strings.Contains(out, "latency average = ") {
		t.Errorf("an unthrottled run's summary:\n%s", out)
	}
}

// The per-relation tables list the 50 most accessed relations and then a
// row that says how many more summary.json has (a scenario with more tables
// once failed to render: the note's row had one cell).
func TestManyRelationsAreCut(t *testing.T) {
	sc, err := configs.Parse("many.yaml", []byte(`
name: many-tables
server: {shared_buffers: 4MB}
tables:
  relations:
    - {name: s, rows: 290, row_width: 105, count: 60, state: fresh}
workload:
  phases:
    - {name: pass, transactions: 60, script: [{seqscan: {table: s, pick: cycle}}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	files, err := report.Render(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	if html := string(files["report.html"]); strings.Count(html, "(10 more in summary.json)") != 2 {
		t.Errorf("report.html should note the 10 relations left out of each per-relation table, %d notes", strings.Count(html, "(10 more in summary.json)"))
	}
}

// The per-relation table shows pg_stat_user_tables' scan counters beside
// the row counters: a table's seq_scan and seq_tup_read as the totals have
// them, and empty idx_scan and idx_tup_fetch (NULL in the view) for a
// table without an index.
func TestRelationTableShowsScans(t *testing.T) {
	sc, res := quickRun(t, "workload.phases.warmup.duration=1s", "workload.phases.run.duration=2s")
	files, err := report.Render(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	html := string(files["report.html"])
	for _, s := range res.Totals.StatUserTables {
		want := fmt.Sprintf(`<tr><td>%s</td><td class="r">%d</td><td class="r">%d</td>`, s.Relname, s.SeqScan, s.SeqTupRead)
		if s.IdxScan == nil {
			want += `<td class="r"></td><td class="r"></td>`
		} else {
			want += fmt.Sprintf(`<td class="r">%d</td><td class="r">%d</td>`, *s.IdxScan, *s.IdxTupFetch)
		}
		if !strings.Contains(html, want) {
			t.Errorf("report.html has no row %s", want)
		}
	}
}
