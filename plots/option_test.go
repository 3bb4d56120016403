package plots

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// decodeOption renders c and decodes its echarts option.
func decodeOption(t *testing.T, c *Chart) map[string]any {
	t.Helper()
	js, err := chartOption(c)
	if err != nil {
		t.Fatalf("chartOption: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("option is not JSON: %v\n%s", err, js)
	}
	return m
}

func seriesList(t *testing.T, m map[string]any) []map[string]any {
	t.Helper()
	raw, _ := m["series"].([]any)
	out := make([]map[string]any, len(raw))
	for i, s := range raw {
		out[i] = s.(map[string]any)
	}
	return out
}

func TestChartIDValidation(t *testing.T) {
	for _, id := range []string{"", "hit-ratio", "1st", "a b", "lat.p99", "é", "x;alert(1)"} {
		_, err := chartOption(&Chart{ID: id})
		if err == nil || !strings.Contains(err.Error(), "ID must match") {
			t.Errorf("ID %q: got error %v, want an ID error", id, err)
		}
	}
	for _, id := range []string{"a", "_", "latency_p99", "A9", "hit_ratio_2"} {
		if _, err := chartOption(&Chart{ID: id}); err != nil {
			t.Errorf("ID %q: %v", id, err)
		}
	}
	// The ID is also the element id, so it must be unique in a page.
	p := Page{Sections: []Section{{Chart: &Chart{ID: "a"}}, {Chart: &Chart{ID: "a"}}}}
	if err := Write(&strings.Builder{}, p); err == nil || !strings.Contains(err.Error(), "already used in section 1") {
		t.Errorf("duplicate IDs: got %v", err)
	}
}

func TestExplicitChartIDReachesPageAndOption(t *testing.T) {
	var b strings.Builder
	p := Page{Sections: []Section{{Chart: &Chart{ID: "latency_p99", X: []float64{1}, Series: []Series{{Name: "p99", Y: []float64{2}}}}}}}
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<div class="chart" id="latency_p99"`, `pgbufsimChart("latency_p99", {`, `"name":"latency_p99"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestNaNAndInfRenderAsGaps(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	m := decodeOption(t, &Chart{ID: "c", X: []float64{0, 1, 2, 3, 4},
		Series: []Series{{Name: "s", Y: []float64{1, nan, 3, inf, math.Inf(-1)}}}})
	data := seriesList(t, m)[0]["data"].([]any)
	if len(data) != 5 {
		t.Fatalf("line has %d points, want 5 (gaps kept as null)", len(data))
	}
	for i, want := range []any{1.0, nil, 3.0, nil, nil} {
		if got := data[i].([]any)[1]; got != want {
			t.Errorf("point %d: y = %v, want %v", i, got, want)
		}
	}
	// A scatter leaves such points out; a NaN x drops the point everywhere.
	m = decodeOption(t, &Chart{ID: "c", Kind: KindScatter, X: []float64{0, nan, 2, 3},
		Series: []Series{{Name: "s", Y: []float64{1, 2, nan, 4}}}})
	data = seriesList(t, m)[0]["data"].([]any)
	if len(data) != 2 || data[0].([]any)[0] != 0.0 || data[1].([]any)[0] != 3.0 {
		t.Errorf("scatter data = %v, want points at x=0 and x=3", data)
	}
	// On a category axis a gap is null at its index.
	m = decodeOption(t, &Chart{ID: "c", Kind: KindBar, XType: AxisCategory, Categories: []string{"a", "b"},
		Series: []Series{{Name: "s", Y: []float64{nan, 2}}}})
	data = seriesList(t, m)[0]["data"].([]any)
	if len(data) != 2 || data[0] != nil || data[1] != 2.0 {
		t.Errorf("bar data = %v, want [null 2]", data)
	}
}

func TestLogAxesOmitNonPositive(t *testing.T) {
	m := decodeOption(t, &Chart{ID: "c", XType: AxisLog, YType: AxisLog, X: []float64{-1, 0, 1, 10, 100},
		Series: []Series{{Name: "s", Y: []float64{5, 5, 0, -2, 3}}}})
	data := seriesList(t, m)[0]["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("got %d points, want the 3 with x > 0", len(data))
	}
	for i, want := range [][2]any{{1.0, nil}, {10.0, nil}, {100.0, 3.0}} {
		p := data[i].([]any)
		if p[0] != want[0] || p[1] != want[1] {
			t.Errorf("point %d = %v, want %v", i, p, want)
		}
	}
	x := m["xAxis"].([]any)[0].(map[string]any)
	y := m["yAxis"].([]any)[0].(map[string]any)
	if x["type"] != "log" || y["type"] != "log" {
		t.Errorf("axis types %v/%v, want log/log", x["type"], y["type"])
	}
	// Marks that cannot sit on a log axis are left out.
	m = decodeOption(t, &Chart{ID: "c", XType: AxisLog, X: []float64{1, 10}, Series: []Series{{Y: []float64{1, 2}}},
		Marks: []Mark{{X: 0, Label: "zero"}, {X: 5, Label: "five"}}})
	ml := seriesList(t, m)[1]["markLine"].(map[string]any)["data"].([]any)
	if len(ml) != 1 || ml[0].(map[string]any)["name"] != "five" {
		t.Errorf("marks on a log axis = %v, want only \"five\"", ml)
	}
}

func TestMismatchedLengthsAreErrors(t *testing.T) {
	cases := map[string]*Chart{
		"series":         {ID: "c", X: []float64{1, 2}, Series: []Series{{Name: "s", Y: []float64{1}}}},
		"band lower":     {ID: "c", X: []float64{1, 2}, Bands: []Band{{Name: "b", Lower: []float64{1}, Upper: []float64{1, 2}}}},
		"band upper":     {ID: "c", X: []float64{1, 2}, Bands: []Band{{Name: "b", Lower: []float64{1, 2}, Upper: []float64{1, 2, 3}}}},
		"categories":     {ID: "c", XType: AxisCategory, Categories: []string{"a"}, Series: []Series{{Y: []float64{1, 2}}}},
		"heat rows":      {ID: "c", Kind: KindHeatmap, Heat: &Heat{XLabels: []string{"a"}, YLabels: []string{"r1", "r2"}, Values: [][]float64{{1}}}},
		"heat columns":   {ID: "c", Kind: KindHeatmap, Heat: &Heat{XLabels: []string{"a", "b"}, YLabels: []string{"r1"}, Values: [][]float64{{1}}}},
		"x on category":  {ID: "c", XType: AxisCategory, X: []float64{1}, Categories: []string{"a"}},
		"categories w/o": {ID: "c", Categories: []string{"a"}},
	}
	for name, c := range cases {
		if _, err := chartOption(c); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), `chart "c"`) {
			t.Errorf("%s: error %q does not name the chart", name, err)
		}
	}
}

func TestInvalidChartSettingsAreErrors(t *testing.T) {
	cases := map[string]*Chart{
		"kind":         {ID: "c", Kind: "pie"},
		"x type":       {ID: "c", XType: "time"},
		"y type":       {ID: "c", YType: AxisCategory},
		"y2 type":      {ID: "c", Y2Type: "sqrt"},
		"height":       {ID: "c", Height: "50%"},
		"height css":   {ID: "c", Height: "1px;background:url(x)"},
		"y axis":       {ID: "c", X: []float64{1}, Series: []Series{{Y: []float64{1}, YAxis: 2}}},
		"scatter area": {ID: "c", Kind: KindScatter, X: []float64{1}, Series: []Series{{Y: []float64{1}, Area: true}}},
		"bar area":     {ID: "c", Kind: KindBar, X: []float64{1}, Series: []Series{{Y: []float64{1}, Area: true}}},
		"band order":   {ID: "c", X: []float64{1, 2}, Bands: []Band{{Lower: []float64{1, 5}, Upper: []float64{2, 4}}}},
		"band colour":  {ID: "c", Bands: []Band{{Color: "red;x"}}},
		"reserved":     {ID: "c", X: []float64{1}, Series: []Series{{Y: []float64{1}, Stack: "__band0"}}},
		"mark index":   {ID: "c", XType: AxisCategory, Categories: []string{"a"}, Marks: []Mark{{X: 1}}},
		"mark frac":    {ID: "c", XType: AxisCategory, Categories: []string{"a", "b"}, Marks: []Mark{{X: 0.5}}},
		"heat in line": {ID: "c", Heat: &Heat{}},
		"heat missing": {ID: "c", Kind: KindHeatmap},
		"heat series":  {ID: "c", Kind: KindHeatmap, Heat: &Heat{}, Series: []Series{{}}},
		"heat log":     {ID: "c", Kind: KindHeatmap, Heat: &Heat{}, YType: AxisLog},
	}
	for name, c := range cases {
		if _, err := chartOption(c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestBandIsStackedDifference(t *testing.T) {
	nan := math.NaN()
	m := decodeOption(t, &Chart{ID: "c", X: []float64{0, 1, 2},
		Series: []Series{{Name: "p50", Y: []float64{2, 3, 4}}},
		Bands:  []Band{{Name: "p50..p99", Lower: []float64{-1, 3, nan}, Upper: []float64{5, 7, 9}}}})
	s := seriesList(t, m)
	if len(s) != 3 || s[0]["name"] != "p50..p99" || s[1]["name"] != "p50..p99" || s[2]["name"] != "p50" {
		t.Fatalf("series order: want band lower, band upper, p50; got %d series", len(s))
	}
	// Stacked series carry [y, x] pairs with encode mapping them back,
	// because echarts stacks the first value dimension.
	wantLower := [][2]any{{-1.0, 0.0}, {3.0, 1.0}, {nil, 2.0}}
	wantDiff := [][2]any{{6.0, 0.0}, {4.0, 1.0}, {nil, 2.0}}
	for k, want := range [][][2]any{wantLower, wantDiff} {
		h := s[k]
		if h["stack"] != "__band0" || h["stackStrategy"] != "all" || h["silent"] != true {
			t.Errorf("helper %d: stack %v strategy %v silent %v", k, h["stack"], h["stackStrategy"], h["silent"])
		}
		if tip := h["tooltip"].(map[string]any); tip["show"] != false {
			t.Errorf("helper %d: tooltip %v, want hidden", k, tip)
		}
		enc := h["encode"].(map[string]any)
		if enc["x"] != 1.0 || enc["y"] != 0.0 {
			t.Errorf("helper %d: encode %v, want x:1 y:0", k, enc)
		}
		data := h["data"].([]any)
		for i, w := range want {
			p := data[i].([]any)
			if p[0] != w[0] || p[1] != w[1] {
				t.Errorf("helper %d point %d = %v, want %v", k, i, p, w)
			}
		}
	}
	if _, ok := s[1]["areaStyle"]; !ok {
		t.Error("the upper helper has no areaStyle")
	}
	if _, ok := s[0]["areaStyle"]; ok {
		t.Error("the lower helper must not be filled")
	}
	// The ordinary series keeps [x, y] and shows only y in the tooltip.
	if enc := s[2]["encode"].(map[string]any); enc["x"] != 0.0 || enc["y"] != 1.0 || enc["tooltip"].([]any)[0] != 1.0 {
		t.Errorf("p50 encode = %v", enc)
	}
	// One legend entry per band, after the series.
	legend := m["legend"].(map[string]any)["data"].([]any)
	if len(legend) != 2 || legend[1].(map[string]any)["name"] != "p50..p99" {
		t.Errorf("legend = %v", legend)
	}
}

func TestUserStacksOnValueAxisStackY(t *testing.T) {
	m := decodeOption(t, &Chart{ID: "c", XType: AxisTimeSeconds, X: []float64{0, 1},
		Series: []Series{{Name: "a", Y: []float64{1, 2}, Stack: "w", Area: true}, {Name: "b", Y: []float64{3, 4}, Stack: "w"}}})
	for _, s := range seriesList(t, m) {
		if p := s["data"].([]any)[1].([]any); p[1] != 1.0 {
			t.Errorf("series %v: second point %v, want [y, x=1]", s["name"], p)
		}
	}
}

func TestMarksAreVerticalMarkLines(t *testing.T) {
	m := decodeOption(t, &Chart{ID: "c", XType: AxisTimeSeconds, X: []float64{0, 100},
		Series: []Series{{Name: "p99", Y: []float64{1, 2}}},
		Marks:  []Mark{{X: 0, Label: "checkpoint start"}, {X: 42.5, Label: "checkpoint end"}, {X: math.NaN(), Label: "bad"}}})
	s := seriesList(t, m)
	carrier := s[len(s)-1]
	if carrier["name"] != "marks" || len(carrier["data"].([]any)) != 0 {
		t.Fatalf("last series is %v with data %v, want the empty marks carrier", carrier["name"], carrier["data"])
	}
	ml := carrier["markLine"].(map[string]any)
	data := ml["data"].([]any)
	if len(data) != 2 {
		t.Fatalf("markLine data = %v, want 2 finite marks", data)
	}
	for i, want := range []struct {
		name string
		x    float64
	}{{"checkpoint start", 0}, {"checkpoint end", 42.5}} {
		d := data[i].(map[string]any)
		if d["name"] != want.name || d["xAxis"] != want.x {
			t.Errorf("mark %d = %v, want xAxis %v name %q", i, d, want.x, want.name)
		}
	}
	if sym := ml["symbol"].([]any); sym[0] != "none" || sym[1] != "none" {
		t.Errorf("mark symbols %v, want none", sym)
	}
}

func TestChartDefaults(t *testing.T) {
	m := decodeOption(t, &Chart{ID: "c", XType: AxisTimeSeconds, X: []float64{0}, Series: []Series{{Name: "s", Y: []float64{1}}}})
	if tt := m["tooltip"].(map[string]any); tt["trigger"] != "axis" {
		t.Errorf("tooltip trigger %v, want axis", tt["trigger"])
	}
	f := m["toolbox"].(map[string]any)["feature"].(map[string]any)
	if _, ok := f["saveAsImage"]; !ok {
		t.Error("no saveAsImage")
	}
	if _, ok := f["dataView"]; !ok {
		t.Error("no dataView")
	}
	dz, _ := m["dataZoom"].([]any)
	slider := false
	for _, z := range dz {
		if z.(map[string]any)["type"] == "slider" {
			slider = true
		}
	}
	if !slider {
		t.Errorf("time-seconds chart has no zoom slider: %v", dz)
	}
	if x := m["xAxis"].([]any)[0].(map[string]any); x["type"] != "value" {
		t.Errorf("time-seconds x axis type %v, want value", x["type"])
	}
	m = decodeOption(t, &Chart{ID: "c", X: []float64{0}, Series: []Series{{Name: "s", Y: []float64{1}}}})
	if _, ok := m["dataZoom"]; ok {
		t.Error("a value-axis chart got a zoom slider")
	}
	// A second y axis appears only when a series uses it.
	if n := len(m["yAxis"].([]any)); n != 1 {
		t.Errorf("%d y axes, want 1", n)
	}
	m = decodeOption(t, &Chart{ID: "c", X: []float64{0}, Y2Type: AxisLog, Series: []Series{{Name: "s", Y: []float64{1}, YAxis: 1}}})
	y := m["yAxis"].([]any)
	if len(y) != 2 || y[1].(map[string]any)["type"] != "log" || seriesList(t, m)[0]["yAxisIndex"] != 1.0 {
		t.Errorf("second axis: %v", y)
	}
}

func TestHeatmapOption(t *testing.T) {
	m := decodeOption(t, &Chart{ID: "h", Kind: KindHeatmap, Heat: &Heat{
		XLabels: []string{"t0", "t1"}, YLabels: []string{"u0", "u1"},
		Values: [][]float64{{-3, math.NaN()}, {-1, 0}},
	}})
	vm := m["visualMap"].([]any)[0].(map[string]any)
	// Max 0 must be written (go-echarts' float32 omitempty would drop it
	// and echarts would assume 200).
	if vm["min"] != -3.0 || vm["max"] != 0.0 {
		t.Errorf("visualMap range [%v, %v], want [-3, 0]", vm["min"], vm["max"])
	}
	data := seriesList(t, m)[0]["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("cells = %v, want 3 (NaN cell left out)", data)
	}
	if c := data[2].([]any); c[0] != 1.0 || c[1] != 1.0 || c[2] != 0.0 {
		t.Errorf("last cell = %v, want [1 1 0]", c)
	}
	if x := m["xAxis"].([]any)[0].(map[string]any)["data"].([]any); x[1] != "t1" {
		t.Errorf("x labels = %v", x)
	}
	if y := m["yAxis"].([]any)[0].(map[string]any)["data"].([]any); y[1] != "u1" {
		t.Errorf("y labels = %v", y)
	}
	// The colour range is exact in float64: the largest cell is inside it.
	m = decodeOption(t, &Chart{ID: "h", Kind: KindHeatmap, Heat: &Heat{
		XLabels: []string{"a", "b"}, YLabels: []string{"r"}, Values: [][]float64{{0.1, 0.1 + 0.2}}}})
	if vm := m["visualMap"].([]any)[0].(map[string]any); vm["max"] != 0.1+0.2 {
		t.Errorf("visualMap max %v, want %v", vm["max"], 0.1+0.2)
	}
	// A constant matrix and an empty one still get a non-empty range.
	for _, vals := range [][][]float64{{{7, 7}}, {{math.NaN(), math.NaN()}}} {
		m = decodeOption(t, &Chart{ID: "h", Kind: KindHeatmap, Heat: &Heat{XLabels: []string{"a", "b"}, YLabels: []string{"r"}, Values: vals}})
		vm := m["visualMap"].([]any)[0].(map[string]any)
		if !(vm["min"].(float64) < vm["max"].(float64)) {
			t.Errorf("values %v: range [%v, %v] is empty", vals, vm["min"], vm["max"])
		}
	}
}

func TestOddDataDoesNotPanic(t *testing.T) {
	nan := math.NaN()
	charts := []*Chart{
		{ID: "empty"},
		{ID: "no_series", X: []float64{1, 2}},
		{ID: "empty_series", Series: []Series{{Name: "s"}}},
		{ID: "all_nan", X: []float64{nan, nan}, Series: []Series{{Y: []float64{nan, nan}}}, Bands: []Band{{Lower: []float64{nan, nan}, Upper: []float64{nan, nan}}}},
		{ID: "only_marks", Marks: []Mark{{X: 1, Label: "m"}}},
		{ID: "empty_heat", Kind: KindHeatmap, Heat: &Heat{}},
		{ID: "empty_cat", XType: AxisCategory, Kind: KindBar},
		{ID: "huge", X: []float64{math.MaxFloat64, -math.MaxFloat64, 5e-324}, Series: []Series{{Y: []float64{1e308, -1e-308, 0}}}},
	}
	for _, c := range charts {
		decodeOption(t, c)
	}
}

func TestAppendNumberMatchesEncodingJSON(t *testing.T) {
	for _, v := range []float64{0, 1, -1, 0.1, 1e-7, 1.5e-9, 123456789, 1e20, 1e21, 1.7976931348623157e308, 5e-324, -2.5e-6} {
		want, _ := json.Marshal(v)
		if got := appendNumber(nil, v); string(got) != string(want) {
			t.Errorf("%v: got %s, want %s", v, got, want)
		}
	}
}

// Axis ends are round numbers: raw data ends such as 0.540671 never become
// labels.
func TestNiceBounds(t *testing.T) {
	for _, c := range []struct {
		xs     []float64
		log    bool
		lo, hi float64
	}{
		{[]float64{1, 5, 25}, false, 1, 25},
		{[]float64{0.540671, 18.344358}, true, 0.5, 20},
		{[]float64{0.419839, 479.97927}, false, 0, 480},
		{[]float64{8, 16, 32}, true, 8, 32},
		{[]float64{1.0001, 100}, true, 1, 100},
		{[]float64{0.31, 0.3712}, false, 0.31, 0.372},
		{[]float64{-3.2151, 7.9}, false, -3.5, 7.9},
		{[]float64{1, 4201}, false, 1, 4300},
	} {
		lo, hi, ok := niceBounds(c.xs, c.log)
		if !ok || lo != c.lo || hi != c.hi {
			t.Errorf("niceBounds(%v, log %v) = %v, %v, %v; want %v, %v", c.xs, c.log, lo, hi, ok, c.lo, c.hi)
		}
	}
	if _, _, ok := niceBounds([]float64{3, 3}, false); ok {
		t.Error("one distinct value gave bounds")
	}
}
