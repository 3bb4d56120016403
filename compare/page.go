package compare

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/plots"
)

// cdfPoints is the size of the common latency grid the CDFs are resampled
// onto (each side's CDF has its own points; a chart shares one x).
const cdfPoints = 200

// Page builds compare.html: the sides and how they were paired, the
// configuration that differs, the headline metrics with differences and
// verdicts, the time series of every side overlaid (with each side's
// checkpoints marked), the latency CDFs, per-relation hit ratios and
// usage-count histograms side by side, every metric, and links to each
// run's report. outDir is where the page goes (links are relative to it).
func (c *Comparison) Page(outDir string) plots.Page {
	names := make([]string, len(c.Sides))
	for i, s := range c.Sides {
		names[i] = s.Name
	}
	sub := fmt.Sprintf("baseline %s · %d side(s) compared with it", c.Sides[0].Name, len(c.Sides)-1)
	if c.Pairs >= 2 {
		sub += fmt.Sprintf(" · %d replicate pairs · paired 95%% CI", c.Pairs)
	} else {
		sub += " · one run per side (no CI)"
	}
	p := plots.Page{Title: "pgbufsim compare: " + strings.Join(names, " vs "), Subtitle: sub}
	p.Sections = append(p.Sections, plots.Section{Heading: "What is compared", Text: c.Intro()})
	if h, rows := c.ConfigTable(); len(rows) > 0 {
		p.Sections = append(p.Sections, plots.Section{Heading: "Configuration that differs", Table: &plots.Table{Header: h, Rows: rows}})
	} else {
		p.Sections = append(p.Sections, plots.Section{Heading: "Configuration that differs", Text: "None: the sides have the same configuration (they differ at most in the seed)."})
	}
	h, rows := c.MetricTable(Headline, true)
	p.Sections = append(p.Sections, plots.Section{Heading: "Headline metrics (measured phases)", Table: &plots.Table{Header: h, Rows: rows},
		Text: "Mean over each side's replicates (± the 95% interval with replicates); Δ is the side minus the baseline, paired by replicate. \"identical\": every run gave the same value."})

	note := "Lines are the mean over each side's replicates at each interval; dashed vertical lines mark each side's checkpoints (first replicate)."
	if w := c.window(); w > 1 {
		note += fmt.Sprintf(" The runs are long: each point averages %d consecutive intervals.", w)
	}
	p.Sections = append(p.Sections, plots.Section{Heading: "Over time", Text: note})
	for _, ch := range []struct{ id, title, y, col string }{
		{"tps", "Throughput", "transactions/s", "tps"},
		{"lat_mean", "Mean transaction latency per interval", "ms", "latency_mean_ms"},
		{"lat_p99", "p99 transaction latency per interval", "ms", "latency_p99_ms"},
		{"reads", "Shared-buffer reads (misses)", "reads/s", "buffers_reads_per_s"},
		{"dirty", "Dirty shared buffers", "buffers", "dirty_buffers"},
	} {
		if chart := c.timeChart(ch.id, ch.title, ch.y, ch.col); chart != nil {
			p.Sections = append(p.Sections, plots.Section{Chart: chart})
		}
	}
	if chart := c.writersChart(); chart != nil {
		p.Sections = append(p.Sections, plots.Section{Chart: chart})
	}
	if chart := c.cdfChart(); chart != nil {
		p.Sections = append(p.Sections, plots.Section{Chart: chart})
	}
	if tb, chart := c.relations(); tb != nil {
		p.Sections = append(p.Sections, plots.Section{Heading: "Per relation (pg_statio_user_tables)", Table: tb,
			Text: "Hit ratio = blks_hit / (blks_hit + blks_read) over every replicate of the side, for the heap and for the relation's indexes."})
		p.Sections = append(p.Sections, plots.Section{Chart: chart})
	}
	if chart := c.usageChart(); chart != nil {
		p.Sections = append(p.Sections, plots.Section{Chart: chart})
	}
	diff, same := c.Differing()
	h, rows = c.MetricTable(diff, false)
	text := "Every summary metric (docs/metrics.md) that is not the same in every run."
	if len(same) > 0 {
		text += "\n\nIdentical in every run: " + strings.Join(same, ", ") + "."
	}
	p.Sections = append(p.Sections, plots.Section{Heading: "Every metric", Text: text, Table: &plots.Table{Header: h, Rows: rows}})
	var links []plots.Link
	for _, s := range c.Sides {
		for _, r := range s.Runs {
			href := filepath.Join(r.Dir, "report.html")
			if rel, err := filepath.Rel(outDir, href); err == nil {
				href = rel
			} else if abs, err := filepath.Abs(href); err == nil {
				href = abs
			}
			links = append(links, plots.Link{Text: fmt.Sprintf("%s r%d", s.Name, r.Replicate), Href: filepath.ToSlash(href)})
		}
	}
	p.Sections = append(p.Sections, plots.Section{Heading: "Files", Links: append([]plots.Link{
		{Text: CSVFile + " (every metric, every side)", Href: CSVFile}, {Text: TextFile + " (the text summary)", Href: TextFile}}, links...)})
	return p
}

