package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sweepBase is a small valid scenario; tests append a sweep block.
const sweepBase = `name: s
seed: 3
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - name: run
      duration: 1s
      clients: 4
`

func parseSweep(t *testing.T, yaml string, overrides, axes []string) (*SweepPlan, error) {
	t.Helper()
	return ParseSweep("s.yaml", []byte(yaml), overrides, axes)
}

// The product is expanded with the first axis varying slowest, values in
// file order, command-line axes after the file's; every point's scenario
// carries its values and the common seed.
func TestSweepExpansionOrder(t *testing.T) {
	plan, err := parseSweep(t, sweepBase+`sweep:
  replicates: 3
  axes:
    server.shared_buffers: [32MB, 16MB]
    policies.replacement.name: [clock-sweep, lru, 2q]
`, nil, []string{"policies.hint_cache.enabled=false,true"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Replicates != 3 || plan.Seed != 3 || plan.Name != "s" || plan.Runs() != 36 {
		t.Fatalf("plan: replicates %d seed %d name %q runs %d", plan.Replicates, plan.Seed, plan.Name, plan.Runs())
	}
	wantAxes := []SweepAxis{
		{"server.shared_buffers", []string{"32MB", "16MB"}},
		{"policies.replacement.name", []string{"clock-sweep", "lru", "2q"}},
		{"policies.hint_cache.enabled", []string{"false", "true"}},
	}
	if !reflect.DeepEqual(plan.Axes, wantAxes) {
		t.Fatalf("axes %v", plan.Axes)
	}
	if len(plan.Points) != 12 {
		t.Fatalf("%d points, want 2x3x2", len(plan.Points))
	}
	var got []string
	for i, p := range plan.Points {
		if p.Index != i {
			t.Errorf("point %d has index %d", i, p.Index)
		}
		got = append(got, strings.Join(p.Values, " "))
		sc := p.Scenario
		wantSB := map[string]int64{"32MB": 32 << 20, "16MB": 16 << 20}[p.Values[0]]
		if sc.Server.SharedBuffers != wantSB || sc.Policies.Replacement.Policy != p.Values[1] ||
			sc.Policies.HintCache.Enabled != (p.Values[2] == "true") {
			t.Errorf("point %s: scenario has shared_buffers %d, policy %s, hint cache %v", p.ID, sc.Server.SharedBuffers, sc.Policies.Replacement.Policy, sc.Policies.HintCache.Enabled)
		}
		if sc.Seed != 3 || sc.Replicate != 0 || sc.Sweep != nil {
			t.Errorf("point %s: seed %d replicate %d sweep %v", p.ID, sc.Seed, sc.Replicate, sc.Sweep)
		}
	}
	want := []string{
		"32MB clock-sweep false", "32MB clock-sweep true", "32MB lru false", "32MB lru true", "32MB 2q false", "32MB 2q true",
		"16MB clock-sweep false", "16MB clock-sweep true", "16MB lru false", "16MB lru true", "16MB 2q false", "16MB 2q true",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if id := plan.Points[3].ID; id != "p03-shared_buffers=32MB-name=lru-enabled=true" {
		t.Errorf("point 3 id %q", id)
	}
	if !slices.Equal(plan.Metrics, DefaultSweepMetrics) {
		t.Errorf("metrics %v", plan.Metrics)
	}
}

// A -sweep flag for a path the file already sweeps replaces that axis in
// place, as -set replaces a file value.
func TestSweepFlagReplacesFileAxis(t *testing.T) {
	plan, err := parseSweep(t, sweepBase+`sweep:
  axes:
    server.shared_buffers: [32MB, 16MB]
    server.cpus: [1, 2]
`, nil, []string{"server.shared_buffers=8MB,64MB,1GB"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Axes) != 2 || plan.Axes[0].Path != "server.shared_buffers" || !slices.Equal(plan.Axes[0].Values, []string{"8MB", "64MB", "1GB"}) {
		t.Fatalf("axes %v", plan.Axes)
	}
	if len(plan.Points) != 6 || plan.Points[5].Scenario.Server.SharedBuffers != 1<<30 || plan.Points[5].Scenario.Server.CPUs != 2 {
		t.Fatalf("points %d; last %+v", len(plan.Points), plan.Points[len(plan.Points)-1].Values)
	}
}

// Invalid axis paths and values are reported before anything runs, at
// the value's line, naming the axis's key; a bad path once per axis.
func TestSweepInvalidAxesFileLine(t *testing.T) {
	src := sweepBase + `sweep:
  axes:
    server.shared_buffers: [32MB, 64XB]
    server.shared_bufers: [1MB, 2MB]
    policies.replacement.name: [clock-sweep, lur]
    workload.phases.run.threads: [1, 8]
`
	_, err := parseSweep(t, src, nil, nil)
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`s.yaml:12: server.shared_buffers: invalid size "64XB"`,
		`s.yaml:13: server.shared_bufers: unknown key (did you mean "shared_buffers"?)`,
		`s.yaml:14: policies.replacement.name: unknown replacement policy "lur"`,
		`s.yaml:15: workload.phases[0].threads: 8 threads for 4 clients (pgbench requires threads <= clients) (with sweep axis workload.phases.run.threads = 8)`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("error %d:\n got %s\nwant %s...", i, lines[i], w)
		}
	}
}

// The same for command-line axes: the message names the -sweep flag and
// the key.
func TestSweepInvalidAxisFlags(t *testing.T) {
	cases := []struct{ axis, want string }{
		{"server.cpus=1,x", `-sweep server.cpus=1,x: server.cpus: invalid integer "x"`},
		{"server.cpu=1,2", `-sweep server.cpu=1,2: server.cpu: unknown key (did you mean "cpus"?)`},
		{"server.cpus", `-sweep server.cpus: expected path=v1,v2,...`},
		{"server.cpus=1,[2", `-sweep server.cpus=1,[2: cannot read the values as a comma-separated list`},
		{"server.cpus=2,2", `server.cpus: value "2" is listed twice`},
		{"sweep.replicates=1,2", `-sweep sweep.replicates=1,2: the sweep block itself cannot be swept`},
	}
	for _, c := range cases {
		_, err := parseSweep(t, sweepBase, nil, []string{c.axis})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("-sweep %s:\n got %v\nwant %s", c.axis, err, c.want)
		}
	}
}

// The sweep block's own shape is checked with positions too.
func TestSweepBlockShapeErrors(t *testing.T) {
	cases := []struct{ block, want string }{
		{"sweep:\n  axes:\n    server.cpus: 2\n", `s.yaml:12: sweep.axes.server.cpus: give a list of values`},
		{"sweep:\n  axes:\n    server.cpus: []\n", `s.yaml:12: sweep.axes.server.cpus: the list of values is empty`},
		{"sweep:\n  axes: [server.cpus]\n", `s.yaml:11: sweep.axes: give a mapping`},
		{"sweep:\n  axes:\n    server.cpus: [1, 1]\n", `s.yaml:12: server.cpus: value "1" is listed twice`},
		{"sweep:\n  replicates: 0\n", `s.yaml:11: sweep.replicates:`},
		{"sweep:\n  metrics: [tps, latency_ms.p99x]\n", `s.yaml:11: sweep.metrics[1]: unknown metric "latency_ms.p99x" (valid: latency_ms.count`},
		{"sweep:\n  metrics: [tpss]\n", `did you mean "tps"?`},
	}
	for _, c := range cases {
		_, err := parseSweep(t, sweepBase+c.block, nil, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.block, err, c.want)
		}
	}
}

