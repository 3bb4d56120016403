package sweep

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// readTree returns every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails unless two directories hold the same files with the same
// bytes.
func sameTree(t *testing.T, what, a, b string) {
	t.Helper()
	ta, tb := readTree(t, a), readTree(t, b)
	ka, kb := slices.Sorted(maps.Keys(ta)), slices.Sorted(maps.Keys(tb))
	if !slices.Equal(ka, kb) {
		t.Fatalf("%s: different files:\n%v\n%v", what, ka, kb)
	}
	for _, k := range ka {
		if !bytes.Equal(ta[k], tb[k]) {
			t.Errorf("%s: %s differs", what, k)
		}
	}
}

// gridPlan is 2 policies x 2 buffer sizes, 2 replicates: 8 runs.
func gridPlan(t *testing.T) *configs.SweepPlan {
	return tinyPlan(t, 2, "policies.replacement.name=clock-sweep,lru", "server.shared_buffers=1MB,2MB")
}

// fullRun is the reference: the grid run at once, serially.
func fullRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "full")
	res, err := Run(gridPlan(t), Options{Dir: dir, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() || len(res.Rows) != 8 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	return dir
}

// Common random numbers: under a rate-limited workload the number of
// transactions is set by the arrival stream alone, so every point sees the
// same count at replicate r (while the policies' hit ratios differ), and
// another replicate sees another count.
func TestCommonRandomNumbers(t *testing.T) {
	plan := tinyPlan(t, 3, "policies.replacement.name=clock-sweep,lru,sieve")
	res, err := Run(plan, Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[float64]bool{}
	for rep := 0; rep < 3; rep++ {
		n := res.Replicates(0, "transactions")[rep]
		counts[n] = true
		for p := 1; p < 3; p++ {
			if m := res.Replicates(p, "transactions")[rep]; m != n {
				t.Errorf("replicate %d: %s ran %v transactions, %s %v", rep, plan.Points[0].ID, n, plan.Points[p].ID, m)
			}
			if res.Replicates(p, "buffers.hit_ratio")[rep] == res.Replicates(0, "buffers.hit_ratio")[rep] {
				t.Errorf("replicate %d: %s and %s have the same hit ratio; the policies did not differ", rep, plan.Points[0].ID, plan.Points[p].ID)
			}
		}
	}
	if len(counts) < 2 {
		t.Errorf("every replicate ran the same transactions %v: replicates do not draw new streams", counts)
	}
}

// The outputs are byte-identical for any -parallel.
func TestDeterministicAcrossParallel(t *testing.T) {
	full := fullRun(t)
	two := filepath.Join(t.TempDir(), "two")
	if _, err := Run(gridPlan(t), Options{Dir: two, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "parallel 1 vs 2", full, two)
	files := readTree(t, full)
	for _, want := range []string{SweepCSVFile, SummaryCSVFile, PairedCSVFile, SweepHTMLFile, PlanFile, JournalFile,
		"runs/p3-name=lru-shared_buffers=2MB/r1/report.html", "runs/p0-name=clock-sweep-shared_buffers=1MB/r0/summary.json"} {
		if _, ok := files[filepath.FromSlash(want)]; !ok {
			t.Errorf("no %s", want)
		}
	}
	if bytes.Contains(files[filepath.FromSlash("runs/p0-name=clock-sweep-shared_buffers=1MB/r0/summary.json")], []byte(`"wall_seconds": 0,`)) == false {
		t.Error("a run's summary.json has a wall-clock time")
	}
}

// An interrupted sweep resumes: the runs found finished are skipped, a run
// whose directory is missing or whose journal line was cut off runs again,
// and the final bytes equal an uninterrupted run's.
func TestResume(t *testing.T) {
	full := fullRun(t)
	dir := filepath.Join(t.TempDir(), "resumed")
	// "Killed midway": only shard 0 of 2 finished ...
	if _, err := Run(gridPlan(t), Options{Dir: dir, Parallel: 2, Shard: 0, Shards: 2}); err != nil {
		t.Fatal(err)
	}
	// ... one finished run lost its directory, and the last journal line
	// was being written.
	if err := os.RemoveAll(filepath.Join(dir, "runs", "p2-name=lru-shared_buffers=1MB", "r1")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"point":"p1-name=clock-sweep-shared_buffers=2MB","replicate":0,"seed":7,"con`)
	f.Close()
	var first Event
	res, err := Run(gridPlan(t), Options{Dir: dir, Parallel: 2, Progress: func(e Event) {
		if e.Point == nil {
			first = e
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Total != 8 || first.Skipped != 3 || len(res.Rows) != 8 {
		t.Errorf("resumed with %d of %d skipped, %d rows", first.Skipped, first.Total, len(res.Rows))
	}
	sameTree(t, "resumed vs uninterrupted", full, dir)
	// A second re-run has nothing left to do.
	first = Event{}
	if _, err := Run(gridPlan(t), Options{Dir: dir, Progress: func(e Event) { first = e }}); err != nil || first.Skipped != 8 {
		t.Errorf("re-run: %v, skipped %d", err, first.Skipped)
	}
	sameTree(t, "re-run", full, dir)
	// More replicates keep the finished ones.
	more := tinyPlan(t, 3, "policies.replacement.name=clock-sweep,lru", "server.shared_buffers=1MB,2MB")
	if _, err := Run(more, Options{Dir: dir, Progress: func(e Event) {
		if e.Point == nil {
			first = e
		}
	}}); err != nil || first.Skipped != 8 || first.Total != 12 {
		t.Errorf("3 replicates after 2: %v, %d of %d skipped", err, first.Skipped, first.Total)
	}
}

// Shards merged equal the unsharded sweep; a directory of another sweep
// is refused.
func TestMergeShards(t *testing.T) {
	full := fullRun(t)
	tmp := t.TempDir()
	var shards []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(tmp, "shard"+string(rune('0'+i)))
		res, err := Run(gridPlan(t), Options{Dir: d, Shard: i, Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		// Shard i has points i and i+3 of p0..p3.
		want := map[int]int{0: 4, 1: 2, 2: 2}[i]
		if len(res.Rows) != want {
			t.Errorf("shard %d/3 ran %d runs, want %d", i, len(res.Rows), want)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(tmp, "merged")
	var stdout, stderr bytes.Buffer
	if code := MergeMain(append([]string{"-out", merged}, shards...), &stdout, &stderr); code != 0 {
		t.Fatalf("merge exit %d: %s", code, stderr.String())
	}
	sameTree(t, "merged vs unsharded", full, merged)
	// Shards merged one at a time into the same directory add up.
	inc := filepath.Join(tmp, "incremental")
	for i, d := range shards {
		res, err := Merge(inc, []string{d})
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{4, 6, 8}[i]; len(res.Rows) != want {
			t.Errorf("after merging shard %d: %d runs, want %d", i, len(res.Rows), want)
		}
	}
	sameTree(t, "merged incrementally vs unsharded", full, inc)
	// Merging into the first shard's directory works too.
	if code := MergeMain(shards, &stdout, &stderr); code != 0 {
		t.Fatalf("merge exit %d: %s", code, stderr.String())
	}
	sameTree(t, "merged in place vs unsharded", full, shards[0])

	other := filepath.Join(tmp, "other")
	if _, err := Run(tinyPlan(t, 1, "server.cpus=1,2"), Options{Dir: other}); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := MergeMain([]string{"-out", filepath.Join(tmp, "x"), merged, other}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "differs from") {
		t.Errorf("merging two sweeps: exit %d, %s", code, stderr.String())
	}
}

// A directory holding runs of a changed configuration is refused (exit 1,
// nothing run) unless -force, which starts over.
func TestResumeRefusesChangedConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	if _, err := Run(gridPlan(t), Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	changed, err := configs.ParseSweep("tiny.yaml", []byte(tinyBase), []string{"sweep.replicates=2", "server.cpus=3"},
		[]string{"policies.replacement.name=clock-sweep,lru", "server.shared_buffers=1MB,2MB"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(changed, Options{Dir: dir})
	var conflict *ConflictError
	if !errors.As(err, &conflict) || !strings.Contains(err.Error(), "was run with another configuration") {
		t.Fatalf("got %v", err)
	}
	res, err := Run(changed, Options{Dir: dir, Force: true})
	if err != nil || len(res.Rows) != 8 {
		t.Fatalf("force: %v", err)
	}
	plan := readTree(t, dir)[PlanFile]
	want, _ := planHashes(changed)
	if !bytes.Contains(plan, []byte(want[0])) {
		t.Error("the plan file is not the new sweep's")
	}
}

// A failing run stops the dispatch of new runs and returns a RunError; the
// finished runs stay in the journal and a re-run completes the sweep with
// the same bytes as an uninterrupted one.
func TestRunFailureThenResume(t *testing.T) {
	full := fullRun(t)
	dir := filepath.Join(t.TempDir(), "d")
	defer func() { runModel = model.RunWith }()
	runModel = func(sc model.Scenario, opt model.Options) (*model.Result, error) {
		if sc.Server.SharedBuffers == 2<<20 && sc.Policies.Replacement.Policy == "lru" {
			return nil, errors.New("disk on fire")
		}
		return model.Run(sc)
	}
	res, err := Run(gridPlan(t), Options{Dir: dir, Parallel: 1})
	var re *RunError
	if !errors.As(err, &re) || re.Point != "p3-name=lru-shared_buffers=2MB" || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v", err)
	}
	if len(res.Rows) != 6 {
		t.Errorf("%d runs finished before the failure, want 6", len(res.Rows))
	}
	runModel = model.RunWith
	if _, err := Run(gridPlan(t), Options{Dir: dir, Parallel: 2}); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "after failure and resume", full, dir)

	// A panic in the model is a failed run too, not a crash.
	runModel = func(model.Scenario, model.Options) (*model.Result, error) { panic("boom") }
	if _, err := Run(tinyPlan(t, 1), Options{}); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("panic: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	for s, want := range map[string][2]int{"": {0, 1}, "0/1": {0, 1}, "3/4": {3, 4}, " 1 / 2 ": {1, 2}} {
		i, n, err := ParseShard(s)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("%q: %d/%d %v", s, i, n, err)
		}
	}
	for _, s := range []string{"4/4", "-1/2", "1", "a/b", "0/0", "1/2/3"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// A sweep paces the collector from its runs' live heap (GOGC 400 while it
// is small, less above 256 MB: internal/gcpace) unless GOGC is set, and
// puts the GOGC it found back when it ends.
func TestSweepPacesTheCollector(t *testing.T) {
	defer func() { runModel = model.RunWith }()
	var percents []int
	runModel = func(sc model.Scenario, opt model.Options) (*model.Result, error) {
		if opt.HeapWatch == nil {
			percents = append(percents, -1)
			return model.RunWith(sc, opt)
		}
		for _, live := range []int64{100 << 20, 1 << 30, 20 << 30} {
			opt.HeapWatch(live)
			percents = append(percents, debug.SetGCPercent(-1))
			debug.SetGCPercent(percents[len(percents)-1])
		}
		return model.RunWith(sc, opt)
	}
	before := debug.SetGCPercent(77)
	defer debug.SetGCPercent(before)
	if _, err := Run(tinyPlan(t, 1), Options{Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if want := []int{400, 100, 10}; !slices.Equal(percents, want) {
		t.Errorf("GOGC %v while the runs' live heap was 100 MB, 1 GB, 20 GB: want %v", percents, want)
	}
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("after the sweep GOGC is %d, want the 77 it found", got)
	}
	t.Setenv("GOGC", "100")
	percents = nil
	if _, err := Run(tinyPlan(t, 1), Options{Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(percents, []int{-1}) {
		t.Errorf("with GOGC set the runs were paced: %v", percents)
	}
}
