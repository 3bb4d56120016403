package plots

import (
	"fmt"
	"math"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// heatColors runs from cool (low) to warm (high), the diverging scheme of
// echarts' own heatmap examples, readable for sequential data too.
var heatColors = []string{"#313695", "#4575b4", "#74add1", "#abd9e9", "#e0f3f8", "#ffffbf", "#fee090", "#fdae61", "#f46d43", "#d73027", "#a50026"}

func buildHeatmap(c *Chart) (optionBuilder, error) {
	h := c.Heat
	if h == nil {
		return nil, fmt.Errorf("Kind %q needs Heat", KindHeatmap)
	}
	if len(c.X) > 0 || len(c.Categories) > 0 || len(c.Series) > 0 || len(c.Bands) > 0 || len(c.Marks) > 0 {
		return nil, fmt.Errorf("a heatmap takes its data from Heat only (X, Categories, Series, Bands and Marks must be empty)")
	}
	if (c.XType != "" && c.XType != AxisCategory) || (c.YType != "" && c.YType != AxisCategory) {
		return nil, fmt.Errorf("heatmap axes are categories (XType and YType must be empty or %q)", AxisCategory)
	}
	if len(h.Values) != len(h.YLabels) {
		return nil, fmt.Errorf("Heat has %d rows of values and %d YLabels", len(h.Values), len(h.YLabels))
	}
	var cells heatData
	lo, hi := math.Inf(1), math.Inf(-1)
	for yi, row := range h.Values {
		if len(row) != len(h.XLabels) {
			return nil, fmt.Errorf("Heat row %d (%q) has %d values and there are %d XLabels", yi+1, h.YLabels[yi], len(row), len(h.XLabels))
		}
		for xi, v := range row {
			if !finite(v) {
				continue // an empty cell
			}
			cells = append(cells, heatCell{x: xi, y: yi, v: v})
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if len(cells) == 0 {
		lo, hi = 0, 1
	} else if lo == hi {
		// A constant matrix still needs a non-empty colour range.
		lo, hi = lo-0.5, hi+0.5
	}

	ch := charts.NewHeatMap()
	ch.ClearPresetAssets()
	bottom := 72
	if c.XName != "" {
		bottom += 24
	}
	gopts := append(commonOptions(c),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithGridOpts(opts.Grid{Left: "16", Right: "24", Top: gridTop(c.Title, false),
			Bottom: fmt.Sprint(bottom), ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: c.XName, NameLocation: "middle", NameGap: 28, Data: h.XLabels,
			SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Name: c.YName, Data: h.YLabels,
			SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithVisualMapOpts(heatVisualMap(h.Unit)),
	)
	ch.SetGlobalOptions(gopts...)
	ch.AddSeries(c.Title, nil, charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.Data = cells }))
	ch.Accept(optionVisitor{visualMin: lo, visualMax: hi})
	return ch, nil
}

// heatVisualMap is the colour scale under a heatmap. With a unit, its ends
// read "N unit" (echarts writes Text[0] at the high end and Text[1] at the
// low end, beside the handles' own values).
func heatVisualMap(unit string) opts.VisualMap {
	vm := opts.VisualMap{Type: "continuous", Calculable: opts.Bool(true),
		Orient: "horizontal", Left: "center", Bottom: "0",
		InRange: &opts.VisualMapInRange{Color: heatColors}}
	if unit != "" {
		vm.Text = []string{"more " + unit, "fewer " + unit}
	}
	return vm
}
