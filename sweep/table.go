package sweep

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgbufsim/pgbufsim/configs"
)

// summaryTable is the per-point table: axis values, finished runs, and
// "mean ± half-width" for each metric.
func (r *Results) summaryTable(metrics []string) ([]string, [][]string) {
	var header []string
	for i := range r.Plan.Axes {
		header = append(header, configs.AxisLabel(r.Plan.Axes, i))
	}
	header = append(header, "runs")
	header = append(header, metrics...)
	var rows [][]string
	for pi, p := range r.Plan.Points {
		row := append([]string(nil), p.Values...)
		row = append(row, strconv.Itoa(r.Runs(pi)))
		for _, m := range metrics {
			row = append(row, formatEstimate(r.Estimate(pi, m)))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// pairedTable is the paired-difference table of axis a (nil rows unless
// the axis has two values), one row per combination of the other axes and
// metric, so that it stays narrow whatever the number of metrics: the
// other axes' values, the metric, the pairs, both means, and the
// difference with its interval, as a percentage, and its verdict.
func (r *Results) pairedTable(a int, metrics []string) ([]string, [][]string) {
	ax := r.Plan.Axes[a]
	if len(ax.Values) != 2 {
		return nil, nil
	}
	var header []string
	for i := range r.Plan.Axes {
		if i != a {
			header = append(header, configs.AxisLabel(r.Plan.Axes, i))
		}
	}
	header = append(header, "metric", "pairs", ax.Values[0], ax.Values[1], "Δ ± 95% CI", "Δ %", "verdict")
	var rows [][]string
	for _, pr := range r.Pairs() {
		if pr.Axis != a {
			continue
		}
		var other []string
		for i, v := range r.Plan.Points[pr.From].Values {
			if i != a {
				other = append(other, v)
			}
		}
		for _, m := range metrics {
			d := r.Difference(pr, m)
			from, to := r.Estimate(pr.From, m), r.Estimate(pr.To, m)
			pct := "-"
			if p := percent(d.Mean, from.Mean); !math.IsNaN(p) && !math.IsInf(p, 0) {
				pct = fmt.Sprintf("%+.1f%%", p)
			}
			verdict := d.Verdict()
			if verdict == "" {
				verdict = "-"
			}
			row := append(append([]string(nil), other...), m, strconv.Itoa(d.N),
				formatEstimate(Estimate{Mean: from.Mean, HalfWidth: math.NaN()}), formatEstimate(Estimate{Mean: to.Mean, HalfWidth: math.NaN()}),
				formatEstimate(d), pct, verdict)
			rows = append(rows, row)
		}
	}
	return header, rows
}

// FormatEstimate shows "mean ± half-width" (as the sweep's tables do).
func FormatEstimate(e Estimate) string { return formatEstimate(e) }

// WriteBox draws a table as the sweep's terminal tables are drawn.
func WriteBox(w io.Writer, header []string, rows [][]string) error { return writeBox(w, header, rows) }

// formatEstimate shows "mean ± half-width" with as many decimals as the
// mean's size calls for, the same for both numbers; just the mean when
// there is no interval, "-" when there is no value.
func formatEstimate(e Estimate) string {
	if math.IsNaN(e.Mean) {
		return "-"
	}
	d := decimals(e.Mean)
	if math.IsNaN(e.HalfWidth) {
		return strconv.FormatFloat(e.Mean, 'f', d, 64)
	}
	return strconv.FormatFloat(e.Mean, 'f', d, 64) + " ± " + strconv.FormatFloat(e.HalfWidth, 'f', d, 64)
}

func decimals(x float64) int {
	switch a := math.Abs(x); {
	case a >= 1000:
		return 0
	case a >= 100:
		return 1
	case a >= 1:
		return 3
	}
	return 4
}

// WriteTable prints the comparison table on w in the box style of the
// Caffeine simulator's table report: one row per point with each chosen
// metric's mean ± 95% CI, then a paired-difference table for each
// two-valued axis.
func (r *Results) WriteTable(w io.Writer) error {
	header, rows := r.summaryTable(r.Plan.Metrics)
	if err := writeBox(w, header, rows); err != nil {
		return err
	}
	for a, ax := range r.Plan.Axes {
		header, rows := r.pairedTable(a, r.Plan.Metrics)
		if rows == nil {
			continue
		}
		if _, err := fmt.Fprintf(w, "\npaired difference (same replicates): %s = %s minus %s\n", ax.Path, ax.Values[1], ax.Values[0]); err != nil {
			return err
		}
		if err := writeBox(w, header, rows); err != nil {
			return err
		}
	}
	return nil
}

// writeBox draws a table with box-drawing characters; columns holding
// numbers are right-aligned.
func writeBox(w io.Writer, header []string, rows [][]string) error {
	width := make([]int, len(header))
	right := make([]bool, len(header))
	for c, h := range header {
		width[c] = utf8.RuneCountInString(h)
		right[c] = true
		for _, row := range rows {
			width[c] = max(width[c], utf8.RuneCountInString(row[c]))
			if row[c] != "-" && !numeric(row[c]) {
				right[c] = false
			}
		}
	}
	var b strings.Builder
	rule := func(l, m, r string) {
		b.WriteString(l)
		for c := range header {
			if c > 0 {
				b.WriteString(m)
			}
			b.WriteString(strings.Repeat("═", width[c]+2))
		}
		b.WriteString(r + "\n")
	}
	line := func(cells []string, alignRight func(int) bool) {
		b.WriteString("║")
		for c, s := range cells {
			if c > 0 {
				b.WriteString("│")
			}
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(s))
			if alignRight(c) {
				b.WriteString(" " + pad + s + " ")
			} else {
				b.WriteString(" " + s + pad + " ")
			}
		}
		b.WriteString("║\n")
	}
	rule("╔", "╤", "╗")
	line(header, func(int) bool { return false })
	rule("╠", "╪", "╣")
	for _, row := range rows {
		line(row, func(c int) bool { return right[c] })
	}
	rule("╚", "╧", "╝")
	_, err := io.WriteString(w, b.String())
	return err
}

// numeric reports whether a cell is a number, possibly "mean ± ci" and a
// percentage in parentheses.
func numeric(s string) bool {
	for _, f := range strings.Fields(s) {
		f = strings.Trim(f, "()%")
		if f == "±" {
			continue
		}
		if _, err := strconv.ParseFloat(f, 64); err != nil {
			return false
		}
	}
	return s != ""
}
