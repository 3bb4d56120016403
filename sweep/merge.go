package sweep

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/report"
)

// Merge combines sweep directories of one sweep (its shards, run with
// -shard i/n on several machines) into out: the union of their finished
// runs, copied under out/runs/, and the sweep's outputs rebuilt from them,
// byte-identical to an unsharded run of the same sweep once every shard is
// in. out may be one of dirs; if it holds runs of the same sweep already
// (an earlier merge), they are kept. A run found in two directories must have the
// same metrics in both: the simulation is deterministic, so a difference
// means the runs were not made by the same build.
func Merge(out string, dirs []string) (*Results, error) { return MergeForce(out, dirs, false) }

// MergeForce is Merge that, with force, first empties an output directory
// holding another sweep's outputs (never a directory pgbufsim did not
// write: outdir.Check).
func MergeForce(out string, dirs []string, force bool) (*Results, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge needs at least one sweep directory")
	}
	if err := outdir.Check(out, outdir.Sweep); err != nil {
		return nil, err
	}
	plan, hashes, planBytes, err := readPlan(dirs[0])
	if err != nil {
		return nil, err
	}
	byID := map[string]int{}
	for i, p := range plan.Points {
		byID[p.ID] = i
	}
	// An output directory that already holds runs of this sweep (an
	// earlier merge) keeps them: it is one more input.
	if b, err := os.ReadFile(filepath.Join(out, PlanFile)); err == nil && bytes.Equal(b, planBytes) &&
		!slices.ContainsFunc(dirs, func(d string) bool { return sameDir(d, out) }) {
		dirs = append(slices.Clip(dirs), out)
	}
	type found struct {
		row journalRow
		dir string
	}
	runs := map[[2]int]found{}
	for _, dir := range dirs {
		_, _, b, err := readPlan(dir)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(b, planBytes) {
			return nil, &ConflictError{Dir: dir, Reason: "its " + PlanFile + " differs from " + filepath.Join(dirs[0], PlanFile), Hint: "merge only the shards of one sweep"}
		}
		js, err := readJournal(filepath.Join(dir, JournalFile))
		if err != nil {
			return nil, err
		}
		for _, j := range js {
			i, ok := byID[j.Point]
			if !ok || j.Config != hashes[i] || j.Replicate < 0 || j.Replicate >= plan.Replicates {
				return nil, &ConflictError{Dir: dir, Reason: fmt.Sprintf("its journal has a run (%s r%d) that its plan does not", j.Point, j.Replicate), Hint: "the directory was edited; re-run that shard"}
			}
			if _, err := os.Stat(filepath.Join(RunDir(dir, plan.Points[i], j.Replicate), "summary.json")); err != nil {
				continue // journalled, but its directory is gone: not finished
			}
			key := [2]int{i, j.Replicate}
			if prev, ok := runs[key]; ok {
				a, _ := journalLine(prev.row)
				b, _ := journalLine(j)
				if !bytes.Equal(a, b) {
					return nil, fmt.Errorf("run %s r%d differs between %s and %s (were they made by different builds?)", j.Point, j.Replicate, prev.dir, dir)
				}
				continue
			}
			runs[key] = found{j, dir}
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, PlanFile)); err == nil && !bytes.Equal(b, planBytes) {
		if !force {
			return nil, &ConflictError{Dir: out, Reason: "it holds another sweep's " + PlanFile, Hint: "use -force to replace it, or choose another -out"}
		}
		for _, n := range append([]string{"runs"}, outputs...) {
			if err := os.RemoveAll(filepath.Join(out, n)); err != nil {
				return nil, err
			}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if err := outdir.WriteMarker(out, outdir.Sweep); err != nil {
		return nil, err
	}
	if err := outdir.WriteFileAtomic(filepath.Join(out, PlanFile), planBytes); err != nil {
		return nil, err
	}
	keys := make([][2]int, 0, len(runs))
	for k := range runs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	var rows []Row
	for _, k := range keys {
		f := runs[k]
		src, dst := RunDir(f.dir, plan.Points[k[0]], k[1]), RunDir(out, plan.Points[k[0]], k[1])
		if !sameDir(src, dst) {
			if err := copyRun(src, dst); err != nil {
				return nil, err
			}
		}
		rows = append(rows, fromJournal(k[0], f.row))
	}
	res := NewResults(plan, rows)
	return res, finishDir(res, out)
}

func sameDir(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// copyRun copies a run's output files (a flat directory) atomically.
func copyRun(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	files := report.Files{}
	for _, e := range entries {
		if e.Name() == outdir.MarkerFile || !slices.Contains(outdir.Files[outdir.Run], e.Name()) {
			continue
		}
		if !e.Type().IsRegular() {
			// pgbufsim writes plain files: a link or a directory under one
			// of its names is not its output, and a run copied without it
			// would be incomplete.
			return &outdir.Error{Path: filepath.Join(src, e.Name()), Reason: "is not a plain file, so not pgbufsim's output", Hint: "put the file itself there, or re-run the sweep to write it"}
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		files[e.Name()] = b
	}
	return report.WriteDir(dst, files)
}

// MergeMain is `simulate merge [-out DIR] DIR...` (the simulate CLI calls
// it with the arguments after "merge"). It returns the exit code: 0 ok,
// 1 bad arguments or directories of different sweeps, 2 a failure while
// writing.
func MergeMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simulate merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: simulate merge [-out DIR] [-q] SWEEP_DIR...\n\n"+
			"Combines the directories of one sweep's shards (simulate -shard i/n) into one:\n"+
			"their runs are copied under DIR/runs/ and DIR/sweep.csv, sweep-summary.csv,\n"+
			"sweep-paired.csv and sweep.html are rebuilt, identical to an unsharded run's.\n"+
			"DIR defaults to the first SWEEP_DIR.\n\nflags:\n")
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "output directory (default: the first SWEEP_DIR)")
	force := fs.Bool("force", false, "replace DIR if it holds another sweep's outputs (only ever a sweep directory)")
	quiet := fs.Bool("q", false, "do not print the comparison table on stdout")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitConfig
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		fmt.Fprintln(stderr, "simulate merge: give the sweep directories to merge (see -h)")
		return exitConfig
	}
	if *out == "" {
		*out = dirs[0]
	}
	for _, d := range dirs {
		if strings.HasPrefix(d, "-") {
			fmt.Fprintf(stderr, "simulate merge: %s after the directories: give the flags first (simulate merge [-out DIR] [-force] [-q] SWEEP_DIR...)\n", d)
			return exitConfig
		}
		if _, err := os.Stat(filepath.Join(d, PlanFile)); err != nil {
			fmt.Fprintf(stderr, "simulate merge: %s is not a sweep directory (no %s)\n", d, PlanFile)
			return exitConfig
		}
	}
	res, err := MergeForce(*out, dirs, *force)
	if err != nil {
		code := exitFailure
		if isBadInput(err) {
			code = exitConfig
		}
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		return code
	}
	return finish(res, *out, *quiet, stdout, stderr, false)
}
