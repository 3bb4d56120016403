package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/internal/gcpace"
	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/report"
)

// Options control Run.
type Options struct {
	// Dir is the output directory. Empty keeps everything in memory: no
	// per-run reports, no journal, nothing to resume.
	Dir string
	// Parallel is the number of runs at once; 0 means GOMAXPROCS.
	Parallel int
	// Shard and Shards select every Shards-th point, starting at point
	// Shard (0 <= Shard < Shards); Shards 0 or 1 runs every point.
	Shard, Shards int
	// Force removes Dir's previous sweep outputs first; without it a Dir
	// holding finished runs of this sweep is resumed (those runs are
	// skipped), and one holding runs of another sweep is refused.
	Force bool
	// Progress, if set, is called after each run finishes (never
	// concurrently), and once before the first run with Row nil.
	Progress func(Event)
	// Interrupted, if set, is polled by the running runs (model.Options);
	// once it returns true no run starts and the running ones stop, and
	// Run returns the finished runs with model.ErrInterrupted.
	Interrupted func() bool
	// SeparatePrewarms makes every run prewarm itself. By default runs
	// whose workload.prewarm would leave the same pool and page cache
	// (model.PrewarmKey: the same tables, pool, page cache, first phase,
	// seed and replicate) share one: it is made once and copied, with
	// the same results.
	SeparatePrewarms bool
	// PrewarmCache, if set, keeps each distinct prewarm in that directory
	// and reuses it in later sweeps and runs (model.NewPrewarmCache;
	// simulate -prewarm-cache). Ignored with SeparatePrewarms.
	PrewarmCache string
	// MemoryLimit, if positive, stops a run whose process's live heap
	// outgrows it (model.Options.MemoryLimit); the sweep then fails with
	// its model.MemoryError.
	MemoryLimit int64
	// PrewarmNotes, if set, gets what the prewarm cache could not read or
	// write, one sentence each, once the runs are done.
	PrewarmNotes func(string)

	heapWatch func(int64) // the collector's pacing, set by Run
}

// Event reports progress.
type Event struct {
	// Done counts finished runs of this invocation's share, including
	// Skipped ones found finished in Dir; Total is the share's size.
	Done, Total, Skipped int
	// Point and Replicate name the run that finished (Point is nil in
	// the first event); Row is its result, or Err says why it failed.
	Point     *configs.SweepPoint
	Replicate int
	Row       *Row
	Err       error
}

// ConflictError says Dir holds runs of a different sweep. Hint says what
// to do (default: -force or another -out).
type ConflictError struct{ Dir, Reason, Hint string }

func (e *ConflictError) Error() string {
	hint := e.Hint
	if hint == "" {
		hint = "use -force to start over, or choose another -out"
	}
	return fmt.Sprintf("%s holds runs of a different sweep (%s); %s", e.Dir, e.Reason, hint)
}

// RunError is a run that failed.
type RunError struct {
	Point     string
	Replicate int
	Err       error
}

func (e *RunError) Error() string {
	return fmt.Sprintf("run %s replicate %d failed: %v", e.Point, e.Replicate, e.Err)
}

func (e *RunError) Unwrap() error { return e.Err }

// RunDir is where a run's own outputs go inside a sweep directory.
func RunDir(dir string, p configs.SweepPoint, replicate int) string {
	return filepath.Join(dir, "runs", p.ID, "r"+strconv.Itoa(replicate))
}

// sweepGCPercent is the GOGC a sweep runs with while its runs' state is
// small (see Run); sweepHeadroom the garbage it allows above a larger
// state (internal/gcpace): GOGC 100 at 1 GB of live heap, 10 from 10 GB.
const (
	sweepGCPercent = 400
	sweepHeadroom  = 1 << 30
)

