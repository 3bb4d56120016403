package plots

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// palette is echarts 5's default series palette; bands take their colour
// from it by band index, so band 0 matches series 0 when no colour is given.
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// cssColor accepts the colour forms echarts understands: #rgb, #rrggbb,
// #rrggbbaa, rgb()/rgba() and named colours.
var cssColor = regexp.MustCompile(`^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|#[0-9A-Fa-f]{8}|rgba?\([0-9., %]+\)|[A-Za-z]+)$`)

const (
	// bandStackPrefix names the hidden stack of each band; user stacks may
	// not start with it.
	bandStackPrefix = "__band"
	// marksSeriesName names the series that carries the vertical marks. It
	// has no legend entry: the marks are labelled where they are drawn, and
	// a legend entry "marks" only puzzled readers.
	marksSeriesName = "marks"
	// denseLine is the point count above which a line hides its symbols
	// (they would merge into a thick line); denseScatter the count above
	// which a scatter switches to echarts' faster "large" mode.
	denseLine    = 100
	denseScatter = 2000
)

// xyPlan is a validated line, scatter or bar chart: which x positions are
// drawable and how y values map onto the axes.
type xyPlan struct {
	c        *Chart
	kind     string
	xType    string
	yLog     [2]bool
	category bool
	// keep lists the indices of X that can be placed on the x axis (finite,
	// and positive on a log axis); nil for a category axis (all of them).
	keep []int
}

func axisOr(t string) string {
	if t == "" {
		return AxisValue
	}
	return t
}

