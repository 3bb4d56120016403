package compare

import (
	"math"
	"slices"

	"github.com/pgbufsim/pgbufsim/report"
	"github.com/pgbufsim/pgbufsim/sweep"
)

// Comparison is the sides with what the outputs need: the configuration
// keys that differ, and every metric's estimate per side and difference
// from the baseline (the first side).
type Comparison struct {
	Sides []*Side
	// Keys are the configuration keys whose values differ between sides.
	Keys []string
	// Rows are every summary metric, in summary order.
	Rows []Row
	// Pairs is the number of replicate numbers every side has; Seeds
	// reports whether the sides share a seed (common random numbers).
	Pairs     int
	SameSeeds bool
}

// Row is one metric across the sides.
type Row struct {
	Metric string
	// Sides[i] is side i's mean over its replicates with a 95% interval.
	Sides []sweep.Estimate
	// Diffs[i] is side i minus the baseline, paired by replicate number
	// (Diffs[0] is empty), and Pct[i] the difference as a percentage of
	// the baseline's mean (NaN when the baseline is 0).
	Diffs []sweep.Estimate
	Pct   []float64
	// Same is true when every run of every side has the same value.
	Same bool
}

// New compares sides, the first one being the baseline.
func New(sides []*Side) *Comparison {
	c := &Comparison{Sides: sides, SameSeeds: true}
	cfgs := make([]map[string]string, len(sides))
	for i, s := range sides {
		cfgs[i] = s.Config
	}
	c.Keys = report.DifferingKeys(cfgs)
	// Replicate numbers: runs are paired by them.
	var reps []int
	seed := sides[0].Runs[0].Seed
	for _, s := range sides {
		for _, r := range s.Runs {
			if !slices.Contains(reps, r.Replicate) {
				reps = append(reps, r.Replicate)
			}
			if r.Seed != seed {
				c.SameSeeds = false
			}
		}
	}
	slices.Sort(reps)
	for _, rep := range reps {
		all := true
		for _, s := range sides {
			all = all && s.run(rep) != nil
		}
		if all {
			c.Pairs++
		}
	}
	var names []string
	for _, s := range sides {
		for _, r := range s.Runs {
			for _, n := range r.MetricNames {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	for _, m := range names {
		row := Row{Metric: m, Same: true}
		vals := make([][]float64, len(sides))
		first := math.NaN()
		for i, s := range sides {
			vals[i] = make([]float64, len(reps))
			for k, rep := range reps {
				vals[i][k] = math.NaN()
				if r := s.run(rep); r != nil {
					if v, ok := r.Metrics[m]; ok {
						vals[i][k] = v
						if math.IsNaN(first) {
							first = v
						} else if v != first {
							row.Same = false
						}
					}
				}
			}
			row.Sides = append(row.Sides, sweep.MeanCI(vals[i]))
		}
		for i := range sides {
			d := sweep.Estimate{Mean: math.NaN(), SD: math.NaN(), HalfWidth: math.NaN()}
			pct := math.NaN()
			if i > 0 {
				d = sweep.PairedCI(vals[0], vals[i])
				if b := row.Sides[0].Mean; b != 0 {
					pct = 100 * d.Mean / b
				}
			}
			row.Diffs = append(row.Diffs, d)
			row.Pct = append(row.Pct, pct)
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// run returns the side's run of replicate rep, or nil.
func (s *Side) run(rep int) *Run {
	for _, r := range s.Runs {
		if r.Replicate == rep {
			return r
		}
	}
	return nil
}

// Row returns the row of a metric (nil if no run reports it).
func (c *Comparison) Row(metric string) *Row {
	for i := range c.Rows {
		if c.Rows[i].Metric == metric {
			return &c.Rows[i]
		}
	}
	return nil
}

// Headline are the metrics the comparison's first table shows, in this
// order, when the runs report them: what pgbench prints, then the buffer
// manager's, the storage's and the visibility counters a patch to them
// moves.
var Headline = []string{
	"tps", "latency_ms.mean", "latency_ms.p50", "latency_ms.p90", "latency_ms.p99", "latency_ms.max",
	"buffers.hit_ratio", "buffers.reads", "buffers.alloc", "buffers.backend", "buffers.clean", "buffers.checkpoint",
	"buffers.sweep_steps_per_alloc", "pg_buffercache.usagecount_avg",
	"os_cache.hit_ratio", "disk.reads", "disk.utilisation", "wal.bytes", "wal.fpi",
	"visibility.clog_slru_misses", "visibility.hint_dirtied_pages", "cpu.utilisation",
}
