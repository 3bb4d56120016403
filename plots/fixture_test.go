package plots

import "math"

// demoPage has every section type and every chart kind and axis type, with
// the odd data a report meets: gaps, a spike, non-positive values on a log
// axis, a second y axis, bands, marks, and an empty heatmap cell.
func demoPage() Page {
	nan := math.NaN()
	t := []float64{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}
	return Page{
		Title:    "clock-sweep <demo> & friends",
		Subtitle: "seed 1 · configs/quickstart.yaml",
		Sections: []Section{
			{Heading: "Summary", Text: "A demo report.\n\nSecond paragraph with <b>markup</b> that must stay text."},
			{Table: &Table{
				Header: []string{"policy", "tps", "hit ratio", "p99", "note"},
				Rows: [][]string{
					{"clock-sweep", "1,250.5", "93.1%", "12.5 ms ± 0.4", "baseline"},
					{"lru", "1,190.0", "91.7%", "-", "reference"},
				},
			}},
			{Heading: "Latency over time", Chart: &Chart{
				ID: "latency", Title: "Latency percentiles", XType: AxisTimeSeconds,
				XName: "time (s)", YName: "latency (ms)", Y2Name: "tps", X: t,
				Series: []Series{
					{Name: "p50", Y: []float64{2, 2.1, 2, nan, 2.2, 2.1, 2, 2.3, 2.1, 2}},
					{Name: "p99", Y: []float64{8, 9, 7, nan, 40, 12, 9, 8, 9, 8}},
					{Name: "tps", Y: []float64{120, 125, 126, 124, 60, 118, 125, 126, 125, 124}, YAxis: 1},
				},
				Bands: []Band{{Name: "p50..p99", Lower: []float64{2, 2.1, 2, nan, 2.2, 2.1, 2, 2.3, 2.1, 2},
					Upper: []float64{8, 9, 7, nan, 40, 12, 9, 8, 9, 8}}},
				Marks: []Mark{{X: 30, Label: "checkpoint start"}, {X: 60, Label: "checkpoint end"}},
			}},
			{Heading: "Miss ratio curve", Chart: &Chart{
				ID: "mrc", Title: "Miss ratio vs shared_buffers", XType: AxisLog, YType: AxisLog,
				XName: "shared_buffers (MB)", YName: "miss ratio",
				X: []float64{0, 16, 32, 64, 128, 256, 512},
				Series: []Series{
					{Name: "clock-sweep", Y: []float64{1, 0.5, 0.3, 0.2, 0.1, 0.05, 0}},
					{Name: "lru", Y: []float64{1, 0.55, 0.32, 0.21, 0.12, 0.06, 0.01}},
				},
				Bands: []Band{{Name: "95% CI", Lower: []float64{1, 0.45, 0.27, 0.18, 0.09, 0.04, 0},
					Upper: []float64{1, 0.55, 0.33, 0.22, 0.11, 0.06, 0.01}, Color: "#5470c6"}},
			}},
			{Heading: "Transactions", Chart: &Chart{
				ID: "txn_latency", Kind: KindScatter, Title: "Per-transaction latency",
				XName: "time (s)", YName: "ms", X: []float64{0.5, 1.5, 2.5, 3.5, 4.5, math.Inf(1)},
				Series: []Series{{Name: "latency", Y: []float64{1.2, 0.9, nan, 30, 1.1, 2}}},
				Marks:  []Mark{{X: 3, Label: "fsync"}},
			}},
			{Heading: "Buffers written", Chart: &Chart{
				ID: "writes", Kind: KindBar, Title: "Buffers written by", XType: AxisCategory,
				YName: "buffers", Categories: []string{"clock-sweep", "lru", "2q"},
				Series: []Series{
					{Name: "backend", Y: []float64{100, 120, nan}, Stack: "w"},
					{Name: "bgwriter", Y: []float64{300, 250, 280}, Stack: "w"},
					{Name: "checkpointer", Y: []float64{500, 510, 490}, Stack: "w"},
				},
				Marks: []Mark{{X: 1, Label: "reference"}},
			}},
			{Heading: "Usage counts", Chart: &Chart{
				ID: "usage", Kind: KindHeatmap, Title: "Usage count histogram", XName: "time (s)",
				YName: "usage_count", Height: "300px",
				Heat: &Heat{
					XLabels: []string{"0", "60", "120", "180"},
					YLabels: []string{"0", "1", "2", "3", "4", "5"},
					Values: [][]float64{
						{10, 12, 9, 8}, {20, 18, 22, 21}, {15, 16, nan, 14},
						{8, 9, 10, 11}, {4, 5, 6, 5}, {2, 1, 0, 3},
					},
				},
			}},
			{Heading: "Files", Links: []Link{
				{Text: "timeseries.csv", Href: "timeseries.csv"},
				{Text: "run 1 report", Href: "runs/001/report.html"},
				{Href: "sweep.csv"},
			}},
		},
	}
}