func buildXY(c *Chart) (optionBuilder, error) {
	p, err := planXY(c)
	if err != nil {
		return nil, err
	}
	var rc *charts.RectChart
	var b optionBuilder
	switch p.kind {
	case KindLine:
		ch := charts.NewLine()
		if p.category {
			ch.SetXAxis(c.Categories)
		}
		rc, b = &ch.RectChart, ch
	case KindScatter:
		ch := charts.NewScatter()
		if p.category {
			ch.SetXAxis(c.Categories)
		}
		rc, b = &ch.RectChart, ch
	case KindBar:
		ch := charts.NewBar()
		if p.category {
			ch.SetXAxis(c.Categories)
		}
		rc, b = &ch.RectChart, ch
	}
	// Preset assets point at the go-echarts CDN; echarts is inlined by the
	// page instead, so they are cleared on every chart.
	rc.ClearPresetAssets()

	legend := p.addSeries(rc)
	usesY2 := p.usesY2()
	zoom := p.xType == AxisTimeSeconds

	gopts := commonOptions(c)
	if zoom {
		gopts = append(gopts, charts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: 0},
			opts.DataZoom{Type: "slider", XAxisIndex: 0},
		))
	}
	legendOpt := opts.Legend{Show: opts.Bool(len(legend) > 0), Type: "scroll", Top: legendTop(c.Title)}
	if len(legend) > 0 {
		legendOpt.Data = legend
	}
	bottom := 12
	if c.XName != "" {
		bottom += 24
	}
	if zoom {
		bottom += 48
	}
	right := "24"
	if usesY2 {
		right = "16"
	}
	gopts = append(gopts,
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(legendOpt),
		charts.WithGridOpts(opts.Grid{Left: "16", Right: right, Top: gridTop(c.Title, len(legend) > 0),
			Bottom: fmt.Sprint(bottom), ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(p.xAxis()),
		charts.WithYAxisOpts(p.yAxis(0)),
	)
	rc.SetGlobalOptions(gopts...)
	if usesY2 {
		y2 := p.yAxis(1)
		y2.SplitLine = &opts.SplitLine{Show: opts.Bool(false)}
		rc.ExtendYAxis(y2)
	}
	rc.Accept(optionVisitor{bandSeries: 2 * len(c.Bands)})
	return b, nil
}

// planXY validates a line, scatter or bar chart.
func planXY(c *Chart) (*xyPlan, error) {
	p := &xyPlan{c: c, kind: c.Kind, xType: axisOr(c.XType)}
	if p.kind == "" {
		p.kind = KindLine
	}
	switch p.xType {
	case AxisValue, AxisLog, AxisCategory, AxisTimeSeconds:
	default:
		return nil, fmt.Errorf("XType %q (want %q, %q, %q or %q)", c.XType, AxisValue, AxisLog, AxisCategory, AxisTimeSeconds)
	}
	for i, t := range []string{c.YType, c.Y2Type} {
		switch axisOr(t) {
		case AxisValue:
		case AxisLog:
			p.yLog[i] = true
		default:
			return nil, fmt.Errorf("%s %q (want %q or %q)", []string{"YType", "Y2Type"}[i], t, AxisValue, AxisLog)
		}
	}
	if c.Heat != nil {
		return nil, fmt.Errorf("Heat is only used by Kind %q", KindHeatmap)
	}
	p.category = p.xType == AxisCategory
	n := len(c.X)
	if p.category {
		if len(c.X) > 0 {
			return nil, fmt.Errorf("X must be empty on a category axis (the x values are Categories)")
		}
		n = len(c.Categories)
	} else if len(c.Categories) > 0 {
		return nil, fmt.Errorf("Categories need XType %q", AxisCategory)
	}
	for i, s := range c.Series {
		if len(s.Y) != n {
			return nil, fmt.Errorf("series %d (%q) has %d values, the x axis has %d", i+1, s.Name, len(s.Y), n)
		}
		if s.YAxis != 0 && s.YAxis != 1 {
			return nil, fmt.Errorf("series %d (%q): YAxis %d (want 0 or 1)", i+1, s.Name, s.YAxis)
		}
		if p.kind == KindScatter && (s.Stack != "" || s.Area) {
			return nil, fmt.Errorf("series %d (%q): Stack and Area do not apply to a scatter chart", i+1, s.Name)
		}
		if p.kind == KindBar && s.Area {
			return nil, fmt.Errorf("series %d (%q): Area does not apply to a bar chart", i+1, s.Name)
		}
		if len(s.Stack) >= len(bandStackPrefix) && s.Stack[:len(bandStackPrefix)] == bandStackPrefix {
			return nil, fmt.Errorf("series %d (%q): Stack names starting with %q are reserved", i+1, s.Name, bandStackPrefix)
		}
	}
	for i, b := range c.Bands {
		if len(b.Lower) != n || len(b.Upper) != n {
			return nil, fmt.Errorf("band %d (%q) has %d lower and %d upper values, the x axis has %d", i+1, b.Name, len(b.Lower), len(b.Upper), n)
		}
		if b.YAxis != 0 && b.YAxis != 1 {
			return nil, fmt.Errorf("band %d (%q): YAxis %d (want 0 or 1)", i+1, b.Name, b.YAxis)
		}
		if b.Color != "" && !cssColor.MatchString(b.Color) {
			return nil, fmt.Errorf("band %d (%q): Color %q is not a CSS colour", i+1, b.Name, b.Color)
		}
		for j := range b.Lower {
			if finite(b.Lower[j]) && finite(b.Upper[j]) && b.Upper[j] < b.Lower[j] {
				return nil, fmt.Errorf("band %d (%q): upper %g is below lower %g at index %d", i+1, b.Name, b.Upper[j], b.Lower[j], j)
			}
		}
	}
	if p.category {
		for i, m := range c.Marks {
			if m.X != math.Trunc(m.X) || m.X < 0 || m.X >= float64(n) {
				return nil, fmt.Errorf("mark %d (%q): X %g is not a category index in [0, %d)", i+1, m.Label, m.X, n)
			}
		}
	} else {
		for i, x := range c.X {
			if finite(x) && (p.xType != AxisLog || x > 0) {
				p.keep = append(p.keep, i)
			}
		}
	}
	return p, nil
}

func (p *xyPlan) usesY2() bool {
	for _, s := range p.c.Series {
		if s.YAxis == 1 {
			return true
		}
	}
	for _, b := range p.c.Bands {
		if b.YAxis == 1 {
			return true
		}
	}
	return false
}

func echartsAxisType(t string) string {
	switch axisOr(t) {
	case AxisLog:
		return "log"
	case AxisCategory:
		return "category"
	default:
		return "value"
	}
}

func (p *xyPlan) xAxis() opts.XAxis {
	a := opts.XAxis{Type: echartsAxisType(p.xType), Name: p.c.XName, NameLocation: "middle", NameGap: 28}
	if !p.category {
		if p.kind == KindLine {
			// A line should nearly span the plot: echarts would otherwise
			// round the axis out to its own "nice" numbers and always
			// include zero, and "dataMin"/"dataMax" would print raw data
			// ends (0.540671) as the end labels. The ends are rounded
			// outwards to the next round number instead.
			var xs []float64
			for _, i := range p.keep {
				xs = append(xs, p.c.X[i])
			}
			if lo, hi, ok := niceBounds(xs, p.xType == AxisLog); ok {
				a.Min, a.Max = lo, hi
			}
		} else {
			a.Scale = opts.Bool(true)
		}
	}
	return a
}

func (p *xyPlan) yAxis(axis int) opts.YAxis {
	t, name := p.c.YType, p.c.YName
	if axis == 1 {
		t, name = p.c.Y2Type, p.c.Y2Name
	}
	a := opts.YAxis{Type: echartsAxisType(t), Name: name}
	if p.c.YFit && axisOr(t) == AxisValue {
		// scale: echarts fits the axis to the data instead of starting it
		// at zero, still on round numbers.
		a.Scale = opts.Bool(true)
	}
	return a
}

// yValue maps a y value to what is drawn: NaN for a gap (non-finite, or not
// positive on a log axis).
func (p *xyPlan) yValue(v float64, axis int) float64 {
	if !finite(v) || (p.yLog[axis] && v <= 0) {
		return math.NaN()
	}
	return v
}

// data returns a y vector in echarts form, and sets s.Data and s.Encode.
// Scatter points with no y are left out rather than written as null. It
// returns the number of points.
func (p *xyPlan) data(s *charts.SingleSeries, y []float64, axis int, dropGaps bool) int {
	if p.category {
		d := make(yData, len(y))
		for i, v := range y {
			d[i] = p.yValue(v, axis)
		}
		s.Data = d
		return len(d)
	}
	stacked := s.Stack != ""
	// encode names the x and y columns, and shows only y in the axis
	// tooltip (whose header already is the x value).
	if stacked {
		s.Encode = &opts.Encode{X: 1, Y: 0, Tooltip: []int{0}}
	} else {
		s.Encode = &opts.Encode{X: 0, Y: 1, Tooltip: []int{1}}
	}
	d := xyData{x: make([]float64, 0, len(p.keep)), y: make([]float64, 0, len(p.keep)), yFirst: stacked}
	for _, i := range p.keep {
		v := p.yValue(y[i], axis)
		if dropGaps && math.IsNaN(v) {
			continue
		}
		d.x = append(d.x, p.c.X[i])
		d.y = append(d.y, v)
	}
	s.Data = d
	return len(d.x)
}

// legendItem is one explicit legend entry. The legend is listed explicitly
// so that band helpers appear once, as a filled box, and unnamed series not
// at all.
type legendItem struct {
	Name string `json:"name"`
	Icon string `json:"icon,omitempty"`
}

// addSeries adds, in drawing order, the band helpers (under everything),
// the caller's series, and the carrier of the vertical marks; it returns
// the legend entries.
func (p *xyPlan) addSeries(rc *charts.RectChart) []legendItem {
	var legend []legendItem
	seen := map[string]bool{}
	addLegend := func(name, icon string) {
		if name != "" && !seen[name] {
			seen[name] = true
			legend = append(legend, legendItem{Name: name, Icon: icon})
		}
	}
	for i, b := range p.c.Bands {
		color := b.Color
		if color == "" {
			color = palette[i%len(palette)]
		}
		lower := make([]float64, len(b.Lower))
		diff := make([]float64, len(b.Lower))
		for j := range b.Lower {
			lo, hi := p.yValue(b.Lower[j], b.YAxis), p.yValue(b.Upper[j], b.YAxis)
			if math.IsNaN(lo) || math.IsNaN(hi) {
				lo, hi = math.NaN(), math.NaN()
			}
			lower[j], diff[j] = lo, hi-lo
		}
		// The stacked-area band: an invisible lower line, and the upper
		// series stacked on it as the difference, filled down to the lower.
		stack := fmt.Sprintf("%s%d", bandStackPrefix, i)
		for k, y := range [][]float64{lower, diff} {
			s := charts.SingleSeries{Name: b.Name, Type: types.ChartLine, Stack: stack,
				YAxisIndex: b.YAxis, Symbol: "none", ShowSymbol: opts.Bool(false), Color: color,
				LineStyle: &opts.LineStyle{Opacity: opts.Float(0)}}
			p.data(&s, y, b.YAxis, false)
			if k == 1 {
				s.AreaStyle = &opts.AreaStyle{Color: color, Opacity: opts.Float(0.25)}
			}
			rc.MultiSeries = append(rc.MultiSeries, s)
		}
	}
	for _, s := range p.c.Series {
		ss := charts.SingleSeries{Name: s.Name, YAxisIndex: s.YAxis, Stack: s.Stack}
		switch p.kind {
		case KindLine:
			ss.Type = types.ChartLine
			if n := p.data(&ss, s.Y, s.YAxis, false); n > denseLine {
				ss.ShowSymbol = opts.Bool(false)
			}
			if s.Area {
				ss.AreaStyle = &opts.AreaStyle{Opacity: opts.Float(0.3)}
			}
		case KindScatter:
			ss.Type, ss.SymbolSize = types.ChartScatter, 6
			if n := p.data(&ss, s.Y, s.YAxis, true); n > denseScatter {
				ss.Large = opts.Bool(true)
			}
		case KindBar:
			ss.Type = types.ChartBar
			p.data(&ss, s.Y, s.YAxis, false)
		}
		rc.MultiSeries = append(rc.MultiSeries, ss)
		addLegend(s.Name, "")
	}
	for i := range p.c.Bands {
		addLegend(p.c.Bands[i].Name, "roundRect")
	}
	if marks := p.marks(); len(marks) > 0 {
		rc.MultiSeries = append(rc.MultiSeries, charts.SingleSeries{
			Name: marksSeriesName, Type: types.ChartLine, Data: yData{}, Color: "#6e7079",
			MarkLines: &opts.MarkLines{Data: marks, MarkLineStyle: opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop"},
				LineStyle: &opts.LineStyle{Type: "dashed", Color: "#6e7079", Width: 1},
			}},
		})
	}
	return legend
}

