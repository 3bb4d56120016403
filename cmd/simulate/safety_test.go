package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

var tiny = []string{"-config", "../../configs/quickstart.yaml", "-q", "-set", short, "-set", "workload.phases.warmup.duration=1s"}

func tinyArgs(extra ...string) []string { return append(append([]string(nil), tiny...), extra...) }

// -out never loses a user's files: a foreign directory, a file, the
// working directory and a link are refused (exit 1, nothing touched); an
// earlier run's output is replaced.
func TestOutNeverLosesFiles(t *testing.T) {
	tmp := t.TempDir()
	d := filepath.Join(tmp, "d")
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "keep"), []byte("x"), 0o644)
	file := filepath.Join(tmp, "README.md")
	os.WriteFile(file, []byte("readme"), 0o644)
	for _, out := range []string{d, file, ".", ".."} {
		code, _, errs := runCLI(t, tinyArgs("-out", out)...)
		if code != 1 || !strings.Contains(errs, "-out ") {
			t.Errorf("-out %s: exit %d, %q", out, code, errs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(d, "keep")); err != nil || string(b) != "x" {
		t.Errorf("d/keep: %q %v", b, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "readme" {
		t.Errorf("README.md: %q %v", b, err)
	}
	// A rerun replaces the earlier output.
	q := filepath.Join(tmp, "q")
	for i := 0; i < 2; i++ {
		if code, _, errs := runCLI(t, tinyArgs("-out", q)...); code != 0 {
			t.Fatalf("run %d into an earlier output: exit %d %s", i, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(q, ".pgbufsim")); err != nil {
		t.Error("no marker file in the output")
	}
}

// A scenario name becomes a directory name only after sanitising: it
// cannot climb out of out/.
func TestScenarioNameIsSanitised(t *testing.T) {
	wd, _ := os.Getwd()
	tmp := t.TempDir()
	cfg, _ := filepath.Abs("../../configs/quickstart.yaml")
	if err := os.Chdir(tmp); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, _, errs := runCLI(t, "-config", cfg, "-q", "-set", short, "-set", "workload.phases.warmup.duration=1s", "-set", "name=../src")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(tmp, "out", "_src", "summary.json")); err != nil {
		t.Errorf("the run did not go to out/_src: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "src")); err == nil {
		t.Error("the scenario name escaped out/")
	}
}

// stripWall removes the wall-clock fields of summary.json, the only ones
// that may differ between two runs of one scenario.
func stripWall(t *testing.T, path string) string {
	t.Helper()
	var v map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	rt := v["runtime"].(map[string]any)
	for _, k := range []string{"wall_seconds", "events_per_second", "simulated_per_wall", "peak_heap_mb", "model_bytes_per_page", "build_seconds", "prewarm_seconds", "run_seconds", "wall_us_per_transaction"} {
		delete(rt, k)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// Progress on a terminal watches the run without changing it: the same
// bytes with and without it, also with a prewarm and a rate (which used
// to panic), and the run ends at its end (not at the next progress tick).
func TestProgressChangesNothing(t *testing.T) {
	tmp := t.TempDir()
	args := tinyArgs("-set", "workload.phases.warmup.rate=100", "-set", "workload.prewarm=10000", "-set", "workload.phases.run.duration=7s")
	defer func(f func(io.Writer) bool) { isTerminal = f }(isTerminal)
	var sums []string
	for i, term := range []bool{false, true} {
		isTerminal = func(io.Writer) bool { return term }
		out := filepath.Join(tmp, []string{"plain", "tty"}[i])
		var o, e bytes.Buffer
		if code := run(append(args, "-out", out), &o, &e); code != 0 {
			t.Fatalf("terminal %v: exit %d: %s", term, code, e.String())
		}
		if term && !strings.Contains(e.String(), "progress: ") {
			t.Error("no progress line on a terminal")
		}
		sums = append(sums, stripWall(t, filepath.Join(out, "summary.json")))
		for _, f := range []string{"timeseries.csv", "report.html"} {
			if i == 1 {
				a, _ := os.ReadFile(filepath.Join(tmp, "plain", f))
				b, _ := os.ReadFile(filepath.Join(out, f))
				if !bytes.Equal(a, b) {
					t.Errorf("%s differs with progress on", f)
				}
			}
		}
	}
	if sums[0] != sums[1] {
		t.Error("summary.json differs with progress on")
	}
	var v struct{ Runtime model.Runtime }
	b, _ := os.ReadFile(filepath.Join(tmp, "tty", "summary.json"))
	json.Unmarshal(b, &v)
	if v.Runtime.SimulatedSeconds > 8.5 {
		t.Errorf("a 1 s + 7 s run simulated %.1f s", v.Runtime.SimulatedSeconds)
	}
}

// A panic in the model (a bug) is exit 2 with a message, and a trace being
// written is removed: no hidden temporary file is left.
func TestPanicLeavesNoTemporaryTrace(t *testing.T) {
	defer func(f func(model.Scenario, model.Options) (*model.Result, error)) { modelRun = f }(modelRun)
	modelRun = func(sc model.Scenario, opt model.Options) (*model.Result, error) { panic("boom") }
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "t", "run.csv")
	code, _, errs := runCLI(t, tinyArgs("-out", filepath.Join(tmp, "q"), "-write-trace", tr)...)
	if code != 2 || !strings.Contains(errs, "panicked") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	entries, _ := os.ReadDir(filepath.Dir(tr))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

type fakeWatch struct{ polls int }

func (f *fakeWatch) Interrupted() bool { f.polls++; return f.polls > 3 }
func (f *fakeWatch) Signal() string    { return "SIGINT" }
func (f *fakeWatch) Stop()             {}

// SIGINT or SIGTERM mid-run: one line, exit 2, nothing written, no
// temporary trace left.
func TestInterruptWritesNothing(t *testing.T) {
	defer func(f func() watcher) { startWatch = f }(startWatch)
	startWatch = func() watcher { return &fakeWatch{} }
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "t", "run.csv")
	out := filepath.Join(tmp, "q")
	code, _, errs := runCLI(t, tinyArgs("-out", out, "-write-trace", tr)...)
	if code != 2 || !strings.Contains(errs, "interrupted by SIGINT") || !strings.Contains(errs, "nothing written") {
		t.Fatalf("exit %d: %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted run wrote its outputs")
	}
	entries, _ := os.ReadDir(filepath.Dir(tr))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// -write-trace, -cpuprofile and -memprofile replace only files pgbufsim
// wrote.
func TestOutputFilesNotOverwritten(t *testing.T) {
	tmp := t.TempDir()
	mine := filepath.Join(tmp, "notes.csv")
	os.WriteFile(mine, []byte("my,own,data\n"), 0o644)
	for _, flag := range []string{"-write-trace", "-cpuprofile", "-memprofile"} {
		code, _, errs := runCLI(t, tinyArgs("-out", filepath.Join(tmp, "q"), flag, mine)...)
		if code != 1 || !strings.Contains(errs, "is not a ") {
			t.Errorf("%s over a user's file: exit %d %q", flag, code, errs)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "my,own,data\n" {
		t.Errorf("the user's file changed: %q", b)
	}
	// A trace pgbufsim wrote is replaced by the next run.
	tr := filepath.Join(tmp, "run.csv")
	for i := 0; i < 2; i++ {
		if code, _, errs := runCLI(t, tinyArgs("-out", filepath.Join(tmp, "q"), "-write-trace", tr)...); code != 0 {
			t.Fatalf("run %d: exit %d %s", i, code, errs)
		}
	}
}

// Flags are checked like the YAML keys they override.
func TestFlagsCheckedLikeKeys(t *testing.T) {
	tmp := t.TempDir()
	for _, args := range [][]string{
		tinyArgs("-seed", "-5"),
		tinyArgs("-max-memory", "1MB"),
		tinyArgs("-max-memory", "lots"),
		tinyArgs("-set", "workload.phases.run.rate=1e-300"),
		tinyArgs("-set", "workload.phases.run.rate=1e-12"),
		tinyArgs("-set", "workload.phases.run.rate=1e9"),
		tinyArgs("-set", "workload.phases.run.clients=100000", "-set", "server.shared_buffers=1GB", "-max-memory", "8GB"),
		tinyArgs("-set", "os.dirty_background_ratio=30", "-set", "os.dirty_ratio=20"),
		tinyArgs("-set", "tables.relations=[{name: big, pages: 3000000000, rows_per_page: 1}]"),
		tinyArgs("-set", "tables.relations=[{name: many, rows: 10, count: 950000}]"),
	} {
		code, _, errs := runCLI(t, append(args, "-out", filepath.Join(tmp, "x"))...)
		if code != 1 || errs == "" {
			t.Errorf("%v: exit %d %q", args[len(tiny):], code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "x")); err == nil {
		t.Error("a refused run wrote output")
	}
	// The memory refusal names the key that drives it.
	_, _, errs := runCLI(t, tinyArgs("-set", "workload.phases.run.clients=100000", "-max-memory", "8GB", "-out", filepath.Join(tmp, "x"))...)
	if !strings.Contains(errs, "workload.phases[1].clients") {
		t.Errorf("memory refusal: %q", errs)
	}
}

// -dry-run prints the plan and the memory estimate, runs nothing.
func TestDryRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x")
	code, stdout, errs := runCLI(t, tinyArgs("-dry-run", "-out", out)...)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	for _, want := range []string{"phase run: tpcb-like, 8 clients", "memory estimate:", "server.shared_buffers", "tables.pgbench.scale"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-dry-run lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("-dry-run wrote output")
	}
}

// -h describes every mode; -version names the build.
func TestHelpAndVersion(t *testing.T) {
	code, _, errs := runCLI(t, "-h")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"-write-trace", "-dry-run", "-replicates", "-shard", "simulate merge", "-policy", "-cache", "-force"} {
		if !strings.Contains(errs, want) {
			t.Errorf("-h lacks %q", want)
		}
	}
	code, out, _ := runCLI(t, "-version")
	if code != 0 || !strings.HasPrefix(out, "pgbufsim ") || !strings.Contains(out, "go1.") {
		t.Errorf("-version: %d %q", code, out)
	}
}

// An empty trace is bad input in every format.
func TestEmptyTraces(t *testing.T) {
	tmp := t.TempDir()
	for _, name := range []string{"e.csv", "e.oracleGeneral"} {
		p := filepath.Join(tmp, name)
		os.WriteFile(p, nil, 0o644)
		for _, pol := range []string{"clock-sweep", "clock-sweep,lru"} {
			code, _, errs := runCLI(t, "-trace", p, "-policy", pol, "-cache", "64")
			if code != 1 || !strings.Contains(errs, "empty") {
				t.Errorf("%s with %s: exit %d %q", name, pol, code, errs)
			}
		}
	}
}

// Inputs that used to fill memory or never end (found by trying every bad
// input): an endless device as a configuration, a script file or a costs
// file; a script whose transactions take no simulated time; a \sleep past
// the int64 nanoseconds; an unbounded prewarm. Each is refused with exit 1
// before any work, or (a \sleep 0 known only while running) stopped with
// exit 2 and a message, never a hang.
func TestEndlessInputsRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onlySet := write("onlyset.sql", "\\set a 1\n")
	sleep0 := write("sleep0.sql", "\\set x 0\n\\sleep :x\n")
	bigSleep := write("bigsleep.sql", "\\sleep 99999999999999 s\nSELECT 1;\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-config", "/dev/zero"}, 1, "more than the 8388608 bytes"},
		{tinyArgs("-f", "/dev/zero"), 1, "more than the 8388608 bytes"},
		{tinyArgs("-costs", "/dev/zero"), 1, "more than the 8388608 bytes"},
		{tinyArgs("-f", onlySet), 1, "no SQL command and no \\sleep"},
		{tinyArgs("-f", dir), 1, "is a directory, not a script file"},
		{tinyArgs("-f", bigSleep), 1, "longer than the 13343 days a sleep may last"},
		{tinyArgs("-set", "workload.prewarm=999999999999"), 1, "out of range [0, 1000000000]"},
		{tinyArgs("-f", sleep0), 2, "transactions in a row that took no simulated time"},
	} {
		out := filepath.Join(dir, "out")
		code, _, errs := runCLI(t, append(c.args, "-out", out)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q: %s", c.args, code, c.code, c.want, errs)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", c.args, out)
		}
	}
}

// An output flag's file inside -out would make the next run refuse its own
// directory, and two flags naming one file would lose one of them: both
// are refused before the run.
func TestOutputFlagsDoNotCollide(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-write-trace", filepath.Join(out, "t.csv")}, "is inside -out"},
		{[]string{"-cpuprofile", filepath.Join(dir, "p"), "-memprofile", filepath.Join(dir, "p")}, "-cpuprofile writes that file too"},
		{[]string{"-write-trace", filepath.Join(dir, "t.csv"), "-cpuprofile", filepath.Join(dir, "t.csv")}, "-write-trace writes that file too"},
	} {
		code, _, errs := runCLI(t, tinyArgs(append(c.args, "-out", out)...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 1 with %q: %s", c.args, code, c.want, errs)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%v: wrote %d files", c.args, len(entries))
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A summary that cannot be written to standard output is a failure (exit
// 2 with the reason), not exit 0.
func TestStdoutWriteErrorIsAFailure(t *testing.T) {
	out := &checkedWriter{w: failingWriter{}}
	var stderr bytes.Buffer
	args := []string{"-config", "../../configs/quickstart.yaml", "-set", short, "-set", "workload.phases.warmup.duration=1s", "-out", filepath.Join(t.TempDir(), "run")}
	code := out.exitCode(run(args, out, &stderr), &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "writing to standard output: no space left on device") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	ok := &checkedWriter{w: io.Discard}
	if code := ok.exitCode(exitOK, &stderr); code != exitOK {
		t.Errorf("a written summary: exit %d", code)
	}
}

// -prewarm-cache DIR: the first run writes its prewarm to DIR, the second
// reads it; both give the bytes of a run without the flag. A DIR that is a
// file is said so on stderr and the run still succeeds, the same.
func TestPrewarmCacheFlag(t *testing.T) {
	tmp := t.TempDir()
	args := tinyArgs("-set", "workload.prewarm=10000", "-set", "workload.phases.run.duration=3s")
	cache := filepath.Join(tmp, "cache")
	var sums []string
	for i, extra := range [][]string{nil, {"-prewarm-cache", cache}, {"-prewarm-cache", cache}, {"-prewarm-cache", filepath.Join(tmp, "afile")}} {
		if i == 3 {
			os.WriteFile(filepath.Join(tmp, "afile"), []byte("x"), 0o644)
		}
		out := filepath.Join(tmp, fmt.Sprint("out", i))
		var o, e bytes.Buffer
		if code := run(append(append(args, extra...), "-out", out), &o, &e); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, e.String())
		}
		if (i == 3) != strings.Contains(e.String(), "prewarm cache: not written") {
			t.Errorf("run %d: stderr %q", i, e.String())
		}
		sums = append(sums, stripWall(t, filepath.Join(out, "summary.json")))
		if i > 0 && sums[i] != sums[0] {
			t.Errorf("run %d with %v: summary.json differs from the run without a prewarm cache", i, extra)
		}
		if i == 1 || i == 2 {
			files, _ := filepath.Glob(filepath.Join(cache, "prewarm-*.bin"))
			if len(files) != 1 {
				t.Errorf("run %d: %d prewarm files in the cache, want 1", i, len(files))
			}
		}
	}
	if got, _ := os.ReadFile(filepath.Join(tmp, "afile")); string(got) != "x" {
		t.Error("a file given as the cache directory was changed")
	}
}
