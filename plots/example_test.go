package plots_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/pgbufsim/pgbufsim/plots"
)

func ExampleWrite() {
	p := plots.Page{
		Title:    "clock-sweep, 128MB shared_buffers",
		Subtitle: "seed 1 · configs/quickstart.yaml",
		Sections: []plots.Section{
			{Heading: "Summary", Table: &plots.Table{
				Header: []string{"metric", "value"},
				Rows:   [][]string{{"tps", "125.0"}, {"hit ratio", "93.1%"}},
			}},
			{Heading: "Latency", Chart: &plots.Chart{
				ID: "latency", XType: plots.AxisTimeSeconds, XName: "time (s)", YName: "ms",
				X:      []float64{0, 1, 2, 3},
				Series: []plots.Series{{Name: "p99", Y: []float64{4, 9, math.NaN(), 5}}},
				Marks:  []plots.Mark{{X: 2, Label: "checkpoint"}},
			}},
			{Links: []plots.Link{{Text: "time series (CSV)", Href: "timeseries.csv"}}},
		},
	}
	var buf bytes.Buffer
	if err := plots.Write(&buf, p); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(buf.String(), "<!DOCTYPE html>"))
	fmt.Println(strings.Contains(buf.String(), `<div class="chart" id="latency"`))
	// Output:
	// true
	// true
}

func ExampleLTTB() {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	y := []float64{0, 1, 0, 5, 0, 1, 0, 0}
	dx, dy := plots.LTTB(x, y, 4)
	fmt.Println(dx, dy)
	// Output: [0 3 4 7] [0 5 0 0]
}
