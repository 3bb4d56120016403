package plots

// Chart kinds accepted in Chart.Kind. An empty Kind means KindLine.
const (
	KindLine    = "line"
	KindScatter = "scatter"
	KindBar     = "bar"
	KindHeatmap = "heatmap"
)

// Axis types accepted in Chart.XType, Chart.YType and Chart.Y2Type.
// An empty type means AxisValue.
const (
	// AxisValue is a linear numeric axis.
	AxisValue = "value"
	// AxisLog is a base-10 logarithmic axis. Points that cannot be placed on
	// it (zero, negative) are left out: a non-positive x drops the whole
	// point, a non-positive y becomes a gap.
	AxisLog = "log"
	// AxisCategory is an x axis of named, evenly spaced positions taken from
	// Chart.Categories (x only).
	AxisCategory = "category"
	// AxisTimeSeconds is a linear x axis whose values are seconds of
	// simulated time; it adds a zoom slider under the chart (x only).
	AxisTimeSeconds = "time-seconds"
)

// DefaultChartHeight is the CSS height of a chart whose Height is empty.
const DefaultChartHeight = "360px"

// Chart is one interactive chart. Line, scatter and bar charts share one x
// vector (X, or Categories for a category axis) across all their series and
// bands; a heatmap takes its data from Heat instead.
//
// Non-finite values (NaN, ±Inf) are never an error: in a line they break the
// line (a gap), in a scatter or bar the point is not drawn, in a heatmap the
// cell stays empty. Mismatched lengths are an error.
type Chart struct {
	// ID names the chart in the page (DOM id, PNG file name). Required,
	// unique within a page, and a JavaScript identifier:
	// ^[A-Za-z_][A-Za-z0-9_]*$.
	ID    string
	Title string
	// Kind is KindLine (default), KindScatter, KindBar or KindHeatmap.
	Kind         string
	XName, YName string
	// XType is AxisValue (default), AxisLog, AxisCategory or AxisTimeSeconds.
	XType string
	// YType is AxisValue (default) or AxisLog.
	YType string
	// Y2Name and Y2Type describe the second y axis (right-hand side), drawn
	// only when a series or band has YAxis == 1. Y2Type is AxisValue
	// (default) or AxisLog.
	Y2Name, Y2Type string
	// YFit fits the linear y axes to the data (round numbers around it)
	// instead of starting them at zero, for charts whose differences
	// would look flat on a zero-based axis. Say so in the chart's text: a
	// reader assumes a zero-based axis.
	YFit bool

	// X is the shared x of every series and band for value, log and
	// time-seconds axes; Categories replaces it for a category axis.
	X          []float64
	Categories []string

	// Series are drawn in order, after (on top of) the bands.
	Series []Series
	// Bands are shaded areas between two y vectors, e.g. a 95% confidence
	// interval or the p50..p99 spread of latency.
	Bands []Band
	// Marks are labelled vertical lines, e.g. checkpoint start and end,
	// labelled where they are drawn (they have no legend entry). On a
	// category axis Mark.X is the index of the category.
	Marks []Mark

	// Heat is the data of a heatmap (KindHeatmap only).
	Heat *Heat

	// Height is a CSS length such as "360px" or "40vh"; empty means
	// DefaultChartHeight. Charts always take the full page width.
	Height string
}

// Series is one named y vector over the chart's shared x.
type Series struct {
	Name string
	// Y has one value per x (or per category); NaN or ±Inf is a gap.
	Y []float64
	// Stack groups line or bar series that are stacked on each other; series
	// with the same non-empty Stack are summed.
	Stack string
	// Area fills the area under a line series.
	Area bool
	// YAxis is 0 for the left y axis or 1 for the second (right) y axis.
	YAxis int
}

// Band is a shaded area between Lower and Upper, which have one value per x
// like a series. Upper must not be below Lower. Bands appear in the legend
// (toggling them) but not in the tooltip; add the bounds as Series too when
// their values should be readable.
type Band struct {
	Name         string
	Lower, Upper []float64
	// Color is a CSS colour for the fill; empty picks one from a fixed
	// palette by the band's index.
	Color string
	// YAxis is 0 for the left y axis or 1 for the second (right) y axis.
	YAxis int
}

// Mark is a vertical line at X with a label, e.g. "checkpoint start".
type Mark struct {
	X     float64
	Label string
}

// Heat is a matrix of values for a heatmap: Values[y][x] is the cell at
// column XLabels[x] and row YLabels[y]. The colour scale spans the finite
// values.
type Heat struct {
	XLabels, YLabels []string
	Values           [][]float64
	// Unit names what a cell's value counts ("buffers"); it labels the
	// colour scale and the tooltip.
	Unit string
}
