package plots

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// optionVisitor adds the few echarts options that go-echarts v2.6.7 has no
// typed field for, through go-echarts' own extension point
// (charts.ConfigurationVisitor, "modify/enhance chart options before
// rendering").
type optionVisitor struct {
	charts.BaseConfigurationVisitor
	// bandSeries is how many leading series are band helpers.
	bandSeries int
	// visualMin and visualMax are a heatmap's colour range.
	visualMin, visualMax float64
}

// bandHelper is a band's lower or upper helper series. It is left out of
// the axis tooltip (its values are a base and a difference, which would
// mislead), ignores the mouse, and stacks with strategy "all" so a band
// that crosses zero is still drawn between its bounds (echarts' default
// "samesign" only stacks values of the same sign).
type bandHelper struct {
	charts.SingleSeries
	Tooltip       tooltipShow `json:"tooltip"`
	StackStrategy string      `json:"stackStrategy"`
	Silent        bool        `json:"silent"`
}

type tooltipShow struct {
	Show bool `json:"show"`
}

func (v optionVisitor) VisitSeriesOpt(ms charts.MultiSeries) interface{} {
	out := make([]interface{}, len(ms))
	for i, s := range ms {
		if i < v.bandSeries {
			out[i] = bandHelper{SingleSeries: s, StackStrategy: "all", Silent: true}
		} else {
			out[i] = s
		}
	}
	return out
}

// exactVisualMap writes min and max as float64 and always: go-echarts'
// float32 fields with omitempty lose precision (the largest cell could fall
// outside the colour range) and drop a 0 (echarts then assumes max 200).
type exactVisualMap struct {
	opts.VisualMap
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

func (v optionVisitor) VisitVisualMaps(vms []opts.VisualMap) interface{} {
	out := make([]exactVisualMap, len(vms))
	for i, vm := range vms {
		out[i] = exactVisualMap{VisualMap: vm, Min: v.visualMin, Max: v.visualMax}
	}
	return out
}

// alignedYAxis lets a y axis name run from the axis line into the plot's
// top margin instead of being centred on the axis, where a long name
// ("latency (ms)") is cut off at the edge of the chart.
type alignedYAxis struct {
	opts.YAxis
	NameTextStyle nameTextStyle `json:"nameTextStyle"`
}

type nameTextStyle struct {
	Align string `json:"align"`
}

func (v optionVisitor) VisitYAxis(axes []opts.YAxis) interface{} {
	out := make([]alignedYAxis, len(axes))
	for i, a := range axes {
		align := "left"
		if i > 0 {
			align = "right" // the second axis is on the right-hand side
		}
		out[i] = alignedYAxis{YAxis: a, NameTextStyle: nameTextStyle{Align: align}}
	}
	return out
}
