package sweep

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
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
	p.Sections = append(p.Sections, plots.Section{Heading: "Sweep", Text: r.description() + "\n\n" + fitNote})
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
				Text: "Replicate r of both points saw the same arrivals and keys (common random numbers); the interval is the paired-t interval of the per-replicate differences. " +
					"A difference is significant when its 95% interval excludes zero (a two-sided paired t test at 5%); with one replicate there is no interval.",
				Table: &plots.Table{Header: header, Rows: rows}})
			if r.Plan.Replicates > 1 {
				for mi, m := range plan.Metrics {
					p.Sections = append(p.Sections, plots.Section{Chart: r.pairedChart(mi, m, a, scales)})
				}
			}
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

// fitNote is said under every chart whose y axis fits the data.
const fitNote = "The y axis fits the data and need not start at zero; the shaded band is the 95% confidence interval of the mean over replicates."

// chart plots metric m against axis a, one line per combination of the
// other axes.
func (r *Results) chart(mi int, m string, a int, sc axisScale) *plots.Chart {
	plan := r.Plan
	ax := plan.Axes[a]
	label := configs.AxisTitle(plan.Axes, a)
	c := &plots.Chart{
		ID:    fmt.Sprintf("m%d_a%d", mi, a),
		Title: fmt.Sprintf("%s by %s", configs.MetricTitle(m), label),
		YName: configs.MetricTitle(m),
		XName: label,
		YFit:  true,
	}
	order := r.setX(c, a, sc)
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
			name = configs.MetricTitle(m)
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

// setX gives chart c the x axis of sweep axis a and returns the axis's
// value indices in x order. A numeric axis whose values grow by one
// constant factor (8MB, 16MB, 32MB) is drawn as evenly spaced labelled
// positions, which is a log scale with a tick at every point; other
// geometric axes get a log axis, the rest a linear one; a non-numeric
// axis gets its values as categories.
func (r *Results) setX(c *plots.Chart, a int, sc axisScale) []int {
	ax := r.Plan.Axes[a]
	order := make([]int, len(ax.Values))
	for i := range order {
		order[i] = i
	}
	if !sc.numeric {
		c.XType = plots.AxisCategory
		c.Categories = append([]string(nil), ax.Values...)
		return order
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case sc.x[i] < sc.x[j]:
			return -1
		case sc.x[i] > sc.x[j]:
			return 1
		}
		return 0
	})
	if sc.unit != "" {
		c.XName += " (" + sc.unit + ")"
	}
	switch {
	case sc.even:
		c.XType = plots.AxisCategory
		c.XName += ", log scale"
		for _, v := range order {
			c.Categories = append(c.Categories, strconv.FormatFloat(sc.x[v], 'f', -1, 64))
		}
	case sc.log:
		c.XType = plots.AxisLog
		c.XName += ", log scale"
		for _, v := range order {
			c.X = append(c.X, sc.x[v])
		}
	default:
		c.XType = plots.AxisValue
		for _, v := range order {
			c.X = append(c.X, sc.x[v])
		}
	}
	return order
}

// pairedChart draws the paired difference of metric m along two-valued
// axis a, with its 95% interval, against the other axes: over the other
// axis's values when there is one other axis (a numeric one as in chart),
// otherwise one category per combination of the other axes. A line at
// zero marks "no difference": where the band leaves it, the difference is
// significant.
func (r *Results) pairedChart(mi int, m string, a int, scales []axisScale) *plots.Chart {
	plan := r.Plan
	ax := plan.Axes[a]
	title := configs.MetricTitle(m)
	c := &plots.Chart{
		ID:    fmt.Sprintf("d%d_a%d", mi, a),
		Title: fmt.Sprintf("Δ %s: %s minus %s (paired, 95%% CI)", title, ax.Values[1], ax.Values[0]),
		YName: "Δ " + title,
		YFit:  true,
	}
	var pairs []Pair
	for _, pr := range r.Pairs() {
		if pr.Axis == a {
			pairs = append(pairs, pr)
		}
	}
	order := make([]int, len(pairs))
	for i := range order {
		order[i] = i
	}
	if len(plan.Axes) == 2 {
		other := 1 - a
		c.XName = configs.AxisTitle(plan.Axes, other)
		// Pairs come in point order, which is the other axis's value
		// order; setX sorts those values.
		order = r.setX(c, other, scales[other])
	} else {
		c.XType = plots.AxisCategory
		c.XName = "configuration of the other axes"
		for _, pr := range pairs {
			name := r.otherLabel(pr.From, a)
			if name == "" {
				name = "all runs"
			}
			c.Categories = append(c.Categories, name)
		}
	}
	diff := plots.Series{Name: "Δ mean"}
	zero := plots.Series{Name: "no difference"}
	band := plots.Band{Name: "95% CI"}
	for _, i := range order {
		d := r.Difference(pairs[i], m)
		diff.Y = append(diff.Y, d.Mean)
		zero.Y = append(zero.Y, 0)
		band.Lower, band.Upper = append(band.Lower, d.Lo()), append(band.Upper, d.Hi())
	}
	c.Series = []plots.Series{diff, zero}
	c.Bands = []plots.Band{band}
	return c
}

// otherLabel names a point by the axes other than skip: "policy lru,
// enabled true".
func (r *Results) otherLabel(point, skip int) string {
	var parts []string
	for i := range r.Plan.Axes {
		if i != skip {
			parts = append(parts, configs.AxisTitle(r.Plan.Axes, i)+" "+r.Plan.Points[point].Values[i])
		}
	}
	return strings.Join(parts, ", ")
}
