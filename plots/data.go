package plots

import (
	"math"
	"strconv"
)

// The types below are series data in echarts' compact array form, written
// directly as JSON. encoding/json refuses NaN and ±Inf outright, and
// go-echarts' per-point structs ({"value":[x,y]}) double the size of a page
// with long series, so data is encoded here: a missing value is null, which
// echarts treats as an empty point (a gap in a line).

// xyData is the [x, y] pairs of one series over a value, log or time axis.
// A NaN y is written as null. With yFirst the pairs are written [y, x]: a
// stacked series needs y in the first column, because echarts stacks the
// first non-category, non-time dimension of the data, which would otherwise
// be x on a value axis (the series' encode option maps the columns back).
type xyData struct {
	x, y   []float64
	yFirst bool
}

func (d xyData) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(d.x)*24)
	b = append(b, '[')
	for i := range d.x {
		if i > 0 {
			b = append(b, ',')
		}
		first, second := d.x[i], d.y[i]
		if d.yFirst {
			first, second = second, first
		}
		b = append(b, '[')
		b = appendNumber(b, first)
		b = append(b, ',')
		b = appendNumber(b, second)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// yData is one series' values over a category axis; NaN is written as null.
type yData []float64

func (d yData) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(d)*12)
	b = append(b, '[')
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNumber(b, v)
	}
	return append(b, ']'), nil
}

// heatCell is one heatmap cell: column index, row index, value.
type heatCell struct {
	x, y int
	v    float64
}

type heatData []heatCell

func (d heatData) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(d)*20)
	b = append(b, '[')
	for i, c := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(c.x), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(c.y), 10)
		b = append(b, ',')
		b = appendNumber(b, c.v)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// appendNumber writes v as encoding/json would (shortest representation
// that round-trips, exponent form only for very small or large values), or
// null when v is not finite.
func appendNumber(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// Shorten e-09 to e-9, as encoding/json does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}
