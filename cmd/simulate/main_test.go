package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pgbufsim/pgbufsim/model"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

const short = "workload.phases.run.duration=3s"

func TestRunWritesOutputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "q")
	code, out, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", dir, "-set", short, "-set", "workload.phases.warmup.duration=1s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{"summary.json", "timeseries.csv", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	for _, want := range []string{"transaction type: <builtin: TPC-B (sort of)>", "latency average = ", "tps = ", "seed: 1", "latency percentiles: p50"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// Bad input: exit 1, a message naming file:line and the key, nothing written.
func TestBadConfigExitsOneAndWritesNothing(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nserver:\n  shared_bufers: 1GB\n"), 0o644)
	dir := filepath.Join(tmp, "out")
	code, _, errs := runCLI(t, "-config", bad, "-out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errs, "bad.yaml:3: server.shared_bufers: unknown key") || !strings.Contains(errs, `did you mean "shared_buffers"`) {
		t.Errorf("message: %s", errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("an output directory was created for a bad config")
	}
	for _, args := range [][]string{
		{"-config", filepath.Join(tmp, "missing.yaml")},
		{"-config", "../../configs/quickstart.yaml", "-set", "server.cpus=0"},
		{"-config", "../../configs/quickstart.yaml", "-duration", "5 parsecs"},
		{"-nosuchflag"},
		{},
	} {
		if code, _, _ := runCLI(t, args...); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
	}
}

// A failure during the run (here: more backends pin buffers at once than
// shared_buffers has) exits 2 and writes nothing.
func TestRunFailureExitsTwo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", dir,
		"-set", "server.shared_buffers=128kB", "-set", "workload.phases.run.clients=200", "-set", "os.page_cache=0", "-set", short)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (%s)", code, errs)
	}
	if !strings.Contains(errs, "no unpinned buffers") {
		t.Errorf("message: %s", errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("a failed run left an output directory")
	}
}

func TestListPolicies(t *testing.T) {
	code, out, _ := runCLI(t, "-list-policies")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"clock-sweep", "max_usage_count: 5", "correlated_reference_period", "lru", "2q", "arc", "sieve", "opt (trace replay only)"} {
		if !strings.Contains(out, want) {
			t.Errorf("-list-policies lacks %q:\n%s", want, out)
		}
	}
}

// -write-trace writes the run's page references; simulate -trace replays
// them through the policies, OPT included.
func TestWriteTraceThenReplay(t *testing.T) {
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "run.csv")
	code, _, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", filepath.Join(tmp, "q"), "-q",
		"-set", short, "-set", "workload.phases.warmup.duration=1s", "-write-trace", tr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(tr)
	if err != nil || !strings.Contains(string(data), "\npgbench_accounts,") {
		t.Fatalf("trace: %v %.80q", err, data)
	}
	if !strings.Contains(string(data), ",w\n") || !strings.Contains(string(data), ",r\n") {
		t.Error("the trace should mark reads and writes")
	}
	code, out, errs := runCLI(t, "-trace", tr, "-policy", "clock-sweep,opt", "-cache", "5%")
	if code != 0 {
		t.Fatalf("replay exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "clock-sweep") || !strings.Contains(out, "opt") {
		t.Errorf("replay output:\n%s", out)
	}
}

// -cpuprofile and -memprofile write pprof profiles of the run (gzipped
// protocol buffers); a profile path that cannot be created is a flag error,
// exit 1, with nothing written.
func TestProfiles(t *testing.T) {
	tmp := t.TempDir()
	cpu, mem := filepath.Join(tmp, "cpu.prof"), filepath.Join(tmp, "mem.prof")
	code, _, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", filepath.Join(tmp, "q"), "-q",
		"-set", short, "-set", "workload.phases.warmup.duration=1s", "-cpuprofile", cpu, "-memprofile", mem)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{cpu, mem} {
		data, err := os.ReadFile(f)
		if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Errorf("%s: not a gzipped profile (%v, %d bytes)", f, err, len(data))
		}
	}
	out := filepath.Join(tmp, "bad")
	code, _, errs = runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", out, "-q",
		"-set", short, "-cpuprofile", filepath.Join(tmp, "no", "such", "dir", "cpu.prof"))
	if code != 1 || !strings.Contains(errs, "-cpuprofile") {
		t.Errorf("bad profile path: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a flag error left output behind")
	}
}

// The 2014 gaussian pgbench patch (against 9.4devel) printed the access
// probabilities of the top 20/10/5 % of keys in its run header (seed 002);
// so does the summary at server.version 9.4 and before. pgbench as
// released (9.5 on) prints no such lines.
func TestGaussianHeaderLine(t *testing.T) {
	lines := []string{"standard deviation threshold: 5.00000", "access probability of top 20%, 10% and 5% records: 0.68269 0.38293 0.19741"}
	for _, version := range []string{"9.4", "9.5", "17"} {
		code, out, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", filepath.Join(t.TempDir(), "g"),
			"-set", short, "-set", "workload.phases.warmup.duration=1s", "-set", "server.version="+version,
			"-set", `workload.phases.run.set={aid: "random_gaussian(1, 100000 * :scale, 5)"}`)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for _, want := range lines {
			if has := strings.Contains(out, want); has != (version == "9.4") {
				t.Errorf("version %s: the summary has %q: %v, want %v", version, want, has, version == "9.4")
			}
		}
	}
}