// meanSeries is a side's time-series column averaged over its replicates
// at each time (replicates of one configuration share their time grid).
func (s *Side) meanSeries(col string) (ts, ys []float64) {
	sum := map[float64]float64{}
	n := map[float64]int{}
	for _, r := range s.Runs {
		v := r.Columns[col]
		for i, t := range r.TimeS {
			if i < len(v) && !math.IsNaN(v[i]) {
				sum[t] += v[i]
				n[t]++
			}
		}
	}
	for t := range sum {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	for _, t := range ts {
		ys = append(ys, sum[t]/float64(n[t]))
	}
	return ts, ys
}

// maxTimePoints bounds a time chart: longer runs are averaged over
// windows of consecutive intervals (the page says so).
const maxTimePoints = 400

// window is how many intervals overlay averages into one point.
func (c *Comparison) window() int {
	n := 0
	for _, s := range c.Sides {
		for _, r := range s.Runs {
			n = max(n, len(r.TimeS))
		}
	}
	return max(1, (n+maxTimePoints-1)/maxTimePoints)
}

// overlay puts one series per side on the union of their times (a side
// without a point at a time has a gap there), averaged over windows of
// c.window() intervals.
func (c *Comparison) overlay(col string, name func(*Side) string) ([]float64, []plots.Series) {
	type sv struct{ ts, ys []float64 }
	per := make([]sv, len(c.Sides))
	var all []float64
	for i, s := range c.Sides {
		per[i].ts, per[i].ys = s.meanSeries(col)
		all = append(all, per[i].ts...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) == 0 {
		return nil, nil
	}
	var series []plots.Series
	for i, s := range c.Sides {
		y := make([]float64, len(all))
		for k := range y {
			y[k] = math.NaN()
		}
		for k, t := range per[i].ts {
			j, _ := slices.BinarySearch(all, t)
			y[j] = per[i].ys[k]
		}
		series = append(series, plots.Series{Name: name(s), Y: y})
	}
	w := c.window()
	if w == 1 {
		return all, series
	}
	var xs []float64
	for lo := 0; lo < len(all); lo += w {
		xs = append(xs, windowMean(all[lo:min(lo+w, len(all))]))
	}
	for i := range series {
		var ys []float64
		for lo := 0; lo < len(all); lo += w {
			ys = append(ys, windowMean(series[i].Y[lo:min(lo+w, len(all))]))
		}
		series[i].Y = ys
	}
	return xs, series
}

// windowMean is the mean of the finite values (NaN if there is none).
func windowMean(v []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range v {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// marks are every side's checkpoint starts (first replicate).
func (c *Comparison) marks() []plots.Mark {
	var out []plots.Mark
	for _, s := range c.Sides {
		for _, ck := range s.Runs[0].Result.Checkpoints {
			out = append(out, plots.Mark{X: ck.StartS, Label: s.Name + ": checkpoint"})
		}
	}
	return out
}

func (c *Comparison) timeChart(id, title, y, col string) *plots.Chart {
	x, series := c.overlay(col, func(s *Side) string { return s.Name })
	if x == nil {
		return nil
	}
	return &plots.Chart{ID: id, Title: title, YName: y, XName: "simulated time (s)", XType: plots.AxisTimeSeconds,
		X: x, Series: series, Marks: c.marks()}
}

// writersChart aligns the background writer's and the checkpointer's
// writes of every side: bursts of one against the other's.
func (c *Comparison) writersChart() *plots.Chart {
	x, clean := c.overlay("buffers_clean_per_s", func(s *Side) string { return s.Name + " bgwriter" })
	_, ckpt := c.overlay("buffers_checkpoint_per_s", func(s *Side) string { return s.Name + " checkpointer" })
	if x == nil {
		return nil
	}
	return &plots.Chart{ID: "writers", Title: "Buffers written by the background writer and by checkpoints", YName: "buffers/s",
		XName: "simulated time (s)", XType: plots.AxisTimeSeconds, X: x, Series: append(clean, ckpt...), Marks: c.marks()}
}

// cdfChart overlays the sides' latency CDFs (first replicate), resampled
// onto one log-spaced grid: F(x) is the fraction of transactions at most
// x, read from each side's CDF as a step function.
func (c *Comparison) cdfChart() *plots.Chart {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range c.Sides {
		for _, v := range s.Runs[0].Result.LatencyCDF.ValuesMS {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(lo < hi) {
		return nil
	}
	grid := make([]float64, cdfPoints)
	for i := range grid {
		grid[i] = lo * math.Pow(hi/lo, float64(i)/float64(cdfPoints-1))
	}
	grid[cdfPoints-1] = hi
	chart := &plots.Chart{ID: "cdf", Title: "Latency distribution (CDF, measured phases, first replicate)", XName: "latency (ms), log scale",
		YName: "fraction of transactions", XType: plots.AxisLog, X: grid}
	for _, s := range c.Sides {
		cdf := s.Runs[0].Result.LatencyCDF
		y := make([]float64, len(grid))
		for i, x := range grid {
			// The last CDF point at or below x.
			k := lastAtMost(cdf.ValuesMS, x)
			if k >= 0 {
				y[i] = cdf.Fractions[k]
			}
		}
		chart.Series = append(chart.Series, plots.Series{Name: s.Name, Y: y})
	}
	return chart
}

// lastAtMost returns the index of the last value <= x in ascending vs, or
// -1.
func lastAtMost(vs []float64, x float64) int {
	i, found := slices.BinarySearch(vs, x)
	if found {
		for i+1 < len(vs) && vs[i+1] == x {
			i++
		}
		return i
	}
	return i - 1
}

// relations is the per-relation table (heap and index hit ratios per
// side) and a chart of the heap hit ratios side by side; nil when the runs
// report no relation.
func (c *Comparison) relations() (*plots.Table, *plots.Chart) {
	type hr struct{ heapHit, heapRead, idxHit, idxRead int64 }
	per := make([]map[string]*hr, len(c.Sides))
	var rels []string
	for i, s := range c.Sides {
		per[i] = map[string]*hr{}
		for _, r := range s.Runs {
			for _, t := range r.Result.Totals.StatioTables {
				h := per[i][t.Relname]
				if h == nil {
					h = &hr{}
					per[i][t.Relname] = h
					if !slices.Contains(rels, t.Relname) {
						rels = append(rels, t.Relname)
					}
				}
				h.heapHit += t.HeapBlksHit
				h.heapRead += t.HeapBlksRead
				h.idxHit += t.IdxBlksHit
				h.idxRead += t.IdxBlksRead
			}
		}
	}
	if len(rels) == 0 {
		return nil, nil
	}
	ratio := func(hit, read int64) float64 {
		if hit+read == 0 {
			return math.NaN()
		}
		return float64(hit) / float64(hit+read)
	}
	cell := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	tb := &plots.Table{Header: []string{"relation"}}
	for _, s := range c.Sides {
		tb.Header = append(tb.Header, s.Name+" heap")
	}
	for _, s := range c.Sides {
		tb.Header = append(tb.Header, s.Name+" indexes")
	}
	chart := &plots.Chart{ID: "relations", Title: "Heap hit ratio by relation", Kind: plots.KindBar, XType: plots.AxisCategory,
		XName: "relation", YName: "heap blks_hit / (hit + read)", Categories: rels}
	series := make([]plots.Series, len(c.Sides))
	for i, s := range c.Sides {
		series[i].Name = s.Name
	}
	for _, rel := range rels {
		row := []string{rel}
		var idx []string
		for i := range c.Sides {
			h := per[i][rel]
			if h == nil {
				h = &hr{}
			}
			heap := ratio(h.heapHit, h.heapRead)
			row = append(row, cell(heap))
			idx = append(idx, cell(ratio(h.idxHit, h.idxRead)))
			series[i].Y = append(series[i].Y, heap)
		}
		tb.Rows = append(tb.Rows, append(row, idx...))
	}
	chart.Series = series
	return tb, chart
}

// usageChart shows the sides' usage-count histograms at the end of the
// run (mean over replicates) side by side.
func (c *Comparison) usageChart() *plots.Chart {
	levels := 0
	for _, s := range c.Sides {
		for _, r := range s.Runs {
			levels = max(levels, len(r.Result.Totals.Buffers.UsageHistogram))
		}
	}
	if levels == 0 {
		return nil
	}
	chart := &plots.Chart{ID: "usage", Title: "Usage-count histogram at the end of the run (mean over replicates)", Kind: plots.KindBar,
		XType: plots.AxisCategory, XName: "usage_count", YName: "buffers"}
	for u := 0; u < levels; u++ {
		chart.Categories = append(chart.Categories, strconv.Itoa(u))
	}
	for _, s := range c.Sides {
		y := make([]float64, levels)
		n := 0
		for _, r := range s.Runs {
			if h := r.Result.Totals.Buffers.UsageHistogram; len(h) > 0 {
				n++
				for u, v := range h {
					y[u] += float64(v)
				}
			}
		}
		name := s.Name
		if n == 0 {
			// Policies without usage counts (lru, 2q...) report none;
			// the side keeps its colour and says why it has no bars.
			name += " (no usage counts: " + s.Runs[0].Result.Policy + ")"
		}
		for u := range y {
			y[u] /= float64(max(n, 1))
		}
		chart.Series = append(chart.Series, plots.Series{Name: name, Y: y})
	}
	return chart
}
