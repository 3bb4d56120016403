package sweep

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
)

const tinyBase = `name: tiny
seed: 7
server: {shared_buffers: 1MB, cpus: 2}
os: {page_cache: 4MB}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: warmup, warmup: true, duration: 1s, clients: 4}
    - {name: run, duration: 2s, clients: 4, rate: 200}
`

func tinyPlan(t testing.TB, replicates int, axes ...string) *configs.SweepPlan {
	t.Helper()
	plan, err := configs.ParseSweep("tiny.yaml", []byte(tinyBase), []string{"sweep.replicates=" + strconv.Itoa(replicates)}, axes)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func row(point, rep int, kv ...any) Row {
	r := Row{Point: point, Replicate: rep, Seed: 7, Config: "h"}
	for i := 0; i < len(kv); i += 2 {
		r.Metrics = append(r.Metrics, configs.Metric{Name: kv[i].(string), Value: fmt.Sprint(kv[i+1])})
	}
	return r
}

// The paired comparisons of a two-valued axis are the points that differ
// only in it, and their difference is the paired-t estimate over the
// replicates: Student's sleep data as the two points' replicates gives R's
// t.test(paired = TRUE) interval.
func TestPairsAndDifference(t *testing.T) {
	plan := tinyPlan(t, 10, "policies.hint_cache.enabled=false,true", "server.shared_buffers=1MB,2MB,4MB")
	var rows []Row
	for rep := 0; rep < 10; rep++ {
		rows = append(rows, row(1, rep, "x", sleep1[rep]), row(4, rep, "x", sleep2[rep]))
	}
	// Out of order, with a duplicate whose later copy wins.
	rows = append([]Row{row(4, 0, "x", 99)}, rows...)
	res := NewResults(plan, rows)
	pairs := res.Pairs()
	want := []Pair{{0, 0, 3}, {0, 1, 4}, {0, 2, 5}}
	if fmt.Sprint(pairs) != fmt.Sprint(want) {
		t.Fatalf("pairs %v, want %v", pairs, want)
	}
	d := res.Difference(pairs[1], "x")
	near(t, "diff", d.Mean, 1.58, 1e-12)
	near(t, "lo", d.Lo(), 0.7001142, 5e-7)
	if e := res.Difference(pairs[0], "x"); e.N != 0 {
		t.Errorf("pair without runs: %+v", e)
	}
	csv := string(res.PairedCSV())
	line := findLine(csv, "policies.hint_cache.enabled,false,true,,2MB,x,")
	f := strings.Split(line, ",")
	if len(f) != 13 || f[11] != "210.666667" || f[12] != "true" || f[6] != "10" || f[7] != "0.75" || f[8] != "2.33" || f[9] != "1.58" {
		t.Fatalf("paired csv line %q", line)
	}
	ci, _ := strconv.ParseFloat(f[10], 64)
	near(t, "csv ci95", ci, (2.4598858-0.7001142)/2, 5e-7)
}

func findLine(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// The CSV files, exactly.
func TestCSVGolden(t *testing.T) {
	plan := tinyPlan(t, 2, "policies.replacement.name=clock-sweep,lru")
	res := NewResults(plan, []Row{
		row(1, 1, "tps", 110, "latency_ms.p99", 2.5),
		row(0, 0, "tps", 100, "latency_ms.p99", 3),
		row(0, 1, "tps", 104, "latency_ms.p99", 3.25),
		row(1, 0, "tps", 101, "latency_ms.p99", 2.25),
	})
	wantRuns := `point,policies.replacement.name,replicate,seed,tps,latency_ms.p99
p0-name=clock-sweep,clock-sweep,0,7,100,3
p0-name=clock-sweep,clock-sweep,1,7,104,3.25
p1-name=lru,lru,0,7,101,2.25
p1-name=lru,lru,1,7,110,2.5
`
	if got := string(res.RunsCSV()); got != wantRuns {
		t.Errorf("sweep.csv:\n%s\nwant:\n%s", got, wantRuns)
	}
	// mean ± t(0.975,1) x sd/sqrt(2) = 12.7062047 x |a-b|/2.
	wantSummary := `point,policies.replacement.name,runs,tps.mean,tps.ci95,latency_ms.p99.mean,latency_ms.p99.ci95
p0-name=clock-sweep,clock-sweep,2,102,25.4124095,3.125,1.58827559
p1-name=lru,lru,2,105.5,57.1779213,2.375,1.58827559
`
	if got := string(res.SummaryCSV()); got != wantSummary {
		t.Errorf("sweep-summary.csv:\n%s\nwant:\n%s", got, wantSummary)
	}
	// Differences per replicate: tps 1, 6; p99 -0.75, -0.75.
	wantPaired := `axis,from,to,policies.replacement.name,metric,pairs,from_mean,to_mean,diff_mean,diff_ci95,diff_pct,significant
policies.replacement.name,clock-sweep,lru,,tps,2,102,105.5,3.5,31.7655118,3.43137255,false
policies.replacement.name,clock-sweep,lru,,latency_ms.p99,2,3.125,2.375,-0.75,0,-24,true
`
	if got := string(res.PairedCSV()); got != wantPaired {
		t.Errorf("sweep-paired.csv:\n%s\nwant:\n%s", got, wantPaired)
	}
	if !res.Complete() {
		t.Error("4 of 4 runs, yet incomplete")
	}
}

// The stdout table, exactly: box drawing as Caffeine's table reporter,
// numbers right-aligned, mean ± half-width, then the paired table.
func TestWriteTableGolden(t *testing.T) {
	plan := tinyPlan(t, 2, "policies.replacement.name=clock-sweep,lru")
	plan.Metrics = []string{"tps", "latency_ms.p99"}
	res := NewResults(plan, []Row{
		row(0, 0, "tps", 100, "latency_ms.p99", 3),
		row(0, 1, "tps", 104, "latency_ms.p99", 3.25),
		row(1, 0, "tps", 101, "latency_ms.p99", 2.25),
	})
	var b bytes.Buffer
	if err := res.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `╔═════════════╤══════╤══════════════╤════════════════╗
║ name        │ runs │ tps          │ latency_ms.p99 ║
╠═════════════╪══════╪══════════════╪════════════════╣
║ clock-sweep │    2 │ 102.0 ± 25.4 │  3.125 ± 1.588 ║
║ lru         │    1 │        101.0 │          2.250 ║
╚═════════════╧══════╧══════════════╧════════════════╝

paired difference (same replicates): policies.replacement.name = lru minus clock-sweep
╔════════════════╤═══════╤═════════════╤═══════╤════════════╤════════╤══════════════════════╗
║ metric         │ pairs │ clock-sweep │ lru   │ Δ ± 95% CI │ Δ %    │ verdict              ║
╠════════════════╪═══════╪═════════════╪═══════╪════════════╪════════╪══════════════════════╣
║ tps            │     1 │       102.0 │ 101.0 │      1.000 │  +1.0% │ one replicate: no CI ║
║ latency_ms.p99 │     1 │       3.125 │ 2.250 │    -0.7500 │ -24.0% │ one replicate: no CI ║
╚════════════════╧═══════╧═════════════╧═══════╧════════════╧════════╧══════════════════════╝
`
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	if res.Complete() {
		t.Error("3 of 4 runs, yet complete")
	}
}

// Axis values are read as numbers in PostgreSQL's units, and drawn on a
// log axis when they grow geometrically.
func TestAxisScale(t *testing.T) {
	cases := []struct {
		values []string
		num    bool
		x      []float64
		unit   string
		log    bool
	}{
		{[]string{"32MB", "64MB", "128MB", "256MB"}, true, []float64{32, 64, 128, 256}, "MB", true},
		{[]string{"512kB", "1GB", "2GB"}, true, []float64{0.5, 1024, 2048}, "MB", false},
		{[]string{"0", "16", "32", "64", "128"}, true, []float64{0, 16, 32, 64, 128}, "", false},
		{[]string{"1", "2", "4", "8", "16"}, true, []float64{1, 2, 4, 8, 16}, "", true},
		{[]string{"16", "32", "48", "64"}, true, []float64{16, 32, 48, 64}, "", false},
		{[]string{"200ms", "1s", "5s"}, true, []float64{0.2, 1, 5}, "s", true},
		{[]string{"0s", "3s"}, true, []float64{0, 3}, "s", false},
		{[]string{"clock-sweep", "lru"}, false, nil, "", false},
		{[]string{"false", "true"}, false, nil, "", false},
		{[]string{"32MB", "5s"}, false, nil, "", false},
		{[]string{"0x10", "1"}, false, nil, "", false},
	}
	for _, c := range cases {
		s := scaleOf(c.values)
		if s.numeric != c.num || s.unit != c.unit || s.log != c.log || (c.num && fmt.Sprint(s.x) != fmt.Sprint(c.x)) {
			t.Errorf("%v: got numeric %v x %v unit %q log %v", c.values, s.numeric, s.x, s.unit, s.log)
		}
	}
}

// The page charts each metric against each numeric axis (evenly spaced,
// that is log, for a geometric axis), one line per value of the other
// axes with a CI band, then the paired difference along a two-valued axis;
// with no numeric axis, against the first axis's categories.
func TestPageCharts(t *testing.T) {
	plan := tinyPlan(t, 2, "server.shared_buffers=1MB,2MB,4MB", "policies.replacement.name=clock-sweep,lru")
	plan.Metrics = []string{"tps"}
	var rows []Row
	for p := range plan.Points {
		for rep := 0; rep < 2; rep++ {
			rows = append(rows, row(p, rep, "tps", 100+p+rep))
		}
	}
	page := NewResults(plan, rows).Page()
	var charts []string
	for _, s := range page.Sections {
		if c := s.Chart; c != nil {
			charts = append(charts, fmt.Sprintf("%s %s %s %v lines=%d bands=%d", c.ID, c.XType, c.XName, c.Categories, len(c.Series), len(c.Bands)))
			if c.ID == "d0_a1" {
				// lru minus clock-sweep is 1 in every replicate.
				if c.Series[0].Name != "Δ mean" || fmt.Sprint(c.Series[0].Y) != "[1 1 1]" || fmt.Sprint(c.Series[1].Y) != "[0 0 0]" || c.Bands[0].Upper[1] != 1 {
					t.Errorf("paired chart %+v", c)
				}
				continue
			}
			if c.Series[1].Name != "policy lru" || c.Series[1].Y[2] != 105.5 || !c.YFit {
				t.Errorf("series %+v", c.Series[1])
			}
			near(t, "band", c.Bands[0].Upper[0], 100.5+12.706205*0.5, 1e-5)
		}
	}
	if want := "[m0_a0 category shared_buffers (MB), log scale [1 2 4] lines=2 bands=2 d0_a1 category shared_buffers (MB), log scale [1 2 4] lines=2 bands=1]"; fmt.Sprint(charts) != want {
		t.Errorf("charts %v, want %s", charts, want)
	}
	var b bytes.Buffer
	html, err := NewResults(plan, rows).HTML()
	if err != nil {
		t.Fatal(err)
	}
	b.Write(html)
	for _, want := range []string{`href="runs/p5-shared_buffers=4MB-name=lru/r1/report.html"`, `href="sweep.csv"`, "Paired difference: policies.replacement.name = lru minus clock-sweep"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %s", want)
		}
	}

	cat := tinyPlan(t, 1, "policies.replacement.name=clock-sweep,lru,2q")
	cat.Metrics = []string{"tps"}
	page = NewResults(cat, []Row{row(0, 0, "tps", 1), row(1, 0, "tps", 2), row(2, 0, "tps", 3)}).Page()
	for _, s := range page.Sections {
		if c := s.Chart; c != nil && (c.XType != "category" || fmt.Sprint(c.Categories) != "[clock-sweep lru 2q]" || len(c.Bands) != 0 || math.IsNaN(c.Series[0].Y[2])) {
			t.Errorf("categorical chart %+v", c)
		}
	}
}

// A geometric axis with one constant factor is drawn as evenly spaced
// labelled points (exactly a log scale); a roughly geometric one gets a log
// axis.
func TestEvenAxis(t *testing.T) {
	for _, c := range []struct {
		values    []string
		log, even bool
	}{
		{[]string{"8MB", "16MB", "32MB"}, true, true},
		{[]string{"200ms", "1s", "5s"}, true, true},
		{[]string{"10", "20", "50", "100"}, true, false},
		{[]string{"16", "32", "48", "64"}, false, false},
	} {
		if s := scaleOf(c.values); s.log != c.log || s.even != c.even {
			t.Errorf("%v: log %v even %v, want %v %v", c.values, s.log, s.even, c.log, c.even)
		}
	}
}
