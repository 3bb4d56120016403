package plots

import (
	"io"
	"math"
	"testing"
)

// longTimeSeries is a report-sized chart: an hour at 1 s resolution with
// p50/p99/max lines and a p50..p99 band, downsampled or not.
func longTimeSeries(n int) *Chart {
	x := make([]float64, n)
	p50, p99, mx := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i)
		p50[i] = 2 + math.Sin(float64(i)/50)
		p99[i] = 8 + 3*math.Sin(float64(i)/17)
		mx[i] = p99[i] * 1.5
	}
	return &Chart{ID: "latency", XType: AxisTimeSeconds, X: x,
		Series: []Series{{Name: "p50", Y: p50}, {Name: "p99", Y: p99}, {Name: "max", Y: mx}},
		Bands:  []Band{{Name: "p50..p99", Lower: p50, Upper: p99}},
		Marks:  []Mark{{X: 300, Label: "checkpoint start"}, {X: 570, Label: "checkpoint end"}}}
}

// BenchmarkWriteReport renders the demo page with the real echarts; the
// cost is dominated by copying the 1 MB library into the page.
func BenchmarkWriteReport(b *testing.B) {
	p := demoPage()
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChartOption measures turning a 3,600-point, 3-series chart with
// a band into its option JSON; points/s is what a caller can expect.
func BenchmarkChartOption(b *testing.B) {
	c := longTimeSeries(3600)
	points := float64(len(c.X) * (len(c.Series) + 2*len(c.Bands)))
	var size int
	b.ReportAllocs()
	for b.Loop() {
		js, err := chartOption(c)
		if err != nil {
			b.Fatal(err)
		}
		size = len(js)
	}
	b.ReportMetric(float64(size), "option-bytes")
	b.ReportMetric(points*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkLTTB downsamples a million points to 2,000.
func BenchmarkLTTB(b *testing.B) {
	const n = 1_000_000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i)
		y[i] = math.Sin(float64(i) / 1000)
	}
	b.ReportAllocs()
	for b.Loop() {
		if idx := LTTBIndex(x, y, 2000); len(idx) != 2000 {
			b.Fatal(len(idx))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/point")
}