// Run runs the plan's points (those of the selected shard) Replicates
// times each, spread over Parallel workers, and returns every finished
// run, including runs found finished in Dir. With a Dir it writes each
// run's summary.json, timeseries.csv and report.html under Dir/runs/ and,
// at the end, the sweep's outputs (see WriteFiles). Runs are independent:
// run (point, r) is model.Run of the point's scenario with Replicate r, so
// the results do not depend on Parallel, on the order runs finish in, or
// on how the sweep was interrupted and resumed.
//
// The first failing run stops the dispatch of new runs; Run then returns
// the runs that finished and a *RunError. Finished runs stay in the
// journal, so a re-run resumes after fixing the cause.
func Run(plan *configs.SweepPlan, opt Options) (*Results, error) {
	if opt.Shards <= 0 {
		opt.Shards = 1
	}
	if opt.Shard < 0 || opt.Shard >= opt.Shards {
		return nil, fmt.Errorf("shard %d/%d: the index must be in 0..%d", opt.Shard, opt.Shards, opt.Shards-1)
	}
	if opt.Parallel <= 0 {
		opt.Parallel = runtime.GOMAXPROCS(0)
	}
	if plan.Replicates < 1 {
		return nil, fmt.Errorf("replicates must be at least 1")
	}
	// Independent runs on every core leave the garbage collector's
	// background workers no idle core: collect less often (GOGC 400 unless
	// the user set GOGC), trading memory for a near-linear speedup, until
	// the runs' state is large: then the garbage is held near 1 GB
	// (long runs whose state grows to gigabytes would otherwise hold four
	// times as much again).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(sweepGCPercent))
		opt.heapWatch = (&gcpace.Pacer{Headroom: sweepHeadroom, Min: 10, Max: sweepGCPercent}).Observe
	}
	hashes, err := planHashes(plan)
	if err != nil {
		return nil, err
	}
	var rows []Row
	if opt.Dir != "" {
		if rows, err = prepareDir(plan, hashes, opt); err != nil {
			return nil, err
		}
	}
	done := map[[2]int]bool{}
	for _, r := range rows {
		done[[2]int{r.Point, r.Replicate}] = true
	}
	var jobs, share [][2]int
	for p := opt.Shard; p < len(plan.Points); p += opt.Shards {
		for rep := 0; rep < plan.Replicates; rep++ {
			share = append(share, [2]int{p, rep})
			if !done[[2]int{p, rep}] {
				jobs = append(jobs, [2]int{p, rep})
			}
		}
	}
	var prewarms *model.PrewarmShare
	if !opt.SeparatePrewarms {
		prewarms = sharePrewarms(plan, jobs, opt.PrewarmCache)
		if prewarms != nil && opt.PrewarmNotes != nil {
			defer func() {
				_, _, notes := prewarms.Files()
				for _, n := range notes {
					opt.PrewarmNotes(n)
				}
			}()
		}
	}
	ev := Event{Total: len(share), Skipped: len(share) - len(jobs)}
	ev.Done = ev.Skipped
	if opt.Progress != nil {
		opt.Progress(ev)
	}

	var journal *os.File
	if opt.Dir != "" && len(jobs) > 0 {
		journal, err = os.OpenFile(filepath.Join(opt.Dir, JournalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		defer journal.Close()
	}

	var firstErr error
	for out := range execute(plan, hashes, jobs, prewarms, opt) {
		ev.Done++
		ev.Point, ev.Replicate, ev.Row, ev.Err = &plan.Points[out.point], out.rep, nil, out.err
		if out.err == nil {
			row := out.row
			ev.Row = &row
			rows = append(rows, row)
			if journal != nil {
				line, err := journalLine(toJournal(plan, row))
				if err == nil {
					_, err = journal.Write(line)
				}
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("writing the journal: %v", err)
				}
			}
		} else if firstErr == nil {
			firstErr = out.err
		}
		if opt.Progress != nil {
			opt.Progress(ev)
		}
	}
	res := NewResults(plan, rows)
	if prewarms != nil {
		res.PrewarmsMade, res.PrewarmsCopied = prewarms.Counts()
	}
	if opt.Dir != "" {
		if err := finishDir(res, opt.Dir); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if opt.Interrupted != nil && opt.Interrupted() {
		firstErr = model.ErrInterrupted
	}
	return res, firstErr
}

// sharePrewarms announces the jobs' prewarms to a new share and orders
// the jobs so that runs sharing one follow each other (in the order their
// first run had), which keeps few prewarms in memory at once. The order
// runs are made in changes no output (see Run). It returns nil when no
// two jobs share a prewarm and there is no cache directory (cacheDir) to
// keep them in.
func sharePrewarms(plan *configs.SweepPlan, jobs [][2]int, cacheDir string) *model.PrewarmShare {
	share := model.NewPrewarmShare()
	if cacheDir != "" {
		share = model.NewPrewarmCache(cacheDir)
	}
	keys := make([]string, len(jobs))
	first := map[string]int{}
	shared := false
	for i, j := range jobs {
		sc := plan.Points[j[0]].Scenario
		sc.Replicate = j[1]
		if keys[i] = share.Expect(sc); keys[i] == "" {
			continue
		}
		if _, ok := first[keys[i]]; ok {
			shared = true
		} else {
			first[keys[i]] = i
		}
	}
	if !shared && (cacheDir == "" || len(first) == 0) {
		return nil
	}
	rank := func(i int) int {
		if keys[i] == "" {
			return i
		}
		return first[keys[i]]
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(a) - rank(b) })
	sorted := make([][2]int, len(jobs))
	for i, o := range order {
		sorted[i] = jobs[o]
	}
	copy(jobs, sorted)
	return share
}

// runModel runs one scenario; tests replace it to make a run fail.
var runModel = model.RunWith

type outcome struct {
	point, rep int
	row        Row
	err        error
}

