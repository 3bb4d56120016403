package browsertest

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pgbufsim/pgbufsim/compare"
	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/plots"
	"github.com/pgbufsim/pgbufsim/replay"
	"github.com/pgbufsim/pgbufsim/report"
	"github.com/pgbufsim/pgbufsim/sweep"
)

func needChromium(t *testing.T) {
	t.Helper()
	if _, err := Chromium(); err != nil {
		t.Skipf("skipping the browser test: %v", err)
	}
}

func chartCount(p plots.Page) int {
	n := 0
	for _, s := range p.Sections {
		if s.Chart != nil {
			n++
		}
	}
	return n
}

// check opens a page and requires what a reader needs: every chart
// initialised, drawn (painted pixels in several colours: axes, labels and
// data), nothing wider than the window (no table or chart cut off at the
// right edge), no network request and no error. It takes a screenshot of
// the whole page, whose width must be the window's; with
// PGBUFSIM_SCREENSHOTS=DIR set it is kept there as NAME.png (docs/compare.md
// shows how the README's screenshot is made).
func check(t *testing.T, path string, wantCharts int) {
	t.Helper()
	rep, err := Open(context.Background(), path, Options{Screenshot: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Overflows {
		t.Errorf("%s: %s reaches %d px, past the %d px window", filepath.Base(path), o.What, o.Right, rep.ViewportWidth)
	}
	img, err := png.DecodeConfig(bytes.NewReader(rep.Screenshot))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", filepath.Base(path), err)
	}
	if img.Width != rep.ViewportWidth || img.Height < 400 {
		t.Errorf("%s: screenshot %dx%d for a %d px window", filepath.Base(path), img.Width, img.Height, rep.ViewportWidth)
	}
	if dir := os.Getenv("PGBUFSIM_SCREENSHOTS"); dir != "" {
		name := strings.TrimSuffix(filepath.Base(path), ".html") + ".png"
		if err := os.WriteFile(filepath.Join(dir, name), rep.Screenshot, 0o644); err != nil {
			t.Error(err)
		}
	}
	if len(rep.Charts) != wantCharts {
		t.Errorf("%s: %d charts in the page, want %d", filepath.Base(path), len(rep.Charts), wantCharts)
	}
	for _, c := range rep.Charts {
		if !c.Instance || c.Width == 0 || c.Height == 0 || c.Painted == 0 || c.Colors < 3 || c.Points == 0 {
			t.Errorf("%s: chart %q did not render: %+v", filepath.Base(path), c.ID, c)
		}
	}
	for _, r := range rep.Requests {
		t.Errorf("%s: network request %s", filepath.Base(path), r)
	}
	for _, e := range rep.Errors {
		t.Errorf("%s: %s", filepath.Base(path), e)
	}
	t.Logf("%s: %d charts rendered, no requests, no errors", filepath.Base(path), len(rep.Charts))
}

// writeRun runs the quickstart scenario with overrides and writes its
// outputs into dir; it returns the report page's chart count.
func writeRun(t *testing.T, dir string, overrides ...string) int {
	t.Helper()
	sc, err := configs.Load("../../configs/quickstart.yaml", overrides...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	files, err := report.Render(sc, res)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
	return chartCount(report.Page(sc, res))
}

// report.html of a short quickstart run renders in Chromium.
func TestReportHTMLInChromium(t *testing.T) {
	needChromium(t)
	dir := filepath.Join(t.TempDir(), "run")
	charts := writeRun(t, dir, "workload.phases.warmup.duration=2s", "workload.phases.run.duration=5s")
	check(t, filepath.Join(dir, "report.html"), charts)
}

// sweep.html of a tiny sweep (a numeric axis on a log scale, a policy
// axis, CI bands) renders in Chromium.
func TestSweepHTMLInChromium(t *testing.T) {
	needChromium(t)
	plan, err := configs.LoadSweep("../../configs/quickstart.yaml",
		[]string{"workload.phases.warmup.duration=1s", "workload.phases.run.duration=2s", "sweep.replicates=2"},
		[]string{"server.shared_buffers=8MB,16MB,32MB", "policies.replacement.name=clock-sweep,lru"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sweep")
	res, err := sweep.Run(plan, sweep.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, sweep.SweepHTMLFile)); err != nil {
		t.Fatal(err)
	}
	check(t, filepath.Join(dir, sweep.SweepHTMLFile), chartCount(res.Page()))
}

// index.html of two runs (simulate index) renders, its sorting script
// runs without errors, and it makes no request.
func TestIndexHTMLInChromium(t *testing.T) {
	needChromium(t)
	dir := t.TempDir()
	for _, sb := range []string{"16MB", "32MB"} {
		writeRun(t, filepath.Join(dir, "run-"+sb), "workload.phases.warmup.duration=1s", "workload.phases.run.duration=1s", "server.shared_buffers="+sb)
	}
	if _, err := report.WriteIndex(dir); err != nil {
		t.Fatal(err)
	}
	check(t, filepath.Join(dir, report.IndexFile), 0)
}

// compare.html of two policies with two replicates each (a sweep, as
// simulate compare -config -sweep runs it) renders, fits the window, and
// every chart has data.
func TestCompareHTMLInChromium(t *testing.T) {
	needChromium(t)
	plan, err := configs.LoadSweep("../../configs/quickstart.yaml",
		[]string{"workload.phases.warmup.duration=1s", "workload.phases.run.duration=3s", "sweep.replicates=2"},
		[]string{"policies.replacement.name=clock-sweep,s3-fifo"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sweep.Run(plan, sweep.Options{Dir: filepath.Join(dir, "sweep")}); err != nil {
		t.Fatal(err)
	}
	sides, err := compare.Load([]string{filepath.Join(dir, "sweep")})
	if err != nil {
		t.Fatal(err)
	}
	c := compare.New(sides)
	out := filepath.Join(dir, "cmp")
	if err := c.Write(out); err != nil {
		t.Fatal(err)
	}
	check(t, filepath.Join(out, compare.HTMLFile), chartCount(c.Page(out)))
}

// mrc.html of a trace replay (two policies, two cache sizes) renders.
func TestReplayHTMLInChromium(t *testing.T) {
	needChromium(t)
	out := filepath.Join(t.TempDir(), "mrc")
	var stdout, stderr bytes.Buffer
	if code := replay.Main([]string{"-trace", "../../trace/testdata/small.oracleGeneral", "-policy", "clock-sweep,lru", "-cache", "32,64,128", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr.String())
	}
	check(t, filepath.Join(out, "mrc.html"), 1)
}

// The checks catch what they look for: a chart that never draws, a
// request (to a closed port on the loopback address), a console error and
// an uncaught exception.
func TestOpenCatchesBrokenPage(t *testing.T) {
	needChromium(t)
	page := filepath.Join(t.TempDir(), "broken.html")
	html := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>broken</title></head><body>
<div class="chart" id="empty" style="height: 100px"></div>
<img src="http://127.0.0.1:9/missing.png">
<script>console.error("boom"); throw new Error("bad page");</script>
</body></html>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Open(context.Background(), page, Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Charts) != 1 || rep.Charts[0].Instance || rep.Charts[0].Painted != 0 {
		t.Errorf("charts %+v", rep.Charts)
	}
	if len(rep.Requests) != 1 || rep.Requests[0] != "http://127.0.0.1:9/missing.png" {
		t.Errorf("requests %v", rep.Requests)
	}
	var sawConsole, sawException bool
	for _, e := range rep.Errors {
		sawConsole = sawConsole || strings.Contains(e, "boom")
		sawException = sawException || strings.Contains(e, "bad page")
	}
	if !sawConsole || !sawException {
		t.Errorf("errors %q", rep.Errors)
	}
}