// marks returns the drawable vertical marks (non-finite positions, and
// non-positive ones on a log axis, are left out).
func (p *xyPlan) marks() []interface{} {
	var out []interface{}
	for _, m := range p.c.Marks {
		if !finite(m.X) || (p.xType == AxisLog && m.X <= 0) {
			continue
		}
		out = append(out, opts.MarkLineNameXAxisItem{Name: m.Label, XAxis: m.X})
	}
	return out
}

// niceBounds gives an axis's ends for xs: an end with at most three
// significant digits (1, 25, 512, 0.75) stays as it is, so that a line
// spans the plot; any other is rounded outwards to a round number, on a
// linear axis to a multiple of a 1-2-5 step about a fiftieth of the range
// (0.419839..479.97927 becomes 0..480, 1..4201 becomes 1..4300), on a log axis to 1, 2 or 5 times a
// power of ten (0.540671 becomes 0.5). ok is false without two distinct
// finite values, or when rounding would leave the float range.
func niceBounds(xs []float64, log bool) (lo, hi float64, ok bool) {
	dlo, dhi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if finite(x) && (!log || x > 0) {
			dlo, dhi = math.Min(dlo, x), math.Max(dhi, x)
		}
	}
	if !(dlo < dhi) || !finite(dhi-dlo) {
		return 0, 0, false
	}
	lo, hi = dlo, dhi
	step := nice125((dhi-dlo)/50, true)
	if !isRound(dlo) {
		if log {
			lo = nice125(dlo, false)
		} else {
			lo = roundTo(math.Floor(dlo/step) * step)
		}
	}
	if !isRound(dhi) {
		if log {
			hi = nice125(dhi, true)
		} else {
			hi = roundTo(math.Ceil(dhi/step) * step)
		}
	}
	if !finite(lo) || !finite(hi) || !(lo < hi) {
		return 0, 0, false
	}
	return lo, hi, true
}

// isRound reports whether x reads the same with three significant digits.
func isRound(x float64) bool {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return v == x
}

// nice125 rounds x > 0 to 1, 2 or 5 times a power of ten, up or down.
func nice125(x float64, up bool) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	m := x / p
	steps := []float64{1, 2, 5, 10}
	if !up {
		for i := len(steps) - 1; i >= 0; i-- {
			if steps[i] <= m*(1+1e-12) {
				return roundTo(steps[i] * p)
			}
		}
		return roundTo(p)
	}
	for _, s := range steps {
		if s >= m*(1-1e-12) {
			return roundTo(s * p)
		}
	}
	return roundTo(10 * p)
}

// roundTo removes the binary noise of a product such as 3 * 0.1, so that
// the axis label reads 0.3.
func roundTo(x float64) float64 {
	if x == 0 || !finite(x) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return v
}