// Values may be collections, quoted, or contain commas inside brackets.
func TestParseAxisValues(t *testing.T) {
	path, nodes, err := ParseAxis(`policies.replacement={name: clock-sweep, max_usage_count: 3}, lru ,"2q"`)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, n := range nodes {
		texts = append(texts, nodeText(n))
	}
	if path != "policies.replacement" || !slices.Equal(texts, []string{"{name: clock-sweep, max_usage_count: 3}", "lru", "2q"}) {
		t.Fatalf("%q %q", path, texts)
	}
	plan, err := parseSweep(t, sweepBase, nil, []string{`policies.replacement={name: clock-sweep, max_usage_count: 3},lru`})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Points[0].ID; got != "p0-replacement=name_clock-sweep_max_usage_count" {
		t.Errorf("id %q", got)
	}
	if name := plan.Points[0].Scenario.Policies.Replacement.Policy; name != "clock-sweep" {
		t.Errorf("policy %s", name)
	}
}

// Overrides apply to every point; -set sweep.replicates replaces the count
// (what -replicates does); a scenario without a sweep block is one point.
func TestSweepOverridesAndNoAxes(t *testing.T) {
	plan, err := parseSweep(t, sweepBase, []string{"server.cpus=7", "sweep.replicates=4"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Points) != 1 || plan.Replicates != 4 || plan.Points[0].ID != "p0" || plan.Points[0].Scenario.Server.CPUs != 7 {
		t.Fatalf("%+v", plan)
	}
}

// A combination that no single value breaks is reported with the point.
func TestSweepCombinationError(t *testing.T) {
	_, err := parseSweep(t, sweepBase, nil, []string{"workload.phases.run.clients=2,8", "workload.phases.run.threads=1,4"})
	if err == nil || !strings.Contains(err.Error(), "4 threads for 2 clients") || !strings.Contains(err.Error(), "at sweep point workload.phases.run.clients=2, workload.phases.run.threads=4") {
		t.Fatalf("got %v", err)
	}
}

// Go programs sweep a loaded scenario.
func TestSweepOf(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(sweepBase))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := SweepOf(sc, 2, "server.shared_buffers=16MB,32MB")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Replicates != 2 || len(plan.Points) != 2 || plan.Points[1].Scenario.Server.SharedBuffers != 32<<20 {
		t.Fatalf("%+v", plan)
	}
}

