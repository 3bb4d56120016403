package sweep

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Output file names inside a sweep directory.
const (
	// SweepCSVFile has one row per run: point, axis values, replicate, seed
	// and every summary metric.
	SweepCSVFile = "sweep.csv"
	// SummaryCSVFile has one row per point: axis values, finished runs, and
	// each metric's mean and 95% confidence half-width.
	SummaryCSVFile = "sweep-summary.csv"
	// PairedCSVFile has one row per paired comparison along a two-valued
	// axis and metric: both means and the paired difference with its CI.
	PairedCSVFile = "sweep-paired.csv"
	// SweepHTMLFile is the charts and tables page.
	SweepHTMLFile = "sweep.html"
)

// RunsCSV renders sweep.csv.
func (r *Results) RunsCSV() []byte {
	var b bytes.Buffer
	head := []string{"point"}
	for _, a := range r.Plan.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "replicate", "seed")
	writeRecord(&b, append(head, r.Metrics...))
	for _, row := range r.Rows {
		p := r.Plan.Points[row.Point]
		rec := append([]string{p.ID}, p.Values...)
		rec = append(rec, strconv.Itoa(row.Replicate), strconv.FormatInt(row.Seed, 10))
		vals := make([]string, len(r.Metrics))
		for _, m := range row.Metrics {
			vals[r.index[m.Name]] = m.Value
		}
		writeRecord(&b, append(rec, vals...))
	}
	return b.Bytes()
}

// SummaryCSV renders sweep-summary.csv: per point, for every metric,
// METRIC.mean and METRIC.ci95 (the half-width of the 95% interval; empty
// with fewer than two replicates).
func (r *Results) SummaryCSV() []byte {
	var b bytes.Buffer
	head := []string{"point"}
	for _, a := range r.Plan.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "runs")
	for _, m := range r.Metrics {
		head = append(head, m+".mean", m+".ci95")
	}
	writeRecord(&b, head)
	for pi, p := range r.Plan.Points {
		rec := append([]string{p.ID}, p.Values...)
		rec = append(rec, strconv.Itoa(r.Runs(pi)))
		for _, m := range r.Metrics {
			e := r.Estimate(pi, m)
			rec = append(rec, formatStat(e.Mean), formatStat(e.HalfWidth))
		}
		writeRecord(&b, rec)
	}
	return b.Bytes()
}

// PairedCSV renders sweep-paired.csv: for each two-valued axis, each
// combination of the other axes and each metric, the means at the axis's
// two values and the paired difference (to - from) with its 95% interval
// and as a percentage of the from mean, and whether the difference is
// significant at the 95% level (Estimate.Significance: true, false, or
// empty with one pair). The swept axis's own column is empty.
func (r *Results) PairedCSV() []byte {
	var b bytes.Buffer
	head := []string{"axis", "from", "to"}
	for _, a := range r.Plan.Axes {
		head = append(head, a.Path)
	}
	head = append(head, "metric", "pairs", "from_mean", "to_mean", "diff_mean", "diff_ci95", "diff_pct", "significant")
	writeRecord(&b, head)
	for _, pr := range r.Pairs() {
		ax := r.Plan.Axes[pr.Axis]
		vals := append([]string(nil), r.Plan.Points[pr.From].Values...)
		vals[pr.Axis] = ""
		for _, m := range r.Metrics {
			d := r.Difference(pr, m)
			from, to := r.Estimate(pr.From, m), r.Estimate(pr.To, m)
			rec := append([]string{ax.Path, ax.Values[0], ax.Values[1]}, vals...)
			rec = append(rec, m, strconv.Itoa(d.N), formatStat(from.Mean), formatStat(to.Mean),
				formatStat(d.Mean), formatStat(d.HalfWidth), formatStat(percent(d.Mean, from.Mean)), d.Significance())
			writeRecord(&b, rec)
		}
	}
	return b.Bytes()
}

func percent(diff, base float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return 100 * diff / base
}

// FormatStat writes a statistic as the sweep's CSV files do (below).
func FormatStat(x float64) string { return formatStat(x) }

// formatStat writes a computed statistic with nine significant digits (a
// mean of six-decimal values has no more meaning than that) in plain
// decimal form; NaN (no value) is an empty field.
func formatStat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 9, 64), 64)
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// writeRecord writes one CSV record (RFC 4180 quoting).
func writeRecord(b *bytes.Buffer, rec []string) {
	for i, f := range rec {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\n\r") {
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		} else {
			b.WriteString(f)
		}
	}
	b.WriteByte('\n')
}