// pgbench's options on the command line: -f and -b replace the phases'
// scripts (a mix with @weights), -D defines variables, -l and
// -aggregate-interval write pgbench's logs into the output directory, and
// a script problem names the file and line with nothing written.
func TestPgbenchOptions(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.sql")
	if err := os.WriteFile(script, []byte("\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o")
	code, stdout, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", out, "-set", short,
		"-set", "workload.phases.warmup.duration=1s", "-f", script+"@3", "-b", "select-only", "-D", "scale=10",
		"-l", "-aggregate-interval", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"transaction type: multiple scripts", "SQL script 1: " + script, " - weight: 3 (targets 75.0% of total)", "SQL script 2: <builtin: select only>"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "pgbench_log.10001")); err != nil {
		t.Errorf("no pgbench log of the run phase: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "pgbench_log.10000")); err == nil {
		t.Error("the warm-up phase was logged")
	}
	if err := os.WriteFile(script, []byte("SELECT * FROM pgbench_accounts a JOIN pgbench_tellers t ON a.aid = t.tid;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	code, _, errs = runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", bad, "-f", script)
	if code != 1 || !strings.Contains(errs, script+":1: SELECT * FROM pgbench_accounts ...: joins, subqueries and functions in FROM are not modelled") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a refused script left output behind")
	}
}

// -random-seed N is pgbench --random-seed: every phase replays pgbench's
// sequence for N (its config says random_seed: N, and the keys differ from
// the simulator's own streams'), a non-integer is refused as pgbench
// refuses it, and a version before 15 is refused at the key.
func TestRandomSeedFlag(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, args ...string) (int, string, string) {
		return runCLI(t, append([]string{"-config", "../../configs/quickstart.yaml", "-out", filepath.Join(dir, name), "-set", short,
			"-set", "workload.phases.warmup.duration=1s", "-b", "select-only", "-q"}, args...)...)
	}
	var sums [2]map[string]any
	for i, args := range [][]string{{"-random-seed", "42"}, nil} {
		name := fmt.Sprint("run", i)
		if code, _, errs := run(name, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		data, err := os.ReadFile(filepath.Join(dir, name, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &sums[i]); err != nil {
			t.Fatal(err)
		}
	}
	phases := sums[0]["config"].(map[string]any)["workload"].(map[string]any)["phases"].([]any)
	for _, p := range phases {
		if rs := p.(map[string]any)["random_seed"]; rs != float64(42) {
			t.Errorf("phase %v: random_seed %v, want 42", p.(map[string]any)["name"], rs)
		}
	}
	rel := func(s map[string]any) any { return s["totals"].(map[string]any)["pg_statio_user_indexes"] }
	if reflect.DeepEqual(rel(sums[0]), rel(sums[1])) {
		t.Errorf("-random-seed 42 read the same index pages as the simulator's own streams: %v", rel(sums[0]))
	}
	if code, _, errs := run("bad", "-random-seed", "time"); code != 1 || !strings.Contains(errs, "expecting an unsigned integer") {
		t.Errorf("-random-seed time: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := run("old", "-random-seed", "1", "-set", "server.version=14"); code != 1 || !strings.Contains(errs, "random_seed: replaying pgbench's random sequence needs server.version 15 or later") {
		t.Errorf("-random-seed with version 14: exit %d, stderr %q", code, errs)
	}
	for _, name := range []string{"bad", "old"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("a refused run left %s behind", name)
		}
	}
}

// A run whose state outgrows the memory allowed (model.MemoryError) is
// refused like one whose estimate does: exit 1, the limit and where it
// came from named, nothing written; the limit handed to the model is 90 %
// of -max-memory.
func TestMemoryOverrunExitsOne(t *testing.T) {
	defer func(f func(model.Scenario, model.Options) (*model.Result, error)) { modelRun = f }(modelRun)
	var got int64
	modelRun = func(sc model.Scenario, opt model.Options) (*model.Result, error) {
		got = opt.MemoryLimit
		return nil, &model.MemoryError{Live: 9 << 30, Limit: opt.MemoryLimit, At: 3600e9, Phase: "run"}
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := runCLI(t, "-config", "../../configs/quickstart.yaml", "-out", dir, "-max-memory", "10GB", "-set", short)
	if code != 1 || !strings.Contains(errs, "outgrew the memory allowed") || !strings.Contains(errs, "-max-memory") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := int64(10<<30) / 10 * 9; got != want {
		t.Errorf("the model's limit %d, want %d (90 %% of 10 GB)", got, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("a refused run left an output directory")
	}
}
