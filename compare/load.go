package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/report"
)

// Side is one configuration being compared: a run directory, or one point
// of a sweep with its replicates.
type Side struct {
	// Name labels the side in every table and legend: the run directory's
	// name, the sweep point's axis values, or the label given as
	// LABEL=DIR.
	Name string
	// Source is the directory it was read from.
	Source string
	// Config is the flattened configuration of its first replicate
	// (report.FlattenConfig).
	Config map[string]string
	// Runs are its replicates in replicate order.
	Runs []*Run
}

// Run is one finished run read back from its output directory.
type Run struct {
	Dir       string
	Replicate int
	Seed      int64
	Result    model.Result
	// Metrics are the totals flattened (configs.FlattenMetrics), by name,
	// and MetricNames their names in summary order.
	Metrics     map[string]float64
	MetricNames []string
	// Series is timeseries.csv: its time column and its columns by name.
	TimeS   []float64
	Columns map[string][]float64
}

// Load reads the sides named by args. An argument is a run output
// directory (one side), a sweep output directory (one side per point, its
// replicates paired by replicate number), or LABEL=DIR to name a run's
// side. At least two sides are needed.
func Load(args []string) ([]*Side, error) {
	var sides []*Side
	for _, a := range args {
		label, dir := "", a
		if st, err := os.Stat(a); err != nil || !st.IsDir() {
			if l, d, ok := strings.Cut(a, "="); ok && l != "" {
				label, dir = l, d
			}
		}
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, unwrapPathError(err))
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (give a run or sweep output directory)", dir)
		}
		kind, ok := outdir.KindOf(dir)
		switch {
		case ok && kind == outdir.Run:
			r, err := readRun(dir)
			if err != nil {
				return nil, err
			}
			name := label
			if name == "" {
				name = filepath.Base(filepath.Clean(dir))
			}
			sides = append(sides, &Side{Name: name, Source: dir, Config: report.FlattenConfig(r.Result.Config), Runs: []*Run{r}})
		case ok && kind == outdir.Sweep:
			if label != "" {
				return nil, fmt.Errorf("%s: a sweep holds one side per point, named by its axis values; LABEL= names a run directory only", a)
			}
			ss, err := readSweep(dir)
			if err != nil {
				return nil, err
			}
			sides = append(sides, ss...)
		default:
			return nil, fmt.Errorf("%s: not a pgbufsim run or sweep output (no summary.json or sweep-plan.json)", dir)
		}
	}
	if len(sides) < 2 {
		return nil, fmt.Errorf("%d configuration(s) to compare; give two run directories, or a sweep of two or more points", len(sides))
	}
	seen := map[string]bool{}
	for _, s := range sides {
		if seen[s.Name] {
			return nil, fmt.Errorf("two sides are named %q; name them with LABEL=DIR", s.Name)
		}
		seen[s.Name] = true
	}
	return sides, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// pointDir is a sweep point's directory name, p03-shared_buffers=64MB-...
var pointDir = regexp.MustCompile(`^p[0-9]+-?(.*)$`)

// sweepPlan is what compare reads of a sweep's sweep-plan.json: each
// point's directory name and axis values.
type sweepPlan struct {
	Points []struct {
		ID     string   `json:"id"`
		Values []string `json:"values"`
	} `json:"points"`
}

// pointNames names a sweep's points by their axis values ("lru", "64MB,
// lru"), by directory name; nil when the plan cannot be read (the
// directory names are used then).
func pointNames(dir string) map[string]string {
	data, err := os.ReadFile(filepath.Join(dir, "sweep-plan.json"))
	if err != nil {
		return nil
	}
	var p sweepPlan
	if json.Unmarshal(data, &p) != nil {
		return nil
	}
	names := map[string]string{}
	for _, pt := range p.Points {
		if len(pt.Values) > 0 {
			names[pt.ID] = strings.Join(pt.Values, ", ")
		}
	}
	return names
}

// readSweep reads every finished run under DIR/runs, one side per point
// in point order.
func readSweep(dir string) ([]*Side, error) {
	names := pointNames(dir)
	runs := filepath.Join(dir, "runs")
	points, err := os.ReadDir(runs)
	if err != nil {
		return nil, fmt.Errorf("%s: %v (has the sweep run?)", runs, unwrapPathError(err))
	}
	var sides []*Side
	for _, p := range points {
		if !p.IsDir() {
			continue
		}
		pdir := filepath.Join(runs, p.Name())
		reps, err := os.ReadDir(pdir)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", pdir, unwrapPathError(err))
		}
		name := p.Name()
		if n, ok := names[name]; ok {
			name = n
		} else if m := pointDir.FindStringSubmatch(name); m != nil && m[1] != "" {
			name = m[1]
		}
		s := &Side{Name: name, Source: pdir}
		for _, r := range reps {
			rdir := filepath.Join(pdir, r.Name())
			if !r.IsDir() || !strings.HasPrefix(r.Name(), "r") {
				continue
			}
			if k, ok := outdir.KindOf(rdir); !ok || k != outdir.Run {
				continue // a run still being written, or not a run
			}
			run, err := readRun(rdir)
			if err != nil {
				return nil, err
			}
			s.Runs = append(s.Runs, run)
		}
		if len(s.Runs) == 0 {
			continue
		}
		slices.SortFunc(s.Runs, func(a, b *Run) int { return a.Replicate - b.Replicate })
		s.Config = report.FlattenConfig(s.Runs[0].Result.Config)
		sides = append(sides, s)
	}
	if len(sides) == 0 {
		return nil, fmt.Errorf("%s: no finished run", dir)
	}
	return sides, nil
}

// readRun reads a run's summary.json and timeseries.csv.
func readRun(dir string) (*Run, error) {
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, unwrapPathError(err))
	}
	r := &Run{Dir: dir}
	if err := json.Unmarshal(data, &r.Result); err != nil {
		return nil, fmt.Errorf("%s: not a pgbufsim summary: %v", path, err)
	}
	r.Replicate, r.Seed = r.Result.Replicate, r.Result.Seed
	ms, err := configs.FlattenMetrics(r.Result.Totals)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	r.Metrics = make(map[string]float64, len(ms))
	for _, m := range ms {
		if f, err := strconv.ParseFloat(m.Value, 64); err == nil {
			r.Metrics[m.Name] = f
			r.MetricNames = append(r.MetricNames, m.Name)
		}
	}
	if err := r.readSeries(filepath.Join(dir, "timeseries.csv")); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Run) readSeries(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, unwrapPathError(err))
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 || len(recs[0]) < 2 || recs[0][0] != "time_s" {
		return fmt.Errorf("%s: not a pgbufsim time series (its first column is not time_s)", path)
	}
	head := recs[0]
	r.Columns = map[string][]float64{}
	for _, rec := range recs[1:] {
		for c, f := range rec {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil && c != 1 {
				return fmt.Errorf("%s: column %s: %q is not a number", path, head[c], f)
			}
			switch {
			case c == 0:
				r.TimeS = append(r.TimeS, v)
			case c > 1:
				r.Columns[head[c]] = append(r.Columns[head[c]], v)
			}
		}
	}
	return nil
}
