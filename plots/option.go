package plots

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// chartIDPattern: go-echarts and our page glue use the ID as a DOM id and
// echarts pastes ids into JavaScript names, where "hit-ratio" is a syntax
// error that silently blanks the chart; so only identifiers are accepted.
var chartIDPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// cssLength limits Height to plain lengths; percentages are refused because
// a percentage height of an auto-height parent collapses to zero.
var cssLength = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(px|em|rem|vh)$`)

// optionBuilder is what every go-echarts chart type offers: Validate copies
// pending axis data into place, JSON returns the option object.
type optionBuilder interface {
	Validate()
	JSON() map[string]interface{}
}

// chartOption validates c and returns its echarts option as JSON that is
// safe to paste inside a <script> element. go-echarts builds the option;
// it is marshalled here (not through go-echarts' templates) so that
// marshalling errors surface, and with HTML escaping on, so that text from
// the caller ("</script>") cannot end the script element.
func chartOption(c *Chart) (option string, err error) {
	if !chartIDPattern.MatchString(c.ID) {
		return "", fmt.Errorf("chart %q: ID must match %s (it becomes a DOM id and a JavaScript name)", c.ID, chartIDPattern)
	}
	if c.Height != "" && !cssLength.MatchString(c.Height) {
		return "", fmt.Errorf("chart %q: Height %q is not a CSS length like \"360px\" or \"40vh\"", c.ID, c.Height)
	}
	// go-echarts panics on some inputs (template and reflection paths); a
	// report must fail with an error, never crash the caller.
	defer func() {
		if r := recover(); r != nil {
			option, err = "", fmt.Errorf("chart %q: go-echarts: %v", c.ID, r)
		}
	}()
	var b optionBuilder
	switch c.Kind {
	case "", KindLine, KindScatter, KindBar:
		b, err = buildXY(c)
	case KindHeatmap:
		b, err = buildHeatmap(c)
	default:
		err = fmt.Errorf("unknown Kind %q (want %q, %q, %q or %q)", c.Kind, KindLine, KindScatter, KindBar, KindHeatmap)
	}
	if err != nil {
		return "", fmt.Errorf("chart %q: %w", c.ID, err)
	}
	b.Validate()
	js, err := json.Marshal(b.JSON())
	if err != nil {
		return "", fmt.Errorf("chart %q: encoding option: %w", c.ID, err)
	}
	return string(js), nil
}

// commonOptions are the options every chart shares: explicit ChartID (the
// go-echarts default is random), white background for PNG export, title,
// and a toolbox with PNG export and a data table view.
func commonOptions(c *Chart) []charts.GlobalOpts {
	h := c.Height
	if h == "" {
		h = DefaultChartHeight
	}
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{
			ChartID:         c.ID,
			Width:           "100%",
			Height:          h,
			BackgroundColor: "#ffffff",
			// Never used (assets are cleared and echarts is inlined), but
			// set so that no network host is ever part of the chart value.
			AssetsHost: "./",
		}),
		charts.WithTitleOpts(opts.Title{Title: c.Title, Left: "0"}),
		charts.WithToolboxOpts(opts.Toolbox{
			Show:  opts.Bool(true),
			Right: "8",
			Top:   "0",
			Feature: &opts.ToolBoxFeature{
				SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Name: c.ID, Title: "Save as PNG"},
				DataView: &opts.ToolBoxFeatureDataView{Show: opts.Bool(true), Title: "Data",
					Lang: []string{"Data", "Close", "Refresh"}, BackgroundColor: "#ffffff"},
			},
		}),
	}
}

// gridTop leaves room above the plot for the title row and the legend row,
// whichever are present, plus the y axis name.
func gridTop(title string, legend bool) string {
	top := 32
	if title != "" {
		top += 24
	}
	if legend {
		top += 24
	}
	return strconv.Itoa(top)
}

// legendTop puts the legend on its own row under the title.
func legendTop(title string) string {
	if title != "" {
		return "26"
	}
	return "0"
}
