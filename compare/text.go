package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/sweep"
)

// maxValueWidth bounds a configuration value in the tables (a script's
// text would make the table unreadable).
const maxValueWidth = 48

// Intro is the paragraph that says what is compared with what and how the
// intervals were made.
func (c *Comparison) Intro() string {
	var b strings.Builder
	base := c.Sides[0]
	fmt.Fprintf(&b, "Baseline: %s. Every difference is the other side minus the baseline.\n", base.Name)
	for _, s := range c.Sides {
		fmt.Fprintf(&b, "%s: %d run(s) from %s\n", s.Name, len(s.Runs), s.Source)
	}
	switch {
	case c.Pairs >= 2 && c.SameSeeds:
		fmt.Fprintf(&b, "\n%d replicate pairs with the same seed: replicate r of every side saw the same arrivals and keys (common random numbers). "+
			"Each interval is the paired-t 95%% interval of the per-replicate differences; a difference is significant when that interval excludes zero.", c.Pairs)
	case c.Pairs >= 2:
		fmt.Fprintf(&b, "\n%d replicate pairs, but the sides' seeds differ, so the pairs saw different workloads: the paired-t 95%% intervals are valid but wider than with common random numbers (give the runs the same seed).", c.Pairs)
	default:
		b.WriteString("\nOne run per side: the differences have no confidence interval, and nothing can be called significant. " +
			"Run replicates to get intervals: simulate compare -config FILE -sweep KEY=A,B -replicates 5.")
	}
	return b.String()
}

// ConfigTable lists the configuration keys that differ, one column per
// side.
func (c *Comparison) ConfigTable() ([]string, [][]string) {
	header := []string{"configuration key"}
	for _, s := range c.Sides {
		header = append(header, s.Name)
	}
	var rows [][]string
	for _, k := range c.Keys {
		row := []string{k}
		for _, s := range c.Sides {
			v, ok := s.Config[k]
			if !ok {
				v = "(absent)"
			}
			if len(v) > maxValueWidth {
				v = v[:maxValueWidth-3] + "..."
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// MetricTable is the comparison of the given metrics (those no run
// reports are left out): the metric, each side's mean (± its interval
// with replicates), and for each side after the baseline its difference
// with the paired interval, as a percentage, and (with two pairs or more)
// the verdict.
func (c *Comparison) MetricTable(metrics []string, titles bool) ([]string, [][]string) {
	header := []string{"metric", c.Sides[0].Name}
	for _, s := range c.Sides[1:] {
		d := "Δ ± 95% CI"
		if len(c.Sides) > 2 {
			d = "Δ " + s.Name
		}
		header = append(header, s.Name, d, "Δ %")
		if c.Pairs >= 2 {
			header = append(header, "verdict")
		}
	}
	var rows [][]string
	for _, m := range metrics {
		r := c.Row(m)
		if r == nil {
			continue
		}
		name := m
		if titles {
			name = configs.MetricTitle(m)
		}
		row := []string{name, formatEstimate(r.Sides[0])}
		for i := 1; i < len(c.Sides); i++ {
			pct := "-"
			if p := r.Pct[i]; !math.IsNaN(p) && !math.IsInf(p, 0) {
				pct = strconv.FormatFloat(p, 'f', 1, 64) + "%"
				if p > 0 {
					pct = "+" + pct
				}
			}
			verdict := r.Diffs[i].Verdict()
			if r.Same {
				verdict = "identical"
			}
			if verdict == "" {
				verdict = "-"
			}
			row = append(row, formatEstimate(r.Sides[i]), formatEstimate(r.Diffs[i]), pct)
			if c.Pairs >= 2 {
				row = append(row, verdict)
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

// Differing lists the metrics whose value is not the same in every run,
// and Identical the others.
func (c *Comparison) Differing() (differing, identical []string) {
	for _, r := range c.Rows {
		if r.Same {
			identical = append(identical, r.Metric)
		} else {
			differing = append(differing, r.Metric)
		}
	}
	return differing, identical
}

// WriteText prints the comparison for a terminal or a mailing list: the
// sides, the configuration that differs, and the headline metrics with
// their differences.
func (c *Comparison) WriteText(w io.Writer) error {
	names := make([]string, len(c.Sides))
	for i, s := range c.Sides {
		names[i] = s.Name
	}
	if _, err := fmt.Fprintf(w, "pgbufsim compare: %s\n\n%s\n\n", strings.Join(names, " vs "), c.Intro()); err != nil {
		return err
	}
	if h, rows := c.ConfigTable(); len(rows) > 0 {
		if err := sweep.WriteBox(w, h, rows); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintln(w, "The sides have the same configuration (they differ at most in the seed)."); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	h, rows := c.MetricTable(Headline, false)
	if err := sweep.WriteBox(w, h, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nEvery summary metric: compare.csv and compare.html.\n")
	return err
}

// CSV is compare.csv: one row per metric and side, with the side's mean
// and interval, and (after the baseline) the paired difference, its
// interval, percentage and significance (true, false, or empty without an
// interval).
func (c *Comparison) CSV() []byte {
	var b strings.Builder
	b.WriteString("metric,side,runs,mean,ci95,diff_mean,diff_ci95,diff_pct,significant\n")
	for _, r := range c.Rows {
		for i, s := range c.Sides {
			e, d := r.Sides[i], r.Diffs[i]
			sig := ""
			if i > 0 {
				sig = d.Significance()
			}
			fields := []string{r.Metric, s.Name, strconv.Itoa(e.N), sweep.FormatStat(e.Mean), sweep.FormatStat(e.HalfWidth), sweep.FormatStat(d.Mean), sweep.FormatStat(d.HalfWidth), sweep.FormatStat(r.Pct[i]), sig}
			for k, f := range fields {
				if k > 0 {
					b.WriteByte(',')
				}
				if strings.ContainsAny(f, ",\"\n\r") {
					f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
				}
				b.WriteString(f)
			}
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// formatEstimate writes whole numbers (counters, and their differences
// without an interval) as integers, and everything else as the sweep's
// tables do.
func formatEstimate(e sweep.Estimate) string {
	whole := func(x float64) bool { return x == math.Trunc(x) && math.Abs(x) < 1e15 }
	if !math.IsNaN(e.Mean) && whole(e.Mean) {
		switch {
		case math.IsNaN(e.HalfWidth):
			return strconv.FormatFloat(e.Mean, 'f', 0, 64)
		case whole(e.HalfWidth):
			return strconv.FormatFloat(e.Mean, 'f', 0, 64) + " ± " + strconv.FormatFloat(e.HalfWidth, 'f', 0, 64)
		}
	}
	return sweep.FormatEstimate(e)
}
