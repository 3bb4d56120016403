package compare

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/report"
)

// writeRun runs the quickstart scenario briefly with overrides and writes
// its outputs into dir.
func writeRun(t *testing.T, dir string, overrides ...string) *model.Result {
	t.Helper()
	o := append([]string{"workload.phases.warmup.duration=1s", "workload.phases.run.duration=2s"}, overrides...)
	sc, err := configs.Load("../configs/quickstart.yaml", o...)
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
	if err := report.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	return res
}

// Two run directories: the configuration difference, every metric's
// difference (exactly B minus A with one pair, no interval, no verdict),
// the CSV, and outputs that are the same bytes when written again.
func TestCompareTwoRuns(t *testing.T) {
	dir := t.TempDir()
	a := writeRun(t, filepath.Join(dir, "a"))
	b := writeRun(t, filepath.Join(dir, "b"), "policies.replacement.name=lru")
	sides, err := Load([]string{"master=" + filepath.Join(dir, "a"), filepath.Join(dir, "b")})
	if err != nil {
		t.Fatal(err)
	}
	if sides[0].Name != "master" || sides[1].Name != "b" {
		t.Fatalf("side names %q, %q", sides[0].Name, sides[1].Name)
	}
	c := New(sides)
	if c.Pairs != 1 || !c.SameSeeds {
		t.Errorf("pairs %d, same seeds %v", c.Pairs, c.SameSeeds)
	}
	found := false
	for _, k := range c.Keys {
		found = found || k == "policies.replacement.name"
		if k == "seed" || strings.HasPrefix(k, "workload.phases.run.duration") {
			t.Errorf("key %s differs?", k)
		}
	}
	if !found {
		t.Errorf("keys %v lack policies.replacement.name", c.Keys)
	}
	r := c.Row("tps")
	if r == nil || r.Diffs[1].Mean != b.Totals.TPS-a.Totals.TPS || !math.IsNaN(r.Diffs[1].HalfWidth) || r.Diffs[1].Verdict() != "one replicate: no CI" {
		t.Fatalf("tps row %+v (tps %v, %v)", r, a.Totals.TPS, b.Totals.TPS)
	}
	if want := 100 * (b.Totals.TPS - a.Totals.TPS) / a.Totals.TPS; math.Abs(r.Pct[1]-want) > 1e-9 {
		t.Errorf("tps %% %v, want %v", r.Pct[1], want)
	}
	if r := c.Row("failed"); r == nil || !r.Same {
		t.Errorf("failed (0 in both) not identical: %+v", r)
	}
	h, rows := c.MetricTable(Headline, false)
	if strings.Join(h, "|") != "metric|master|b|Δ ± 95% CI|Δ %" || rows[0][0] != "tps" {
		t.Errorf("headline table %v %v", h, rows[0])
	}
	csv := string(c.CSV())
	if !strings.HasPrefix(csv, "metric,side,runs,mean,ci95,diff_mean,diff_ci95,diff_pct,significant\ntransactions,master,1,") {
		t.Errorf("csv starts %q", csv[:min(len(csv), 200)])
	}
	out := filepath.Join(dir, "cmp")
	if err := c.Write(out); err != nil {
		t.Fatal(err)
	}
	first := map[string][]byte{}
	for _, f := range []string{HTMLFile, TextFile, CSVFile} {
		first[f], _ = os.ReadFile(filepath.Join(out, f))
	}
	if err := New(sides).Write(out); err != nil {
		t.Fatalf("rewriting a compare output: %v", err)
	}
	for f, want := range first {
		if got, _ := os.ReadFile(filepath.Join(out, f)); !bytes.Equal(got, want) {
			t.Errorf("%s differs when written again", f)
		}
	}
	page := string(first[HTMLFile])
	for _, want := range []string{"pgbufsim compare: master vs b", "Configuration that differs", `href="../a/report.html"`, "Heap hit ratio by relation", "Usage-count histogram", "b (no usage counts: lru)"} {
		if !strings.Contains(page, want) {
			t.Errorf("compare.html lacks %q", want)
		}
	}
	// A foreign directory is never written into.
	foreign := filepath.Join(dir, "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "keep"), []byte("x"), 0o644)
	if err := c.Write(foreign); err == nil {
		t.Error("wrote into a foreign directory")
	}
	if _, err := os.Stat(filepath.Join(foreign, HTMLFile)); err == nil {
		t.Error("compare.html written into a foreign directory")
	}
}

// side builds a side from metric values by replicate, without files.
func side(name string, metric string, vals ...float64) *Side {
	s := &Side{Name: name, Config: map[string]string{"k": name}}
	for rep, v := range vals {
		s.Runs = append(s.Runs, &Run{Replicate: rep, Seed: 1, Metrics: map[string]float64{metric: v}, MetricNames: []string{metric}})
	}
	return s
}

// Paired by replicate, the verdict follows the paired-t interval: a small
// but consistent difference is significant, a larger erratic one is not.
func TestPairedVerdicts(t *testing.T) {
	c := New([]*Side{side("A", "x", 10, 11, 12), side("B", "x", 11, 12, 13.1), side("C", "x", 9, 13, 11)})
	r := c.Row("x")
	if c.Pairs != 3 || r.Diffs[1].Verdict() != "significant" || r.Diffs[2].Verdict() != "not significant" {
		t.Fatalf("pairs %d, verdicts %q %q", c.Pairs, r.Diffs[1].Verdict(), r.Diffs[2].Verdict())
	}
	// Differences 1, 1, 1.1: mean 1.0333, sd 0.0577, t(0.975, 2) = 4.3027.
	if math.Abs(r.Diffs[1].Mean-1.0333333) > 1e-6 || math.Abs(r.Diffs[1].HalfWidth-4.302653*0.0577350/math.Sqrt(3)) > 1e-5 {
		t.Errorf("B - A = %+v", r.Diffs[1])
	}
	h, rows := c.MetricTable([]string{"x"}, false)
	if len(h) != 1+1+2*4 || rows[0][5] != "significant" || rows[0][9] != "not significant" {
		t.Errorf("table %v %v", h, rows)
	}
	// A replicate one side lacks is left out of the pairs.
	c = New([]*Side{side("A", "x", 10, 11, 12), side("B", "x", 11, 12)})
	if c.Pairs != 2 || c.Row("x").Diffs[1].N != 2 {
		t.Errorf("pairs %d, n %d", c.Pairs, c.Row("x").Diffs[1].N)
	}
}

// Bad inputs name the argument and say why.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, filepath.Join(dir, "a"))
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "foreign"), 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "a")}, "1 configuration(s) to compare"},
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "missing")}, "no such file or directory"},
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "file")}, "not a directory"},
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "foreign")}, "not a pgbufsim run or sweep output"},
		{[]string{filepath.Join(dir, "a"), filepath.Join(dir, "a")}, `two sides are named "a"`},
	} {
		_, err := Load(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%v) = %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// simulate compare -config ... -sweep ... runs the sweep into DIR/sweep
// and compares its points; a second run reuses the finished sweep; an
// unknown flag and a foreign -out are refused with exit 1.
func TestMainRunsTheSweep(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cmp")
	args := []string{"-names", "master,patch", "-config", "../configs/quickstart.yaml", "-set", "workload.phases.warmup.duration=1s", "-set", "workload.phases.run.duration=1s",
		"-sweep", "policies.replacement.name=clock-sweep,lru", "-replicates", "2", "-out", out}
	for i := 0; i < 2; i++ {
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, code, stderr.String())
		}
		if s := stdout.String(); !strings.Contains(s, "pgbufsim compare: master vs patch") || !strings.Contains(s, "verdict") || !strings.Contains(s, "2 replicate pairs") {
			t.Errorf("stdout:\n%s", s)
		}
	}
	for _, f := range []string{HTMLFile, TextFile, CSVFile, "sweep/sweep-plan.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	var stderr bytes.Buffer
	if code := Main([]string{filepath.Join(out, "sweep"), "-bogus"}, io0{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "unknown flag -bogus") {
		t.Errorf("unknown flag: exit %d, %s", code, stderr.String())
	}
	stderr.Reset()
	if code := Main([]string{filepath.Join(out, "sweep"), "-names", "one", "-out", filepath.Join(dir, "x")}, io0{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "1 name(s) for 2 sides") {
		t.Errorf("-names one: exit %d, %s", code, stderr.String())
	}
	foreign := filepath.Join(dir, "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "keep"), []byte("x"), 0o644)
	stderr.Reset()
	if code := Main([]string{filepath.Join(out, "sweep"), "-out", foreign}, io0{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "did not write") {
		t.Errorf("foreign -out: exit %d, %s", code, stderr.String())
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("foreign directory now holds %d entries", len(entries))
	}
}

type io0 struct{}

func (io0) Write(p []byte) (int, error) { return len(p), nil }

// The one-step form checks the sweep and the comparison before it writes
// anything: bad flags or configuration, one point, -shard, a -names of the
// wrong length all exit 1 and leave no directory behind.
func TestMainChecksBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	base := []string{"-config", "../configs/quickstart.yaml", "-set", "workload.phases.run.duration=1s"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-sweep", "server.cpus=1,abc"}, "invalid integer"},
		{[]string{"-sweep", "server.cpus=1,2", "-bogus"}, "-bogus"},
		{[]string{"-sweep", "server.cpus=1"}, "a comparison needs two sides"},
		{[]string{"-sweep", "server.cpus=1,2", "-shard", "0/2"}, "a comparison needs every point"},
		{[]string{"-sweep", "server.cpus=1,2", "-names", "a"}, "-names gives 1 names for the sweep's 2 points"},
	} {
		out := filepath.Join(dir, "cmp")
		var stderr bytes.Buffer
		args := append(append(append([]string(nil), base...), c.args...), "-out", out)
		if code := Main(args, io0{}, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, want 1 with %q: %s", c.args, code, c.want, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s was created", c.args, out)
		}
	}
}