// IDs are unique and filesystem-safe; axes sharing a last key use the
// full path.
func TestPointIDs(t *testing.T) {
	axes := []SweepAxis{{Path: "a.name", Values: []string{"x/y", "../.."}}, {Path: "b.name", Values: []string{"1"}}}
	if got := pointID(7, 2, axes, []string{"x/y", "1"}); got != "p07-a.name=x_y-b.name=1" {
		t.Errorf("got %q", got)
	}
	if got := pointID(0, 1, axes, []string{"../..", "1"}); strings.Contains(got, "/") {
		t.Errorf("got %q", got)
	}
	if got := AxisLabel([]SweepAxis{{Path: "workload.phases[0].clients"}}, 0); got != "clients" {
		t.Errorf("label %q", got)
	}
}

func TestIsSweep(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if !IsSweep(write("a.yaml", sweepBase+"sweep:\n  replicates: 2\n")) {
		t.Error("sweep block not seen")
	}
	if IsSweep(write("b.yaml", sweepBase)) || IsSweep(write("c.yaml", sweepBase+"sweep:\n")) || IsSweep(filepath.Join(dir, "none.yaml")) {
		t.Error("not a sweep, yet IsSweep")
	}
}

// Every number in the totals becomes a metric, named by its JSON path, in
// summary.json's order; lists are left out.
func TestFlattenMetrics(t *testing.T) {
	names := MetricNames()
	for _, want := range []string{"transactions", "tps", "latency_ms.p99", "buffers.hit_ratio", "disk.read_ms.p99"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	// summary.json's order: transactions, tps, ..., latency, ..., buffers.
	if i, j, k := slices.Index(names, "transactions"), slices.Index(names, "tps"), slices.Index(names, "buffers.hit_ratio"); !(i == 0 && i < j && j < k) {
		t.Errorf("order: transactions at %d, tps at %d, buffers.hit_ratio at %d", i, j, k)
	}
	for _, n := range names {
		if strings.Contains(n, "usage_histogram") {
			t.Errorf("list flattened: %s", n)
		}
	}
}

func TestSweepPlanIndex(t *testing.T) {
	plan, err := parseSweep(t, sweepBase, nil, []string{"server.cpus=1,2", "server.shared_buffers=1MB,2MB,4MB"})
	if err != nil {
		t.Fatal(err)
	}
	if i := plan.Index("2", "2MB"); i != 4 || plan.Points[i].Scenario.Server.CPUs != 2 {
		t.Errorf("index %d", i)
	}
	if i := plan.Index("3", "2MB"); i != -1 {
		t.Errorf("absent point: %d", i)
	}
}

// A Go program's scenario names every parameter of its policy: those at
// their defaults do not stop an axis from changing the policy, while a
// parameter the user changed is refused for a policy without it, naming
// the axis value.
func TestSweepOfPolicyAxis(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(sweepBase))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := SweepOf(sc, 1, "policies.replacement.name=clock-sweep,lru,2q")
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Points[2].Scenario.Policies.Replacement.Policy; got != "2q" {
		t.Errorf("policy %s", got)
	}
	tuned, err := With(sc, "policies.replacement.max_usage_count=3")
	if err != nil {
		t.Fatal(err)
	}
	plan, err = SweepOf(tuned, 1, "server.cpus=1,2")
	if err != nil {
		t.Fatal(err)
	}
	if y, err := Encode(plan.Points[1].Scenario); err != nil || !strings.Contains(string(y), "max_usage_count: 3") {
		t.Errorf("the tuned parameter was lost: %v\n%s", err, y)
	}
	_, err = SweepOf(tuned, 1, "policies.replacement.name=clock-sweep,lru")
	if err == nil || !strings.Contains(err.Error(), "max_usage_count: unknown key") || !strings.Contains(err.Error(), "(with sweep axis policies.replacement.name = lru)") {
		t.Errorf("got %v", err)
	}
}

// Charts name metrics by what they measure, with the unit.
func TestMetricTitle(t *testing.T) {
	for name, want := range map[string]string{
		"tps":                     "throughput (transactions/s)",
		"latency_ms.mean":         "mean latency (ms)",
		"latency_ms.p99":          "p99 latency (ms)",
		"latency_ms.p999":         "p99.9 latency (ms)",
		"disk.read_ms.p50":        "p50 data-device read latency (ms)",
		"buffers.hit_ratio":       "shared-buffer hit ratio",
		"buffers.ring_reuses":     "shared buffers: ring reuses",
		"pg_statio_sys.blks_read": "pg statio sys: blks read",
		"keys_not_found":          "keys not found",
	} {
		if got := MetricTitle(name); got != want {
			t.Errorf("MetricTitle(%q) = %q, want %q", name, got, want)
		}
	}
}