// execute runs jobs on opt.Parallel goroutines and delivers their
// outcomes as they finish; after the first failure no new job starts.
func execute(plan *configs.SweepPlan, hashes []string, jobs [][2]int, prewarms *model.PrewarmShare, opt Options) <-chan outcome {
	out := make(chan outcome)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < min(opt.Parallel, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				p, rep := jobs[i][0], jobs[i][1]
				if opt.Interrupted != nil && opt.Interrupted() {
					return
				}
				row, err := runOne(plan.Points[p], rep, hashes[p], prewarms, opt)
				if err != nil {
					failed.Store(true)
					err = &RunError{Point: plan.Points[p].ID, Replicate: rep, Err: err}
				}
				out <- outcome{point: p, rep: rep, row: row, err: err}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// runOne runs one replicate of a point and, with a dir, writes its
// outputs. The wall-clock fields of the result stay zero so that the
// run's summary.json is deterministic.
func runOne(p configs.SweepPoint, rep int, hash string, prewarms *model.PrewarmShare, opt Options) (row Row, err error) {
	dir := opt.Dir
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the simulation panicked (a bug; please report it with the sweep's %s): %v", PlanFile, r)
		}
	}()
	sc := p.Scenario
	sc.Replicate = rep
	res, err := runModel(sc, model.Options{Interrupted: opt.Interrupted, Prewarms: prewarms, MemoryLimit: opt.MemoryLimit, HeapWatch: opt.heapWatch})
	if err != nil {
		return Row{}, err
	}
	metrics, err := configs.FlattenMetrics(res.Totals)
	if err != nil {
		return Row{}, err
	}
	if dir != "" {
		files, err := report.Render(sc, res)
		if err != nil {
			return Row{}, fmt.Errorf("rendering the run's report: %v", err)
		}
		if err := report.WriteDir(RunDir(dir, p, rep), files); err != nil {
			return Row{}, fmt.Errorf("writing the run's outputs: %v", err)
		}
	}
	return Row{Point: p.Index, Replicate: rep, Seed: sc.Seed, Config: hash, Metrics: metrics}, nil
}

// outputs are the files a sweep directory holds besides runs/.
var outputs = []string{PlanFile, JournalFile, SweepCSVFile, SummaryCSVFile, PairedCSVFile, SweepHTMLFile}

// prepareDir readies a sweep directory: with Force it removes the previous
// sweep's outputs; otherwise it reads the journal and keeps the rows whose
// run directory exists, refusing rows of another sweep. It then writes the
// plan file.
func prepareDir(plan *configs.SweepPlan, hashes []string, opt Options) ([]Row, error) {
	dir := opt.Dir
	// Only an earlier sweep's directory (or a new or empty one) may be
	// resumed or, with Force, emptied: never a user's directory.
	if err := outdir.Check(dir, outdir.Sweep); err != nil {
		return nil, err
	}
	if opt.Force {
		for _, n := range append([]string{"runs"}, outputs...) {
			if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := outdir.WriteMarker(dir, outdir.Sweep); err != nil {
		return nil, err
	}
	js, err := readJournal(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, err
	}
	byID := map[string]int{}
	for i, p := range plan.Points {
		byID[p.ID] = i
	}
	var rows []Row
	for _, j := range js {
		i, ok := byID[j.Point]
		switch {
		case !ok:
			return nil, &ConflictError{Dir: dir, Reason: "it has a run of point " + j.Point + ", which this sweep does not have"}
		case j.Config != hashes[i]:
			return nil, &ConflictError{Dir: dir, Reason: "point " + j.Point + " was run with another configuration"}
		case j.Replicate < 0 || j.Replicate >= plan.Replicates:
			return nil, &ConflictError{Dir: dir, Reason: fmt.Sprintf("it has replicate %d of point %s; this sweep has %d replicates", j.Replicate, j.Point, plan.Replicates)}
		}
		if _, err := os.Stat(filepath.Join(RunDir(dir, plan.Points[i], j.Replicate), "summary.json")); err == nil {
			rows = append(rows, fromJournal(i, j))
		}
	}
	data, err := encodePlan(plan, hashes)
	if err != nil {
		return nil, err
	}
	if err := outdir.WriteFileAtomic(filepath.Join(dir, PlanFile), data); err != nil {
		return nil, err
	}
	return rows, nil
}

// finishDir rewrites the journal in stable order (so a finished sweep's
// directory has the same bytes however it was run) and writes the sweep's
// outputs.
func finishDir(res *Results, dir string) error {
	data, err := encodeJournal(res.Plan, res.Rows)
	if err != nil {
		return err
	}
	if err := outdir.WriteFileAtomic(filepath.Join(dir, JournalFile), data); err != nil {
		return err
	}
	return res.WriteFiles(dir)
}
