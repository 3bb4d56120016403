// Package plots renders pgbufsim's HTML reports: one self-contained page of
// headings, text, tables, links and interactive charts, readable offline.
//
// The package knows nothing of the simulator. Callers (the simulate CLI, the
// sweep runner, users' own Go programs) fill in plain data — a Page of
// Sections holding Tables, Charts and Links — and call Write or WriteFile.
//
// Charts are Apache ECharts 5.4.3 charts whose options are built with
// go-echarts v2.6.7 (github.com/go-echarts/go-echarts), following the
// go-echarts offline recipe: preset (CDN) assets are
// cleared on every chart, the echarts source is embedded with go:embed and
// inlined once per page together with its Apache-2.0 NOTICE, and chart IDs
// are explicit JavaScript identifiers (go-echarts would otherwise draw random
// ones). The same Page therefore renders to the same bytes, which is what
// makes golden-file tests of reports possible. Long series can be reduced
// with LTTB (Steinarsson 2013) before charting, as vegeta's plot does.
//
// Example:
//
//	x := []float64{0, 1, 2, 3}
//	p := plots.Page{
//		Title:    "clock-sweep, 8GB shared_buffers",
//		Subtitle: "seed 1 · configs/quickstart.yaml",
//		Sections: []plots.Section{
//			{Heading: "Summary"},
//			{Table: &plots.Table{
//				Header: []string{"metric", "value"},
//				Rows:   [][]string{{"tps", "125.0"}, {"hit ratio", "93.1%"}},
//			}},
//			{Chart: &plots.Chart{
//				ID: "latency", Title: "Latency", XType: plots.AxisTimeSeconds,
//				XName: "time (s)", YName: "ms", X: x,
//				Series: []plots.Series{{Name: "p99", Y: []float64{4, 9, math.NaN(), 5}}},
//				Marks:  []plots.Mark{{X: 2, Label: "checkpoint"}},
//			}},
//			{Links: []plots.Link{{Text: "timeseries.csv", Href: "timeseries.csv"}}},
//		},
//	}
//	err := plots.WriteFile("out/report.html", p)
package plots
