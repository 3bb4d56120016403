package plots

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// nodeHarness runs a rendered page's scripts the way a browser would, in
// order, in one global scope: first the inlined echarts, then the glue, then
// each chart's script. Only echarts.init is redirected to echarts' own
// server-side SVG renderer, since there is no DOM; everything else is the
// page's real code and the real echarts 5.4.3. It prints the chart ids in
// initialisation order and each chart's SVG.
const nodeHarness = `
const vm = require("vm"), fs = require("fs");
const page = fs.readFileSync(process.argv[2], "utf8");
const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(m => m[1]);
const ctx = vm.createContext({ console, setTimeout, clearTimeout, setInterval, clearInterval });
// echarts is loaded before a document exists so that it picks its
// non-browser code paths.
vm.runInContext(scripts[0], ctx, { filename: "echarts.min.js" });
ctx.document = {
  getElementById: id => ({ id }),
  createElement: () => ({ getContext: () => null }),
};
ctx.window = { addEventListener: () => {} };
const echarts = ctx.echarts, realInit = echarts.init, ids = [];
echarts.init = function (el, theme) {
  ids.push(el.id);
  return realInit(null, theme, { renderer: "svg", ssr: true, width: 900, height: 400 });
};
for (let i = 1; i < scripts.length; i++) {
  vm.runInContext(scripts[i], ctx, { filename: "script" + i });
}
const svgs = {};
vm.runInContext("pgbufsimCharts", ctx).forEach((c, i) => { svgs[ids[i]] = c.renderToSVGString(); c.dispose(); });
// A file, not stdout: process.exit does not wait for a pipe to drain.
fs.writeFileSync(process.argv[3], JSON.stringify({ ids, svgs }));
process.exit(0);
`

type nodeResult struct {
	IDs  []string          `json:"ids"`
	SVGs map[string]string `json:"svgs"`
}

// runPageInNode renders p with the real echarts and runs it under node.
func runPageInNode(t *testing.T, p Page) nodeResult {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the page's JavaScript is not executed")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := WriteFile(page, p); err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(dir, "harness.js")
	if err := os.WriteFile(harness, []byte(nodeHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "result.json")
	var stderr bytes.Buffer
	cmd := exec.Command(node, harness, page, out)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the page's scripts failed: %v\n%s", err, shortLines(stderr.String()))
	}
	res, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r nodeResult
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatalf("harness output: %v", err)
	}
	return r
}

func TestPageRunsInEcharts(t *testing.T) {
	r := runPageInNode(t, demoPage())
	if want := []string{"latency", "mrc", "txn_latency", "writes", "usage"}; !slices.Equal(r.IDs, want) {
		t.Fatalf("charts initialised %v, want %v", r.IDs, want)
	}
	texts := map[string][]string{
		"latency":     {"Latency percentiles", "latency (ms)", "time (s)", "p50", "p99", "tps", "p50..p99", "checkpoint start", "checkpoint end"},
		"mrc":         {"Miss ratio vs shared_buffers", "clock-sweep", "lru", "95% CI", "shared_buffers (MB)", "512"},
		"txn_latency": {"Per-transaction latency", "latency", "fsync"},
		"writes":      {"Buffers written by", "backend", "bgwriter", "checkpointer", "clock-sweep", "2q", "reference"},
		"usage":       {"Usage count histogram", "usage_count", "180", "time (s)"},
	}
	for id, want := range texts {
		svg := r.SVGs[id]
		if !strings.HasPrefix(svg, "<svg") {
			t.Errorf("%s: no SVG drawn", id)
			continue
		}
		for _, s := range want {
			if !strings.Contains(svg, ">"+s+"</text>") {
				t.Errorf("%s: drawing has no text %q", id, s)
			}
		}
	}
}

// shortLines trims node's error output, which quotes the offending line of
// the minified echarts source in full.
func shortLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + " …"
		}
	}
	return strings.Join(lines, "\n")
}

var (
	svgPath   = regexp.MustCompile(`<path d="([^"]*)"([^>]*)>`)
	svgVertex = regexp.MustCompile(`[ML]([-0-9.]+) ([-0-9.]+)`)
)

// subpaths splits an SVG path of M/L/Z commands into vertex lists.
func subpaths(d string) [][]string {
	var out [][]string
	for _, part := range strings.Split(d, "M")[1:] {
		var pts []string
		for _, m := range svgVertex.FindAllStringSubmatch("M"+part, -1) {
			pts = append(pts, m[1]+" "+m[2])
		}
		out = append(out, pts)
	}
	return out
}

// findPath returns the d attribute of the first path whose attributes
// contain all of attrs and none of without.
func findPath(svg string, attrs []string, without string) string {
	for _, m := range svgPath.FindAllStringSubmatch(svg, -1) {
		ok := !strings.Contains(m[2], without)
		for _, a := range attrs {
			ok = ok && strings.Contains(m[2], a)
		}
		if ok {
			return m[1]
		}
	}
	return ""
}

// The band p50..p99 of the demo page must be drawn exactly between the p50
// and p99 lines, in two pieces because of the gap at t = 30 s.
func TestBandIsDrawnBetweenItsBounds(t *testing.T) {
	svg := runPageInNode(t, demoPage()).SVGs["latency"]
	band := findPath(svg, []string{`fill="#5470c6"`, `fill-opacity="0.25"`}, "stroke")
	p50 := findPath(svg, []string{`fill="none"`, `stroke="#5470c6"`, `stroke-width="2"`}, "stroke-opacity")
	p99 := findPath(svg, []string{`fill="none"`, `stroke="#91cc75"`, `stroke-width="2"`}, "stroke-opacity")
	if band == "" || p50 == "" || p99 == "" {
		t.Fatalf("paths not found: band %q p50 %q p99 %q", band, p50, p99)
	}
	pieces, lows, highs := subpaths(band), subpaths(p50), subpaths(p99)
	if len(pieces) != 2 || len(lows) != 2 || len(highs) != 2 {
		t.Fatalf("band in %d pieces, p50 in %d, p99 in %d; want 2 each (gap at t=30)", len(pieces), len(lows), len(highs))
	}
	for i, piece := range pieces {
		// An area path runs along the upper edge left to right, then back
		// along the lower edge.
		upper := piece[:len(piece)/2]
		lower := slices.Clone(piece[len(piece)/2:])
		slices.Reverse(lower)
		if !slices.Equal(upper, highs[i]) {
			t.Errorf("piece %d: upper edge %v, p99 line %v", i, upper, highs[i])
		}
		if !slices.Equal(lower, lows[i]) {
			t.Errorf("piece %d: lower edge %v, p50 line %v", i, lower, lows[i])
		}
	}
}

// Caller text must arrive in the chart exactly: go-echarts' own snippet
// path HTML-unescapes options, which would turn "&amp;" into "&".
func TestChartTextSurvivesVerbatim(t *testing.T) {
	title := `AT&T &amp; </script> "q"`
	r := runPageInNode(t, Page{Sections: []Section{{Chart: &Chart{ID: "c", Title: title,
		X: []float64{1, 2}, Series: []Series{{Name: "s", Y: []float64{1, 2}}}}}}})
	want := ">AT&amp;T &amp;amp; &lt;/script&gt; &quot;q&quot;</text>"
	if !strings.Contains(r.SVGs["c"], want) {
		t.Errorf("title not drawn verbatim; want %s in the SVG", want)
	}
}
