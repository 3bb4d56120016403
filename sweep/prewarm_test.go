package sweep

import (
	"errors"
	"runtime"

	"github.com/pgbufsim/pgbufsim/model"
	"path/filepath"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
)

// A sweep makes each distinct prewarm once and copies it into the other
// runs that would make the same one (model.PrewarmKey): here the
// background writer's delay cannot change the prewarm, shared_buffers and
// the replicate can, so 4 of the 8 runs prewarm and 4 copy. Every file
// is the same as when each run prewarms itself, at any parallelism.
func TestSharedPrewarmSweepGivesTheSameFiles(t *testing.T) {
	plan, root, sep, res := prewarmSweep(t)
	if res.PrewarmsMade != 0 || res.PrewarmsCopied != 0 {
		t.Fatalf("separate prewarms: %d made and %d copied through a share, want none", res.PrewarmsMade, res.PrewarmsCopied)
	}
	for _, parallel := range []int{1, 3} {
		dir := filepath.Join(root, "shared", string(rune('0'+parallel)))
		res, err := Run(plan, Options{Dir: dir, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		if res.PrewarmsMade != 4 || res.PrewarmsCopied != 4 {
			t.Fatalf("-parallel %d: %d prewarms made and %d copied, want 4 and 4", parallel, res.PrewarmsMade, res.PrewarmsCopied)
		}
		sameTree(t, "shared against separate prewarms", dir, sep)
	}
}

// With a prewarm cache (-prewarm-cache DIR) the first sweep writes its 4
// distinct prewarms to the directory and a second sweep, in a new share as
// another process's would be, reads all 4 instead of prewarming; every
// file is the same as when each run prewarms itself.
func TestPrewarmCacheSweepReusesItsPrewarms(t *testing.T) {
	plan, root, sep, _ := prewarmSweep(t)
	cache := filepath.Join(root, "cache")
	var notes []string
	for i, want := range []int{4, 0} {
		dir := filepath.Join(root, "cached", string(rune('0'+i)))
		res, err := Run(plan, Options{Dir: dir, Parallel: 2, PrewarmCache: cache, PrewarmNotes: func(n string) { notes = append(notes, n) }})
		if err != nil {
			t.Fatal(err)
		}
		if res.PrewarmsMade != want {
			t.Fatalf("sweep %d: %d prewarms made, want %d", i+1, res.PrewarmsMade, want)
		}
		sameTree(t, "cached against separate prewarms", dir, sep)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "prewarm-*.bin"))
	if len(files) != 4 || len(notes) != 0 {
		t.Fatalf("%d prewarm files, notes %v; want 4 and none", len(files), notes)
	}
}

// prewarmSweep is the sweep of the prewarm tests (8 runs, 4 distinct
// prewarms), run once with separate prewarms into root/separate.
func prewarmSweep(t *testing.T) (plan *configs.SweepPlan, root, sep string, res *Results) {
	t.Helper()
	plan, err := configs.ParseSweep("tiny.yaml", []byte(tinyBase), []string{"sweep.replicates=2", "workload.prewarm=5000"},
		[]string{"server.shared_buffers=1MB,2MB", "server.bgwriter_delay=50ms,200ms"})
	if err != nil {
		t.Fatal(err)
	}
	root = t.TempDir()
	sep = filepath.Join(root, "separate")
	res, err = Run(plan, Options{Dir: sep, Parallel: 1, SeparatePrewarms: true})
	if err != nil {
		t.Fatal(err)
	}
	return plan, root, sep, res
}

// A sweep hands its memory limit to every run: a run whose live heap
// passes it stops the sweep with its model.MemoryError.
func TestSweepRunsStopAtTheMemoryLimit(t *testing.T) {
	plan, err := configs.ParseSweep("tiny.yaml", []byte(tinyBase), nil, []string{"server.shared_buffers=1MB,2MB"})
	if err != nil {
		t.Fatal(err)
	}
	// The limit is checked against the live heap of the last collection:
	// make sure there was one.
	runtime.GC()
	_, err = Run(plan, Options{Parallel: 1, MemoryLimit: 1})
	var me *model.MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("a sweep over its memory limit: %v, want a *model.MemoryError", err)
	}
}
