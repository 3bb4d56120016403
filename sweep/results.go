package sweep

import (
	"math"
	"slices"
	"strconv"

	"github.com/pgbufsim/pgbufsim/configs"
)

// Row is one finished run: a replicate of a point and its metrics.
type Row struct {
	// Point indexes Plan.Points.
	Point     int
	Replicate int
	Seed      int64
	// Config is the hash of the point's configuration (see ConfigHash).
	Config string
	// Metrics are the run's totals flattened (configs.FlattenMetrics),
	// values as summary.json writes them.
	Metrics []configs.Metric
}

// Results are the finished runs of a sweep, in stable order (point, then
// replicate), whatever order they finished in. Every output is a function
// of Results alone, which is why outputs do not depend on -parallel,
// resumption or sharding.
type Results struct {
	Plan *configs.SweepPlan
	Rows []Row
	// Metrics names every metric any row has, in summary order.
	Metrics []string
	// PrewarmsMade and PrewarmsCopied count, among this invocation's
	// runs, the prewarms made and the runs that copied one made by
	// another run with the same model.PrewarmKey (Options.SeparatePrewarms).
	PrewarmsMade, PrewarmsCopied int

	index  map[string]int // metric name -> column of values
	values [][]float64    // values[row][column]; NaN where a row lacks it
}

// NewResults orders rows (the last row for a run wins) and indexes their
// metrics.
func NewResults(plan *configs.SweepPlan, rows []Row) *Results {
	byRun := map[[2]int]Row{}
	for _, r := range rows {
		byRun[[2]int{r.Point, r.Replicate}] = r
	}
	sorted := make([]Row, 0, len(byRun))
	for _, r := range byRun {
		sorted = append(sorted, r)
	}
	slices.SortFunc(sorted, func(a, b Row) int {
		if a.Point != b.Point {
			return a.Point - b.Point
		}
		return a.Replicate - b.Replicate
	})
	res := &Results{Plan: plan, Rows: sorted, index: map[string]int{}}
	for _, r := range sorted {
		for _, m := range r.Metrics {
			if _, ok := res.index[m.Name]; !ok {
				res.index[m.Name] = len(res.Metrics)
				res.Metrics = append(res.Metrics, m.Name)
			}
		}
	}
	res.values = make([][]float64, len(sorted))
	for i, r := range sorted {
		v := make([]float64, len(res.Metrics))
		for k := range v {
			v[k] = math.NaN()
		}
		for _, m := range r.Metrics {
			if f, err := strconv.ParseFloat(m.Value, 64); err == nil {
				v[res.index[m.Name]] = f
			}
		}
		res.values[i] = v
	}
	return res
}

// Complete reports whether every run of the plan has a row.
func (r *Results) Complete() bool { return len(r.Rows) == r.Plan.Runs() }

// Value returns a metric of row i (NaN when the row lacks it).
func (r *Results) Value(i int, metric string) float64 {
	k, ok := r.index[metric]
	if !ok {
		return math.NaN()
	}
	return r.values[i][k]
}

// Replicates returns a metric of one point by replicate: out[rep], NaN for
// a replicate that has not run.
func (r *Results) Replicates(point int, metric string) []float64 {
	out := make([]float64, r.Plan.Replicates)
	for i := range out {
		out[i] = math.NaN()
	}
	lo, _ := slices.BinarySearchFunc(r.Rows, point, func(row Row, p int) int { return row.Point - p })
	for i := lo; i < len(r.Rows) && r.Rows[i].Point == point; i++ {
		if rep := r.Rows[i].Replicate; rep < len(out) {
			out[rep] = r.Value(i, metric)
		}
	}
	return out
}

// Estimate is the mean and confidence interval of a metric at a point.
func (r *Results) Estimate(point int, metric string) Estimate {
	return MeanCI(r.Replicates(point, metric))
}

// Runs returns how many replicates of a point have finished.
func (r *Results) Runs(point int) int {
	n := 0
	for _, row := range r.Rows {
		if row.Point == point {
			n++
		}
	}
	return n
}

// Pair is a paired comparison along a two-valued axis: the same point
// except for that axis, From (its first value) against To (its second).
type Pair struct {
	// Axis indexes Plan.Axes; From and To index Plan.Points.
	Axis, From, To int
}

// Pairs lists the paired comparisons of every axis with exactly two
// values (a policy on/off, two policies, a patch against master), one per
// combination of the other axes' values, in stable order.
func (r *Results) Pairs() []Pair {
	var out []Pair
	axes := r.Plan.Axes
	for a := range axes {
		if len(axes[a].Values) != 2 {
			continue
		}
		// In the mixed-radix order the axis's stride is the product of
		// the lengths of the axes after it.
		stride := 1
		for _, b := range axes[a+1:] {
			stride *= len(b.Values)
		}
		for p := range r.Plan.Points {
			if (p/stride)%2 == 0 {
				out = append(out, Pair{Axis: a, From: p, To: p + stride})
			}
		}
	}
	return out
}

// Difference estimates To minus From for a metric, paired by replicate.
func (r *Results) Difference(p Pair, metric string) Estimate {
	return PairedCI(r.Replicates(p.From, metric), r.Replicates(p.To, metric))
}
