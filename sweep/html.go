package sweep

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/plots"
)

// HTML renders sweep.html (see Page).
func (r *Results) HTML() ([]byte, error) {
	var b bytes.Buffer
	if err := plots.Write(&b, r.Page()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Page builds sweep.html's content: each chosen metric against each
// numeric axis (a log axis when the values grow geometrically), one line
// per combination of the other axes' values with its 95% confidence band;
// with no numeric axis, against the first axis's values. Then the summary
// table, the paired differences, and links to the CSV files and to every
// run's report.html. Go programs may add sections before writing it.
func (r *Results) Page() plots.Page {
	plan := r.Plan
	p := plots.Page{
		Title:    "pgbufsim sweep: " + plan.Name,
		Subtitle: r.subtitle(),
	}
	p.Sections = append(p.Sections, plots.Section{Heading: "Sweep", Text: r.description()})
	scales := make([]axisScale, len(plan.Axes))
	var xs []int
	for a, ax := range plan.Axes {
		scales[a] = scaleOf(ax.Values)
		if scales[a].numeric && len(ax.Values) > 1 {
			xs = append(xs, a)
		}
	}
	if len(xs) == 0 && len(plan.Axes) > 0 {
		xs = []int{0}
	}
	for mi, m := range plan.Metrics {
		for _, a := range xs {
			p.Sections = append(p.Sections, plots.Section{Chart: r.chart(mi, m, a, scales[a])})
		}
	}
	header, rows := r.summaryTable(plan.Metrics)
	p.Sections = append(p.Sections, plots.Section{Heading: "Mean and 95% confidence interval per point",
		Table: &plots.Table{Header: header, Rows: rows}})
	for a := range plan.Axes {
		if header, rows := r.pairedTable(a, plan.Metrics); rows != nil {
			ax := plan.Axes[a]
			p.Sections = append(p.Sections, plots.Section{
				Heading: fmt.Sprintf("Paired difference: %s = %s minus %s", ax.Path, ax.Values[1], ax.Values[0]),
				Text:    "Replicate r of both points saw the same arrivals and keys (common random numbers); the interval is the paired-t interval of the per-replicate differences.",
				Table:   &plots.Table{Header: header, Rows: rows}})
		}
	}
	p.Sections = append(p.Sections, plots.Section{Heading: "Data", Links: []plots.Link{
		{Text: SweepCSVFile + " (one row per run)", Href: SweepCSVFile},
		{Text: SummaryCSVFile + " (mean and CI per point, every metric)", Href: SummaryCSVFile},
		{Text: PairedCSVFile + " (paired differences, every metric)", Href: PairedCSVFile},
	}})
	var links []plots.Link
	for _, row := range r.Rows {
		pt := plan.Points[row.Point]
		links = append(links, plots.Link{
			Text: fmt.Sprintf("%s r%d", pt.ID, row.Replicate),
			Href: "runs/" + pt.ID + fmt.Sprintf("/r%d/report.html", row.Replicate),
		})
	}
	if len(links) > 0 {
		p.Sections = append(p.Sections, plots.Section{Heading: "Runs", Links: links})
	}
	return p
}

func (r *Results) subtitle() string {
	plan := r.Plan
	s := fmt.Sprintf("seed %d · %d points × %d replicates · mean with 95%% CI (Student t)", plan.Seed, len(plan.Points), plan.Replicates)
	if !r.Complete() {
		s += fmt.Sprintf(" · partial: %d of %d runs", len(r.Rows), plan.Runs())
	}
	return s
}

func (r *Results) description() string {
	plan := r.Plan
	var b strings.Builder
	if len(plan.Axes) == 0 {
		b.WriteString("No axes: one point, repeated.\n")
	}
	for _, a := range plan.Axes {
		fmt.Fprintf(&b, "%s: %s\n", a.Path, strings.Join(a.Values, ", "))
	}
	fmt.Fprintf(&b, "\nEvery point runs %d replicate(s) with seed %d; replicate r of every point draws the same arrivals and keys (common random numbers), so differences between points are measured on identical workloads.", plan.Replicates, plan.Seed)
	return b.String()
}

// chart plots metric m against axis a, one line per combination of the
// other axes.
func (r *Results) chart(mi int, m string, a int, sc axisScale) *plots.Chart {
	plan := r.Plan
	ax := plan.Axes[a]
	label := configs.AxisLabel(plan.Axes, a)
	c := &plots.Chart{
		ID:    fmt.Sprintf("m%d_a%d", mi, a),
		Title: fmt.Sprintf("%s vs %s", m, label),
		YName: m,
		XName: label,
	}
	order := make([]int, len(ax.Values)) // value indices in x order
	for i := range order {
		order[i] = i
	}
	if sc.numeric {
		slices.SortStableFunc(order, func(i, j int) int {
			switch {
			case sc.x[i] < sc.x[j]:
				return -1
			case sc.x[i] > sc.x[j]:
				return 1
			}
			return 0
		})
		c.XType = plots.AxisValue
		if sc.log {
			c.XType = plots.AxisLog
		}
		if sc.unit != "" {
			c.XName += " (" + sc.unit + ")"
		}
		for _, v := range order {
			c.X = append(c.X, sc.x[v])
		}
	} else {
		c.XType = plots.AxisCategory
		c.Categories = append([]string(nil), ax.Values...)
	}
	stride := 1
	for _, b := range plan.Axes[a+1:] {
		stride *= len(b.Values)
	}
	for base := range plan.Points {
		if (base/stride)%len(ax.Values) != 0 {
			continue // one line per point whose axis-a value is the first
		}
		name := r.otherLabel(base, a)
		if name == "" {
			name = m
		}
		s := plots.Series{Name: name}
		band := plots.Band{Name: name + " (95% CI)"}
		hasBand := false
		for _, v := range order {
			e := r.Estimate(base+v*stride, m)
			s.Y = append(s.Y, e.Mean)
			lo, hi := e.Lo(), e.Hi()
			if !math.IsNaN(e.HalfWidth) {
				hasBand = true
			}
			band.Lower, band.Upper = append(band.Lower, lo), append(band.Upper, hi)
		}
		c.Series = append(c.Series, s)
		if hasBand {
			c.Bands = append(c.Bands, band)
		}
	}
	if len(c.Bands) != len(c.Series) {
		c.Bands = nil // colours pair bands with series by index
	}
	return c
}

// otherLabel names a point by the axes other than skip: "name=lru,
// enabled=true".
func (r *Results) otherLabel(point, skip int) string {
	var parts []string
	for i := range r.Plan.Axes {
		if i != skip {
			parts = append(parts, configs.AxisLabel(r.Plan.Axes, i)+"="+r.Plan.Points[point].Values[i])
		}
	}
	return strings.Join(parts, ", ")
}
