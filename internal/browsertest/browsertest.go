// Package browsertest opens pgbufsim's HTML pages (report.html,
// sweep.html) in a real browser, headless Chromium driven through the
// Chrome DevTools Protocol (github.com/chromedp/chromedp), and reports
// what a reader would see: whether every chart drew on its canvas, which
// network requests the page made, and what errors it logged. The pages
// promise to be self-contained and offline (docs/metrics.md); this is the
// check that they are, in the browser rather than in their bytes.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// ErrNoChromium means no Chromium binary was found.
var ErrNoChromium = errors.New("no Chromium found (install Debian's chromium package: apt-get install chromium; or set CHROMIUM to the binary)")

// Chromium returns the path of a Chromium binary: $CHROMIUM, or the first
// of chromium, chromium-browser, google-chrome on PATH or in /usr/bin.
func Chromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
		if p := filepath.Join("/usr/bin", name); fileExists(p) {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Chart is what one chart container (div.chart) shows.
type Chart struct {
	ID string `json:"id"`
	// Instance: echarts initialised the container.
	Instance bool `json:"instance"`
	// Width and Height of its canvas in pixels (0 without a canvas).
	Width  int `json:"width"`
	Height int `json:"height"`
	// Painted counts the canvas's pixels that are not transparent, and
	// Colors the distinct colours among them (a chart with data has its
	// series' colours besides the axes' and labels').
	Painted int `json:"painted"`
	Colors  int `json:"colors"`
	// Points counts the finite data values of its series, as echarts
	// holds them (0: a chart drawn with axes and no data).
	Points int `json:"points"`
}

// Report is what a page did in the browser.
type Report struct {
	Charts []Chart
	// Requests are the URLs the page requested besides itself.
	Requests []string
	// Errors are console errors, uncaught exceptions and browser log
	// entries of level error.
	Errors []string
	// ViewportWidth is the window's inner width in CSS pixels, and
	// Overflows the elements wider than it reaches (their right edge
	// beyond it, or content scrolled inside them): a table cut off at the
	// right edge, a chart wider than the window. Empty on a page that fits.
	ViewportWidth int
	Overflows     []Overflow
	// Screenshot is a PNG of the whole page (Options.Screenshot).
	Screenshot []byte
}

// Overflow is one element that does not fit the viewport's width.
type Overflow struct {
	// What names the element: tag, id or class, and the start of its text.
	What string `json:"what"`
	// Right is its right edge (or its content's, for an element that
	// scrolls) in CSS pixels from the page's left edge.
	Right int `json:"right"`
}

// overflowJS finds the innermost elements that reach past the viewport's
// right edge, and elements whose content is wider than their box (an
// overflow-x: auto table wrapper hides a cut-off table from the first
// test, not from the reader).
const overflowJS = `(function () {
  var vw = document.documentElement.clientWidth, out = [];
  function name(e) {
    var n = e.tagName.toLowerCase();
    if (e.id) n += "#" + e.id; else if (e.className && typeof e.className === "string") n += "." + e.className.split(" ")[0];
    var t = (e.textContent || "").trim().slice(0, 40);
    return t ? n + " \"" + t + "\"" : n;
  }
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return;
    var right = r.right + window.scrollX;
    if (right > vw + 1) {
      for (var c = e.firstElementChild; c; c = c.nextElementSibling) {
        var cr = c.getBoundingClientRect();
        if (cr.width > 0 && cr.right + window.scrollX > vw + 1) return; // report the innermost
      }
      out.push({what: name(e), right: Math.round(right)});
    } else if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== "visible" && e.tagName !== "CANVAS") {
      out.push({what: name(e), right: Math.round(r.left + window.scrollX + e.scrollWidth)});
    }
  });
  return {width: vw, overflows: out};
})()`

// chartsJS inspects every chart container's canvas.
const chartsJS = `Array.from(document.querySelectorAll("div.chart")).map(function (div) {
  var c = div.querySelector("canvas");
  var inst = window.echarts && echarts.getInstanceByDom(div);
  var out = {id: div.id, instance: !!inst, width: 0, height: 0, painted: 0, colors: 0, points: 0};
  if (inst) {
    (inst.getOption().series || []).forEach(function (s) {
      (s.data || []).forEach(function (d) {
        var v = Array.isArray(d) ? d[d.length - 1] : (d !== null && typeof d === "object" ? d.value : d);
        if (Array.isArray(v)) v = v[v.length - 1];
        if (typeof v === "number" && isFinite(v)) out.points++;
      });
    });
  }
  if (!c) return out;
  out.width = c.width; out.height = c.height;
  var d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  var seen = {};
  for (var i = 0; i < d.length; i += 4) {
    if (d[i + 3] === 0) continue;
    out.painted++;
    var k = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
    if (!seen[k]) { seen[k] = true; out.colors++; }
  }
  return out;
})`

// Options tune Open.
type Options struct {
	// Settle is how long to keep watching after every chart has painted,
	// for late requests and errors (default 1 s: echarts animates for 1 s).
	Settle time.Duration
	// Timeout bounds the wait for every chart to paint (default 60 s).
	Timeout time.Duration
	// Width is the window's width in pixels (default 1280).
	Width int
	// Screenshot asks for a PNG of the whole page in Report.Screenshot.
	Screenshot bool
}

// Open loads the HTML file at path in a fresh headless Chromium (its own
// temporary profile, no network features) and reports its charts,
// requests and errors once every chart has painted or the timeout passed.
func Open(ctx context.Context, path string, opt Options) (*Report, error) {
	bin, err := Chromium()
	if err != nil {
		return nil, err
	}
	if opt.Settle == 0 {
		opt.Settle = time.Second
	}
	if opt.Timeout == 0 {
		opt.Timeout = 60 * time.Second
	}
	if opt.Width == 0 {
		opt.Width = 1280
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	page := (&url.URL{Scheme: "file", Path: abs}).String()
	profile, err := os.MkdirTemp("", "browsertest-profile-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)

	// The browser gets a margin beyond the wait for the charts, so that a
	// page whose charts never paint is still inspected and reported.
	paintDeadline := time.Now().Add(opt.Timeout)
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout+30*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(profile),
		// Chrome makes directories of its own in TMPDIR
		// (org.chromium.Chromium.*) and leaves them behind: inside the
		// profile they go with it.
		chromedp.Env("TMPDIR="+profile),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(opt.Width, 1024),
	)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	// Starting the browser attaches the tab, which enables the network,
	// runtime and log domains, so the subscriptions below see everything.
	if err := chromedp.Do(bctx); err != nil {
		return nil, fmt.Errorf("starting %s: %v", bin, err)
	}
	rep := &Report{}
	var mu sync.Mutex
	err = chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil && e.Request.URL != page {
			mu.Lock()
			rep.Requests = append(rep.Requests, e.Request.URL)
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, err
	}
	messages := chromedp.Console(bctx)
	consoleDone := make(chan struct{})
	go func() {
		defer close(consoleDone)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				mu.Lock()
				rep.Errors = append(rep.Errors, fmt.Sprintf("%s %s:%d: %s", m.Type, m.URL, m.Line+1, m.Text))
				mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(bctx, chromedp.Navigate(page)); err != nil {
		return nil, fmt.Errorf("opening %s: %v", page, err)
	}
	var charts []Chart
	inspect := func() error {
		c, err := chromedp.Run(bctx, chromedp.Evaluate[[]Chart](chartsJS))
		if err != nil {
			return fmt.Errorf("inspecting the charts: %v", err)
		}
		charts = c
		return nil
	}
	for timedOut := false; !timedOut; {
		if err := inspect(); err != nil {
			return nil, err
		}
		if allPainted(charts) {
			// echarts animates series in over about a second: look
			// again once it is done, and keep listening meanwhile for
			// late requests and errors.
			select {
			case <-bctx.Done():
			case <-time.After(opt.Settle):
				if err := inspect(); err != nil {
					return nil, err
				}
			}
			break
		}
		if time.Now().After(paintDeadline) {
			timedOut = true // the caller sees the unpainted charts
			continue
		}
		select {
		case <-bctx.Done():
			return nil, bctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	type fit struct {
		Width     int        `json:"width"`
		Overflows []Overflow `json:"overflows"`
	}
	f, err := chromedp.Run(bctx, chromedp.Evaluate[fit](overflowJS))
	if err != nil {
		return nil, fmt.Errorf("measuring the page's width: %v", err)
	}
	if opt.Screenshot {
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			return nil, fmt.Errorf("screenshot: %v", err)
		}
		rep.Screenshot = png
	}
	cancelBrowser()
	<-consoleDone
	mu.Lock()
	defer mu.Unlock()
	rep.Charts = charts
	rep.ViewportWidth, rep.Overflows = f.Width, f.Overflows
	return rep, nil
}

func allPainted(cs []Chart) bool {
	for _, c := range cs {
		if c.Painted == 0 {
			return false
		}
	}
	return true
}
